"""The reaction corpus: build (templates x RDKit-wheel molecules), cache, load, and view.

- :func:`load_molecule_pool` reads ``NCI/first_5K.smi`` and ``Pains/test_data/wehi_mols.csv`` from
  ``RDConfig.RDDataDir`` (shipped with the RDKit wheel; nothing is downloaded).
- :func:`build_embedded` applies every :data:`~rlvr.generators.stoich.templates.TEMPLATES` entry to the
  pool and curated partners, balances each candidate exactly, and keeps only reactions that are
  balanced in elements and charge, have a single reacting site, and stay well defined in both
  encodings. Inputs are processed in a fixed order (sorted, stable hashes), so the corpus is
  identical on every machine with the same RDKit version.
- :func:`get_corpus` returns a cached :class:`Corpus` for a spec: ``embedded``, ``embedded-small``,
  ``classic``, ``mixed`` (embedded + classic) or a path to a user file (see
  :mod:`rlvr.generators.stoich.loaders`). Built corpora are cached as gzipped JSON under
  ``rlvr.paths.cache_dir("stoich")``, keyed by :data:`CORPUS_VERSION` and a hash of every build
  input (templates, molecule files, RDKit version, limits); the file carries a content hash that
  is verified on load.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product as iproduct
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from rdkit import Chem, RDConfig, rdBase
from rdkit.Chem import AllChem

from rlvr.chem.balance import balance_formulas
from rlvr.chem.formula import Formula, parse_formula
from rlvr.chem.smiles import canonical_smiles, smiles_formula
from rlvr.generators.stoich.reaction import (
    Encoding,
    Reaction,
    ReactionView,
    merge_terms,
    nullity,
    reaction_key,
    side_counter,
)
from rlvr.generators.stoich.rebalance import whitelist_smiles
from rlvr.generators.stoich.templates import TEMPLATES, Template
from rlvr.paths import cache_dir
from rlvr.rng import stable_hash

log = logging.getLogger(__name__)

#: Bump when the build procedure changes in a way that changes the corpus.
CORPUS_VERSION = "1"
FORMAT = "rlvr-stoich-corpus"

ORGANIC_ELEMENTS = frozenset({"C", "H", "N", "O", "S", "P", "F", "Cl", "Br", "I", "B", "Si"})
MIN_HEAVY_ATOMS = 4
MAX_HEAVY_ATOMS = 35
MOLECULE_FILES = ("NCI/first_5K.smi", "Pains/test_data/wehi_mols.csv")

#: Corpus specs understood by :func:`get_corpus` besides a file path.
BUILTIN_CORPORA = ("embedded", "embedded-small", "classic", "mixed")


# ---------------------------------------------------------------------------------------------
# corpus container
# ---------------------------------------------------------------------------------------------


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
    """An immutable list of balanced reference reactions over an interned species table."""

    name: str
    species_smiles: tuple[str | None, ...]
    species_formula: tuple[str, ...]
    reactions: tuple[Reaction, ...]
    stats: dict[str, Any] = field(default_factory=dict)
    content_hash: str = ""

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
        return {
            "species": [[s, f] for s, f in zip(self.species_smiles, self.species_formula)],
            "reactions": [r.to_json() for r in self.reactions],
        }

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
        corpus = cls(
            name=str(data["name"]),
            species_smiles=tuple(s for s, _ in species),
            species_formula=tuple(f for _, f in species),
            reactions=tuple(Reaction.from_json(r) for r in data["reactions"]),
            stats=dict(data.get("stats", {})),
            content_hash=str(data.get("content_hash", "")),
        )
        if verify:
            actual = _content_hash({"species": species, "reactions": data["reactions"]})
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
        left = side_counter((parse_formula(self.species_formula[s]), k) for s, k in rx.reactants)
        right = side_counter((parse_formula(self.species_formula[s]), k) for s, k in rx.products)
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


def _content_hash(payload: Mapping[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def merge_corpora(name: str, parts: Sequence[Corpus]) -> Corpus:
    """One corpus holding every reaction of ``parts`` (species re-interned, duplicates by SMILES/formula key dropped)."""
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
    return Corpus(name, tuple(table.smiles), tuple(table.formula), tuple(reactions), stats)


# ---------------------------------------------------------------------------------------------
# molecule pool
# ---------------------------------------------------------------------------------------------


def molecule_files() -> list[Path]:
    """The RDKit-wheel molecule files the embedded corpus is built from."""
    return [Path(RDConfig.RDDataDir) / rel for rel in MOLECULE_FILES]


def _read_smiles_lines(path: Path) -> Iterable[str]:
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith('"'):
                yield line.split('"')[1]
            else:
                yield line.replace(",", " ").split()[0]


def _accept_molecule(mol: Chem.Mol) -> bool:
    if mol is None or len(Chem.GetMolFrags(mol)) != 1:
        return False
    if Chem.GetFormalCharge(mol) != 0:
        return False
    heavy = mol.GetNumHeavyAtoms()
    if not MIN_HEAVY_ATOMS <= heavy <= MAX_HEAVY_ATOMS:
        return False
    for atom in mol.GetAtoms():
        if atom.GetSymbol() not in ORGANIC_ELEMENTS or atom.GetIsotope() or atom.GetNumRadicalElectrons():
            return False
    return True


def stable_canonical(smiles: str) -> str | None:
    """Canonical SMILES that is a fixed point of canonicalisation (None when it is not, or invalid)."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    once = Chem.MolToSmiles(mol)
    if once == smiles:
        return once
    again = Chem.MolFromSmiles(once)
    if again is None:
        return None
    return once if Chem.MolToSmiles(again) == once else None


@lru_cache(maxsize=4)
def load_molecule_pool(limit: int | None = None) -> tuple[str, ...]:
    """Canonical SMILES of the accepted RDKit-wheel molecules (single fragment, neutral, organic
    elements, 4-35 heavy atoms), de-duplicated; sorted, or the first ``limit`` in stable-hash order.

    The full pool is cached on disk next to the corpora (keyed by the files' digests and RDKit version).
    """
    key = hashlib.sha256(json.dumps([CORPUS_VERSION, rdBase.rdkitVersion, MIN_HEAVY_ATOMS, MAX_HEAVY_ATOMS,
                                     sorted(ORGANIC_ELEMENTS), [_file_digest(p) for p in molecule_files()]])
                         .encode()).hexdigest()[:16]
    path = cache_dir("stoich") / f"pool-v{CORPUS_VERSION}-{key}.txt"
    pool: list[str] | None = None
    if path.exists():
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines and lines[0] == f"# {key} {len(lines) - 1}":
            pool = lines[1:]
    if pool is None:
        pool = _scan_molecule_files()
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text("\n".join([f"# {key} {len(pool)}", *pool]), encoding="utf-8")
        os.replace(tmp, path)
    if limit is not None:
        pool = sorted(sorted(pool, key=lambda s: stable_hash("pool", s))[:limit])
    return tuple(pool)


def _scan_molecule_files() -> list[str]:
    found: set[str] = set()
    for path in molecule_files():
        for smi in _read_smiles_lines(path):
            mol = Chem.MolFromSmiles(smi)
            if not _accept_molecule(mol):
                continue
            can = Chem.MolToSmiles(mol)
            if can in found:
                continue
            again = Chem.MolFromSmiles(can)
            if again is not None and Chem.MolToSmiles(again) == can:
                found.add(can)
    return sorted(found)


# ---------------------------------------------------------------------------------------------
# template application
# ---------------------------------------------------------------------------------------------


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
            can = stable_canonical(smi)
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
        stable = tuple(stable_canonical(s) for s in next(iter(outcomes)))
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


def _formula(smiles: str) -> Formula:
    return smiles_formula(smiles)


_PT = Chem.GetPeriodicTable()


def formula_weight(formula: Formula) -> float:
    """Average molecular weight (g/mol) of a composition, as RDKit's ``MolWt`` computes it."""
    return float(sum(_PT.GetAtomicWeight(el) * n for el, n in formula.counts))


def _mw(smiles: str) -> float:
    return formula_weight(_formula(smiles))


def _balance_with_hint(left: list[Formula], right: list[Formula], hint: Sequence[int] | None) -> list[int]:
    """Exact balance; a previous solution of the same template is reused only when it provably is the
    answer :func:`balance_formulas` would give (it conserves, all positive, gcd 1, null space of dimension 1)."""
    if hint is not None and len(hint) == len(left) + len(right):
        n = len(left)
        lhs = side_counter(zip(left, hint[:n]))
        rhs = side_counter(zip(right, hint[n:]))
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
    left_elements = {el for s in left_names for el, _ in _formula(s).counts}
    for alt_index, alternative in enumerate(template.byproducts):
        by = [canonical_smiles(s) for s in alternative]
        right_names = list(dict.fromkeys([*main_products, *by]))
        right_elements = {el for s in right_names for el, _ in _formula(s).counts}
        if right_elements != left_elements:
            continue
        if set(left_names) & set(right_names):
            return None, "species_on_both_sides"
        try:
            coefs = _balance_with_hint(
                [_formula(s) for s in left_names],
                [_formula(s) for s in right_names],
                None if hints is None else hints.get(alt_index),
            )
        except ValueError:
            continue
        if hints is not None:
            hints[alt_index] = coefs
        n = len(left_names)
        reactants = dict(zip(left_names, coefs[:n]))
        products = dict(zip(right_names, coefs[n:]))
        left_hill = {_formula(s).hill() for s in reactants}
        right_hill = {_formula(s).hill() for s in products}
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
    taken_hill = {_formula(s).hill() for s in taken_smiles}
    start = stable_hash("reagents", template.name, key) % len(sets)
    for off in range(len(sets)):
        group = tuple(canonical_smiles(s) for s in sets[(start + off) % len(sets)])
        hills = {_formula(s).hill() for s in group}
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
    for t in templates:
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


# ---------------------------------------------------------------------------------------------
# cache
# ---------------------------------------------------------------------------------------------


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def embedded_inputs_key(molecule_limit: int | None = None, cap_scale: float = 1.0) -> str:
    """Hash of everything the embedded corpus depends on (cache key)."""
    parts = {
        "version": CORPUS_VERSION,
        "rdkit": rdBase.rdkitVersion,
        "templates": [repr(t) for t in TEMPLATES],
        "files": [_file_digest(p) for p in molecule_files()],
        "whitelist": sorted(whitelist_smiles()),
        "limit": molecule_limit,
        "cap_scale": cap_scale,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


#: build parameters of the small corpus (tests, quick experiments)
SMALL_PARAMS = {"molecule_limit": 2500, "cap_scale": 0.12}


def corpus_path(name: str, key: str) -> Path:
    return cache_dir("stoich") / f"{name}-v{CORPUS_VERSION}-{key}.json.gz"


def _cached(name: str, key: str, build, rebuild: bool = False) -> Corpus:
    path = corpus_path(name, key)
    if path.exists() and not rebuild:
        try:
            return Corpus.load(path)
        except (OSError, ValueError, KeyError, EOFError, json.JSONDecodeError) as exc:
            log.warning("cached corpus %s is unreadable (%s); rebuilding", path, exc)
    log.warning("building the %s reaction corpus (once per machine) ...", name)
    corpus = build()
    corpus.save(path)
    return corpus


def load_embedded(*, small: bool = False, rebuild: bool = False) -> Corpus:
    """The embedded template corpus (``small``: a reduced build for tests), cached on disk."""
    params = SMALL_PARAMS if small else {"molecule_limit": None, "cap_scale": 1.0}
    name = "embedded-small" if small else "embedded"
    key = embedded_inputs_key(**params)
    return _cached(name, key, lambda: build_embedded(name=name, **params), rebuild)


def load_classic(*, rebuild: bool = False) -> Corpus:
    """The classic-equations corpus (combustion, redox, ionic, inorganic), cached on disk."""
    from rlvr.generators.stoich import classic

    key = hashlib.sha256(json.dumps([CORPUS_VERSION, classic.CLASSIC_VERSION, rdBase.rdkitVersion,
                                     classic.inputs_fingerprint()]).encode()).hexdigest()[:16]
    return _cached("classic", key, classic.build_classic_corpus, rebuild)


@lru_cache(maxsize=8)
def get_corpus(spec: str = "embedded") -> Corpus:
    """The corpus named by ``spec`` (see module docs); cached in memory per process."""
    if spec == "embedded":
        return load_embedded()
    if spec == "embedded-small":
        return load_embedded(small=True)
    if spec == "classic":
        return load_classic()
    if spec == "mixed":
        return merge_corpora("mixed", [get_corpus("embedded"), get_corpus("classic")])
    from rlvr.generators.stoich.loaders import load_user_corpus

    return load_user_corpus(spec)


def per_class(reactions: Iterable[Reaction]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for r in reactions:
        counts[r.rclass] += 1
    return dict(sorted(counts.items()))
