"""Readers of user reaction files, before balancing: reaction SMILES (USPTO style) and ChemAlgebra
``src``/``tgt`` pairs (formats described in :mod:`rlvr.generators.stoich.loaders`).

Species become canonical keys (canonical SMILES without atom maps, or Hill formulas); bad lines
(invalid SMILES or formulas, empty sides, malformed fields) are counted in :class:`LoadStats` and
skipped, never raised.
"""
from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from math import gcd
from pathlib import Path
from typing import Any, Iterable, Iterator

from rlvr.chem.notation import NotationError, parse_bag
from rlvr.chem.smiles import mol_from_smiles
from rlvr.chem.species import SpeciesError, canonical_species, looks_like_smiles

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
    #: reactions whose reactant field had species moved to the reagents, by role method
    roles: Counter = field(default_factory=Counter)

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
            "roles": dict(sorted(self.roles.items())),
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
        if self.roles:
            lines.append(f"  reactant fields with non-contributing species moved to the reagents: {sum(self.roles.values())} ("
                         + ", ".join(f"{k} {v}" for k, v in sorted(self.roles.items())) + ")")
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


class _BadLine(ValueError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# ---------------------------------------------------------------------------------------------
# species
# ---------------------------------------------------------------------------------------------


def _canonical_fragment(text: str) -> str:
    """Canonical SMILES of one molecule with its atom maps removed (canonicalised twice, so that a
    key read back canonicalises to itself in the common case); dummy atoms are invalid."""
    try:
        key = canonical_species(_MAP_NUMBER.sub("]", text), "smiles")
        if "*" in key:
            raise _BadLine("invalid_smiles")
        return canonical_species(key, "smiles")
    except SpeciesError as exc:
        raise _BadLine("invalid_smiles") from exc


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
    smiles_like = sum(looks_like_smiles(s) and mol_from_smiles(s) is not None for s in items)
    return "smiles" if items and smiles_like >= max(1, len(items) // 20) else "formula"


def _canonical_species(text: str, encoding: str) -> str:
    if encoding == "smiles":
        return _canonical_fragment(text)
    try:
        return canonical_species(text, "formula")
    except SpeciesError as exc:
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
        g = gcd(*reactants.values(), *products.values())
        reactants = {k: v // g for k, v in reactants.items()}
        products = {k: v // g for k, v in products.items()}
        reagents = {k: 1 for k, d in delta.items() if d == 0 and k in src_bag and k in tgt_bag}
        for k in reagent_bag:
            if k not in reactants and k not in products:
                reagents[k] = 1
        yield RawReaction(reactants, reagents, products, encoding, {"line": n}, "chemalgebra")


