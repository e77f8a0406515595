"""Rebalancing unbalanced reactions with small molecules (ChemAlgebra section 3.1, USPTO-BAL).

Patent reactions usually record only the main product. When the atoms (and charge) missing on
one side decompose *uniquely* into a whitelist of small molecules (water, hydrogen halides,
ammonia, CO2, N2, H2, simple salts, small alcohols and acids, ...), those molecules are added to
that side; otherwise the reaction is dropped and the reason is counted:

- ``mixed_difference``: atoms are missing on both sides (no one-sided completion exists);
- ``charge_difference``: the net charge differs (the whitelist is neutral);
- ``no_decomposition``: no combination of whitelist molecules matches the difference;
- ``ambiguous``: more than one combination matches;
- ``too_large``: the difference has more atoms than :data:`MAX_DIFFERENCE_ATOMS`;
- ``search_limit``: the bounded search gave up (never seen in practice).

The search is exact and bounded (non-negative integer combinations, depth-first with pruning).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from rlvr.chem.balance import side_total
from rlvr.chem.formula import Formula
from rlvr.chem.smiles import canonical_smiles, smiles_formula

#: (name, SMILES) of the small molecules a difference may be completed with.
SMALL_MOLECULES: tuple[tuple[str, str], ...] = (
    ("water", "O"),
    ("hydrogen chloride", "Cl"),
    ("hydrogen bromide", "Br"),
    ("hydrogen iodide", "I"),
    ("hydrogen fluoride", "F"),
    ("ammonia", "N"),
    ("carbon dioxide", "O=C=O"),
    ("nitrogen", "N#N"),
    ("hydrogen", "[H][H]"),
    ("sulfur dioxide", "O=S=O"),
    ("methanol", "CO"),
    ("ethanol", "CCO"),
    ("tert-butanol", "CC(C)(C)O"),
    ("isobutylene", "C=C(C)C"),
    ("acetic acid", "CC(=O)O"),
    ("trifluoroacetic acid", "O=C(O)C(F)(F)F"),
    ("methanesulfonic acid", "CS(=O)(=O)O"),
    ("boric acid", "OB(O)O"),
    ("sodium chloride", "[Na]Cl"),
    ("potassium chloride", "[K]Cl"),
    ("lithium chloride", "[Li]Cl"),
    ("sodium bromide", "[Na]Br"),
    ("potassium bromide", "[K]Br"),
    ("sodium iodide", "[Na]I"),
    ("potassium iodide", "[K]I"),
    ("sodium hydroxide", "[Na]O"),
    ("potassium hydroxide", "[K]O"),
    ("lithium hydroxide", "[Li]O"),
    ("triphenylphosphine oxide", "O=P(c1ccccc1)(c1ccccc1)c1ccccc1"),
)

#: Differences with more atoms than this are not searched (reason ``too_large``).
MAX_DIFFERENCE_ATOMS = 80
#: Node budget of one decomposition search (reason ``search_limit`` when exceeded).
MAX_SEARCH_NODES = 200_000

DROP_REASONS = ("mixed_difference", "charge_difference", "no_decomposition", "ambiguous", "too_large", "search_limit")


@dataclass(frozen=True)
class SmallMolecule:
    name: str
    smiles: str
    formula: Formula

    @property
    def hill(self) -> str:
        return self.formula.hill()


@lru_cache(maxsize=1)
def whitelist() -> tuple[SmallMolecule, ...]:
    """The whitelist as :class:`SmallMolecule` records (canonical SMILES; unique Hill formulas)."""
    out = []
    seen: set[str] = set()
    for name, smi in SMALL_MOLECULES:
        can = canonical_smiles(smi)
        f = smiles_formula(can)
        if f.hill() in seen:
            raise AssertionError(f"whitelist formula {f.hill()} appears twice")
        seen.add(f.hill())
        out.append(SmallMolecule(name, can, f))
    return tuple(out)


@lru_cache(maxsize=1)
def whitelist_smiles() -> frozenset[str]:
    return frozenset(m.smiles for m in whitelist())


@lru_cache(maxsize=1)
def whitelist_formulas() -> frozenset[str]:
    return frozenset(m.hill for m in whitelist())


def is_small_molecule(key: str, encoding: str) -> bool:
    """True when ``key`` (canonical SMILES or Hill formula) is a whitelist molecule."""
    return key in (whitelist_formulas() if encoding == "formula" else whitelist_smiles())


@dataclass(frozen=True)
class Decomposition:
    """Outcome of :func:`decompose`: ``solutions`` holds up to two {whitelist index: count} maps."""

    solutions: tuple[dict[int, int], ...]
    reason: str  # ok | no_decomposition | ambiguous | too_large | search_limit | charge_difference


def decompose(target: Mapping[str, int], molecules: Sequence[SmallMolecule] | None = None) -> Decomposition:
    """All (up to two) non-negative integer combinations of whitelist molecules equal to ``target``.

    ``target`` maps elements (and optionally ``"charge"``) to non-negative counts.
    """
    mols = tuple(molecules) if molecules is not None else whitelist()
    want = {k: int(v) for k, v in target.items() if v}
    if want.get("charge"):
        return Decomposition((), "charge_difference")
    want.pop("charge", None)
    if any(v < 0 for v in want.values()):
        raise ValueError("decompose() needs a non-negative target")
    if sum(want.values()) > MAX_DIFFERENCE_ATOMS:
        return Decomposition((), "too_large")
    vecs = [dict(m.formula.counts) for m in mols]
    usable = [i for i, v in enumerate(vecs) if v and all(el in want for el in v) and not mols[i].formula.charge]
    # suffix coverage: which elements molecules i.. can still provide
    cover: list[set[str]] = [set() for _ in range(len(usable) + 1)]
    for pos in range(len(usable) - 1, -1, -1):
        cover[pos] = cover[pos + 1] | set(vecs[usable[pos]])
    solutions: list[dict[int, int]] = []
    nodes = 0

    def search(pos: int, rest: dict[str, int], chosen: dict[int, int]) -> bool:
        nonlocal nodes
        nodes += 1
        if nodes > MAX_SEARCH_NODES:
            return False
        if not rest:
            solutions.append(dict(chosen))
            return len(solutions) < 2
        if pos == len(usable) or not set(rest) <= cover[pos]:
            return True
        i = usable[pos]
        vec = vecs[i]
        most = min(rest.get(el, 0) // n for el, n in vec.items())
        for count in range(most, -1, -1):
            nxt = dict(rest)
            if count:
                for el, n in vec.items():
                    left = nxt[el] - n * count
                    if left:
                        nxt[el] = left
                    else:
                        del nxt[el]
                chosen[i] = count
            else:
                chosen.pop(i, None)
            if not search(pos + 1, nxt, chosen):
                chosen.pop(i, None)
                return False
        chosen.pop(i, None)
        return True

    search(0, want, {})
    if len(solutions) > 1:
        return Decomposition(tuple(solutions[:2]), "ambiguous")
    if nodes > MAX_SEARCH_NODES:
        return Decomposition(tuple(solutions), "search_limit")
    if not solutions:
        return Decomposition((), "no_decomposition")
    return Decomposition((solutions[0],), "ok")


@dataclass(frozen=True)
class RebalanceResult:
    """``status``: ``balanced`` (already), ``rebalanced`` or ``dropped`` (with ``reason``).

    ``add_reactants`` / ``add_products`` are the whitelist molecules added (canonical SMILES, count).
    """

    status: str
    reason: str = ""
    add_reactants: tuple[tuple[str, int], ...] = ()
    add_products: tuple[tuple[str, int], ...] = ()




def rebalance(left: Iterable[tuple[Formula, int]], right: Iterable[tuple[Formula, int]]) -> RebalanceResult:
    """Complete ``left -> right`` with whitelist molecules when the difference decomposes uniquely."""
    diff = side_total(right)
    diff.subtract(side_total(left))
    diff = Counter({k: v for k, v in diff.items() if v})
    if not diff:
        return RebalanceResult("balanced")
    atoms = {k: v for k, v in diff.items() if k != "charge"}
    if diff.get("charge") and not atoms:
        return RebalanceResult("dropped", "charge_difference")
    signs = {v > 0 for v in atoms.values()}
    if len(signs) > 1:
        return RebalanceResult("dropped", "mixed_difference")
    positive = signs.pop() if signs else diff["charge"] > 0
    # right has more atoms -> molecules are missing on the left (and vice versa)
    target = {k: (v if positive else -v) for k, v in diff.items()}
    result = decompose(target)
    if result.reason != "ok":
        return RebalanceResult("dropped", result.reason)
    mols = whitelist()
    added = tuple(sorted((mols[i].smiles, n) for i, n in result.solutions[0].items()))
    if positive:
        return RebalanceResult("rebalanced", add_reactants=added)
    return RebalanceResult("rebalanced", add_products=added)


def rebalance_formulas(left: Iterable[tuple[Formula, int]], right: Iterable[tuple[Formula, int]]) -> RebalanceResult:
    """As :func:`rebalance`, reporting added molecules as Hill formulas (for formula-only data)."""
    res = rebalance(left, right)
    if res.status != "rebalanced":
        return res
    by_smiles = {m.smiles: m.hill for m in whitelist()}
    return RebalanceResult(
        res.status,
        res.reason,
        tuple((by_smiles[s], n) for s, n in res.add_reactants),
        tuple((by_smiles[s], n) for s, n in res.add_products),
    )
