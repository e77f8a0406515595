"""Grown ion, acid, metal and solubility tables of the fresh held-out classic equations
(:mod:`rlvr.generators.stoich.classic_fresh`).

The tables extend those of :mod:`rlvr.generators.stoich.classic` with further real ions (Rb+, Cs+,
Be2+, Cd2+, Hg2+, La3+, Bi3+, ...; nitrite, bromate, iodate, formate, cyanide, thiocyanate, hydrogen
sulfate, dihydrogen and hydrogen phosphate, sulfite, chromate, dichromate, oxalate, thiosulfate,
selenate, silicate, ...), acids and metals. :func:`salt_ok` says whether a cation and an anion form a
simple salt: no redox pair (Fe3+ with iodide, Fe2+ with dichromate), no salt of a hydrolysing
trivalent cation with a weak-acid anion (Al2(CO3)3), no carbonate or sulfite of Sn2+, Hg2+ or Be2+, acid salts and strong oxidants only with the
cations that form them.
"""
from __future__ import annotations

from rlvr.generators.stoich import classic

Ion = tuple[str, int]

#: cations (symbol, charge): the classic ones, then the new ones
CATIONS: tuple[Ion, ...] = classic.CATIONS + (
    ("Rb", 1), ("Cs", 1), ("Be", 2), ("Cd", 2), ("Sn", 2), ("Hg", 2), ("La", 3), ("Ce", 3), ("Bi", 3),
    ("Ga", 3), ("In", 3), ("Sc", 3), ("Y", 3),
)
#: anion -> charge
ANIONS: dict[str, int] = {
    **classic.ANIONS,
    "NO2": -1, "BrO3": -1, "IO3": -1, "HCOO": -1, "C2H5COO": -1, "CN": -1, "SCN": -1, "MnO4": -1,
    "HSO4": -1, "H2PO4": -1, "HCO3": -1, "HPO4": -2, "SO3": -2, "CrO4": -2, "Cr2O7": -2, "C2O4": -2,
    "S2O3": -2, "SeO4": -2, "SiO3": -2,
}
#: anions written in brackets when repeated
POLYATOMIC: frozenset[str] = frozenset(a for a in ANIONS if sum(ch.isupper() for ch in a) > 1) | {"NH4"}
#: acid -> its anion
ACIDS: dict[str, str] = {
    **classic.ACIDS,
    "HNO2": "NO2", "HClO3": "ClO3", "HBrO3": "BrO3", "HIO3": "IO3", "HCOOH": "HCOO", "C2H5COOH": "C2H5COO",
    "HCN": "CN", "HSCN": "SCN", "H2SO3": "SO3", "H2C2O4": "C2O4", "H2SeO4": "SeO4", "H2CO3": "CO3",
}
#: weak or unstable acids, used only in neutralizations
WEAK_ACIDS: frozenset[str] = frozenset({"HNO2", "HCN", "HSCN", "H2SO3", "H2CO3"})
#: acids that give hydrogen with active metals (no oxidising anion)
NON_OXIDISING_ACIDS: tuple[str, ...] = ("HCl", "HBr", "HI", "HF", "H2SO4", "H3PO4", "HClO4", "CH3COOH", "HCOOH",
                                        "C2H5COOH")
ALKALI: tuple[Ion, ...] = (("Li", 1), ("Na", 1), ("K", 1), ("Rb", 1), ("Cs", 1))

_OXIDISING_CATIONS = {("Fe", 3), ("Cu", 2)}
_REDUCING_ANIONS = {"I", "S", "SO3", "S2O3", "CN", "SCN"}
_REDUCING_CATIONS = {("Fe", 2), ("Sn", 2), ("Mn", 2), ("Ce", 3), ("Cr", 3)}
_OXIDISING_ANIONS = {"MnO4", "Cr2O7", "CrO4", "ClO3", "BrO3", "IO3", "NO2"}
_HYDROLYSING = {("Al", 3), ("Fe", 3), ("Cr", 3), ("Ga", 3), ("In", 3), ("Sc", 3), ("Bi", 3)}
_WEAK_ANIONS = {"CO3", "HCO3", "SO3", "S", "CN", "NO2", "S2O3", "SiO3", "SCN"}
#: cations without a simple carbonate or sulfite (tin(II), mercury(II) and beryllium give basic salts)
_NO_CARBONATE = {("Sn", 2), ("Hg", 2), ("Be", 2)}
_MONOVALENT = {("Li", 1), ("Na", 1), ("K", 1), ("Rb", 1), ("Cs", 1), ("NH4", 1)}
#: anions found only with some cations: acid salts, strong oxidants, silicates
_ONLY_WITH: dict[str, set[Ion]] = {
    "HSO4": _MONOVALENT,
    "HCO3": _MONOVALENT | {("Ca", 2), ("Mg", 2)},
    "H2PO4": _MONOVALENT | {("Ca", 2), ("Mg", 2)},
    "HPO4": _MONOVALENT | {("Ca", 2), ("Mg", 2), ("Sr", 2), ("Ba", 2)},
    "MnO4": _MONOVALENT | {("Ba", 2), ("Ca", 2)},
    "Cr2O7": _MONOVALENT,
    "SiO3": _MONOVALENT | {("Mg", 2), ("Ca", 2), ("Sr", 2), ("Ba", 2), ("Zn", 2)},
}
#: cations without a simple hydroxide (AgOH and Hg(OH)2 give oxides) or oxide
_NO_HYDROXIDE = {("Ag", 1), ("Hg", 2), ("NH4", 1)}


def salt_ok(cation: str, charge: int, anion: str) -> bool:
    """Whether ``cation``(``charge``+) and ``anion`` form a simple salt (see module docs)."""
    ion = (cation, charge)
    if anion == "O":
        return cation != "NH4"
    if anion == "OH":
        return ion not in _NO_HYDROXIDE
    if ion in _OXIDISING_CATIONS and anion in _REDUCING_ANIONS:
        return False
    if ion in _REDUCING_CATIONS and anion in _OXIDISING_ANIONS:
        return False
    if ion in _HYDROLYSING and anion in _WEAK_ANIONS or ion in _NO_CARBONATE and anion in ("CO3", "HCO3", "SO3"):
        return False
    if cation == "NH4" and anion in ("S", "CN"):
        return False
    return ion in _ONLY_WITH.get(anion, {ion})


def salt(cation: str, charge: int, anion: str) -> str:
    """Neutral formula from the grown ion tables: ``salt("La", 3, "C2O4") == "La2(C2O4)3"``."""
    return classic.salt(cation, charge, anion, anions=ANIONS, polyatomic=POLYATOMIC)


def hydroxide(metal: str, charge: int) -> str:
    return salt(metal, charge, "OH")


def oxide(metal: str, charge: int) -> str:
    return salt(metal, charge, "O")


#: hydroxide bases (every cation with a simple hydroxide)
BASES: tuple[Ion, ...] = tuple(ion for ion in CATIONS if salt_ok(*ion, "OH"))
#: metals that give hydrogen with non-oxidising acids, with the charge of their salts
ACID_METALS: tuple[Ion, ...] = (
    ("Li", 1), ("Na", 1), ("K", 1), ("Rb", 1), ("Cs", 1), ("Be", 2), ("Mg", 2), ("Ca", 2), ("Sr", 2), ("Ba", 2),
    ("Zn", 2), ("Cd", 2), ("Fe", 2), ("Al", 3), ("Ga", 3), ("In", 3), ("Ni", 2), ("Co", 2), ("Sn", 2), ("Mn", 2),
    ("Cr", 2), ("La", 3), ("Ce", 3), ("Y", 3), ("Sc", 3),
)
#: metals with basic oxides (oxide + acid -> salt + water)
OXIDE_METALS: tuple[Ion, ...] = (
    ("Li", 1), ("Na", 1), ("K", 1), ("Rb", 1), ("Cs", 1), ("Ag", 1), ("Be", 2), ("Mg", 2), ("Ca", 2), ("Sr", 2),
    ("Ba", 2), ("Zn", 2), ("Cd", 2), ("Cu", 2), ("Fe", 2), ("Fe", 3), ("Co", 2), ("Ni", 2), ("Mn", 2), ("Pb", 2),
    ("Hg", 2), ("Al", 3), ("Cr", 3), ("Bi", 3), ("La", 3), ("Y", 3), ("Sc", 3), ("Ga", 3), ("In", 3),
)
#: activity series, most active first: a metal displaces every later one from its salts
ACTIVITY: tuple[Ion, ...] = (
    ("Mg", 2), ("Al", 3), ("Mn", 2), ("Zn", 2), ("Cr", 3), ("Fe", 2), ("Cd", 2), ("Co", 2), ("Ni", 2), ("Sn", 2),
    ("Pb", 2), ("Cu", 2), ("Hg", 2), ("Ag", 1), ("Au", 3),
)
#: soluble salts of the displaced metals (anions), for metal + salt displacements
SOLUBLE_SALT_ANIONS: dict[Ion, tuple[str, ...]] = {
    ("Ag", 1): ("NO3", "ClO4"), ("Pb", 2): ("NO3", "CH3COO", "ClO4"), ("Hg", 2): ("NO3", "Cl", "CH3COO"),
    ("Au", 3): ("Cl",),
}
DEFAULT_SALT_ANIONS: tuple[str, ...] = ("NO3", "Cl", "SO4", "Br", "CH3COO", "ClO4")

#: insoluble (cation, charge, anion) salts beyond the classic list
PRECIPITATES: tuple[tuple[str, int, str], ...] = tuple(
    [("Ag", 1, a) for a in ("CrO4", "SCN", "CN", "C2O4", "IO3", "SO3")]
    + [("Ba", 2, a) for a in ("CrO4", "SO3", "C2O4", "F", "IO3")]
    + [("Sr", 2, a) for a in ("C2O4", "F", "PO4")]
    + [("Pb", 2, a) for a in ("CrO4", "C2O4", "F", "IO3")]
    + [("Ca", 2, a) for a in ("C2O4", "SO3")]
    + [("Mg", 2, "F"), ("Hg", 2, "S"), ("Hg", 2, "I"), ("Cu", 2, "C2O4"), ("Zn", 2, "C2O4"), ("Fe", 2, "C2O4")]
    + [("Cd", 2, a) for a in ("S", "OH", "CO3", "PO4")]
    + [("Co", 2, a) for a in ("S", "CO3", "PO4")]
    + [("Ni", 2, a) for a in ("PO4", "C2O4")]
    + [("Mn", 2, "PO4"), ("Fe", 2, "PO4"), ("Cr", 3, "PO4"), ("Be", 2, "OH"), ("Ga", 3, "OH"), ("In", 3, "OH")]
    + [("Bi", 3, a) for a in ("S", "PO4", "OH", "I")]
    + [("Li", 1, a) for a in ("PO4", "F")]
    + [("La", 3, a) for a in ("F", "PO4", "OH", "C2O4", "CO3")]
    + [("Ce", 3, a) for a in ("F", "PO4", "C2O4")]
    + [("Sn", 2, a) for a in ("S", "OH")]
)
#: soluble sources of a precipitate's cation (anions); chlorides only where the chloride dissolves
SOURCE_ANIONS: tuple[str, ...] = ("NO3", "Cl", "CH3COO")
_INSOLUBLE_CHLORIDES = {("Ag", 1), ("Pb", 2), ("Bi", 3)}


def source_salt_ok(cation: str, charge: int, anion: str) -> bool:
    """Whether the salt is a soluble source of ``cation`` for a precipitation."""
    if anion == "Cl" and (cation, charge) in _INSOLUBLE_CHLORIDES:
        return False
    if anion == "CH3COO" and (cation, charge) in {("Ag", 1), ("Bi", 3), ("Hg", 2)}:
        return False
    return salt_ok(cation, charge, anion)


#: SMILES of the new species that are single molecules, atoms or simple ions (others: formula only)
SMILES: dict[str, str] = {
    **classic.SMILES,
    **{m: f"[{m}]" for m in ("Rb", "Cs", "Be", "La", "Ga", "In", "Sc", "Y", "Ti", "Pd", "Ge", "B", "Se", "As", "Mo",
                             "W")},
    **{f"{m}+": f"[{m}+]" for m in ("Rb", "Cs")},
    **{f"{m}+{q}": f"[{m}+{q}]" for m, q in (("Be", 2), ("La", 3), ("Ga", 3), ("In", 3), ("Sc", 3), ("Y", 3),
                                               ("Au", 3), ("Pb", 4), ("Pd", 2))},
    "HNO2": "ON=O", "HClO3": "OCl(=O)=O", "HBrO3": "OBr(=O)=O", "HCOOH": "OC=O", "C2H5COOH": "CCC(=O)O",
    "HCN": "C#N", "HSCN": "SC#N", "H2SO3": "OS(O)=O", "H2SeO4": "O=[Se](=O)(O)O", "HClO": "OCl",
    "H2SeO3": "O=[Se](O)O", "SeO2": "O=[Se]=O", "H3BO3": "OB(O)O", "HMnO4": "O=[Mn](=O)(=O)O",
    "H2CrO4": "O=[Cr](=O)(O)O", "N2O3": "O=NN(=O)=O", "N2O4": "O=[N+]([O-])[N+](=O)[O-]", "CS2": "S=C=S",
    "SiCl4": "Cl[Si](Cl)(Cl)Cl", "PBr3": "BrP(Br)Br", "PI3": "IP(I)I", "SF6": "FS(F)(F)(F)(F)F", "XeF2": "F[Xe]F",
    "XeF4": "F[Xe](F)(F)F", "ICl": "ClI", "COCl2": "O=C(Cl)Cl",
    "SO2Cl2": "O=S(=O)(Cl)Cl", "NOCl": "O=NCl", "Cl2O": "ClOCl", "C2H2": "C#C", "CH2O": "C=O",
    "CH4N2O": "NC(N)=O", "C2H4O": "C1CO1", "C2H3Cl": "C=CCl", "C2H4Cl2": "ClCCCl", "CH2Cl2": "ClCCl",
    "CHCl3": "ClC(Cl)Cl", "CCl4": "ClC(Cl)(Cl)Cl", "C3H3N": "C=CC#N", "C8H10": "CCc1ccccc1", "C8H8": "C=Cc1ccccc1",
    "C9H12": "CC(C)c1ccccc1", "CH3OCH3": "COC", "NI3": "IN(I)I", "SCN-": "[S-]C#N", "HCOO-": "[O-]C=O",
    "HSO4-": "[O-]S(=O)(=O)O", "HCO3-": "[O-]C(=O)O", "S2O8-2": "[O-]S(=O)(=O)OOS(=O)(=O)[O-]",
    "HSO3-": "[O-]S(=O)O", "SeO4-2": "[O-][Se](=O)(=O)[O-]", "N2H4": "NN", "C6H6": "c1ccccc1", "C3H6": "C=CC",
    "C3H6O3": "CC(O)C(=O)O",
}
