"""Rebalancing unbalanced reactions with small molecules (ChemAlgebra section 3.1, USPTO-BAL).

Patent reactions usually record only the main product. When the atoms (and charge) missing on
one side decompose *uniquely* into a whitelist of small molecules (water, hydrogen halides,
ammonia, CO2, N2, H2, simple salts, halide and hydroxide anions, small alcohols and acids, ...),
those molecules are added to that side; otherwise the reaction is dropped and the reason is
counted:

- ``mixed_difference``: atoms are missing on both sides (no one-sided completion exists);
- ``charge_difference``: only the net charge differs, or the difference carries a positive charge
  (the whitelist's only ions are anions);
- ``no_decomposition``: no combination of whitelist molecules matches the difference;
- ``ambiguous``: more than one combination matches;
- ``too_large``: the difference has more atoms than :data:`MAX_DIFFERENCE_ATOMS`;
- ``search_limit``: the bounded search gave up (never seen in practice);
- ``hydrogen_evolution``: the completion would give off H2 although the record is not a bare
  dehydrogenation (one reactant, nothing else listed; ``dehydrogenation=True``). Oxidations and
  oxidative couplings record their oxidant as a reagent (PCC, Dess-Martin periodinane, a Swern
  mixture, an oxidative bromination with HBr), and the hydrogen never leaves as H2. Consuming H2
  (the usual formal record of a reduction with a hydride or a hydrogenation) stays allowed;
- ``implausible_byproduct``: (reaction SMILES only) every completion adds an organic molecule
  whose carbon skeleton occurs in no molecule on the side it comes from, such as ethanol from a
  dimethyl acetal or isobutylene from THF.

Water present in the reaction mixture (``water_listed``) may take part: when the difference does
not decompose, it is retried with one or two water molecules consumed on the other side, so an
ester hydrolysis recorded as ``ester>>acid`` in aqueous base becomes ``ester + H2O -> acid +
MeOH``, a Suzuki coupling ``ArB(OH)2 + ArBr + H2O -> Ar-Ar + B(OH)3 + HBr`` and an oxazolidinone
hydrolysis ``+ H2O -> amino alcohol + CO2``. When a reducing agent is recorded
(``reductant_listed``: H2, a borohydride or other B/Al/Si/Sn hydride, formate, hydrazine, Fe, Zn,
Sn, SnCl2, ...), the completion may also consume up to three H2, the formal record of the
reduction, which completes differences missing atoms on both sides: ``ArNO2 + 3 H2 -> ArNH2 +
2 H2O``. Consuming water is preferred to consuming hydrogen.

With the SMILES of both sides (reaction SMILES data), a completion must be plausible: an added
organic molecule with two or more carbons must have its carbon skeleton in a molecule of the side
it comes from; among several plausible completions the unique one with the fewest molecules is
taken (Boc2O gives tBuOH + CO2, not isobutylene + H2O + CO2).

Anions are only used when the difference is negatively charged (the whitelist has no cations),
so they never make a neutral difference ambiguous. The search is exact and bounded (non-negative
integer combinations, depth-first with pruning; the charge is checked on complete combinations).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Iterable, Mapping, Sequence

from rlvr.chem.balance import side_total
from rlvr.chem.formula import Formula
from rlvr.chem.smiles import canonical_smiles, smiles_formula
from rlvr.generators.stoich.completion_checks import plausible

_DATA = json.loads(resources.files("rlvr").joinpath("data", "small_molecules.json").read_text(encoding="utf-8"))

#: (name, SMILES) of the small molecules a difference may be completed with (``rlvr/data/small_molecules.json``).
SMALL_MOLECULES: tuple[tuple[str, str], ...] = tuple((name, smiles) for name, smiles in _DATA["whitelist"])
#: by-products of common reagents: they complete user reactions (NBS/NCS -> succinimide, benzyl
#: hydrogenolysis -> toluene, DMF formylation -> dimethylamine) but are not corpus byproduct labels
REAGENT_BYPRODUCTS: tuple[tuple[str, str], ...] = tuple((name, smiles) for name, smiles in _DATA["reagent_byproducts"])

#: Differences with more atoms than this are not searched (reason ``too_large``).
MAX_DIFFERENCE_ATOMS = 80
#: Node budget of one decomposition search (reason ``search_limit`` when exceeded).
MAX_SEARCH_NODES = 200_000

DROP_REASONS = ("mixed_difference", "charge_difference", "no_decomposition", "ambiguous", "too_large", "search_limit",
                "hydrogen_evolution", "implausible_byproduct")
#: water molecules a difference may be completed with when water is in the reaction mixture
MAX_WATER = 2
_WATER = "O"
_HYDROGEN = "[H][H]"
#: completions looked at per decomposition when plausibility may single one out
_LIMIT = 4
#: H2 molecules a formal reduction may consume (nitro to amine: 3)
MAX_HYDROGEN = 3


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
def completion_molecules() -> tuple[SmallMolecule, ...]:
    """What a difference may be completed with: the whitelist, then :data:`REAGENT_BYPRODUCTS`."""
    extra = []
    for name, smi in REAGENT_BYPRODUCTS:
        can = canonical_smiles(smi)
        extra.append(SmallMolecule(name, can, smiles_formula(can)))
    out = whitelist() + tuple(extra)
    if len({m.hill for m in out}) != len(out):
        raise AssertionError("completion molecules with the same formula")
    return out


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


def decompose(target: Mapping[str, int], molecules: Sequence[SmallMolecule] | None = None,
              exclude: Iterable[str] = (), limit: int = 2) -> Decomposition:
    """Up to ``limit`` non-negative integer combinations of whitelist molecules equal to ``target``.

    ``target`` maps elements to non-negative counts and optionally ``"charge"`` to the net charge
    (any sign); molecules whose SMILES is in ``exclude`` are not used.
    """
    mols = tuple(molecules) if molecules is not None else completion_molecules()
    want = {k: int(v) for k, v in target.items() if v}
    charge = want.pop("charge", 0)
    if any(v < 0 for v in want.values()):
        raise ValueError("decompose() needs a non-negative target")
    if charge > 0 or (charge and not want):
        return Decomposition((), "charge_difference")
    if sum(want.values()) > MAX_DIFFERENCE_ATOMS:
        return Decomposition((), "too_large")
    skip = set(exclude)
    vecs = [dict(m.formula.counts) for m in mols]
    usable = [i for i, v in enumerate(vecs) if v and all(el in want for el in v) and mols[i].smiles not in skip
              and (charge or not mols[i].formula.charge)]
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
            if sum(mols[i].formula.charge * k for i, k in chosen.items()) == charge:
                solutions.append(dict(chosen))
            return len(solutions) < limit
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
        return Decomposition(tuple(solutions), "ambiguous")
    if nodes > MAX_SEARCH_NODES:
        return Decomposition(tuple(solutions), "search_limit")
    if not solutions:
        return Decomposition((), "no_decomposition")
    return Decomposition((solutions[0],), "ok")


@dataclass(frozen=True)
class RebalanceResult:
    """``status``: ``balanced`` (already), ``rebalanced`` or ``dropped`` (with ``reason``).

    ``add_reactants`` / ``add_products`` are the whitelist molecules added (canonical SMILES,
    count); water from the mixture consumed by the completion is among ``add_reactants``.
    """

    status: str
    reason: str = ""
    add_reactants: tuple[tuple[str, int], ...] = ()
    add_products: tuple[tuple[str, int], ...] = ()




def _completions(target: dict[str, int], water_listed: bool, exclude: tuple[str, ...] = ()):
    """Candidate completions in order of preference: ``(decomposition, water molecules used)``;
    with water in the mixture, retried with one or two water molecules added."""
    yield decompose(target, exclude=exclude, limit=_LIMIT), 0
    if not water_listed:
        return
    water = next(m for m in completion_molecules() if m.smiles == _WATER)
    for k in range(1, MAX_WATER + 1):
        wet = dict(target)
        for el, n in water.formula.counts:
            wet[el] = wet.get(el, 0) + k * n
        yield decompose(wet, exclude=(_WATER, *exclude), limit=_LIMIT), k


def _one_sided(left_total: Counter, right_total: Counter) -> tuple[str, dict[str, int]]:
    """``("ok", target)`` with ``target["side"]`` 1 when molecules are missing on the left, -1 on
    the right; or ``(reason, {})``."""
    diff = Counter(right_total)
    diff.subtract(left_total)
    diff = Counter({k: v for k, v in diff.items() if v})
    if not diff:
        return "balanced", {}
    atoms = {k: v for k, v in diff.items() if k != "charge"}
    if diff.get("charge") and not atoms:
        return "charge_difference", {}
    signs = {v > 0 for v in atoms.values()}
    if len(signs) > 1:
        return "mixed_difference", {}
    sign = 1 if signs.pop() else -1
    return "ok", {**{k: v * sign for k, v in diff.items()}, "side": sign}


def _helpers(water_listed: bool, reductant_listed: bool) -> list[tuple[int, int]]:
    """``(water, hydrogen)`` molecules a completion may consume, in order of preference."""
    waters = range(MAX_WATER + 1) if water_listed else range(1)
    hydrogens = range(MAX_HYDROGEN + 1) if reductant_listed else range(1)
    return sorted(((w, h) for w in waters for h in hydrogens), key=lambda wh: (wh[1] > 0, wh[1], wh[0]))


def rebalance(left: Iterable[tuple[Formula, int]], right: Iterable[tuple[Formula, int]], *,
              water_listed: bool = False, reductant_listed: bool = False, dehydrogenation: bool = True,
              reactant_smiles: Sequence[str] | None = None, product_smiles: Sequence[str] | None = None) -> RebalanceResult:
    """Complete ``left -> right`` with whitelist molecules when the difference decomposes uniquely.

    ``water_listed``: water is in the reaction mixture and may be consumed; ``reductant_listed``:
    a reducing agent is, and formal H2 may be consumed; ``dehydrogenation``: H2 may be given off
    (the caller passes False unless the record is one reactant with nothing else listed). With the SMILES of both sides, completions
    adding an implausible organic molecule are skipped, and a unique most parsimonious plausible
    completion settles an ambiguity (module docstring).
    """
    left_total, right_total = side_total(left), side_total(right)
    status, _ = _one_sided(left_total, right_total)
    if status == "balanced":
        return RebalanceResult("balanced")
    by_smiles = {m.smiles: m for m in completion_molecules()}
    reasons: list[str] = []
    for n_water, n_h2 in _helpers(water_listed, reductant_listed):
        total = Counter(left_total)
        for smiles, k in ((_WATER, n_water), (_HYDROGEN, n_h2)):
            for el, n in by_smiles[smiles].formula.counts:
                total[el] += n * k
        status, target = _one_sided(total, right_total)
        if status != "ok":
            reasons.append(status)
            continue
        exclude = tuple(s for s, k in ((_WATER, n_water), (_HYDROGEN, n_h2)) if k)
        got = _complete(target, water_listed and not n_water, reactant_smiles, product_smiles, exclude, dehydrogenation)
        if isinstance(got, str):
            reasons.append(got)
            continue
        add_reactants, add_products = got
        merged: dict[str, int] = {}
        for s, k in add_reactants + ((_WATER, n_water), (_HYDROGEN, n_h2)):
            if k:
                merged[s] = merged.get(s, 0) + k
        return RebalanceResult("rebalanced", add_reactants=tuple(sorted(merged.items())), add_products=add_products)
    for reason in ("hydrogen_evolution", "implausible_byproduct", "ambiguous", "no_decomposition", "too_large",
                   "search_limit", "charge_difference", "mixed_difference"):
        if reason in reasons:
            return RebalanceResult("dropped", reason)
    return RebalanceResult("dropped", reasons[0])


def _complete(target: dict[str, int], water_made: bool, reactant_smiles: Sequence[str] | None,
              product_smiles: Sequence[str] | None, exclude: tuple[str, ...], dehydrogenation: bool):
    """``(added reactants, added products)`` completing a one-sided difference, or a drop reason.

    ``water_made``: when whitelist reactants are missing, water may be given off with them (an
    esterification recorded without its alcohol)."""
    side = target.pop("side")
    source = product_smiles if side > 0 else reactant_smiles
    mols = completion_molecules()
    reasons: list[str] = []
    for result, n_water in _completions(target, water_made and side > 0, exclude):
        options = result.solutions if result.reason in ("ok", "ambiguous") else ()
        found = [added for added in (tuple(sorted((mols[i].smiles, n) for i, n in sol.items())) for sol in options)
                 if source is None or plausible(added, source)]
        if source is not None and len(found) > 1 and len(options) < _LIMIT:
            fewest = min(sum(n for _, n in f) for f in found)
            found = [f for f in found if sum(n for _, n in f) == fewest]
        complete = result.reason == "ok" or (source is not None and len(options) < _LIMIT)
        if len(found) == 1 and complete:
            added = found[0]
            if side > 0:
                return added, (((_WATER, n_water),) if n_water else ())
            if not dehydrogenation and any(s == _HYDROGEN for s, _ in added):
                return "hydrogen_evolution"
            return (), added
        reasons.append(result.reason if not options else ("implausible_byproduct" if not found else "ambiguous"))
    for reason in ("implausible_byproduct", "ambiguous"):
        if reason in reasons:
            return reason
    return reasons[0]


def rebalance_formulas(left: Iterable[tuple[Formula, int]], right: Iterable[tuple[Formula, int]], *,
                       water_listed: bool = False, reductant_listed: bool = False,
                       dehydrogenation: bool = True) -> RebalanceResult:
    """As :func:`rebalance`, reporting added molecules as Hill formulas (for formula-only data)."""
    res = rebalance(left, right, water_listed=water_listed, reductant_listed=reductant_listed,
                    dehydrogenation=dehydrogenation)
    if res.status != "rebalanced":
        return res
    by_smiles = {m.smiles: m.hill for m in completion_molecules()}
    return RebalanceResult(
        res.status,
        res.reason,
        tuple((by_smiles[s], n) for s, n in res.add_reactants),
        tuple((by_smiles[s], n) for s, n in res.add_products),
    )
