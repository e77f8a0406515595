"""The rlvr-chem-env verifiers environment: rlvr families as an unlimited taskset scored by rlvr's verifiers.

The taskset lives in :mod:`rlvr.integrations.verifiers_env`; this package gives it the id
``rlvr-chem-env`` that ``vf-eval``, ``vf-validate`` and prime-rl resolve.
"""
from rlvr.integrations.verifiers_env import ChemTaskset, load_environment

__all__ = ["ChemTaskset", "load_environment"]
