"""Bertz molecular complexity and the three MolecularIQ complexity bins (section 3.3, appendix A.2)."""
from __future__ import annotations

import math

from rdkit import Chem
from rdkit.Chem import GraphDescriptors

#: bin name -> half-open interval [low, high) of Bertz CT
COMPLEXITY_BINS: dict[str, tuple[float, float]] = {
    "0-250": (0.0, 250.0),
    "250-1000": (250.0, 1000.0),
    "1000-inf": (1000.0, math.inf),
}

_BIN_ALIASES = {
    "[0,250)": "0-250", "0-250": "0-250", "0_250": "0-250", "low": "0-250", "simple": "0-250",
    "[250,1000)": "250-1000", "250-1000": "250-1000", "250_1000": "250-1000", "medium": "250-1000",
    "[1000,inf)": "1000-inf", "1000-inf": "1000-inf", "1000+": "1000-inf", "1000_inf": "1000-inf",
    "high": "1000-inf", "complex": "1000-inf",
}


def bertz_ct(mol: Chem.Mol) -> float:
    """Bertz CT complexity index of a sanitised molecule (RDKit ``BertzCT``)."""
    return float(GraphDescriptors.BertzCT(mol))


def complexity_bin(value: float) -> str:
    """The name of the bin containing a Bertz CT value (``"0-250"``, ``"250-1000"`` or ``"1000-inf"``)."""
    for name, (low, high) in COMPLEXITY_BINS.items():
        if low <= value < high:
            return name
    if value < 0:
        raise ValueError(f"Bertz complexity cannot be negative: {value}")
    return "1000-inf"


def parse_bin(spec: str | None) -> str | None:
    """Normalise a user bin spec (``"[0,250)"``, ``"0-250"``, ``"low"``...) to a bin name.

    ``None``, ``"any"`` and ``"all"`` mean no restriction (None); ``"balanced"`` is returned as is
    (draw the bin uniformly first, then a molecule in it).
    """
    if spec is None:
        return None
    text = str(spec).strip().lower().replace(" ", "")
    if text in ("", "any", "all", "none"):
        return None
    if text == "balanced":
        return "balanced"
    if text in _BIN_ALIASES:
        return _BIN_ALIASES[text]
    raise ValueError(f"unknown complexity bin {spec!r}; use one of {list(COMPLEXITY_BINS)}, 'any' or 'balanced'")
