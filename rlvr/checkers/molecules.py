"""Strict verifiers for the MolecularIQ task families ``mol.count``, ``mol.index`` and ``mol.gen``.

Extraction follows the cascade of MolecularIQ appendix B.2.3 (:func:`rlvr.answer.extract_json_answer`:
last ``<answer>`` block with JSON; tag text without JSON; last JSON object without tags; nothing;
text before ``</think>`` ignored). Tag text without a JSON object is read as ``"key": value`` pairs
(the paper's own prompt shows answers without braces) or ``key: value`` lines, and, for generation
only, as a bare SMILES token.

Stricter than the paper:

- answer keys are canonicalised (case, punctuation, plurals, natural-language aliases such as
  ``"number of carbon atoms"`` or ``"carbon count"`` for ``carbon_atom_count``), but an alias must
  identify the asked key uniquely among all known feature keys, and a key that names another
  known feature never stands in for the asked one;
- a missing key is wrong; two answers for the same key (exact duplicates in the JSON text, or
  two spellings that canonicalise to the same key) are wrong;
- counts must be JSON integers: ``2.7``, ``2.0``, ``"2"``, ``true`` and ``null`` are wrong types;
- index answers must be lists of distinct integers (order-insensitive);
- a generated SMILES must parse and sanitise, have no dummy atoms, be one connected molecule
  (no ``.``), stay within the size caps, and satisfy every constraint when recomputed.

Every verdict carries per-key results in ``metrics["keys"]`` plus ``key_accuracy``, ``type_valid``
and the lists ``wrong_keys``, ``missing_keys``, ``duplicate_keys``, ``invalid_type_keys`` and
``unknown_keys`` (key names only, never values, so a multi-turn environment can give feedback
without leaking the answer). Reward is binary by default; ``reward="shaped"`` gives the fraction
of asked keys (or constraints) that are correct.
"""
from __future__ import annotations

import json
import math
import re
import unicodedata
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from rlvr.answer import extract_json_answer
from rlvr.task import Task, TaskFormatError, Verdict

#: Generated SMILES longer than this are rejected (``too_long``) before parsing (pool molecules: < 100).
MAX_GEN_SMILES_CHARS = 200
#: Generated molecules with more heavy atoms than this are rejected (``too_long``) before any
#: feature is computed (pool molecules: <= 50).
MAX_GEN_HEAVY_ATOMS = 100
#: Generated molecules with more rings than this are rejected (``too_long``; pool molecules: <= 10):
#: cages and large fused systems make the longest-chain search run to its work bound.
MAX_GEN_RINGS = 12
#: Index lists longer than this are rejected (wrong type) without further work.
MAX_INDEX_LIST = 1_000
#: String values (formulas, SMILES) longer than this are wrong.
MAX_VALUE_CHARS = 500

REWARD_MODES = {"binary": "binary", "strict": "binary", "em": "binary", "exact": "binary",
                "shaped": "shaped", "fraction": "shaped", "partial": "shaped"}

OPS = ("==", ">=", "<=", ">", "<", "range")

SMILES_KEY = "smiles"
_SMILES_ALIASES = (
    "smiles", "smiles string", "smile", "molecule", "molecule smiles", "generated smiles", "generated molecule",
    "proposed molecule", "proposed smiles", "candidate smiles", "candidate molecule", "structure", "output smiles",
)

# --------------------------------------------------------------------------- key canonicalisation

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


def key_kind(key: str) -> str:
    """``"index"`` for keys ending in ``_index``/``_indices``, ``"smiles"`` for the generation key, else ``"count"``."""
    k = key.lower()
    if k == SMILES_KEY:
        return "smiles"
    return "index" if k.endswith(("_index", "_indices")) else "count"


def _feature_specs() -> dict[str, Any]:
    try:
        from rlvr.chem.molecules.features import FEATURES
    except ImportError:  # pragma: no cover - the feature module is part of the package
        return {}
    return FEATURES


@lru_cache(maxsize=1)
def _known_keys() -> tuple[frozenset[str], dict[str, str]]:
    """All known feature keys and their normalised forms."""
    keys: set[str] = set()
    for spec in _feature_specs().values():
        for k in (getattr(spec, "count_key", None), getattr(spec, "index_key", None)):
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
    spec = _spec_for(key)
    if spec is not None:
        name = getattr(spec, "name", "") or ""
        if name:
            cores.add(_core(normalize_key(name)))
    for phrase in EXTRA_ALIASES.get(key, ()):
        cores.add(_core(normalize_key(phrase)))
    if kind != "smiles":
        from rlvr.generators.molecules.prompts import describe

        phrase, _style = describe(key)  # the words the question itself uses
        cores.add(_core(normalize_key(phrase)))
        cores.add(_core(normalize_key(phrase.split(" (")[0])))
    if kind == "smiles":
        cores.update(_core(normalize_key(a)) for a in _SMILES_ALIASES)
    cores.discard("")
    return frozenset(cores)


def _spec_for(key: str) -> Any:
    if not _feature_specs():
        return None
    from rlvr.chem.molecules.features import spec_for_key

    try:
        return spec_for_key(key)
    except KeyError:
        return None


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

# --------------------------------------------------------------------------- answer parsing


class _Pairs(dict):
    """A JSON object that remembers every (key, value) pair, duplicates included."""

    __slots__ = ("pairs",)


def _pairs_hook(pairs: list[tuple[str, Any]]) -> _Pairs:
    obj = _Pairs(pairs)
    obj.pairs = list(pairs)
    return obj


_KV = re.compile(r"""["'`]?([A-Za-z][^:=\n;{}\[\]"'`]{0,120}?)["'`]?\s*[:=]\s*(\[[^\]]{0,4000}\]|"[^"\n]{0,600}"|'[^'\n]{0,600}'|[^,;\n]{0,600})""")
_INT = re.compile(r"[+-]?\d{1,12}")


def _coerce_text_value(raw: str) -> Any:
    text = raw.strip()
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        if not inner:
            return []
        parts = [p for p in re.split(r"[,\s;]+", inner) if p]
        if all(_INT.fullmatch(p) for p in parts):
            return [int(p) for p in parts]
        return text  # not an integer list: left as text (wrong type later)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if _INT.fullmatch(text):
        return int(text)
    return text


def parse_text_answer(body: str) -> list[tuple[str, Any]] | None:
    """``key: value`` pairs from answer-tag text without a JSON object (None if there are none).

    First tries the text wrapped in braces as JSON (``"ring_count": 2`` as in the paper's prompt),
    then ``key: value`` / ``key = value`` pieces separated by commas, semicolons or line breaks.
    Integer tokens become ints and ``[1, 2]`` integer lists; everything else stays a string.
    """
    text = body.strip()
    if not text:
        return None
    decoder = json.JSONDecoder(object_pairs_hook=_pairs_hook)
    try:
        obj = decoder.decode("{" + text.rstrip(",") + "}")
        if isinstance(obj, _Pairs):
            return obj.pairs
    except (ValueError, RecursionError):  # ValueError covers JSONDecodeError and >4300-digit integers
        pass
    pairs = [(m.group(1).strip(), _coerce_text_value(m.group(2))) for m in _KV.finditer(text)]
    return pairs or None


def _answer_pairs(completion: Any, *, allow_bare_smiles: bool) -> tuple[list[tuple[str, Any]] | None, str]:
    """(pairs, source) of the answer; pairs is None with a reason code as source when nothing usable."""
    value, source = extract_json_answer(completion, object_pairs_hook=_pairs_hook)
    if source in ("not_text", "no_answer"):
        return None, "no_answer"
    if source == "too_long":
        return None, "too_long"
    if isinstance(value, _Pairs):
        return value.pairs, source
    if isinstance(value, dict):  # pragma: no cover - the hook always builds _Pairs
        return list(value.items()), source
    if source == "tag_text" and isinstance(value, str):
        pairs = parse_text_answer(value)
        if pairs is not None:
            return pairs, "tag_text"
        token = value.strip().strip("`'\"")
        if allow_bare_smiles and token and not any(c.isspace() for c in token):
            return [(SMILES_KEY, token)], "tag_bare"
    return None, "unparsable"


def _resolve(pairs: Iterable[tuple[str, Any]], asked: Sequence[str]) -> tuple[dict[str, list[Any]], list[str]]:
    """Group answer values by the asked key they name; keys naming nothing asked go to ``unknown``."""
    found: dict[str, list[Any]] = {}
    unknown: list[str] = []
    for raw_key, value in pairs:
        key = canonical_key(raw_key, asked) if isinstance(raw_key, str) else None
        if key is None:
            unknown.append(str(raw_key)[:80])
            continue
        found.setdefault(key, []).append(value)
    return found, unknown


# --------------------------------------------------------------------------- value checks

def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _formula_equal(pred: str, true: str) -> bool:
    from rlvr.chem.formula import FormulaError, parse_formula

    try:
        return parse_formula(pred.strip()) == parse_formula(true.strip())
    except (FormulaError, ValueError):
        return False


def _smiles_equal(pred: str, true: str) -> bool:
    from rlvr.chem.smiles import SmilesError, canonical_smiles

    if pred.strip() == true.strip():
        return True
    if not pred.strip() or not true.strip() or len(pred) > MAX_GEN_SMILES_CHARS:
        return False
    try:
        return canonical_smiles(pred.strip()) == canonical_smiles(true.strip())
    except (SmilesError, ValueError):
        return False


def check_value(key: str, pred: Any, true: Any) -> tuple[bool, bool, str]:
    """Compare one answer value with the ground truth: ``(valid_type, correct, status)``.

    The comparison is chosen by the ground-truth type: integer list (index answers: a list of
    distinct integers, order-insensitive), integer (a JSON integer, no floats, strings or booleans),
    boolean, or string (molecular formulas compared as formulas, SMILES-valued keys as canonical
    SMILES, other strings after trimming and case folding).
    """
    if isinstance(true, (list, tuple)):
        if not isinstance(pred, list) or len(pred) > MAX_INDEX_LIST or not all(_is_int(x) for x in pred):
            return False, False, "wrong_type"
        if len(set(pred)) != len(pred):
            return True, False, "duplicate_indices"
        return True, set(pred) == {int(x) for x in true}, "ok"
    if isinstance(true, bool):
        if not isinstance(pred, bool):
            return False, False, "wrong_type"
        return True, pred == true, "ok"
    if isinstance(true, float) and true.is_integer():
        true = int(true)
    if _is_int(true):
        if not _is_int(pred):
            return False, False, "wrong_type"
        return True, pred == true, "ok"
    if isinstance(true, float):
        if not isinstance(pred, (int, float)) or isinstance(pred, bool) or not math.isfinite(pred):
            return False, False, "wrong_type"
        return True, math.isclose(pred, true, rel_tol=1e-9, abs_tol=1e-9), "ok"
    if isinstance(true, str):
        if not isinstance(pred, str) or len(pred) > MAX_VALUE_CHARS:
            return False, False, "wrong_type"
        k = key.lower()
        if "formula" in k:
            return True, _formula_equal(pred, true), "ok"
        if "smiles" in k or "scaffold" in k or "product" in k:
            return True, _smiles_equal(pred, true), "ok"
        return True, pred.strip().casefold() == true.strip().casefold(), "ok"
    return False, False, "wrong_type"


def _reward_mode(options: Mapping[str, Any]) -> str:
    unknown = sorted(set(options) - {"reward"})
    if unknown:
        raise TypeError(f"molecular checkers got an unexpected keyword argument {unknown[0]!r} (valid: reward)")
    mode = options.get("reward") or "binary"
    if mode not in REWARD_MODES:
        raise ValueError(f"unknown reward mode {mode!r}; use one of {sorted(REWARD_MODES)}")
    return REWARD_MODES[mode]


def _verdict(results: dict[str, dict[str, Any]], extra: dict[str, Any], reason: str, mode: str) -> Verdict:
    n = len(results)
    n_correct = sum(1 for r in results.values() if r["correct"])
    correct = reason == "ok"
    key_accuracy = n_correct / n if n else 0.0
    metrics = {
        "keys": results,
        "key_accuracy": key_accuracy,
        "type_valid": bool(n) and all(r["valid_type"] for r in results.values()),
        "n_keys": n,
        "wrong_keys": [k for k, r in results.items() if not r["correct"]],
        **extra,
    }
    reward = 1.0 if correct else (key_accuracy if mode == "shaped" else 0.0)
    return Verdict(reward=float(reward), correct=correct, metrics=metrics, reason=reason)


_REASON_ORDER = ("duplicate_key", "missing_key", "wrong_type", "wrong_value")


def check_answer(task: Task, completion: Any, **options: Any) -> Verdict:
    """Verify a count or index answer against ``task.ground_truth`` (``{key: value}``)."""
    mode = _reward_mode(options)
    truth = dict(task.ground_truth)
    asked = list(truth)
    if not asked:
        raise TaskFormatError(f"task {task.id!r}: ground truth has no keys")
    empty = {k: {"correct": False, "valid_type": False, "status": "no_answer"} for k in asked}
    pairs, source = _answer_pairs(completion, allow_bare_smiles=False)
    if pairs is None:
        reason = source
        for r in empty.values():
            r["status"] = reason
        return _verdict(empty, {"source": source, "missing_keys": asked, "duplicate_keys": [],
                                "invalid_type_keys": [], "unknown_keys": []}, reason, mode)
    found, unknown = _resolve(pairs, asked)
    results: dict[str, dict[str, Any]] = {}
    statuses: set[str] = set()
    for key in asked:
        values = found.get(key, [])
        if not values:
            results[key] = {"correct": False, "valid_type": False, "status": "missing_key"}
        elif len(values) > 1:
            results[key] = {"correct": False, "valid_type": all(check_value(key, v, truth[key])[0] for v in values),
                            "status": "duplicate_key"}
        else:
            valid, ok, status = check_value(key, values[0], truth[key])
            if status == "ok" and not ok:
                status = "wrong_value"
            elif status == "duplicate_indices":
                status = "wrong_value"
            results[key] = {"correct": bool(ok), "valid_type": valid, "status": status}
        statuses.add(results[key]["status"])
    reason = next((r for r in _REASON_ORDER if r in statuses), "ok")
    extra = {
        "source": source,
        "missing_keys": [k for k, r in results.items() if r["status"] == "missing_key"],
        "duplicate_keys": [k for k, r in results.items() if r["status"] == "duplicate_key"],
        "invalid_type_keys": [k for k, r in results.items() if r["status"] == "wrong_type"],
        "unknown_keys": unknown[:20],
    }
    return _verdict(results, extra, reason, mode)


check_count = check_answer
check_index = check_answer

# --------------------------------------------------------------------------- generation


def constraint_satisfied(actual: Any, op: str, value: Any, key: str = "") -> bool:
    """Whether a recomputed feature value satisfies ``actual <op> value`` (``range``: inclusive ``[lo, hi]``)."""
    if isinstance(actual, (list, tuple)):
        actual = len(actual)
    if isinstance(value, str) or isinstance(actual, str):
        if op != "==" or not isinstance(value, str) or not isinstance(actual, str):
            return False
        if "formula" in key.lower():
            return _formula_equal(actual, value)
        if "smiles" in key.lower() or "scaffold" in key.lower():
            return _smiles_equal(actual, value)
        return actual == value
    if actual is None:
        return False
    if isinstance(actual, bool):
        actual = int(actual)
    if op == "==":
        return actual == value
    if op == ">=":
        return actual >= value
    if op == "<=":
        return actual <= value
    if op == ">":
        return actual > value
    if op == "<":
        return actual < value
    if op == "range":
        lo, hi = value
        return lo <= actual <= hi
    raise ValueError(f"unknown constraint operator {op!r}")


def _generated_smiles(pairs: list[tuple[str, Any]]) -> tuple[list[Any], list[str]]:
    found, unknown = _resolve(pairs, [SMILES_KEY])
    return found.get(SMILES_KEY, []), unknown


def validate_generated(smiles: str) -> tuple[Any, str]:
    """Parse a generated SMILES under the size caps: ``(mol, "ok")`` or ``(None, reason)``."""
    from rdkit import Chem
    from rdkit.Chem import rdMolDescriptors

    text = smiles.strip()
    if not text:
        return None, "invalid_smiles"
    if len(text) > MAX_GEN_SMILES_CHARS:
        return None, "too_long"

    mol = Chem.MolFromSmiles(text)
    if mol is None or mol.GetNumAtoms() == 0:
        return None, "invalid_smiles"
    if any(a.GetAtomicNum() == 0 for a in mol.GetAtoms()):
        return None, "invalid_smiles"
    if mol.GetNumHeavyAtoms() > MAX_GEN_HEAVY_ATOMS or rdMolDescriptors.CalcNumRings(mol) > MAX_GEN_RINGS:
        return None, "too_long"
    if len(Chem.GetMolFrags(mol)) != 1:
        return None, "multiple_fragments"
    return mol, "ok"


@lru_cache(maxsize=4096)
def _features_of(smiles: str, keys: tuple[str, ...]) -> tuple[dict[str, Any] | None, str]:
    """The values of the known ``keys`` for a generated molecule (unknown keys are left out)."""
    from rlvr.chem.molecules.features import FeatureError, molecule_features, spec_for_key

    known = []
    for k in keys:
        try:
            spec_for_key(k)
        except KeyError:
            continue
        known.append(k)
    try:
        return molecule_features(smiles, known), "ok"
    except (FeatureError, ValueError) as exc:
        return None, f"feature_error: {exc}"[:200]


def normalize_constraint(c: Mapping[str, Any]) -> dict[str, Any]:
    """A constraint as ``{"key", "op", "value"}`` (accepts MolecularIQ's ``type``/``property``,
    ``operator`` and ``min_value``/``max_value`` spellings; ``=`` means ``==``)."""
    key = c.get("key", c.get("type", c.get("property")))
    if not isinstance(key, str) or not key:
        raise ValueError(f"constraint without a key: {dict(c)}")
    op = str(c.get("op", c.get("operator", "=="))).strip()
    op = {"=": "==", "eq": "==", "ge": ">=", "le": "<=", "gt": ">", "lt": "<", "between": "range"}.get(op, op)
    if op not in OPS:
        raise ValueError(f"unknown constraint operator {op!r}")
    value = c.get("value")
    if op == "range":
        if isinstance(value, (list, tuple)) and len(value) == 2:
            lo, hi = value
        else:
            lo, hi = c.get("min_value"), c.get("max_value")
        if lo is None or hi is None:
            raise ValueError(f"range constraint needs [lo, hi]: {dict(c)}")
        value = [lo, hi]
    elif value is None:
        value = c.get("min_value") if op in (">=", ">") else c.get("max_value")
        if value is None:
            raise ValueError(f"constraint without a value: {dict(c)}")
    if key.endswith("_nbrInstances"):
        key = key[: -len("_nbrInstances")] + "_count"
    return {"key": key, "op": op, "value": value}


def check_gen(task: Task, completion: Any, **options: Any) -> Verdict:
    """Verify a generated molecule against ``task.ground_truth["constraints"]``."""
    mode = _reward_mode(options)
    raw = task.ground_truth.get("constraints")
    if not isinstance(raw, list) or not raw:
        raise TaskFormatError(f"task {task.id!r}: ground truth needs a non-empty list of constraints")
    try:
        constraints = [normalize_constraint(c) for c in raw]
    except (ValueError, AttributeError, TypeError) as exc:
        raise TaskFormatError(f"task {task.id!r}: bad constraint: {exc}") from exc
    base = {"smiles_valid": False, "constraints": [], "n_constraints": len(constraints)}

    def fail(reason: str, **extra: Any) -> Verdict:
        metrics = {**base, "keys": {SMILES_KEY: {"correct": False, "valid_type": reason not in
                                                  ("no_answer", "unparsable", "missing_key", "wrong_type"),
                                                  "status": reason}},
                   "key_accuracy": 0.0, "type_valid": False, "wrong_keys": [c["key"] for c in constraints],
                   "n_keys": len(constraints), **extra}
        return Verdict(reward=0.0, correct=False, metrics=metrics, reason=reason)

    pairs, source = _answer_pairs(completion, allow_bare_smiles=True)
    if pairs is None:
        return fail(source, source=source)
    values, unknown = _generated_smiles(pairs)
    if not values:
        return fail("missing_key", source=source, unknown_keys=unknown[:20])
    if len(values) > 1:
        return fail("duplicate_key", source=source, unknown_keys=unknown[:20])
    smiles = values[0]
    if not isinstance(smiles, str):
        return fail("wrong_type", source=source)
    mol, status = validate_generated(smiles)
    if mol is None:
        return fail(status, source=source)
    features, why = _features_of(smiles.strip(), tuple(sorted({c["key"] for c in constraints})))
    if features is None:
        return fail("invalid_smiles", source=source, error=why)
    results: dict[str, dict[str, Any]] = {}
    details = []
    for i, c in enumerate(constraints):
        actual = features.get(c["key"])
        ok = actual is not None and constraint_satisfied(actual, c["op"], c["value"], c["key"])
        status = "ok" if ok else ("unsupported_constraint" if c["key"] not in features else "constraint_failed")
        details.append({**c, "actual": actual if not isinstance(actual, list) else len(actual), "satisfied": bool(ok)})
        name = c["key"] if c["key"] not in results else f"{c['key']}#{i}"
        results[name] = {"correct": bool(ok), "valid_type": True, "status": status}
    reason = "ok" if all(d["satisfied"] for d in details) else "constraint_failed"
    extra = {**base, "smiles_valid": True, "constraints": details, "source": source, "unknown_keys": unknown[:20],
             "missing_keys": [], "duplicate_keys": [], "invalid_type_keys": []}
    verdict = _verdict(results, extra, reason, mode)
    verdict.metrics["type_valid"] = True
    return verdict


def check(task: Task, completion: Any, **options: Any) -> Verdict:
    """Dispatch on the task family: ``mol.gen`` to :func:`check_gen`, others to :func:`check_answer`."""
    if task.family == "mol.gen" or "constraints" in task.ground_truth:
        return check_gen(task, completion, **options)
    return check_answer(task, completion, **options)


def oracle(task: Task) -> str:
    """A completion that scores 1.0: the ground truth (or the reference molecule) as an answer block."""
    if task.family == "mol.gen" or "constraints" in task.ground_truth:
        smiles = task.meta.get("reference_smiles")
        if not smiles:
            raise ValueError(f"task {task.id} has no reference molecule for its constraints")
        return "<answer>" + json.dumps({SMILES_KEY: smiles}) + "</answer>"
    return "<answer>" + json.dumps(task.ground_truth, ensure_ascii=False) + "</answer>"
