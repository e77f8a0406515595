"""Stoichiometry tasks (ChemAlgebra): reaction corpus, loaders, rebalancing, splits and task builders.

The families that use them are registered in :mod:`rlvr.families.stoich`. See ``docs/stoichiometry.md``.
"""
