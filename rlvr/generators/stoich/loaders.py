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

Every reaction is then checked for element and charge balance; unbalanced ones are rebalanced as
in ChemAlgebra section 3.1 (:mod:`rlvr.generators.stoich.rebalance`) or, failing that (option
``solve_coefficients``), by solving for integer coefficients of the given species when the solution
is unique; otherwise they are dropped and the reason is counted. Bad lines (invalid SMILES or
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
from rlvr.chem.formula import formula_weight
from rlvr.chem.linalg import nullity
from rlvr.chem.notation import format_bag
from rlvr.generators.stoich.corpus_model import Corpus, SpeciesTable
from rlvr.generators.stoich.reaction import Reaction, key_formula, reaction_key
from rlvr.generators.stoich.reaction_readers import LoadStats, RawReaction, iter_reaction_smiles, iter_src_tgt
from rlvr.generators.stoich.rebalance import DROP_REASONS, rebalance, rebalance_formulas, whitelist_formulas, whitelist_smiles
from rlvr.paths import cache_dir

LOADER_VERSION = "1"


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


def balance_raw(raw: RawReaction, stats: LoadStats, *, solve_coefficients: bool = True) -> BalancedReaction | None:
    """Check, rebalance or drop one reaction (counting the outcome in ``stats``)."""
    raw = normalize_roles(raw)
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
    result = rebalance_formulas(left, right) if enc == "formula" else rebalance(left, right)
    if result.status == "rebalanced":
        reactants = dict(raw.reactants)
        products = dict(raw.products)
        clash = False
        for key, n in result.add_reactants:
            clash |= key in products or key in raw.reagents
            reactants[key] = reactants.get(key, 0) + n
        for key, n in result.add_products:
            clash |= key in reactants or key in raw.reagents
            products[key] = products.get(key, 0) + n
        if not clash:
            stats.rebalanced += 1
            added = tuple(k for k, _ in result.add_products)
            return _finish(raw, reactants, products, small, "rebalanced", added)
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
            f"corpus {spec!r} is neither a built-in corpus (embedded, embedded-small, classic, mixed) nor a file")
    twin = tgt_twin(path)
    if twin is not None:
        return "src-tgt", path, twin
    return "reaction-smiles", path, None


def load_reactions(spec: str, *, solve_coefficients: bool = True) -> tuple[list[BalancedReaction], LoadStats]:
    """Load, normalise and balance every reaction of a user file; returns kept reactions and statistics."""
    fmt, path, tgt = resolve_spec(spec)
    stats = LoadStats(source=str(path))
    raws = iter_src_tgt(path, tgt, stats) if fmt == "src-tgt" else iter_reaction_smiles(path, stats)
    kept: list[BalancedReaction] = []
    for raw in raws:
        balanced = balance_raw(raw, stats, solve_coefficients=solve_coefficients)
        if balanced is not None:
            kept.append(balanced)
    return kept, stats


def _user_cache_key(fmt: str, path: Path, tgt: Path | None, solve_coefficients: bool) -> str:
    h = hashlib.sha256()
    for p in (path, tgt):
        if p is not None:
            h.update(p.read_bytes())
    h.update(json.dumps([LOADER_VERSION, fmt, solve_coefficients]).encode())
    return h.hexdigest()[:16]


def load_user_corpus(spec: str, *, solve_coefficients: bool = True, use_cache: bool = True) -> Corpus:
    """A :class:`~rlvr.generators.stoich.corpus_model.Corpus` from a user file (cached by content hash)."""
    fmt, path, tgt = resolve_spec(spec)
    key = _user_cache_key(fmt, path, tgt, solve_coefficients)
    cache_path = cache_dir("stoich", "user") / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', path.name)}-{key}.json.gz"
    if use_cache and cache_path.exists():
        try:
            return Corpus.load(cache_path)
        except (OSError, ValueError, KeyError, EOFError, json.JSONDecodeError):
            pass
    kept, stats = load_reactions(spec, solve_coefficients=solve_coefficients)
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
    "BalancedReaction", "DROP_REASONS", "LoadStats", "RawReaction", "balance_raw", "iter_reaction_smiles",
    "iter_src_tgt", "load_reactions", "load_user_corpus", "normalize_roles", "resolve_spec", "write_reactions",
]
