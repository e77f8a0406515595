"""Answer keys as a model writes them, mapped to the feature keys a task asked for.

Keys are canonicalised (Unicode, case, punctuation, plurals) and may be natural-language aliases
(``"number of carbon atoms"`` or ``"carbon count"`` for ``carbon_atom_count``), taken from the key
itself, the feature name, the phrase the question uses (:func:`rlvr.chem.molecules.keys.describe`)
and :data:`EXTRA_ALIASES`. An alias must identify the asked key uniquely among all known feature
keys, and a key that names another known feature never stands in for the asked one.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Sequence

from rlvr.chem.molecules.keys import SMILES_KEY, describe, key_kind
from rlvr.chem.molecules.specs import FEATURES, KEY_TO_SPEC

_SMILES_ALIASES = (
    "smiles", "smiles string", "smile", "molecule", "molecule smiles", "generated smiles", "generated molecule",
    "proposed molecule", "proposed smiles", "candidate smiles", "candidate molecule", "structure", "output smiles",
)

_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_STOP = frozenset({
    "the", "of", "in", "a", "an", "number", "count", "total", "num", "no", "nr", "amount", "how", "many",
    "for", "molecule", "value", "index", "list", "position", "atom", "present", "with", "are", "is", "which",
    "compound", "all", "its", "that", "to", "be", "answer", "what",
})
_IRREGULAR = {"indices": "index", "indexes": "index", "vertices": "vertex", "termini": "terminus", "atoms": "atom"}


def _singular(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@lru_cache(maxsize=8192)
def normalize_key(text: str) -> str:
    """Unicode-normalised, case-folded, punctuation-free, singularised form of a key or phrase."""
    text = unicodedata.normalize("NFKC", str(text)).casefold()
    words = _NON_ALNUM.sub(" ", text).split()
    return " ".join(_singular(w) for w in words)


_SMILES_NORMS = frozenset(normalize_key(a) for a in _SMILES_ALIASES)


def _core(norm: str) -> str:
    return " ".join(w for w in norm.split() if w not in _STOP)


@lru_cache(maxsize=1)
def _known_keys() -> tuple[frozenset[str], dict[str, str]]:
    """All known feature keys and their normalised forms."""
    keys: set[str] = set()
    for spec in FEATURES.values():
        for k in (spec.count_key, spec.index_key):
            if k:
                keys.add(k)
    return frozenset(keys), {normalize_key(k): k for k in keys}


def _strip_affix(key: str) -> str:
    k = key
    for suffix in ("_count", "_index", "_indices", "_nbrinstances"):
        if k.lower().endswith(suffix):
            return k[: -len(suffix)]
    return k


@lru_cache(maxsize=4096)
def key_aliases(key: str) -> frozenset[str]:
    """Alias cores (normalised, stop words removed) under which ``key`` may be named in an answer."""
    cores = {_core(normalize_key(key)), _core(normalize_key(_strip_affix(key)))}
    kind = key_kind(key)
    spec = KEY_TO_SPEC.get(key)
    if spec is not None and spec.name:
        cores.add(_core(normalize_key(spec.name)))
    for phrase in EXTRA_ALIASES.get(key, ()):
        cores.add(_core(normalize_key(phrase)))
    if kind != "smiles":
        phrase, _style = describe(key)  # the words the question itself uses
        cores.add(_core(normalize_key(phrase)))
        cores.add(_core(normalize_key(phrase.split(" (")[0])))
    if kind == "smiles":
        cores.update(_core(normalize_key(a)) for a in _SMILES_ALIASES)
    cores.discard("")
    return frozenset(cores)


@lru_cache(maxsize=2)
def _global_alias_table(kind: str) -> dict[str, frozenset[str]]:
    """alias core -> every known key of ``kind`` it could name."""
    table: dict[str, set[str]] = {}
    keys, _ = _known_keys()
    for key in keys:
        if key_kind(key) != kind:
            continue
        for core in key_aliases(key):
            table.setdefault(core, set()).add(key)
    return {c: frozenset(ks) for c, ks in table.items()}


def canonical_key(answer_key: str, asked: Sequence[str]) -> str | None:
    """The asked key that ``answer_key`` names, or None (unknown, ambiguous, or another known key).

    Order: exact match after normalisation with an asked key; a normalised match with any other
    known feature key means that other key (never a stand-in, so None); otherwise an alias core
    that identifies exactly one key among the asked keys and all known keys of the same kind.
    """
    if not isinstance(answer_key, str) or len(answer_key) > 200:
        return None
    if answer_key in asked:  # an asked key as such (asked keys normalise to different forms)
        return answer_key
    norm = normalize_key(answer_key)
    asked_norm = {normalize_key(k): k for k in asked}
    if norm in asked_norm:
        return asked_norm[norm]
    if SMILES_KEY in asked and norm in _SMILES_NORMS:
        return SMILES_KEY
    _keys, known_norm = _known_keys()
    if norm in known_norm:
        return None
    words = set(norm.split())
    hint = "index" if "index" in words else ("count" if words & {"count", "number", "total", "num"} else None)
    core = _core(norm)
    if not core:
        return None
    hits = {k for k in asked if core in key_aliases(k)}
    if len(hits) != 1:
        return None
    (hit,) = hits
    if hint is not None and key_kind(hit) in ("count", "index") and hint != key_kind(hit):
        return None
    others = _global_alias_table(key_kind(hit)).get(core, frozenset()) - {hit}
    if others:
        return None
    return hit


#: Hand-written natural-language aliases beyond those derived from key and feature names.
EXTRA_ALIASES: dict[str, tuple[str, ...]] = {
    "carbon_atom_count": ("carbon count", "carbons", "number of carbons", "total carbons", "c count"),
    "hetero_atom_count": ("heteroatoms", "heteroatom count", "number of heteroatoms"),
    "halogen_atom_count": ("halogens", "halogen count", "number of halogens"),
    "heavy_atom_count": ("heavy atoms", "non hydrogen atoms", "heavy atom count"),
    "hydrogen_atom_count": ("hydrogens", "hydrogen count", "number of hydrogens", "h count"),
    "molecular_formula_count": ("molecular formula", "formula", "chemical formula"),
    "ring_count": ("rings", "number of rings", "ring count"),
    "aromatic_ring_count": ("aromatic rings", "number of aromatic rings"),
    "aliphatic_ring_count": ("aliphatic rings", "non aromatic rings"),
    "saturated_ring_count": ("saturated rings",),
    "heterocycle_count": ("heterocycles", "heterocyclic rings"),
    "fused_ring_count": ("fused rings",),
    "hba_count": ("hydrogen bond acceptors", "h bond acceptors", "hba", "acceptors"),
    "hbd_count": ("hydrogen bond donors", "h bond donors", "hbd", "donors"),
    "rotatable_bond_count": ("rotatable bonds", "rotatable bond count"),
    "csp3_carbon_count": ("sp3 carbons", "sp3 hybridized carbons", "csp3 carbons"),
    "stereocenter_count": ("stereocenters", "chiral centers", "stereogenic centers"),
    "branch_point_count": ("branch points", "branching points"),
    "chain_termini_count": ("chain termini", "chain ends", "terminal atoms"),
    "bridgehead_count": ("bridgehead atoms", "bridgeheads"),
    "longest_carbon_chain_count": ("longest carbon chain", "longest chain", "length of the longest carbon chain"),
    "brics_decomposition_count": ("brics fragments", "brics fragment count"),
    "carbon_atom_index": ("carbon atoms", "carbons"),
    "hetero_atom_index": ("heteroatoms",),
    "halogen_atom_index": ("halogens",),
    "hba_index": ("hydrogen bond acceptors", "h bond acceptors", "hba", "acceptors"),
    "hbd_index": ("hydrogen bond donors", "h bond donors", "hbd", "donors"),
    "ring_index": ("ring atoms", "atoms in rings"),
    "aromatic_ring_index": ("aromatic ring atoms", "atoms in aromatic rings"),
    "aliphatic_ring_index": ("aliphatic ring atoms", "atoms in aliphatic rings"),
    "saturated_ring_index": ("saturated ring atoms", "atoms in saturated rings"),
    "branch_point_index": ("branch points",),
    "stereocenter_index": ("stereocenters", "chiral centers"),
}


__all__ = ["EXTRA_ALIASES", "SMILES_KEY", "canonical_key", "key_aliases", "key_kind", "normalize_key"]
