"""The report fields of a molecular task: features asked (with categories), load, pool, presentation."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from rlvr.chem.molecules.features import spec_for_key
from rlvr.task import Task


def _first(*values: Any) -> Any:
    for v in values:
        if v is not None and v != "":
            return v
    return None


def _presentation(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        if isinstance(value.get("name"), str):
            return value["name"]
        parts = [str(v) if not isinstance(v, bool) else (k if v else f"non-{k}") for k, v in value.items()]
        return "/".join(parts) if parts else None
    if isinstance(value, (list, tuple)):
        return "/".join(str(v) for v in value)
    return str(value)


def _features(meta: Mapping[str, Any]) -> tuple[list[str], dict[str, str]]:
    """Feature names and their categories from a molecular task's meta (several shapes accepted)."""
    raw = meta.get("features")
    names: list[str] = []
    categories: dict[str, str] = {}
    if isinstance(raw, Mapping):
        for name, value in raw.items():
            names.append(str(name))
            if isinstance(value, str):
                categories[str(name)] = value
            elif isinstance(value, Mapping) and value.get("category"):
                categories[str(name)] = str(value["category"])
    elif isinstance(raw, (list, tuple)):
        for item in raw:
            if isinstance(item, Mapping):
                name = _first(item.get("name"), item.get("feature"), item.get("key"))
                if name is None:
                    continue
                names.append(str(name))
                cat = _first(item.get("category"), item.get("group"))
                if cat is not None:
                    categories[str(name)] = str(cat)
            elif item is not None:
                names.append(str(item))
    elif isinstance(raw, str):
        names.append(raw)
    extra = _first(meta.get("feature_categories"), meta.get("categories"))
    if isinstance(extra, Mapping):
        categories.update({str(k): str(v) for k, v in extra.items()})
    elif isinstance(extra, (list, tuple)) and len(extra) == len(names):
        categories.update({n: str(c) for n, c in zip(names, extra)})
    return names, categories


def asked_keys(task: Task) -> list[str]:
    """The keys a task asks (its constraint keys for a generation task)."""
    gt = task.ground_truth or {}
    constraints = gt.get("constraints")
    if isinstance(constraints, list):
        return [str(c.get("key")) for c in constraints if isinstance(c, Mapping) and c.get("key") is not None]
    return [str(k) for k in gt]


def key_features(keys: Sequence[str]) -> dict[str, tuple[str, str | None]]:
    """Task key -> (feature name, category) from the molecular feature table, when it knows the key."""
    out: dict[str, tuple[str, str | None]] = {}
    for key in keys:
        try:
            spec = spec_for_key(key)
        except (KeyError, ValueError):
            continue
        out[key] = (spec.name, spec.category)
    return out


def molecule_task_info(task: Task, task_type: str) -> dict[str, Any]:
    """The grouping fields of a molecular task (missing optional meta keys give None)."""
    meta = task.meta or {}
    config = meta.get("config") if isinstance(meta.get("config"), Mapping) else {}
    names, categories = _features(meta)
    keys = asked_keys(task)
    known = key_features(list(dict.fromkeys([*keys, *names])))
    for key, (feature, category) in known.items():
        if category:
            categories.setdefault(feature, categories.get(key) or category)
    # meta may list task keys (``ring_count``) or feature names (``ring``): report feature names
    names = list(dict.fromkeys(known[n][0] if n in known else n for n in names))
    if not names:
        names = list(dict.fromkeys(f for f, _ in known.values()))
    load = _first(meta.get("load"), config.get("load"))
    if load is None and names:
        load = len(names)
    return {
        "task_type": task_type,
        "load": load,
        "complexity_bin": _first(meta.get("complexity_bin"), meta.get("bertz_bin")),
        "presentation": _presentation(meta.get("presentation")),
        "features": names,
        "feature_categories": categories,
        "keys": keys,
        "key_features": {k: f for k, (f, _) in known.items()},
    }
