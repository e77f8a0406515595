"""Building the embedded reaction corpus: every :data:`~rlvr.generators.stoich.templates.TEMPLATES`
entry applied to the RDKit-wheel molecule pool (:mod:`~rlvr.generators.stoich.molecule_pool`) and
curated partners, each candidate balanced exactly; kept are reactions balanced in elements and
charge, with a single reacting site, well defined in both encodings. Inputs are processed in a
fixed order (sorted, stable hashes), so the corpus is identical on every machine with the same
RDKit version.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from itertools import product as iproduct
from typing import Any, Sequence

from rdkit import Chem, rdBase
from rdkit.Chem import AllChem

from rlvr.chem.balance import balance_formulas, side_total
from rlvr.chem.formula import Formula, formula_weight
from rlvr.chem.linalg import nullity
from rlvr.chem.smiles import canonical_smiles, smiles_formula, stable_smiles
from rlvr.generators.stoich.corpus_model import CORPUS_VERSION, Corpus, SpeciesTable
from rlvr.generators.stoich.molecule_pool import load_molecule_pool
from rlvr.generators.stoich.reaction import Reaction, reaction_key
from rlvr.generators.stoich.rebalance import whitelist_smiles
from rlvr.generators.stoich.templates import TEMPLATES, Template
from rlvr.progress import progress
from rlvr.rng import stable_hash


@dataclass
class _Prepared:
    template: Template
    rxn: Any
    queries: list[Any]
    partners: list[list[tuple[str, Any]]]


def _prepare(t: Template) -> _Prepared:
    rxn = AllChem.ReactionFromSmarts(t.smarts)
    rxn.Initialize()
    if rxn.GetNumReactantTemplates() != t.n_slots:
        raise ValueError(f"template {t.name}: SMARTS has {rxn.GetNumReactantTemplates()} reactants, partners list {t.n_slots}")
    queries = [rxn.GetReactantTemplate(i) for i in range(t.n_slots)]
    partners: list[list[tuple[str, Any]]] = []
    for slot, group in enumerate(t.partners):
        items = []
        for smi in group or ():
            can = stable_smiles(smi)
            mol = Chem.MolFromSmiles(can) if can else None
            if mol is None or not mol.HasSubstructMatch(queries[slot]):
                raise ValueError(f"template {t.name}: partner {smi!r} does not match slot {slot}")
            items.append((can, mol))
        partners.append(items)
    return _Prepared(t, rxn, queries, partners)


def _has_stereo(smiles: str) -> bool:
    return "@" in smiles or "/" in smiles or "\\" in smiles


def _product_sets(prep: _Prepared, mols: Sequence[Any]) -> tuple[set[tuple[str, ...]], str]:
    outcomes: set[tuple[str, ...]] = set()
    for products in prep.rxn.RunReactants(tuple(mols), 64):
        names = []
        for p in products:
            try:
                Chem.SanitizeMol(p)
            except Exception:  # noqa: BLE001 - RDKit raises several exception types
                return set(), "unsanitizable_product"
            can = Chem.MolToSmiles(p)
            if "." in can or "*" in can:
                return set(), "bad_product"
            names.append(can)
        outcomes.add(tuple(names))
    if len(outcomes) == 1:
        stable = tuple(stable_smiles(s) for s in next(iter(outcomes)))
        if None in stable:
            return set(), "unstable_smiles"
        outcomes = {stable}  # type: ignore[arg-type]
    return outcomes, ""


@dataclass
class _Built:
    reactants: dict[str, int]
    products: dict[str, int]
    main: tuple[str, ...]
    byproducts: tuple[str, ...]
    reagents: tuple[str, ...]
    mw: float
    stereo: bool


def _mw(smiles: str) -> float:
    return formula_weight(smiles_formula(smiles))


def _balance_with_hint(left: list[Formula], right: list[Formula], hint: Sequence[int] | None) -> list[int]:
    """Exact balance; a previous solution of the same template is reused only when it provably is the
    answer :func:`balance_formulas` would give (it conserves, all positive, gcd 1, null space of dimension 1)."""
    if hint is not None and len(hint) == len(left) + len(right):
        n = len(left)
        lhs = side_total(zip(left, hint[:n]))
        rhs = side_total(zip(right, hint[n:]))
        if lhs == rhs and nullity(left + right, balanced=True) == 1:
            return list(hint)
    return balance_formulas(left, right)


def build_candidate(
    template: Template,
    substrates: Sequence[str],
    main_products: Sequence[str],
    hints: dict[int, list[int]] | None = None,
) -> tuple[_Built | None, str]:
    """Assemble and balance one candidate reaction; ``(None, reason)`` when it is rejected.

    ``hints`` (per byproduct alternative) carries the last coefficient vector found for this template.
    """
    co = [canonical_smiles(s) for s in template.co_reactants]
    left_names = list(dict.fromkeys([*substrates, *co]))
    left_elements = {el for s in left_names for el, _ in smiles_formula(s).counts}
    for alt_index, alternative in enumerate(template.byproducts):
        by = [canonical_smiles(s) for s in alternative]
        right_names = list(dict.fromkeys([*main_products, *by]))
        right_elements = {el for s in right_names for el, _ in smiles_formula(s).counts}
        if right_elements != left_elements:
            continue
        if set(left_names) & set(right_names):
            return None, "species_on_both_sides"
        try:
            coefs = _balance_with_hint(
                [smiles_formula(s) for s in left_names],
                [smiles_formula(s) for s in right_names],
                None if hints is None else hints.get(alt_index),
            )
        except ValueError:
            continue
        if hints is not None:
            hints[alt_index] = coefs
        n = len(left_names)
        reactants = dict(zip(left_names, coefs[:n]))
        products = dict(zip(right_names, coefs[n:]))
        left_hill = {smiles_formula(s).hill() for s in reactants}
        right_hill = {smiles_formula(s).hill() for s in products}
        if left_hill & right_hill or len(left_hill) != len(reactants) or len(right_hill) != len(products):
            return None, "formula_collision"
        main = tuple(dict.fromkeys(main_products))
        return _Built(
            reactants=reactants,
            products=products,
            main=main,
            byproducts=tuple(s for s in products if s not in main),
            reagents=(),
            mw=max(_mw(s) for s in main),
            stereo=any(_has_stereo(s) for s in main),
        ), ""
    return None, "unbalanceable"


def _choose_reagents(template: Template, built: _Built, key: str) -> tuple[str, ...]:
    sets = template.reagents
    if not sets:
        return ()
    taken_smiles = set(built.reactants) | set(built.products)
    taken_hill = {smiles_formula(s).hill() for s in taken_smiles}
    start = stable_hash("reagents", template.name, key) % len(sets)
    for off in range(len(sets)):
        group = tuple(canonical_smiles(s) for s in sets[(start + off) % len(sets)])
        hills = {smiles_formula(s).hill() for s in group}
        if set(group) & taken_smiles or hills & taken_hill or len(hills) != len(group):
            continue
        return group
    return ()


def _query_text(query: Any) -> str:
    """Map-number-free SMARTS of a reactant template (the cache key of its pool matches)."""
    q = Chem.Mol(query)
    for atom in q.GetAtoms():
        atom.SetAtomMapNum(0)
    return Chem.MolToSmarts(q)


def _apply_template(
    prep: _Prepared,
    pool: Sequence[tuple[str, Any]],
    extras: Sequence[tuple[str, Any]],
    cap: int,
    seen: set[str],
    match_cache: dict[str, list[str]],
) -> tuple[list[tuple[_Built, str]], dict[str, Any]]:
    t = prep.template
    stats: Counter = Counter()
    combos: list[tuple[str, ...]] = []
    mols: dict[str, Any] = {}
    for smi, mol in [*pool, *extras]:
        mols.setdefault(smi, mol)
    for items in prep.partners:
        for smi, mol in items:
            mols.setdefault(smi, mol)
    for slot in t.substrate_slots():
        query = prep.queries[slot]
        text = _query_text(query)
        if text not in match_cache:
            match_cache[text] = [smi for smi, mol in pool if mol.HasSubstructMatch(query)]
        matching = match_cache[text] + [smi for smi, mol in extras if mol.HasSubstructMatch(query)]
        stats[f"substrates_slot{slot}"] = len(matching)
        others = [[smi for smi, _ in prep.partners[j]] if j != slot else None for j in range(t.n_slots)]
        for smi in matching:
            choices = [[smi] if j == slot else others[j] for j in range(t.n_slots)]
            combos.extend(iproduct(*choices))
    combos = sorted(set(combos), key=lambda c: (stable_hash(t.name, *c), c))
    stats["candidates"] = len(combos)
    accepted: list[tuple[_Built, str]] = []
    hints: dict[int, list[int]] = {}
    for combo in combos:
        if len(accepted) >= cap:
            break
        stats["tried"] += 1
        outcomes, reason = _product_sets(prep, [mols[s] for s in combo])
        if reason:
            stats[reason] += 1
            continue
        if not outcomes:
            stats["no_product"] += 1
            continue
        if len(outcomes) > 1:
            stats["multiple_sites"] += 1
            continue
        built, reason = build_candidate(t, combo, next(iter(outcomes)), hints)
        if built is None:
            stats[reason] += 1
            continue
        key = reaction_key(built.reactants.items(), built.products.items())
        if key in seen:
            stats["duplicate"] += 1
            continue
        seen.add(key)
        built.reagents = _choose_reagents(t, built, key)
        accepted.append((built, key))
    stats["accepted"] = len(accepted)
    return accepted, dict(sorted(stats.items()))


def build_embedded(
    *,
    molecule_limit: int | None = None,
    cap_scale: float = 1.0,
    templates: Sequence[Template] = TEMPLATES,
    name: str = "embedded",
) -> Corpus:
    """Build the template corpus (deterministic; see module docs). ``cap_scale`` scales every template cap."""
    t0, c0 = time.perf_counter(), time.process_time()
    pool_smiles = load_molecule_pool(molecule_limit)
    pool = [(s, Chem.MolFromSmiles(s)) for s in pool_smiles]
    table = SpeciesTable()
    small = whitelist_smiles()
    reactions: list[Reaction] = []
    seen: set[str] = set()
    derived: dict[str, list[str]] = {}
    per_template: dict[str, Any] = {}
    match_cache: dict[str, list[str]] = {}
    in_pool = set(pool_smiles)
    for t in progress(templates, f"{name} corpus: templates", unit="template"):
        prep = _prepare(t)
        extras: list[tuple[str, Any]] = []
        if t.derive_from:
            extras = [(s, Chem.MolFromSmiles(s)) for s in derived.get(t.derive_from, []) if s not in in_pool]
        cap = max(1, int(round(t.cap * cap_scale)))
        accepted, stats = _apply_template(prep, pool, extras, cap, seen, match_cache)
        per_template[t.name] = stats
        mains: set[str] = set()
        for built, _key in accepted:
            mains.update(built.main)
            by = set(built.byproducts) | {s for s in built.products if s in small and s not in built.main}
            if len(by) == len(built.products):
                by = set()
            reactions.append(Reaction(
                reactants=tuple((table.add_smiles(s), k) for s, k in built.reactants.items()),
                reagents=tuple((table.add_smiles(s), 1) for s in built.reagents),
                products=tuple((table.add_smiles(s), k) for s, k in built.products.items()),
                byproducts=tuple(sorted(table.add_smiles(s) for s in by)),
                rclass=t.name,
                source="template",
                product_mw=round(built.mw, 3),
                stereo=built.stereo,
            ))
        derived[t.name] = sorted(mains)
    stats = {
        "version": CORPUS_VERSION,
        "rdkit": rdBase.rdkitVersion,
        "pool_molecules": len(pool_smiles),
        "molecule_limit": molecule_limit,
        "cap_scale": cap_scale,
        "build_seconds": round(time.perf_counter() - t0, 2),
        "build_cpu_seconds": round(time.process_time() - c0, 2),
        "templates": per_template,
    }
    return Corpus(name, tuple(table.smiles), tuple(table.formula), tuple(reactions), stats)
