"""The cached tiers behind the feature values of :mod:`rlvr.chem.molecules.features`: parse once,
compute once, then map the values onto the SMILES as written.

1. :func:`written_form`: a SMILES as given, parsed once: its RDKit canonical SMILES and, for each
   canonical atom, its position in the SMILES as written (heavy atoms and isotopic hydrogens,
   0-based; a plain explicit ``[H]`` has none).
2. :func:`core_record`: every value except the expensive ones, once per canonical SMILES, on the
   canonical atom order (so ring, stereo and chain choices never depend on how a molecule was written).
3. :func:`brics_count` and :func:`template_products_of`: the expensive values, computed only when a key
   asks for them (:func:`add_lazy_values`).
4. :func:`as_written`: the asked values, index values mapped back onto the positions as written.

Every tier is a bounded LRU cache (:func:`cache_info`, :func:`clear_caches`); a pool's feature table
(:mod:`rlvr.chem.molecules.tables`) stores tiers 1 to 3 computed by these same functions.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping

from rdkit import Chem

from rlvr.chem.molecules.brics import brics_leaves
from rlvr.chem.molecules.reactions import template_products
from rlvr.chem.molecules.solvers import Record, compute_record
from rlvr.chem.molecules.specs import INDEX_KEYS, LAZY_KEYS, SITE_KEY, SPARSE_DEFAULTS, TEMPLATE_OF
from rlvr.chem.smiles import SmilesError, parse_smiles

#: largest molecule (heavy atoms) accepted; the benchmark pool stops at 50
MAX_HEAVY_ATOMS = 500
#: the lazy key of the BRICS leaf count, and the feature name its work bound is reported under
BRICS_KEY = "brics_decomposition_count"
BRICS_FEATURE = "brics_decomposition"


class FeatureError(ValueError):
    """The input cannot be featurised (invalid SMILES, unsupported atoms) or the key is unknown."""


@dataclass(frozen=True)
class Written:
    """How a SMILES as given relates to its canonical record."""

    canonical: str
    #: canonical atom position -> index in the given SMILES (-1 for a skipped explicit [H])
    to_written: tuple[int, ...]


def check_molecule(mol: Chem.Mol, smiles: str) -> None:
    """``FeatureError`` for a molecule the features do not take: dummy atoms, over :data:`MAX_HEAVY_ATOMS`."""
    for atom in mol.GetAtoms():
        if atom.GetAtomicNum() == 0:
            raise FeatureError(f"dummy atoms (*) are not supported: {smiles!r}")
    if mol.GetNumHeavyAtoms() > MAX_HEAVY_ATOMS:
        raise FeatureError(f"molecule has more than {MAX_HEAVY_ATOMS} heavy atoms")


def atom_positions(mol: Chem.Mol) -> tuple[int, ...]:
    """Position of each atom in its SMILES: plain explicit [H] atoms are not numbered (-1)."""
    position: list[int] = []
    n = 0
    for atom in mol.GetAtoms():
        if atom.GetAtomicNum() == 1 and atom.GetIsotope() == 0:
            position.append(-1)
        else:
            position.append(n)
            n += 1
    return tuple(position)


@lru_cache(maxsize=32768)
def written_form(smiles: str) -> Written:
    """The canonical SMILES of ``smiles`` and the position as written of each canonical atom."""
    try:
        mol = parse_smiles(smiles)
    except SmilesError as exc:
        raise FeatureError(str(exc)) from exc
    check_molecule(mol, smiles)
    mol = Chem.Mol(mol)  # never touch the shared parse cache's object
    position = atom_positions(mol)
    canonical = Chem.MolToSmiles(mol)
    order = list(mol.GetPropsAsDict(True, True)["_smilesAtomOutputOrder"])
    return Written(canonical, tuple(position[i] for i in order))


def source_record(smiles: str, compute: Callable[[str], Record],
                  written: Written | None = None) -> tuple[str, tuple[int, ...], Record]:
    """``(source, to_written, record)``: the record ``compute`` gives for the canonical SMILES of ``smiles``
    (``written``: its :func:`written_form`, when known), or, where the canonical round trip changed the atom
    count (explicit hydrogens RDKit keeps), for ``smiles`` itself with its atom positions mapped directly."""
    w = written if written is not None else written_form(smiles)
    record = compute(w.canonical)
    if record.n_atoms != len(w.to_written):
        return smiles, atom_positions(parse_smiles(smiles)), compute(smiles)
    return w.canonical, w.to_written, record


@lru_cache(maxsize=2048)
def parsed(smiles: str) -> Chem.Mol:
    """A private, sanitised molecule for a (canonical) SMILES, shared by the value tiers."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:  # pragma: no cover - RDKit canonical SMILES round-trip failure
        raise FeatureError(f"SMILES {smiles!r} does not parse back")
    return mol


@lru_cache(maxsize=8192)
def core_record(smiles: str) -> Record:
    """Core tier: every value except the BRICS leaves and the template products."""
    return compute_record(Chem.Mol(parsed(smiles)))  # stereo perception edits the molecule


@lru_cache(maxsize=4096)
def brics_count(smiles: str) -> tuple[int, str]:
    """Expensive tier: number of BRICS leaf fragments, and a reason code if bounded."""
    result = brics_leaves(parsed(smiles))
    return len(result.fragments), result.reason


@lru_cache(maxsize=16384)
def template_products_of(smiles: str, template: str) -> tuple[str, ...]:
    """Expensive tier: products of one template (computed only when a key asks for them)."""
    return tuple(template_products(parsed(smiles), template))


def add_lazy_values(source: Mapping[str, Any], keys: Iterable[str], smiles: str,
                    bounded: dict[str, str] | None = None) -> Mapping[str, Any]:
    """``source`` with the expensive values of ``keys`` added (a copy; ``source`` itself when none is
    asked): the BRICS leaf count where ``source`` lacks it (its work bound, if hit, into ``bounded``),
    a template's products or success flag where the molecule has the template's site."""
    lazy = [k for k in keys if k in LAZY_KEYS]
    if not lazy:
        return source
    out = dict(source)
    for k in lazy:
        if k == BRICS_KEY:
            if k not in out:  # a table's record carries it (and its bound)
                out[k], reason = brics_count(smiles)
                if reason and bounded is not None:
                    bounded[BRICS_FEATURE] = reason
        elif out.get(SITE_KEY[k]):  # templates without a site have no products
            products = template_products_of(smiles, TEMPLATE_OF[k])
            out[k] = products if k.endswith("_products") else int(bool(products))
    return out


def as_written(source: Mapping[str, Any], keys: Iterable[str], to_written: tuple[int, ...]) -> dict[str, Any]:
    """The values of ``keys`` (sparse ones defaulted), index values mapped through ``to_written`` onto
    the positions as written (sorted, skipped atoms left out), tuples as lists."""
    out: dict[str, Any] = {}
    for k in keys:
        val = source.get(k, SPARSE_DEFAULTS.get(k))
        if k in INDEX_KEYS:
            val = sorted(p for p in (to_written[i] for i in val) if p >= 0)
        elif isinstance(val, tuple):
            val = list(val)
        out[k] = val
    return out


_CACHES = (("written", written_form), ("core", core_record), ("brics", brics_count),
           ("products", template_products_of), ("parsed", parsed))


def cache_info() -> dict[str, Any]:
    """Hit/miss statistics of the tier caches."""
    return {name: fn.cache_info()._asdict() for name, fn in _CACHES}


def clear_caches() -> None:
    """Empty the tier caches."""
    for _name, fn in _CACHES:
        fn.cache_clear()


__all__ = [
    "BRICS_FEATURE", "BRICS_KEY", "MAX_HEAVY_ATOMS", "FeatureError", "Written", "add_lazy_values", "as_written",
    "atom_positions", "brics_count", "cache_info", "check_molecule", "clear_caches", "core_record", "parsed",
    "source_record", "template_products_of", "written_form",
]
