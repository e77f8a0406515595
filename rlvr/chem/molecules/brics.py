"""BRICS decomposition with a work bound.

The MolecularIQ count ``brics_decomposition_count`` is the number of distinct leaf fragments of
RDKit's ``BRICS.BRICSDecompose`` (default settings). That procedure explores every order of
cleavage: each cut re-labels the dummy atoms, which can make further bonds cleavable or give the
same bond a different label, so the set of leaves is not always the result of a single cleavage
order (about 0.2% of NCI molecules differ). Its cost grows with the number of intermediate
fragments, which is exponential for heavily branched molecules (sugar peracetates take seconds).

:func:`brics_leaves` runs the same exploration, rule group by rule group, but counts every
product molecule it builds; within ``budget`` products the result equals ``BRICSDecompose``.
Beyond it, the leaves of a single greedy cleavage order are returned (a valid decomposition,
possibly missing label variants) and the result is flagged as not exact.
"""
from __future__ import annotations

from dataclasses import dataclass

from rdkit import Chem
from rdkit.Chem import BRICS

#: products built by the exploration before falling back to a single cleavage order
BRICS_BUDGET = 400

REASON_BUDGET = "brics_budget_exhausted"


@dataclass(frozen=True)
class BricsResult:
    """Distinct leaf fragments (SMILES with labelled dummy atoms) and whether they are exact."""

    fragments: frozenset[str]
    exact: bool = True
    reason: str = ""


class _Budget(Exception):
    pass


def _cuts(mol: Chem.Mol, group, counter: list[int] | None):
    """Every valid single cleavage of ``mol`` by the reactions of one BRICS rule group.

    With a ``counter`` (products left in the budget) RDKit is asked for at most that many
    products; without one (greedy mode) for one product set per reaction.
    """
    for rxn in group:
        limit = 1 if counter is None else max(1, counter[0])
        for prods in rxn.RunReactants((mol,), limit):
            out = []
            for p in prods:
                if counter is not None:
                    counter[0] -= 1
                    if counter[0] < 0:
                        raise _Budget
                try:
                    Chem.SanitizeMol(p)
                except (Chem.rdchem.MolSanitizeException, RuntimeError, ValueError):
                    continue
                smi = Chem.MolToSmiles(p)
                if p.GetNumAtoms(onlyExplicit=True) - smi.count("*") < 1:
                    out = None  # a fragment made only of dummy atoms disqualifies the cut
                    break
                out.append((smi, p))
            if out is not None:
                yield out


def _explore(mol: Chem.Mol, counter: list[int] | None, greedy: bool) -> frozenset[str]:
    start = Chem.MolToSmiles(mol)
    active = {start: mol}
    seen = {start}
    for group in BRICS.reactions:
        survivors: dict[str, Chem.Mol] = {}
        while active:
            smi, m = active.popitem()
            matched = False
            for cut in _cuts(m, group, counter):
                matched = True
                for psmi, p in cut:
                    if psmi not in seen:
                        seen.add(psmi)
                        active[psmi] = p
                if greedy:
                    break
            if not matched:
                survivors[smi] = m
        active = survivors
    return frozenset(active)


def brics_leaves(mol: Chem.Mol, budget: int = BRICS_BUDGET) -> BricsResult:
    """Leaf fragments of the BRICS decomposition of ``mol`` (see module docstring)."""
    try:
        return BricsResult(_explore(mol, [budget], greedy=False))
    except _Budget:
        return BricsResult(_explore(mol, None, greedy=True), False, REASON_BUDGET)
