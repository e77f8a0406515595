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

import csv
import hashlib
import io
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from rdkit import Chem

from rlvr.chem.balance import balance_formulas
from rlvr.chem.formula import Formula, FormulaError, parse_formula
from rlvr.chem.notation import NotationError, parse_bag
from rlvr.chem.smiles import smiles_formula
from rlvr.chem.species import looks_like_smiles
from rlvr.generators.stoich.reaction import gcd_all, nullity, side_counter
from rlvr.generators.stoich.rebalance import DROP_REASONS, rebalance, rebalance_formulas, whitelist_formulas, whitelist_smiles
from rlvr.paths import cache_dir

LOADER_VERSION = "1"
MAX_LINE_CHARS = 20_000
MAX_SPECIES = 60

_DOC_COLUMNS = {"patent", "patentnumber", "patent_number", "patent_id", "document", "document_id", "doc", "doc_id",
                "docid", "source_id", "paper", "doi"}
_YEAR_COLUMNS = {"year", "date", "pub_year", "publication_year"}
_CLASS_COLUMNS = {"class", "reaction_class", "rxn_class", "reaction_type", "label", "namerxn", "category"}
_MAP_NUMBER = re.compile(r":\d+\]")


@dataclass
class LoadStats:
    """Counts of a load, in the spirit of ChemAlgebra Table 1."""

    source: str = ""
    total: int = 0
    balanced: int = 0
    rebalanced: int = 0
    rebalanced_by_coefficients: int = 0
    dropped: Counter = field(default_factory=Counter)
    bad_lines: Counter = field(default_factory=Counter)
    duplicates: int = 0

    @property
    def kept(self) -> int:
        return self.balanced + self.rebalanced

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "total": self.total,
            "balanced": self.balanced,
            "rebalanced": self.rebalanced,
            "rebalanced_by_coefficients": self.rebalanced_by_coefficients,
            "kept": self.kept,
            "duplicates": self.duplicates,
            "dropped": dict(sorted(self.dropped.items())),
            "bad_lines": dict(sorted(self.bad_lines.items())),
        }

    def table(self) -> str:
        """A text table like ChemAlgebra's Table 1, plus drop and bad-line reasons."""
        def pct(x: int) -> str:
            return f"{x} ({100.0 * x / self.total:.2f})" if self.total else f"{x} (-)"

        head = f"{'':24s} {'TOTAL':>8s} {'BALANCED (%)':>16s} {'RE-BALANCED (%)':>18s} {'KEPT (%)':>16s} {'DROPPED (%)':>16s}"
        name = Path(self.source).name[:24] if self.source else "corpus"
        row = (f"{name:24s} {self.total:8d} {pct(self.balanced):>16s} {pct(self.rebalanced):>18s} "
               f"{pct(self.kept):>16s} {pct(sum(self.dropped.values())):>16s}")
        lines = [head, row]
        if self.rebalanced_by_coefficients:
            lines.append(f"  rebalanced by solving coefficients: {self.rebalanced_by_coefficients}")
        if self.dropped:
            lines.append("  dropped: " + ", ".join(f"{k} {v}" for k, v in sorted(self.dropped.items())))
        if self.bad_lines:
            lines.append("  bad lines skipped: " + ", ".join(f"{k} {v}" for k, v in sorted(self.bad_lines.items())))
        if self.duplicates:
            lines.append(f"  duplicate reactions skipped: {self.duplicates}")
        return "\n".join(lines)


@dataclass
class RawReaction:
    """A parsed reaction before balancing: species as canonical SMILES or Hill formulas, with counts."""

    reactants: dict[str, int]
    reagents: dict[str, int]
    products: dict[str, int]
    encoding: str  # smiles | formula
    meta: dict[str, Any] = field(default_factory=dict)
    rclass: str = "user"


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


class _BadLine(ValueError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# ---------------------------------------------------------------------------------------------
# species
# ---------------------------------------------------------------------------------------------


def _canonical_fragment(text: str) -> str:
    text = _MAP_NUMBER.sub("]", text)
    mol = Chem.MolFromSmiles(text)
    if mol is None or mol.GetNumAtoms() == 0:
        raise _BadLine("invalid_smiles")
    for atom in mol.GetAtoms():
        if atom.GetAtomicNum() == 0:
            raise _BadLine("invalid_smiles")
        atom.SetAtomMapNum(0)
    can = Chem.MolToSmiles(mol)
    again = Chem.MolFromSmiles(can)
    if again is None:
        raise _BadLine("invalid_smiles")
    return Chem.MolToSmiles(again)


def _smiles_side(text: str) -> dict[str, int]:
    bag: dict[str, int] = {}
    for frag in text.split("."):
        frag = frag.strip()
        if not frag:
            continue
        key = _canonical_fragment(frag)
        bag[key] = bag.get(key, 0) + 1
    if len(bag) > MAX_SPECIES:
        raise _BadLine("too_many_species")
    return bag


def _composition(key: str, encoding: str) -> Formula:
    return parse_formula(key) if encoding == "formula" else smiles_formula(key)


# ---------------------------------------------------------------------------------------------
# reaction SMILES files
# ---------------------------------------------------------------------------------------------


def _split_fields(line: str, delimiter: str | None) -> list[str]:
    if delimiter == "\t":
        return [f.strip() for f in line.split("\t")]
    if delimiter == ",":
        return [f.strip() for f in next(csv.reader(io.StringIO(line)))]
    return line.split()


def _detect_delimiter(line: str) -> str | None:
    if "\t" in line:
        return "\t"
    first = line.split(",")[0]
    if "," in line and ">" in first and " " not in first.strip():
        return ","
    if line.startswith('"') and "," in line:
        return ","
    return None


def _column_meta(names: list[str], values: list[str]) -> tuple[dict[str, Any], str | None]:
    meta: dict[str, Any] = {}
    rclass = None
    for name, value in zip(names, values):
        if value == "" or value.startswith("|"):
            continue
        low = name.lower().strip()
        if low in _DOC_COLUMNS:
            meta["document"] = value
        elif low in _YEAR_COLUMNS:
            m = re.search(r"(1[89]\d\d|2\d\d\d)", value)
            if m:
                meta["year"] = int(m.group(1))
        elif low in _CLASS_COLUMNS:
            rclass = value
        else:
            meta[name] = value
    return meta, rclass


def parse_reaction_smiles(text: str) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """``reactants>reagents>products`` (or ``reactants>>products``) -> three canonical SMILES bags."""
    parts = text.split(">")
    if len(parts) != 3:
        raise _BadLine("malformed")
    reactants, reagents, products = (_smiles_side(p) for p in parts)
    if not reactants or not products:
        raise _BadLine("empty_side")
    return reactants, reagents, products


def iter_reaction_smiles(path: str | Path, stats: LoadStats | None = None) -> Iterator[RawReaction]:
    """Parse a reaction-SMILES file line by line; bad lines are counted in ``stats`` and skipped."""
    stats = stats if stats is not None else LoadStats(source=str(path))
    names: list[str] | None = None
    delimiter: str | None = None
    first = True
    with open(path, encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            line = raw.rstrip("\n").rstrip("\r")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if first:
                delimiter = _detect_delimiter(line)
                fields = _split_fields(line, delimiter)
                first = False
                if fields and ">" not in fields[0]:
                    names = fields
                    continue
            stats.total += 1
            if len(line) > MAX_LINE_CHARS:
                stats.bad_lines["too_long"] += 1
                continue
            try:
                fields = _split_fields(line, delimiter)
            except (csv.Error, StopIteration):
                stats.bad_lines["malformed"] += 1
                continue
            if not fields:
                stats.bad_lines["malformed"] += 1
                continue
            col_names = names or ["reaction"] + [f"col{i}" for i in range(1, len(fields))]
            try:
                reactants, reagents, products = parse_reaction_smiles(fields[0])
            except _BadLine as bad:
                stats.bad_lines[bad.reason] += 1
                continue
            meta, rclass = _column_meta(col_names[1:], fields[1:])
            meta["line"] = stats.total
            yield RawReaction(reactants, reagents, products, "smiles", meta, rclass or "user")


# ---------------------------------------------------------------------------------------------
# ChemAlgebra src/tgt pairs
# ---------------------------------------------------------------------------------------------


def _bag_text(line: str) -> list[tuple[str, int]]:
    """Terms of a src/tgt line: ``{k}X.{k}Y`` (possibly tokenised with spaces), plain ``2 X + Y``, or ``X.Y``."""
    compact = re.sub(r"\s+", "", line)
    if not compact:
        return []
    if "{" in compact:
        return parse_bag(compact)
    if "+" in re.sub(r"\[[^\]]*\]", "", compact):  # a '+' outside brackets: plain notation
        return parse_bag(line.strip())
    return [(frag, 1) for frag in compact.split(".") if frag]


def _detect_encoding(species: Iterable[str]) -> str:
    """SMILES when some species can only be SMILES (short ones like ``CN`` or ``O`` also read as formulas)."""
    items = list(species)
    smiles_like = sum(looks_like_smiles(s) and Chem.MolFromSmiles(s) is not None for s in items)
    return "smiles" if items and smiles_like >= max(1, len(items) // 20) else "formula"


def _canonical_species(text: str, encoding: str) -> str:
    if encoding == "smiles":
        return _canonical_fragment(text)
    try:
        return parse_formula(text).hill()
    except FormulaError as exc:
        raise _BadLine("invalid_formula") from exc


def _bag(terms: list[tuple[str, int]], encoding: str) -> dict[str, int]:
    bag: dict[str, int] = {}
    for text, k in terms:
        key = _canonical_species(text, encoding)
        bag[key] = bag.get(key, 0) + int(k)
    return bag


def iter_src_tgt(src: str | Path, tgt: str | Path, stats: LoadStats | None = None, encoding: str = "auto") -> Iterator[RawReaction]:
    """Reference reactions from a ChemAlgebra-style src/tgt pair (net change tgt - src, gcd-reduced)."""
    stats = stats if stats is not None else LoadStats(source=str(src))
    with open(src, encoding="utf-8", errors="replace") as fs, open(tgt, encoding="utf-8", errors="replace") as ft:
        src_lines = fs.read().splitlines()
        tgt_lines = ft.read().splitlines()
    if len(src_lines) != len(tgt_lines):
        stats.bad_lines["unpaired_line"] += abs(len(src_lines) - len(tgt_lines))
    if encoding == "auto":
        sample: list[str] = []
        for line in src_lines[:200]:
            try:
                sample.extend(s for s, _ in _bag_text(line.split(">")[0]))
            except NotationError:
                continue
        encoding = _detect_encoding(sample)
    for n, (s_line, t_line) in enumerate(zip(src_lines, tgt_lines), 1):
        if not s_line.strip() and not t_line.strip():
            continue
        stats.total += 1
        try:
            if len(s_line) > MAX_LINE_CHARS or len(t_line) > MAX_LINE_CHARS:
                raise _BadLine("too_long")
            left_text, _, reagent_text = s_line.partition(">")
            src_bag = _bag(_bag_text(left_text), encoding)
            reagent_bag = _bag(_bag_text(reagent_text), encoding) if reagent_text.strip() else {}
            tgt_bag = _bag(_bag_text(t_line), encoding)
        except (NotationError, ValueError) as exc:
            reason = exc.reason if isinstance(exc, _BadLine) else "unparsable"
            stats.bad_lines[reason] += 1
            continue
        if not src_bag or not tgt_bag:
            stats.bad_lines["empty_side"] += 1
            continue
        keys = list(dict.fromkeys([*src_bag, *tgt_bag]))
        delta = {k: tgt_bag.get(k, 0) - src_bag.get(k, 0) for k in keys}
        reactants = {k: -d for k, d in delta.items() if d < 0}
        products = {k: d for k, d in delta.items() if d > 0}
        if not reactants or not products:
            stats.bad_lines["empty_side"] += 1
            continue
        g = gcd_all([*reactants.values(), *products.values()])
        reactants = {k: v // g for k, v in reactants.items()}
        products = {k: v // g for k, v in products.items()}
        reagents = {k: 1 for k, d in delta.items() if d == 0 and k in src_bag and k in tgt_bag}
        for k in reagent_bag:
            if k not in reactants and k not in products:
                reagents[k] = 1
        yield RawReaction(reactants, reagents, products, encoding, {"line": n}, "chemalgebra")


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
        left = [(_composition(k, enc), v) for k, v in raw.reactants.items()]
        right = [(_composition(k, enc), v) for k, v in raw.products.items()]
    except (ValueError, FormulaError):
        stats.dropped["invalid_species"] += 1
        return None
    small = whitelist_formulas() if enc == "formula" else whitelist_smiles()
    if side_counter(left) == side_counter(right):
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


def load_user_corpus(spec: str, *, solve_coefficients: bool = True, use_cache: bool = True):
    """A :class:`~rlvr.generators.stoich.corpus.Corpus` from a user file (cached by content hash)."""
    from rlvr.generators.stoich.corpus import Corpus, SpeciesTable, formula_weight
    from rlvr.generators.stoich.reaction import Reaction, reaction_key

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
        mw = max(formula_weight(_composition(k, rx.encoding)) for k in main)
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


def write_reactions(reactions: Iterable[BalancedReaction], fh) -> int:
    """Write balanced reactions as stoichiometric reaction lines ``{k}A.{k}B>{1}R>{k}C`` (USPTO-BAL style)."""
    from rlvr.chem.notation import format_bag

    n = 0
    for rx in reactions:
        fh.write(f"{format_bag(rx.reactants)}>{format_bag(rx.reagents)}>{format_bag(rx.products)}\n")
        n += 1
    return n


__all__ = [
    "BalancedReaction", "DROP_REASONS", "LoadStats", "RawReaction", "balance_raw", "iter_reaction_smiles",
    "iter_src_tgt", "load_reactions", "load_user_corpus", "normalize_roles", "parse_reaction_smiles", "resolve_spec",
    "write_reactions",
]
