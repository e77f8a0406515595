"""Adapters whose import needs a third-party framework (each module imports its own framework).

- :mod:`rlvr.integrations.verifiers_env`: a verifiers (>= 0.4) taskset over rlvr families, served by
  the ``environments/rlvr_chem_env`` package to ``vf-eval``, ``vf-validate`` and prime-rl.
- :mod:`rlvr.integrations.reasoning_gym`: every family as a reasoning-gym dataset ``rlvr/<family>``
  (registered on import), with its difficulty knobs as a reasoning-gym curriculum.
- :mod:`rlvr.integrations.skyrl_gym`: a SkyRL-gym text environment ``rlvr_chem`` (registered on import).
- :mod:`rlvr.integrations.atropos`: an Atropos environment (``BaseEnv``) serving and scoring rlvr tasks.
- :mod:`rlvr.integrations.nemo_gym`: a NeMo-Gym resources server (Python >= 3.12); its data side,
  :mod:`rlvr.integrations.nemo_gym_data`, needs no framework (``rlvr export --format nemo-gym``).

The verl, OpenRLHF and TRL adapters need no framework at import time and live in
:mod:`rlvr.rewards` and :mod:`rlvr.envs`. Every adapter scores with :func:`rlvr.verify`.
"""
