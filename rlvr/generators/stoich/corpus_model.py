"""The reaction corpus as data: an interned species table and balanced reference reactions, with
their views in each encoding, statistics and a verified JSON form.

Corpora are built by :mod:`~rlvr.generators.stoich.template_build` (templates x RDKit-wheel
molecules), :mod:`~rlvr.generators.stoich.classic_build` (classic equations) and
:mod:`~rlvr.generators.stoich.loaders` (user files), and cached by :mod:`~rlvr.generators.stoich.corpus`.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from rlvr.chem.balance import side_total
from rlvr.chem.formula import Formula, parse_formula
from rlvr.chem.smiles import smiles_formula
from rlvr.chem.species import StrictEncoding as Encoding
from rlvr.generators.stoich.reaction import Reaction, ReactionView, merge_terms, reaction_key

#: Bump when the build procedure changes in a way that changes the corpus.
CORPUS_VERSION = "1"
FORMAT = "rlvr-stoich-corpus"


class SpeciesTable:
    """Interns species: SMILES species by canonical SMILES, formula-only species by Hill formula."""

    def __init__(self) -> None:
        self.smiles: list[str | None] = []
        self.formula: list[str] = []
        self._index: dict[str, int] = {}

    def add_smiles(self, smiles: str, hill: str | None = None) -> int:
        """Id of a canonical SMILES species (added when new; ``hill``: its formula when already known)."""
        key = "S:" + smiles
        if key not in self._index:
            self._index[key] = len(self.smiles)
            self.smiles.append(smiles)
            self.formula.append(hill if hill is not None else smiles_formula(smiles).hill())
        return self._index[key]

    def add_formula(self, formula: str) -> int:
        """Id of a formula-only species (no SMILES known), keyed by its Hill formula."""
        hill = parse_formula(formula).hill()
        key = "F:" + hill
        if key not in self._index:
            self._index[key] = len(self.smiles)
            self.smiles.append(None)
            self.formula.append(hill)
        return self._index[key]

    def add(self, smiles: str | None, formula: str | None = None) -> int:
        if smiles is not None:
            return self.add_smiles(smiles, formula)
        if formula is None:
            raise ValueError("a species needs a SMILES or a formula")
        return self.add_formula(formula)


_MISSING = object()


@dataclass(eq=False)
class Corpus:
    """An immutable list of balanced reference reactions over an interned species table.

    ``held_out``: every reaction is a test reaction, whatever the split mode
    (:func:`~rlvr.generators.stoich.splits.reaction_splits`); part of the content hash.
    """

    name: str
    species_smiles: tuple[str | None, ...]
    species_formula: tuple[str, ...]
    reactions: tuple[Reaction, ...]
    stats: dict[str, Any] = field(default_factory=dict)
    content_hash: str = ""
    held_out: bool = False

    def __post_init__(self) -> None:
        if not self.content_hash:
            self.content_hash = _content_hash(self._payload())
        self._views: dict[str, list[Any]] = {enc: [_MISSING] * len(self.reactions) for enc in ("formula", "smiles")}
        self._keys: dict[str, list[str | None]] = {enc: [None] * len(self.reactions) for enc in ("formula", "smiles")}
        self._hill_of: dict[str, str] | None = None

    def __len__(self) -> int:
        return len(self.reactions)

    # -- serialisation ------------------------------------------------------------------------
    def _payload(self) -> dict[str, Any]:
        return _hashed(
            [[s, f] for s, f in zip(self.species_smiles, self.species_formula)],
            [r.to_json() for r in self.reactions],
            self.held_out,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": CORPUS_VERSION,
            "name": self.name,
            "content_hash": self.content_hash,
            "stats": self.stats,
            **self._payload(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, verify: bool = True) -> "Corpus":
        if data.get("format") != FORMAT:
            raise ValueError("not an rlvr reaction corpus file")
        species = data["species"]
        held_out = data.get("held_out", False)
        if not isinstance(held_out, bool):
            raise ValueError(f"corpus {data.get('name')!r}: held_out must be true or false, got {held_out!r}")
        corpus = cls(
            name=str(data["name"]),
            species_smiles=tuple(s for s, _ in species),
            species_formula=tuple(f for _, f in species),
            reactions=tuple(Reaction.from_json(r) for r in data["reactions"]),
            stats=dict(data.get("stats", {})),
            content_hash=str(data.get("content_hash", "")),
            held_out=held_out,
        )
        if verify:
            actual = _content_hash(_hashed(species, data["reactions"], held_out))
            if actual != corpus.content_hash:
                raise ValueError(f"corpus {corpus.name!r}: content hash mismatch (file corrupted or edited)")
        return corpus

    def save(self, path: Path) -> None:
        """Write atomically as gzipped JSON."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=6) as fh:
            json.dump(self.to_json(), fh, separators=(",", ":"))
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> "Corpus":
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return cls.from_json(json.load(fh))

    # -- identity -----------------------------------------------------------------------------
    def composition(self, key: str, encoding: Encoding) -> Formula:
        """The :class:`Formula` of a species key of this corpus (no RDKit parsing for SMILES keys)."""
        if encoding == "formula":
            return parse_formula(key)
        if self._hill_of is None:
            self._hill_of = {s: f for s, f in zip(self.species_smiles, self.species_formula) if s is not None}
        hill = self._hill_of.get(key)
        return parse_formula(hill) if hill is not None else smiles_formula(key)

    def names(self, encoding: Encoding) -> Sequence[str | None]:
        return self.species_smiles if encoding == "smiles" else self.species_formula

    def key(self, i: int, encoding: Encoding = "formula") -> str | None:
        """Canonical reaction key in ``encoding`` (None in ``smiles`` when a species has no SMILES).

        The formula key is the coarser identity (isomers merge), so split membership is hashed on it:
        two reactions with the same formula key always share a split.
        """
        cached = self._keys[encoding][i]
        if cached is not None:
            return cached
        rx = self.reactions[i]
        names = self.names(encoding)
        if any(names[s] is None for s, _ in rx.reactants + rx.products):
            return None
        r = merge_terms((names[s], k) for s, k in rx.reactants)
        p = merge_terms((names[s], k) for s, k in rx.products)
        key = reaction_key(r.items(), p.items())
        self._keys[encoding][i] = key
        return key

    def supports(self, i: int, encoding: Encoding) -> bool:
        return self.view(i, encoding) is not None

    def view(self, i: int, encoding: Encoding) -> ReactionView | None:
        """Reaction ``i`` in ``encoding``'s identity space, or None when not well defined there."""
        cached = self._views[encoding][i]
        if cached is _MISSING:
            cached = self._make_view(i, encoding)
            self._views[encoding][i] = cached
        return cached

    def _make_view(self, i: int, encoding: Encoding) -> ReactionView | None:
        rx = self.reactions[i]
        names = self.names(encoding)
        ids = [s for s, _ in rx.reactants + rx.reagents + rx.products]
        if any(names[s] is None for s in ids):
            return None
        r = merge_terms((names[s], k) for s, k in rx.reactants)
        g = merge_terms((names[s], k) for s, k in rx.reagents)
        p = merge_terms((names[s], k) for s, k in rx.products)
        if not r or not p or set(r) & set(p) or set(g) & (set(r) | set(p)):
            return None
        left = side_total((parse_formula(self.species_formula[s]), k) for s, k in rx.reactants)
        right = side_total((parse_formula(self.species_formula[s]), k) for s, k in rx.products)
        if +(left - right) or +(right - left) or left["charge"] != right["charge"]:
            return None
        by_ids = set(rx.byproducts)
        by_keys = {names[s] for s in by_ids}
        main_keys = {names[s] for s, _ in rx.products if s not in by_ids}
        by: dict[str, int] = {}
        if by_keys and main_keys and not by_keys & main_keys:
            by = {key: p[key] for key in sorted(by_keys)}
        return ReactionView(
            encoding=encoding,
            reactants=tuple(sorted(r.items())),
            reagents=tuple(sorted(g.items())),
            products=tuple(sorted(p.items())),
            byproducts=tuple(sorted(by.items())),
            rclass=rx.rclass,
            product_mw=rx.product_mw,
            stereo=rx.stereo,
            hills=tuple(sorted({names[s]: self.species_formula[s] for s in ids}.items())),
        )

    # -- statistics ---------------------------------------------------------------------------
    def class_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(r.rclass for r in self.reactions).items()))

    def summary(self) -> dict[str, Any]:
        """Counts for ``rlvr corpus stats``: totals, per class, per source, distinct keys, MW, stereo."""
        n = len(self.reactions)
        mws = sorted(r.product_mw for r in self.reactions)
        smiles_keys = {self.key(i, "smiles") for i in range(n)} - {None}
        formula_keys = {self.key(i, "formula") for i in range(n)}
        return {
            "name": self.name,
            "content_hash": self.content_hash,
            "held_out": self.held_out,
            "reactions": n,
            "species": len(self.species_formula),
            "classes": len(self.class_counts()),
            "distinct_smiles_keys": len(smiles_keys),
            "distinct_formula_keys": len(formula_keys),
            "valid_formula": sum(self.view(i, "formula") is not None for i in range(n)),
            "valid_smiles": sum(self.view(i, "smiles") is not None for i in range(n)),
            "with_byproducts": sum(bool(r.byproducts) for r in self.reactions),
            "with_reagents": sum(bool(r.reagents) for r in self.reactions),
            "non_unit_coefficients": sum(any(k != 1 for _, k in r.reactants + r.products) for r in self.reactions),
            "stereo_products": sum(r.stereo for r in self.reactions),
            "product_mw": {
                "min": round(mws[0], 2) if mws else None,
                "median": round(mws[n // 2], 2) if mws else None,
                "max": round(mws[-1], 2) if mws else None,
            },
            "per_source": dict(sorted(Counter(r.source for r in self.reactions).items())),
            "per_class": self.class_counts(),
            "build": self.stats,
        }


def _hashed(species: list[Any], reactions: list[Any], held_out: bool) -> dict[str, Any]:
    """The hashed part of a corpus; ``held_out`` is a key only when set, so other corpora keep their hash."""
    payload: dict[str, Any] = {"species": species, "reactions": reactions}
    if held_out:
        payload["held_out"] = True
    return payload


def _content_hash(payload: Mapping[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def merge_corpora(name: str, parts: Sequence[Corpus]) -> Corpus:
    """One corpus holding every reaction of ``parts`` (species re-interned, duplicates by SMILES/formula key dropped).

    Held-out corpora merge only with each other (the result is held out): merged with a training
    corpus, their reactions would be split into train and valid.
    """
    held = {p.held_out for p in parts}
    if len(held) > 1:
        names = [p.name for p in parts if p.held_out]
        raise ValueError(f"cannot merge the held-out-only corpora {names} with training corpora")
    table = SpeciesTable()
    reactions: list[Reaction] = []
    seen: set[str] = set()
    for part in parts:
        remap = [table.add(s, f) for s, f in zip(part.species_smiles, part.species_formula)]
        for i, rx in enumerate(part.reactions):
            key = part.key(i, "smiles") or "F:" + str(part.key(i, "formula"))
            if key in seen:
                continue
            seen.add(key)
            reactions.append(Reaction(
                reactants=tuple((remap[s], k) for s, k in rx.reactants),
                reagents=tuple((remap[s], k) for s, k in rx.reagents),
                products=tuple((remap[s], k) for s, k in rx.products),
                byproducts=tuple(remap[s] for s in rx.byproducts),
                rclass=rx.rclass, source=rx.source, product_mw=rx.product_mw, stereo=rx.stereo, meta=dict(rx.meta),
            ))
    stats = {"parts": {p.name: {"reactions": len(p), "content_hash": p.content_hash} for p in parts}}
    return Corpus(name, tuple(table.smiles), tuple(table.formula), tuple(reactions), stats,
                  held_out=any(p.held_out for p in parts))


def per_class(reactions: Iterable[Reaction]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for r in reactions:
        counts[r.rclass] += 1
    return dict(sorted(counts.items()))
