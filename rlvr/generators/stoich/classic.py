"""Classic balancing equations: combustion, acid-base, redox (molecular and ionic), precipitation,
synthesis, decomposition, displacement and catalysed industrial processes.

Only the *species* of each equation are written (``rlvr/data/classic_equations.json``, or generated
combinatorially from ion charges below); every coefficient is computed by exact balancing when the
corpus is built (:mod:`rlvr.generators.stoich.classic_build`), never typed in. Species are formulas
in conventional notation (``Ca(OH)2``, ``Cr2O7-2``); those with a well-defined single-molecule
SMILES (molecules, elements, simple ions) also carry one, so an equation whose species all have
SMILES is available in both encodings, the others in the formula
encoding only. Catalysts are reagents (both sides), as nickel in the Sabatier reaction.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from math import gcd
from typing import AbstractSet, Mapping

from rlvr.chem.smiles import smiles_formula
from rlvr.generators.stoich.molecule_pool import load_molecule_pool
from rlvr.rng import stable_hash

CLASSIC_VERSION = "1"

_DATA = json.loads(resources.files("rlvr").joinpath("data", "classic_equations.json").read_text(encoding="utf-8"))

#: conventional formula -> SMILES, for species that are single molecules, atoms or simple ions
SMILES: dict[str, str] = dict(_DATA["smiles"])
_METALS = ("Li", "Na", "K", "Mg", "Ca", "Sr", "Ba", "Al", "Zn", "Fe", "Cu", "Ag", "Ni", "Sn", "Pb", "Mn", "Co",
           "Cr", "Hg", "Pt", "Au", "Ce", "Bi", "Xe", "V", "Cd")
for _m in _METALS:
    SMILES.setdefault(_m, f"[{_m}]")
for _ion, _q in (("Li", 1), ("Na", 1), ("K", 1), ("Ag", 1), ("Cu", 1), ("Mg", 2), ("Ca", 2), ("Sr", 2), ("Ba", 2),
                 ("Zn", 2), ("Fe", 2), ("Fe", 3), ("Cu", 2), ("Al", 3), ("Ni", 2), ("Sn", 2), ("Sn", 4), ("Pb", 2),
                 ("Mn", 2), ("Co", 2), ("Cr", 3), ("Ce", 3), ("Ce", 4), ("Bi", 3), ("Hg", 2), ("Cd", 2)):
    SMILES[f"{_ion}+{_q}" if _q > 1 else f"{_ion}+"] = f"[{_ion}+{_q}]" if _q > 1 else f"[{_ion}+]"


@dataclass(frozen=True)
class ClassicEquation:
    """Species of one classic equation (conventional formulas); coefficients come from balancing."""

    reactants: tuple[str, ...]
    products: tuple[str, ...]
    rclass: str
    reagents: tuple[str, ...] = ()


# --- ions and salts ------------------------------------------------------------------------------

CATIONS: tuple[tuple[str, int], ...] = (
    ("Li", 1), ("Na", 1), ("K", 1), ("Ag", 1), ("NH4", 1), ("Mg", 2), ("Ca", 2), ("Sr", 2), ("Ba", 2), ("Zn", 2),
    ("Cu", 2), ("Fe", 2), ("Fe", 3), ("Al", 3), ("Pb", 2), ("Ni", 2), ("Mn", 2), ("Co", 2), ("Cr", 3),
)
ANIONS: dict[str, int] = {
    "Cl": -1, "Br": -1, "I": -1, "F": -1, "NO3": -1, "OH": -1, "ClO3": -1, "ClO4": -1, "CH3COO": -1,
    "SO4": -2, "CO3": -2, "S": -2, "O": -2, "PO4": -3,
}
ACIDS: dict[str, str] = {  # acid formula -> anion
    "HCl": "Cl", "HBr": "Br", "HI": "I", "HF": "F", "HNO3": "NO3", "HClO4": "ClO4", "CH3COOH": "CH3COO",
    "H2SO4": "SO4", "H3PO4": "PO4",
}
_POLYATOMIC = {"NO3", "OH", "ClO3", "ClO4", "CH3COO", "SO4", "CO3", "PO4", "NH4"}


def salt(cation: str, cation_charge: int, anion: str, *, anions: Mapping[str, int] | None = None,
         polyatomic: AbstractSet[str] | None = None) -> str:
    """Neutral formula from ion charges: ``salt("Al", 3, "SO4") == "Al2(SO4)3"`` (``anions``: anion -> charge and
    ``polyatomic``: the ions written in brackets when repeated; default: this module's tables)."""
    q = -(ANIONS if anions is None else anions)[anion]
    groups = _POLYATOMIC if polyatomic is None else polyatomic
    g = gcd(cation_charge, q)
    n_cat, n_an = q // g, cation_charge // g

    def part(ion: str, n: int) -> str:
        if n == 1:
            return ion
        return f"({ion}){n}" if ion in groups else f"{ion}{n}"

    return part(cation, n_cat) + part(anion, n_an)


def hydroxide(metal: str, charge: int) -> str:
    return salt(metal, charge, "OH")


def oxide(metal: str, charge: int) -> str:
    return salt(metal, charge, "O")


def ion(symbol: str, charge: int) -> str:
    """RDKit-style charged formula: ``ion("Fe", 2) == "Fe+2"``, ``ion("SO4", -2) == "SO4-2"``."""
    sign = "+" if charge > 0 else "-"
    return f"{symbol}{sign}{abs(charge) if abs(charge) != 1 else ''}"


# --- generators ----------------------------------------------------------------------------------


def _combustion_fuels() -> list[tuple[str, str]]:
    fuels = [(f"C{n}H{2 * n + 2}" if n > 1 else "CH4", "C" * n) for n in range(1, 21)]
    fuels += [(f"C{n}H{2 * n}", "C=C" + "C" * (n - 2)) for n in range(2, 13)]
    fuels += [(f"C{n}H{2 * n - 2}", "C#C" + "C" * (n - 2)) for n in range(2, 9)]
    fuels += [(f"C{n}H{2 * n + 2}O", "C" * n + "O") for n in range(1, 11)]
    fuels += [("C6H12O6", "OCC1OC(O)C(O)C(O)C1O"), ("C12H22O11", "OCC1OC(OC2(CO)OC(CO)C(O)C2O)C(O)C(O)C1O"),
              ("C6H6", "c1ccccc1"), ("C7H8", "Cc1ccccc1"), ("C3H6O", "CC(C)=O"), ("C10H8", "c1ccc2ccccc2c1")]
    return fuels


def _pool_fuels(limit: int) -> list[tuple[str, str]]:
    if limit <= 0:
        return []
    out = []
    for smi in load_molecule_pool():
        f = smiles_formula(smi)
        if set(f.as_dict()) <= {"C", "H", "O"} and "C" in f.as_dict() and "H" in f.as_dict() and f.n_atoms <= 60:
            out.append((smi, smi))
    out.sort(key=lambda t: (stable_hash("combustion", t[1]), t[1]))
    return out[:limit]


def combustion(pool_limit: int = 1200) -> list[ClassicEquation]:
    eqs = [ClassicEquation((f, "O2"), ("CO2", "H2O"), "combustion") for f, _ in _combustion_fuels()]
    eqs += [ClassicEquation((f"C{n}H{2 * n + 2}" if n > 1 else "CH4", "O2"), ("CO", "H2O"), "incomplete_combustion")
            for n in range(1, 11)]
    eqs += [ClassicEquation(("smiles:" + smi, "O2"), ("CO2", "H2O"), "combustion") for smi, _ in _pool_fuels(pool_limit)]
    return eqs


def acid_base() -> list[ClassicEquation]:
    eqs = []
    bases = [(m, q) for m, q in CATIONS if m not in ("Ag", "NH4", "Pb")]
    for acid, anion in ACIDS.items():
        for metal, q in bases:
            eqs.append(ClassicEquation((acid, hydroxide(metal, q)), (salt(metal, q, anion), "H2O"), "neutralization"))
        eqs.append(ClassicEquation((acid, "NH3"), (salt("NH4", 1, anion),), "neutralization"))
    return eqs


def metal_acid() -> list[ClassicEquation]:
    metals = (("Li", 1), ("Na", 1), ("K", 1), ("Mg", 2), ("Ca", 2), ("Sr", 2), ("Ba", 2), ("Zn", 2), ("Fe", 2),
              ("Al", 3), ("Ni", 2), ("Sn", 2), ("Mn", 2), ("Co", 2))
    eqs = []
    for acid in ("HCl", "HBr", "H2SO4", "H3PO4", "HI"):
        for metal, q in metals:
            eqs.append(ClassicEquation((metal, acid), (salt(metal, q, ACIDS[acid]), "H2"), "metal_acid"))
    for metal, q in (("Li", 1), ("Na", 1), ("K", 1), ("Ca", 2), ("Sr", 2), ("Ba", 2)):
        eqs.append(ClassicEquation((metal, "H2O"), (hydroxide(metal, q), "H2"), "metal_water"))
    eqs.append(ClassicEquation(("Fe", "H2O"), ("Fe3O4", "H2"), "metal_water"))
    eqs.append(ClassicEquation(("Al", "NaOH", "H2O"), ("NaAl(OH)4", "H2"), "metal_water"))
    return eqs


def oxide_acid() -> list[ClassicEquation]:
    oxides = (("Li", 1), ("Na", 1), ("K", 1), ("Mg", 2), ("Ca", 2), ("Ba", 2), ("Zn", 2), ("Cu", 2), ("Fe", 2),
              ("Fe", 3), ("Al", 3), ("Ni", 2), ("Pb", 2), ("Mn", 2))
    eqs = []
    for acid in ("HCl", "HBr", "HNO3", "H2SO4", "H3PO4", "HClO4"):
        for metal, q in oxides:
            eqs.append(ClassicEquation((oxide(metal, q), acid), (salt(metal, q, ACIDS[acid]), "H2O"), "oxide_acid"))
    for metal, q in (("Li", 1), ("Na", 1), ("K", 1), ("Ca", 2), ("Sr", 2), ("Ba", 2), ("Mg", 2)):
        eqs.append(ClassicEquation((oxide(metal, q), "H2O"), (hydroxide(metal, q),), "synthesis"))
    for nonmetal_oxide, acid in (("SO3", "H2SO4"), ("SO2", "H2SO3"), ("N2O5", "HNO3"), ("P4O10", "H3PO4"),
                                 ("CO2", "H2CO3"), ("Cl2O7", "HClO4")):
        eqs.append(ClassicEquation((nonmetal_oxide, "H2O"), (acid,), "synthesis"))
    for metal, q in (("Ca", 2), ("Mg", 2), ("Ba", 2), ("Na", 1)):
        eqs.append(ClassicEquation((oxide(metal, q), "CO2"), (salt(metal, q, "CO3"),), "synthesis"))
    return eqs


def synthesis() -> list[ClassicEquation]:
    eqs = []
    for metal, q in (("Li", 1), ("Na", 1), ("K", 1), ("Mg", 2), ("Ca", 2), ("Ba", 2), ("Al", 3), ("Zn", 2), ("Cu", 2),
                     ("Fe", 3), ("Ni", 2), ("Sn", 2), ("Pb", 2), ("Cr", 3), ("Mn", 2)):
        eqs.append(ClassicEquation((metal, "O2"), (oxide(metal, q),), "synthesis"))
        for halogen in ("Cl", "Br"):
            eqs.append(ClassicEquation((metal, f"{halogen}2"), (salt(metal, q, halogen),), "synthesis"))
        eqs.append(ClassicEquation((metal, "S"), (salt(metal, q, "S"),), "synthesis"))
        eqs.append(ClassicEquation((metal, "N2"), (f"{metal}3N{q}" if q > 1 else f"{metal}3N",), "synthesis")
                   if metal in ("Li", "Mg", "Ca") else ClassicEquation((metal, "I2"), (salt(metal, q, "I"),), "synthesis"))
    eqs += [
        ClassicEquation(("H2", "Cl2"), ("HCl",), "synthesis"), ClassicEquation(("H2", "Br2"), ("HBr",), "synthesis"),
        ClassicEquation(("H2", "O2"), ("H2O",), "synthesis"), ClassicEquation(("S", "O2"), ("SO2",), "synthesis"),
        ClassicEquation(("P4", "O2"), ("P4O10",), "synthesis"), ClassicEquation(("C", "O2"), ("CO2",), "synthesis"),
        ClassicEquation(("P4", "Cl2"), ("PCl5",), "synthesis"), ClassicEquation(("P4", "Cl2"), ("PCl3",), "synthesis"),
        ClassicEquation(("Fe", "O2"), ("Fe3O4",), "synthesis"), ClassicEquation(("CO", "O2"), ("CO2",), "synthesis"),
        ClassicEquation(("NO", "O2"), ("NO2",), "synthesis"), ClassicEquation(("Si", "O2"), ("SiO2",), "synthesis"),
        ClassicEquation(("O2",), ("O3",), "synthesis"), ClassicEquation(("NH3", "HCl"), ("NH4Cl",), "synthesis"),
    ]
    return eqs


def decomposition() -> list[ClassicEquation]:
    eqs = []
    for metal, q in (("Mg", 2), ("Ca", 2), ("Sr", 2), ("Ba", 2), ("Zn", 2), ("Cu", 2), ("Fe", 2), ("Pb", 2), ("Ni", 2),
                     ("Mn", 2), ("Li", 1)):
        eqs.append(ClassicEquation((salt(metal, q, "CO3"),), (oxide(metal, q), "CO2"), "decomposition"))
    for metal, q in (("Mg", 2), ("Ca", 2), ("Cu", 2), ("Zn", 2), ("Fe", 3), ("Al", 3), ("Ni", 2), ("Fe", 2)):
        eqs.append(ClassicEquation((hydroxide(metal, q),), (oxide(metal, q), "H2O"), "decomposition"))
    for metal, q in (("Cu", 2), ("Pb", 2), ("Zn", 2), ("Mg", 2), ("Ca", 2)):
        eqs.append(ClassicEquation((salt(metal, q, "NO3"),), (oxide(metal, q), "NO2", "O2"), "decomposition"))
    eqs += [
        ClassicEquation(("KClO3",), ("KCl", "O2"), "decomposition", ("MnO2",)),
        ClassicEquation(("H2O2",), ("H2O", "O2"), "decomposition", ("MnO2",)),
        ClassicEquation(("HgO",), ("Hg", "O2"), "decomposition"),
        ClassicEquation(("NH4NO3",), ("N2O", "H2O"), "decomposition"),
        ClassicEquation(("NH4NO2",), ("N2", "H2O"), "decomposition"),
        ClassicEquation(("(NH4)2Cr2O7",), ("Cr2O3", "N2", "H2O"), "decomposition"),
        ClassicEquation(("NaHCO3",), ("Na2CO3", "H2O", "CO2"), "decomposition"),
        ClassicEquation(("KNO3",), ("KNO2", "O2"), "decomposition"),
        ClassicEquation(("NaNO3",), ("NaNO2", "O2"), "decomposition"),
        ClassicEquation(("NaN3",), ("Na", "N2"), "decomposition"),
        ClassicEquation(("H2O",), ("H2", "O2"), "decomposition"),
        ClassicEquation(("Ag2O",), ("Ag", "O2"), "decomposition"),
        ClassicEquation(("NH4Cl",), ("NH3", "HCl"), "decomposition"),
        ClassicEquation(("CuSO4.5H2O",), ("CuSO4", "H2O"), "decomposition"),
        ClassicEquation(("Na2CO3.10H2O",), ("Na2CO3", "H2O"), "decomposition"),
        ClassicEquation(("N2O5",), ("NO2", "O2"), "decomposition"),
        ClassicEquation(("PCl5",), ("PCl3", "Cl2"), "decomposition"),
    ]
    return eqs


_ACTIVITY = (("Mg", 2), ("Al", 3), ("Zn", 2), ("Fe", 2), ("Ni", 2), ("Sn", 2), ("Pb", 2), ("Cu", 2), ("Ag", 1))


def displacement() -> list[ClassicEquation]:
    eqs = []
    for i, (active, qa) in enumerate(_ACTIVITY):
        for passive, qp in _ACTIVITY[i + 1:]:
            for anion in ("NO3", "Cl", "SO4"):
                if passive == "Ag" and anion != "NO3" or passive == "Pb" and anion != "NO3":
                    continue
                eqs.append(ClassicEquation((active, salt(passive, qp, anion)), (salt(active, qa, anion), passive),
                                           "single_displacement"))
            eqs.append(ClassicEquation((active, ion(passive, qp)), (ion(active, qa), passive), "redox_ionic"))
    for halogen, halide in (("Cl2", "Br"), ("Cl2", "I"), ("Br2", "I"), ("F2", "Cl")):
        for metal, q in (("Na", 1), ("K", 1), ("Mg", 2), ("Ca", 2)):
            eqs.append(ClassicEquation((halogen, salt(metal, q, halide)), (salt(metal, q, halogen[:-1]), f"{halide}2"),
                                       "single_displacement"))
    return eqs


#: insoluble (cation, charge, anion) pairs
_PRECIPITATES = (
    [("Ag", 1, a) for a in ("Cl", "Br", "I", "CO3", "PO4", "S")]
    + [("Ba", 2, a) for a in ("SO4", "CO3", "PO4")]
    + [("Sr", 2, a) for a in ("SO4", "CO3")]
    + [("Pb", 2, a) for a in ("Cl", "Br", "I", "SO4", "CO3", "S", "OH", "PO4")]
    + [("Ca", 2, a) for a in ("CO3", "PO4", "F")]
    + [(m, q, "OH") for m, q in (("Fe", 2), ("Fe", 3), ("Al", 3), ("Cu", 2), ("Zn", 2), ("Mg", 2), ("Ni", 2),
                                  ("Co", 2), ("Mn", 2), ("Cr", 3))]
    + [(m, q, "S") for m, q in (("Cu", 2), ("Zn", 2), ("Fe", 2), ("Ni", 2), ("Mn", 2))]
    + [(m, q, "CO3") for m, q in (("Mg", 2), ("Zn", 2), ("Cu", 2), ("Fe", 2), ("Ni", 2), ("Mn", 2))]
    + [(m, q, "PO4") for m, q in (("Mg", 2), ("Al", 3), ("Fe", 3), ("Zn", 2), ("Cu", 2))]
)

#: the insoluble salts above, public for the tables that extend them
PRECIPITATES = _PRECIPITATES


def precipitation() -> list[ClassicEquation]:
    eqs = []
    for metal, q, anion in _PRECIPITATES:
        eqs.append(ClassicEquation((ion(metal, q), ion(anion, ANIONS[anion])), (salt(metal, q, anion),),
                                   "precipitation"))
        source = salt(metal, q, "NO3")
        counter_salt = salt("Na", 1, anion) if anion != "OH" else "NaOH"
        eqs.append(ClassicEquation((source, counter_salt), (salt(metal, q, anion), "NaNO3"), "double_displacement"))
        if anion not in ("OH", "S"):
            eqs.append(ClassicEquation((salt(metal, q, "NO3"), salt("K", 1, anion)), (salt(metal, q, anion), "KNO3"),
                                       "double_displacement"))
    return eqs


def gas_evolution() -> list[ClassicEquation]:
    eqs = []
    for metal, q in (("Na", 1), ("K", 1), ("Li", 1), ("Ca", 2), ("Mg", 2), ("Ba", 2), ("Zn", 2), ("Cu", 2)):
        for acid in ("HCl", "HNO3", "H2SO4", "HBr", "CH3COOH"):
            eqs.append(ClassicEquation((salt(metal, q, "CO3"), acid), (salt(metal, q, ACIDS[acid]), "H2O", "CO2"),
                                       "gas_evolution"))
        for acid in ("HCl", "H2SO4"):
            eqs.append(ClassicEquation((salt(metal, q, "S"), acid), (salt(metal, q, ACIDS[acid]), "H2S"), "gas_evolution"))
    for base, metal, q in (("NaOH", "Na", 1), ("KOH", "K", 1), ("Ca(OH)2", "Ca", 2)):
        for anion in ("Cl", "NO3", "SO4"):
            eqs.append(ClassicEquation((salt("NH4", 1, anion), base), (salt(metal, q, anion), "NH3", "H2O"),
                                       "gas_evolution"))
    for hco3 in ("NaHCO3", "KHCO3"):
        for acid in ("HCl", "CH3COOH", "HNO3"):
            cation = hco3[:-4]
            eqs.append(ClassicEquation((hco3, acid), (salt(cation, 1, ACIDS[acid]), "H2O", "CO2"), "gas_evolution"))
    return eqs


#: species of the molecular and ionic redox equations: ``(reactants, products)``
REDOX_MOLECULAR: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = tuple(
    (tuple(r), tuple(p)) for r, p in _DATA["redox_molecular"])
REDOX_IONIC: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = tuple(
    (tuple(r), tuple(p)) for r, p in _DATA["redox_ionic"])
#: catalysed industrial processes: ``(reactants, products, catalysts)``, then Fischer-Tropsch for C1..C8 alkanes
INDUSTRIAL: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = tuple(
    (tuple(e["reactants"]), tuple(e["products"]), tuple(e["catalysts"])) for e in _DATA["industrial"]
) + tuple((("CO", "H2"), (f"C{n}H{2 * n + 2}" if n > 1 else "CH4", "H2O"), ("Co",)) for n in range(1, 9))


def all_equations(pool_limit: int = 1200) -> list[ClassicEquation]:
    """Every classic equation skeleton (species only), in a fixed order."""
    eqs = combustion(pool_limit) + acid_base() + metal_acid() + oxide_acid() + synthesis() + decomposition()
    eqs += displacement() + precipitation() + gas_evolution()
    eqs += [ClassicEquation(r, p, "redox_molecular") for r, p in REDOX_MOLECULAR]
    eqs += [ClassicEquation(r, p, "redox_ionic") for r, p in REDOX_IONIC]
    eqs += [ClassicEquation(r, p, "industrial", g) for r, p, g in INDUSTRIAL]
    return eqs
