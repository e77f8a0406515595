"""MolecularIQ-style molecular-structure tasks: feature solvers, molecule pools, task builders."""
