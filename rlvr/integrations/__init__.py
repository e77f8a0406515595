"""Adapters whose import needs a third-party framework (each module imports its own framework).

- :mod:`rlvr.integrations.verifiers_env`: a verifiers (>= 0.4) taskset over rlvr families, served by
  the ``environments/rlvr_chem_env`` package to ``vf-eval``, ``vf-validate`` and prime-rl.

The verl, OpenRLHF and TRL adapters need no framework at import time and live in
:mod:`rlvr.rewards` and :mod:`rlvr.envs`.
"""
