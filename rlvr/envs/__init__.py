"""Gymnasium text environments over rlvr's task families, wrappers, and a TRL ``environment_factory`` adapter.

Importing this package registers (see ``docs/integrations.md``):

- ``rlvr/Stoichiometry-v0`` -> :class:`StoichiometryEnv` (``family``, ``split``, family options as keywords)
- ``rlvr/MolecularIQ-v0`` -> :class:`MolecularIQEnv` (``task_type``, pool ``split``, family options)
- ``rlvr/ChemMix-v0`` -> :class:`ChemMixEnv` (a weighted ``mix`` of any families)

so ``gymnasium.make("rlvr/Stoichiometry-v0")`` works after ``import rlvr.envs``, and
``gymnasium.make("rlvr.envs:rlvr/Stoichiometry-v0")`` works without it.
"""
from __future__ import annotations

from gymnasium.envs.registration import register, registry

from rlvr.envs.episode import Episode, TurnConfig, TurnResult, prompt_text
from rlvr.envs.feedback import feedback_lines, feedback_text
from rlvr.envs.spaces import ChatText
from rlvr.envs.text_env import ChemEnv, ChemMixEnv, MolecularIQEnv, StoichiometryEnv
from rlvr.envs.wrappers import ChatTemplateObservation, TaskStatistics, render_chat_template

#: registered environment ids -> entry points
ENV_IDS = {
    "rlvr/Stoichiometry-v0": "rlvr.envs.text_env:StoichiometryEnv",
    "rlvr/MolecularIQ-v0": "rlvr.envs.text_env:MolecularIQEnv",
    "rlvr/ChemMix-v0": "rlvr.envs.text_env:ChemMixEnv",
}

for _env_id, _entry_point in ENV_IDS.items():
    if _env_id not in registry:
        register(id=_env_id, entry_point=_entry_point)


def __getattr__(name: str):
    if name == "ChemToolEnv":  # the TRL adapter, imported on demand
        from rlvr.envs.trl import ChemToolEnv

        return ChemToolEnv
    raise AttributeError(f"module 'rlvr.envs' has no attribute {name!r}")


__all__ = [
    "ENV_IDS", "ChatTemplateObservation", "ChatText", "ChemEnv", "ChemMixEnv", "ChemToolEnv", "Episode",
    "MolecularIQEnv", "StoichiometryEnv", "TaskStatistics", "TurnConfig", "TurnResult", "feedback_lines",
    "feedback_text", "prompt_text", "render_chat_template",
]
