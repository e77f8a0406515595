"""Loaders for user reaction data, with rebalancing and ChemAlgebra Table-1 statistics.

Two formats:

- **reaction SMILES** (USPTO-MIT style): one reaction per line, ``reactants>reagents>products``
  (atom maps are removed, the middle field may be empty), optionally followed by extra columns
  separated by tabs, commas or spaces. With a header line, columns are named by it; ``patent`` /
  ``document`` / ``doc_id`` columns are kept as ``meta["document"]``, ``year`` / ``date`` as
  ``meta["year"]``, ``class`` / ``reaction_class`` as the reaction class, any other column under its
  own name (so document- and time-based splits, seed 003, work on user data). CXSMILES ``|...|``
  fields are ignored.
- **ChemAlgebra src/tgt pairs**: line i of ``src`` is the input bag and line i of ``tgt`` the output
  bag, in stoichiometric notation (``{2}CO2.{8}H2``; formulas or SMILES, tokenised with spaces or not;
  without braces every dot-separated molecule counts once). The reference reaction is recovered as
  the net change ``tgt - src`` (negative: reactants, positive: products, unchanged molecules present
  on both sides: reagents), reduced by the gcd.

Every reaction is then checked for element and charge balance. Before an unbalanced reaction-SMILES
record is rebalanced, the species of its reactant field are sorted (option ``roles``, default
``auto``; :mod:`rlvr.chem.roles`): those contributing no atom to a product (solvents, catalysts,
bases, most reagents) move to the reagents and are never consumed or produced by the rebalancing;
``roles="given"`` keeps the fields as written (the ChemAlgebra reading of ``reactants>reagents>
products``; the reagent field is never touched). H2 listed as a reactant stays a reactant. The
reaction is then rebalanced as in ChemAlgebra section 3.1 (:mod:`rlvr.generators.stoich.rebalance`;
water and a reducing agent in the mixture may be consumed) or, failing that (option
``solve_coefficients``), by solving for integer coefficients of the given species when the solution
is unique; otherwise it is dropped and the reason is counted. Bad lines (invalid SMILES or
formulas, empty sides, malformed fields) are skipped and counted; a load never aborts on data.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, TextIO

from rlvr.chem.balance import balance_formulas, side_total
from rlvr.chem.roles import MAPPERS, RoleAssignment, assign_roles_many, rxnmapper_available
from rlvr.chem.formula import formula_weight
from rlvr.chem.linalg import nullity
from rlvr.chem.notation import format_bag
from rlvr.generators.stoich.corpus_model import Corpus, SpeciesTable
from rlvr.generators.stoich.reaction import Reaction, key_formula, reaction_key
from rlvr.generators.stoich.reaction_readers import LoadStats, RawReaction, iter_reaction_smiles, iter_src_tgt
from rlvr.generators.stoich.completion_checks import has_reductant
from rlvr.generators.stoich.rebalance import DROP_REASONS, rebalance, rebalance_formulas, whitelist_formulas, whitelist_smiles
from rlvr.paths import cache_dir

LOADER_VERSION = "2"
#: how the reactant field of reaction-SMILES records is sorted (``given``: as written)
ROLE_MODES = (*MAPPERS, "given")
_HYDROGEN = "[H][H]"


@dataclass
class BalancedReaction:
    """A reaction that conserves elements and charge, with the byproducts and how it was obtained."""

    reactants: dict[str, int]
    reagents: dict[str, int]
    products: dict[str, int]
    byproducts: tuple[str, ...]
    encoding: str
    status: str  # balanced | rebalanced
    meta: dict[str, Any] = field(default_factory=dict)
    rclass: str = "user"


# ---------------------------------------------------------------------------------------------
# balancing
# ---------------------------------------------------------------------------------------------


def normalize_roles(raw: RawReaction) -> RawReaction:
    """Species on both sides become reagents (the unchanged amount); reagents that are also reactants
    or products are dropped from the reagents."""
    r, p, g = dict(raw.reactants), dict(raw.products), dict(raw.reagents)
    for key in [k for k in r if k in p]:
        common = min(r[key], p[key])
        g[key] = g.get(key, 0) + common
        r[key] -= common
        p[key] -= common
    r = {k: v for k, v in r.items() if v > 0}
    p = {k: v for k, v in p.items() if v > 0}
    g = {k: 1 for k in g if k not in r and k not in p}
    return RawReaction(r, g, p, raw.encoding, raw.meta, raw.rclass)


def apply_roles(raw: RawReaction, roles: RoleAssignment) -> RawReaction:
    """``raw`` with the species of its reactant field that contribute no atom to a product moved to
    the reagents (H2 stays a reactant: its atoms end up in the product)."""
    move = {k for k in roles.spectators if k in raw.reactants and k != _HYDROGEN}
    if not move:
        return raw
    reactants = {k: v for k, v in raw.reactants.items() if k not in move}
    reagents = dict(raw.reagents)
    for k in move:
        reagents.setdefault(k, 1)
    meta = {**raw.meta, "roles": roles.method, "moved_to_reagents": sorted(move)}
    return RawReaction(reactants, reagents, dict(raw.products), raw.encoding, meta, raw.rclass)


def _mixture_helpers(raw: RawReaction) -> tuple[bool, bool]:
    """Whether water, and a reducing agent, are in the reaction mixture (reactants or reagents)."""
    mixture = set(raw.reactants) | set(raw.reagents)
    if raw.encoding == "formula":
        return "H2O" in mixture, "H2" in mixture
    return "O" in mixture, has_reductant(mixture)


def is_balanced(raw: RawReaction) -> bool:
    """Whether a (role-normalised) record conserves elements and charge as written."""
    try:
        left = side_total((key_formula(k, raw.encoding), v) for k, v in raw.reactants.items())
        right = side_total((key_formula(k, raw.encoding), v) for k, v in raw.products.items())
    except ValueError:
        return False
    return left == right


def balance_raw(raw: RawReaction, stats: LoadStats, *, solve_coefficients: bool = True,
                roles: RoleAssignment | None = None) -> BalancedReaction | None:
    """Check, rebalance or drop one reaction (counting the outcome in ``stats``); ``roles`` sorts its
    reactant field first (:func:`apply_roles`)."""
    raw = normalize_roles(raw)
    water_listed, reductant_listed = _mixture_helpers(raw)
    if roles is not None:
        moved = apply_roles(raw, roles)
        if moved is not raw:
            stats.roles[roles.method] += 1
        raw = moved
    enc = raw.encoding
    if not raw.reactants or not raw.products:
        stats.dropped["empty_side"] += 1
        return None
    try:
        left = [(key_formula(k, enc), v) for k, v in raw.reactants.items()]
        right = [(key_formula(k, enc), v) for k, v in raw.products.items()]
    except ValueError:  # FormulaError, SmilesError
        stats.dropped["invalid_species"] += 1
        return None
    small = whitelist_formulas() if enc == "formula" else whitelist_smiles()
    if side_total(left) == side_total(right):
        stats.balanced += 1
        return _finish(raw, raw.reactants, raw.products, small, "balanced")
    bare = len(raw.reactants) == 1 and not raw.reagents  # one reactant, nothing else: a dehydrogenation may give off H2
    if enc == "formula":
        result = rebalance_formulas(left, right, water_listed=water_listed, reductant_listed=reductant_listed,
                                    dehydrogenation=bare)
    else:
        result = rebalance(left, right, water_listed=water_listed, reductant_listed=reductant_listed,
                           dehydrogenation=bare, reactant_smiles=list(raw.reactants), product_smiles=list(raw.products))
    if result.status == "rebalanced":
        reactants = dict(raw.reactants)
        products = dict(raw.products)
        reagents = dict(raw.reagents)
        clash = False
        for key, n in result.add_reactants:
            clash |= key in products
            reactants[key] = reactants.get(key, 0) + n
            reagents.pop(key, None)  # water or H2 of the mixture, now consumed
        for key, n in result.add_products:
            clash |= key in reactants
            products[key] = products.get(key, 0) + n
            reagents.pop(key, None)
        if not clash:
            stats.rebalanced += 1
            added = tuple(k for k, _ in result.add_products)
            meta = dict(raw.meta)
            if "moved_to_reagents" in meta:  # water or H2 of the mixture consumed: a reactant after all
                meta["moved_to_reagents"] = [k for k in meta["moved_to_reagents"] if k not in reactants]
            done = RawReaction(raw.reactants, reagents, raw.products, raw.encoding, meta, raw.rclass)
            return _finish(done, reactants, products, small, "rebalanced", added)
        reason = "added_species_clash"
    else:
        reason = result.reason
    if solve_coefficients:
        names_l, names_r = list(raw.reactants), list(raw.products)
        forms = [f for f, _ in left] + [f for f, _ in right]
        if nullity(forms) == 1:
            try:
                coefs = balance_formulas([f for f, _ in left], [f for f, _ in right])
            except ValueError:
                coefs = None
            if coefs is not None:
                stats.rebalanced += 1
                stats.rebalanced_by_coefficients += 1
                n = len(names_l)
                return _finish(raw, dict(zip(names_l, coefs[:n])), dict(zip(names_r, coefs[n:])), small, "rebalanced")
    stats.dropped[reason] += 1
    return None


def _finish(raw: RawReaction, reactants: dict[str, int], products: dict[str, int], small: frozenset[str],
            status: str, added: tuple[str, ...] = ()) -> BalancedReaction:
    by = set(added) | {k for k in products if k in small}
    if len(by) >= len(products):
        by = set()
    meta = dict(raw.meta)
    if added:
        meta["added_byproducts"] = list(added)
    return BalancedReaction(reactants, dict(raw.reagents), products, tuple(sorted(by)), raw.encoding, status, meta,
                            raw.rclass)


# ---------------------------------------------------------------------------------------------
# user corpus
# ---------------------------------------------------------------------------------------------


def tgt_twin(src: Path) -> Path | None:
    """``.../src-train.txt`` -> ``.../tgt-train.txt`` when that file exists."""
    name = src.name
    i = name.rfind("src")
    if i < 0:
        return None
    twin = src.with_name(name[:i] + "tgt" + name[i + 3:])
    return twin if twin.exists() else None


def resolve_spec(spec: str) -> tuple[str, Path, Path | None]:
    """``(format, path, tgt path)`` of a user corpus spec: ``FILE``, ``SRC::TGT`` or a src file with a tgt twin."""
    if "::" in spec:
        src, tgt = spec.split("::", 1)
        paths = (Path(src).expanduser(), Path(tgt).expanduser())
        for p in paths:
            if not p.is_file():
                raise FileNotFoundError(f"corpus file not found: {p}")
        return "src-tgt", paths[0], paths[1]
    path = Path(spec).expanduser()
    if not path.is_file():
        raise FileNotFoundError(
            f"corpus {spec!r} is neither a built-in corpus (embedded, embedded-small, classic, classic-fresh, mixed) nor a file")
    twin = tgt_twin(path)
    if twin is not None:
        return "src-tgt", path, twin
    return "reaction-smiles", path, None


def _assign(raws: list[RawReaction], roles: str) -> dict[int, RoleAssignment]:
    """Roles of the reaction-SMILES records that do not balance as written (batched for rxnmapper)."""
    if roles == "given":
        return {}
    todo = [i for i, r in enumerate(raws) if r.encoding == "smiles" and not is_balanced(normalize_roles(r))]
    pairs = [(list(normalize_roles(raws[i]).reactants), list(raws[i].products)) for i in todo]
    return dict(zip(todo, assign_roles_many(pairs, roles)))


def load_reactions(spec: str, *, solve_coefficients: bool = True, roles: str = "auto") -> tuple[list[BalancedReaction], LoadStats]:
    """Load, normalise and balance every reaction of a user file; returns kept reactions and statistics.

    ``roles`` (reaction SMILES only): ``auto`` (rxnmapper when installed, else the heuristic),
    ``rxnmapper``, ``heuristic`` or ``given`` (the fields as written); see :mod:`rlvr.chem.roles`.
    """
    if roles not in ROLE_MODES:
        raise ValueError(f"unknown roles mode {roles!r}; use one of {', '.join(ROLE_MODES)}")
    fmt, path, tgt = resolve_spec(spec)
    stats = LoadStats(source=str(path))
    raws = list(iter_src_tgt(path, tgt, stats) if fmt == "src-tgt" else iter_reaction_smiles(path, stats))
    assigned = _assign(raws, roles) if fmt == "reaction-smiles" else {}
    kept: list[BalancedReaction] = []
    for i, raw in enumerate(raws):
        balanced = balance_raw(raw, stats, solve_coefficients=solve_coefficients, roles=assigned.get(i))
        if balanced is not None:
            kept.append(balanced)
    return kept, stats


def _user_cache_key(fmt: str, path: Path, tgt: Path | None, solve_coefficients: bool, roles: str = "auto") -> str:
    h = hashlib.sha256()
    for p in (path, tgt):
        if p is not None:
            h.update(p.read_bytes())
    mapper = roles if roles != "auto" else ("rxnmapper" if rxnmapper_available() else "heuristic")
    h.update(json.dumps([LOADER_VERSION, fmt, solve_coefficients, mapper]).encode())
    return h.hexdigest()[:16]


def load_user_corpus(spec: str, *, solve_coefficients: bool = True, use_cache: bool = True,
                     roles: str = "auto") -> Corpus:
    """A :class:`~rlvr.generators.stoich.corpus_model.Corpus` from a user file (cached by content hash)."""
    fmt, path, tgt = resolve_spec(spec)
    key = _user_cache_key(fmt, path, tgt, solve_coefficients, roles)
    cache_path = cache_dir("stoich", "user") / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', path.name)}-{key}.json.gz"
    if use_cache and cache_path.exists():
        try:
            return Corpus.load(cache_path)
        except (OSError, ValueError, KeyError, EOFError, json.JSONDecodeError):
            pass
    kept, stats = load_reactions(spec, solve_coefficients=solve_coefficients, roles=roles)
    table = SpeciesTable()
    reactions: list[Reaction] = []
    seen: set[str] = set()
    for rx in kept:
        dup_key = rx.encoding + ":" + reaction_key(rx.reactants.items(), rx.products.items())
        if dup_key in seen:
            stats.duplicates += 1
            continue
        seen.add(dup_key)
        add = table.add_smiles if rx.encoding == "smiles" else table.add_formula
        by = set(rx.byproducts)
        main = [k for k in rx.products if k not in by] or list(rx.products)
        mw = max(formula_weight(key_formula(k, rx.encoding)) for k in main)
        stereo = rx.encoding == "smiles" and any(c in k for k in main for c in "@/\\")
        reactions.append(Reaction(
            reactants=tuple((add(k), v) for k, v in rx.reactants.items()),
            reagents=tuple((add(k), v) for k, v in rx.reagents.items()),
            products=tuple((add(k), v) for k, v in rx.products.items()),
            byproducts=tuple(sorted(add(k) for k in by)),
            rclass=rx.rclass, source="user", product_mw=round(mw, 3), stereo=stereo,
            meta={k: v for k, v in rx.meta.items() if isinstance(v, (str, int, float, list))},
        ))
    corpus = Corpus(f"user:{path.name}", tuple(table.smiles), tuple(table.formula), tuple(reactions),
                    {"format": fmt, "load": stats.as_dict(), "table": stats.table()})
    if use_cache:
        corpus.save(cache_path)
    return corpus


def write_reactions(reactions: Iterable[BalancedReaction], fh: TextIO) -> int:
    """Write balanced reactions as stoichiometric reaction lines ``{k}A.{k}B>{1}R>{k}C`` (USPTO-BAL style)."""
    n = 0
    for rx in reactions:
        fh.write(f"{format_bag(rx.reactants)}>{format_bag(rx.reagents)}>{format_bag(rx.products)}\n")
        n += 1
    return n


__all__ = [
    "BalancedReaction", "DROP_REASONS", "LoadStats", "ROLE_MODES", "RawReaction", "apply_roles", "balance_raw",
    "is_balanced", "iter_reaction_smiles",
    "iter_src_tgt", "load_reactions", "load_user_corpus", "normalize_roles", "resolve_spec", "write_reactions",
]
