"""Stoichiometry tasks (ChemAlgebra): reaction corpus, loaders, rebalancing, splits and task families.

Families (registered in :mod:`rlvr.families.stoich`): ``stoich.balance``, ``stoich.t1``,
``stoich.t2``, ``stoich.byproduct``. See ``docs/stoichiometry.md``.
"""
