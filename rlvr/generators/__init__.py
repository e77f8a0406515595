"""Task generators: one subpackage per task family (stoichiometry, molecules, worked solutions)."""
