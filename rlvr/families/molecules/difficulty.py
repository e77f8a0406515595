"""Difficulty cells of the molecular families, for frontier task selection (:mod:`rlvr.frontier`).

A cell is the question's load (features or constraints asked at once) and the molecule's Bertz
complexity bin, the two axes along which MolecularIQ reports difficulty. ``load`` is also the option
that sets it (levels 1, 2, 3, 5 as in the paper). Knobs (for frameworks' curricula): ``load`` and
``complexity_bin`` (the Bertz bins, simplest molecules first).
"""
from __future__ import annotations

from rlvr.chem.molecules.complexity import COMPLEXITY_BINS
from rlvr.registry import Difficulty, Knob
from rlvr.task import Task


def molecule_cell(task: Task) -> str:
    """``load=<n>,<complexity bin>`` from the task record."""
    meta = task.meta
    return f"load={int(meta.get('load', 1))},{meta.get('complexity_bin') or 'any'}"


MOLECULE_DIFFICULTY = Difficulty(
    cell=molecule_cell, option="load", levels=(1, 2, 3, 5),
    description="question load and the molecule's complexity bin",
    knobs=(Knob("load", (1, 2, 3, 5), description="features or constraints asked at once"),
           Knob("complexity_bin", tuple(COMPLEXITY_BINS), description="the molecule's Bertz complexity bin")),
)
