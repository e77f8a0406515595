"""The reaction corpora by name, built once per machine and cached on disk.

:func:`get_corpus` returns a cached :class:`~rlvr.generators.stoich.corpus_model.Corpus` for a spec:
``embedded`` (templates x RDKit-wheel molecules, :mod:`~rlvr.generators.stoich.template_build`),
``embedded-small``, ``classic`` (:mod:`~rlvr.generators.stoich.classic_build`), ``classic-fresh`` (held-out
classic equations the classic corpus does not have, :mod:`~rlvr.generators.stoich.fresh_build`), ``mixed``
(embedded + classic) or a path to a user file (:mod:`rlvr.generators.stoich.loaders`). Built corpora are cached
as gzipped JSON under ``rlvr.paths.cache_dir("stoich")``, keyed by
:data:`~rlvr.generators.stoich.corpus_model.CORPUS_VERSION` and a hash of every build input
(templates, molecule files, RDKit version, limits); the file carries a content hash that is
verified on load.
"""
from __future__ import annotations

import hashlib
import json
import logging
from functools import lru_cache
from pathlib import Path

from rdkit import rdBase

from rlvr.chem.rdkit_data import files_digest
from rlvr.generators.stoich import classic, classic_build, fresh_build
from rlvr.generators.stoich.corpus_model import CORPUS_VERSION, Corpus, merge_corpora
from rlvr.generators.stoich.loaders import load_user_corpus
from rlvr.generators.stoich.rebalance import whitelist_smiles
from rlvr.generators.stoich.template_build import build_embedded
from rlvr.generators.stoich.templates import TEMPLATES
from rlvr.paths import cache_file

log = logging.getLogger(__name__)

#: Corpus specs understood by :func:`get_corpus` besides a file path.
BUILTIN_CORPORA = ("embedded", "embedded-small", "classic", "classic-fresh", "mixed")


def embedded_inputs_key(molecule_limit: int | None = None, cap_scale: float = 1.0) -> str:
    """Hash of everything the embedded corpus depends on (cache key)."""
    parts = {
        "version": CORPUS_VERSION,
        "rdkit": rdBase.rdkitVersion,
        "templates": [repr(t) for t in TEMPLATES],
        "files": files_digest(),
        "whitelist": sorted(whitelist_smiles()),
        "limit": molecule_limit,
        "cap_scale": cap_scale,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


#: build parameters of the small corpus (tests, quick experiments)
SMALL_PARAMS = {"molecule_limit": 2500, "cap_scale": 0.12}


def corpus_path(name: str, key: str) -> Path:
    """Where the corpus ``name`` built from inputs hashed to ``key`` is cached."""
    return cache_file("stoich", f"{name}-v{CORPUS_VERSION}-{key}.json.gz")


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
    key = hashlib.sha256(json.dumps([CORPUS_VERSION, classic.CLASSIC_VERSION, rdBase.rdkitVersion,
                                     classic_build.inputs_fingerprint()]).encode()).hexdigest()[:16]
    return _cached("classic", key, classic_build.build_classic_corpus, rebuild)


def load_classic_fresh(*, rebuild: bool = False) -> Corpus:
    """The held-out ``classic-fresh`` corpus (built against the classic corpus, whose reactions it leaves out), cached on disk."""
    reference = load_classic()
    key = hashlib.sha256(json.dumps([CORPUS_VERSION, fresh_build.FRESH_VERSION, rdBase.rdkitVersion,
                                     fresh_build.inputs_fingerprint(), reference.content_hash]).encode()).hexdigest()[:16]
    return _cached(fresh_build.FRESH_NAME, key, lambda: fresh_build.build_fresh_corpus(reference), rebuild)


@lru_cache(maxsize=8)
def get_corpus(spec: str = "embedded") -> Corpus:
    """The corpus named by ``spec`` (see module docs); cached in memory per process."""
    if spec == "embedded":
        return load_embedded()
    if spec == "embedded-small":
        return load_embedded(small=True)
    if spec == "classic":
        return load_classic()
    if spec == "classic-fresh":
        return load_classic_fresh()
    if spec == "mixed":
        return merge_corpora("mixed", [get_corpus("embedded"), get_corpus("classic")])
    return load_user_corpus(spec)
