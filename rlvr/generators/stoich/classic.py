"""Classic balancing equations: combustion, acid-base, redox (molecular and ionic), precipitation,
synthesis, decomposition, displacement and catalysed industrial processes.

Only the *species* of each equation are written here (or generated combinatorially from ion
charges); every coefficient is computed by exact balancing when the corpus is built
(:mod:`rlvr.generators.stoich.classic_build`), never typed in. Species are formulas in conventional notation (``Ca(OH)2``, ``Cr2O7-2``); those with a
well-defined single-molecule SMILES (molecules, elements, simple ions) also carry one, so an
equation whose species all have SMILES is available in both encodings, the others in the formula
encoding only. Catalysts are reagents (both sides), as nickel in the Sabatier reaction.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from rlvr.chem.smiles import smiles_formula
from rlvr.generators.stoich.molecule_pool import load_molecule_pool
from rlvr.rng import stable_hash

CLASSIC_VERSION = "1"

#: conventional formula -> SMILES, for species that are single molecules, atoms or simple ions
SMILES: dict[str, str] = {
    "H2O": "O", "O2": "O=O", "O3": "[O-][O+]=O", "CO2": "O=C=O", "CO": "[C-]#[O+]", "H2": "[H][H]", "N2": "N#N",
    "NH3": "N", "CH4": "C", "HCl": "Cl", "HBr": "Br", "HI": "I", "HF": "F", "Cl2": "ClCl", "Br2": "BrBr",
    "I2": "II", "F2": "FF", "H2S": "S", "SO2": "O=S=O", "SO3": "O=S(=O)=O", "NO": "[N]=O", "NO2": "[O]N=O",
    "N2O": "[N-]=[N+]=O", "N2O5": "O=[N+]([O-])O[N+](=O)[O-]", "H2O2": "OO", "HNO3": "O=[N+]([O-])O",
    "H2SO4": "O=S(=O)(O)O", "H3PO4": "O=P(O)(O)O", "HClO4": "O=Cl(=O)(=O)O", "CH3COOH": "CC(=O)O",
    "H2CO3": "O=C(O)O", "H2C2O4": "O=C(O)C(=O)O", "HIO3": "O=I(=O)O", "PH3": "P", "CH3OH": "CO",
    "C2H5OH": "CCO", "C2H4": "C=C", "C2H6": "CC", "CH3Cl": "CCl", "C": "[C]", "S": "[S]", "P": "[P]",
    "P4": "P12P3P1P23", "P4O10": "O=P12OP3(=O)OP(=O)(O1)OP(=O)(O2)O3", "Si": "[Si]", "SiO2": "O=[Si]=O",
    "H+": "[H+]", "OH-": "[OH-]", "Cl-": "[Cl-]", "Br-": "[Br-]", "I-": "[I-]", "F-": "[F-]", "S-2": "[S-2]",
    "NH4+": "[NH4+]", "CN-": "[C-]#N", "OCN-": "[O-]C#N", "ClO-": "[O-]Cl", "ClO3-": "[O-]Cl(=O)=O",
    "BrO3-": "[O-]Br(=O)=O", "IO3-": "[O-]I(=O)=O", "NO3-": "[O-][N+](=O)[O-]", "NO2-": "[O-]N=O",
    "SO4-2": "[O-]S(=O)(=O)[O-]", "SO3-2": "[O-]S([O-])=O", "CO3-2": "[O-]C([O-])=O", "PO4-3": "[O-]P([O-])([O-])=O",
    "C2O4-2": "[O-]C(=O)C([O-])=O", "S2O3-2": "[O-]S([O-])(=O)=S", "S4O6-2": "[O-]S(=O)(=O)SSS(=O)(=O)[O-]",
    "MnO4-": "[O-][Mn](=O)(=O)=O", "Cr2O7-2": "[O-][Cr](=O)(=O)O[Cr](=O)(=O)[O-]", "CrO4-2": "[O-][Cr]([O-])(=O)=O",
    "Al(OH)4-": "O[Al-](O)(O)O", "BiO3-": "[O-][Bi](=O)=O",
}
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


def salt(cation: str, cation_charge: int, anion: str) -> str:
    """Neutral formula from ion charges: ``salt("Al", 3, "SO4") == "Al2(SO4)3"``."""
    q = -ANIONS[anion]
    g = gcd(cation_charge, q)
    n_cat, n_an = q // g, cation_charge // g

    def part(ion: str, n: int) -> str:
        if n == 1:
            return ion
        return f"({ion}){n}" if ion in _POLYATOMIC else f"{ion}{n}"

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


REDOX_MOLECULAR: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("KMnO4", "HCl"), ("KCl", "MnCl2", "H2O", "Cl2")),
    (("K2Cr2O7", "HCl"), ("KCl", "CrCl3", "H2O", "Cl2")),
    (("MnO2", "HCl"), ("MnCl2", "H2O", "Cl2")),
    (("Cu", "HNO3"), ("Cu(NO3)2", "NO", "H2O")),
    (("Cu", "HNO3"), ("Cu(NO3)2", "NO2", "H2O")),
    (("Ag", "HNO3"), ("AgNO3", "NO", "H2O")),
    (("Zn", "HNO3"), ("Zn(NO3)2", "NH4NO3", "H2O")),
    (("Zn", "HNO3"), ("Zn(NO3)2", "N2O", "H2O")),
    (("Mg", "HNO3"), ("Mg(NO3)2", "N2", "H2O")),
    (("Cu", "H2SO4"), ("CuSO4", "SO2", "H2O")),
    (("C", "H2SO4"), ("CO2", "SO2", "H2O")),
    (("C", "HNO3"), ("CO2", "NO2", "H2O")),
    (("S", "HNO3"), ("H2SO4", "NO2", "H2O")),
    (("P", "HNO3"), ("H3PO4", "NO2", "H2O")),
    (("Fe2O3", "CO"), ("Fe", "CO2")),
    (("Fe3O4", "CO"), ("Fe", "CO2")),
    (("Fe2O3", "C"), ("Fe", "CO2")),
    (("Al", "Fe2O3"), ("Al2O3", "Fe")),
    (("Al", "Cr2O3"), ("Al2O3", "Cr")),
    (("CuO", "H2"), ("Cu", "H2O")),
    (("H2S", "O2"), ("SO2", "H2O")),
    (("NH3", "O2"), ("N2", "H2O")),
    (("NH3", "CuO"), ("Cu", "N2", "H2O")),
    (("FeS2", "O2"), ("Fe2O3", "SO2")),
    (("ZnS", "O2"), ("ZnO", "SO2")),
    (("Cu2S", "O2"), ("Cu2O", "SO2")),
    (("Cl2", "NaOH"), ("NaCl", "NaClO3", "H2O")),
    (("Cl2", "NaOH"), ("NaCl", "NaClO", "H2O")),
    (("KClO3", "HCl"), ("KCl", "Cl2", "H2O")),
    (("I2", "HNO3"), ("HIO3", "NO2", "H2O")),
    (("As2S3", "HNO3", "H2O"), ("H3AsO4", "H2SO4", "NO")),
    (("KMnO4", "H2SO4", "FeSO4"), ("K2SO4", "MnSO4", "Fe2(SO4)3", "H2O")),
    (("KMnO4", "H2C2O4", "H2SO4"), ("K2SO4", "MnSO4", "CO2", "H2O")),
    (("K2Cr2O7", "FeSO4", "H2SO4"), ("K2SO4", "Cr2(SO4)3", "Fe2(SO4)3", "H2O")),
    (("KMnO4", "KI", "H2SO4"), ("K2SO4", "MnSO4", "I2", "H2O")),
    (("H2O2", "KI", "H2SO4"), ("K2SO4", "I2", "H2O")),
    (("Na2S2O3", "I2"), ("Na2S4O6", "NaI")),
    (("SO2", "Br2", "H2O"), ("H2SO4", "HBr")),
    (("Ca3(PO4)2", "SiO2", "C"), ("CaSiO3", "P4", "CO")),
    (("PbS", "H2O2"), ("PbSO4", "H2O")),
    (("Mg", "CO2"), ("MgO", "C")),
    (("NO2", "H2O"), ("HNO3", "NO")),
    (("P4", "NaOH", "H2O"), ("PH3", "NaH2PO2")),
    (("K4[Fe(CN)6]", "KMnO4", "H2SO4"), ("KHSO4", "Fe2(SO4)3", "MnSO4", "HNO3", "CO2", "H2O")),
    (("SnCl2", "FeCl3"), ("SnCl4", "FeCl2")),
    (("KI", "Cl2"), ("KCl", "I2")),
    (("H2S", "SO2"), ("S", "H2O")),
    (("CH4", "Cl2"), ("CH3Cl", "HCl")),
    (("Cu2O", "HNO3"), ("Cu(NO3)2", "NO", "H2O")),
    (("FeCl2", "Cl2"), ("FeCl3",)),
    (("Na", "Cl2"), ("NaCl",)),
    (("Hg", "HNO3"), ("Hg(NO3)2", "NO", "H2O")),
    (("MnO2", "Al"), ("Al2O3", "Mn")),
    (("WO3", "H2"), ("W", "H2O")),
    (("TiCl4", "Mg"), ("Ti", "MgCl2")),
    (("PbO2", "HCl"), ("PbCl2", "Cl2", "H2O")),
)

REDOX_IONIC: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("MnO4-", "Fe+2", "H+"), ("Mn+2", "Fe+3", "H2O")),
    (("Cr2O7-2", "Fe+2", "H+"), ("Cr+3", "Fe+3", "H2O")),
    (("MnO4-", "C2O4-2", "H+"), ("Mn+2", "CO2", "H2O")),
    (("Cr2O7-2", "I-", "H+"), ("Cr+3", "I2", "H2O")),
    (("MnO4-", "SO3-2", "H+"), ("Mn+2", "SO4-2", "H2O")),
    # MnO4- + H2O2 + H+ -> Mn+2 + O2 + H2O is left out on purpose: its solution space is 2-dimensional.
    (("MnO4-", "Cl-", "H+"), ("Mn+2", "Cl2", "H2O")),
    (("MnO4-", "I-", "H2O"), ("MnO2", "I2", "OH-")),
    (("MnO4-", "NO2-", "H+"), ("Mn+2", "NO3-", "H2O")),
    (("Cu", "NO3-", "H+"), ("Cu+2", "NO", "H2O")),
    (("Fe+3", "I-"), ("Fe+2", "I2")),
    (("Sn+2", "Fe+3"), ("Sn+4", "Fe+2")),
    (("Ce+4", "Fe+2"), ("Ce+3", "Fe+3")),
    (("IO3-", "I-", "H+"), ("I2", "H2O")),
    (("BrO3-", "Br-", "H+"), ("Br2", "H2O")),
    (("ClO3-", "Cl-", "H+"), ("Cl2", "H2O")),
    (("S2O3-2", "I2"), ("S4O6-2", "I-")),
    (("Cr2O7-2", "H2S", "H+"), ("Cr+3", "S", "H2O")),
    (("Cr2O7-2", "SO3-2", "H+"), ("Cr+3", "SO4-2", "H2O")),
    (("H2O2", "Fe+2", "H+"), ("Fe+3", "H2O")),
    (("Cl2", "OH-"), ("Cl-", "ClO3-", "H2O")),
    (("Cl2", "OH-"), ("Cl-", "ClO-", "H2O")),
    (("Al", "OH-", "H2O"), ("Al(OH)4-", "H2")),
    (("Zn", "NO3-", "H+"), ("Zn+2", "NH4+", "H2O")),
    (("MnO4-", "Mn+2", "H2O"), ("MnO2", "H+")),
    (("Cu+2", "I-"), ("CuI", "I2")),
    (("PbO2", "Mn+2", "H+"), ("Pb+2", "MnO4-", "H2O")),
    (("BiO3-", "Mn+2", "H+"), ("Bi+3", "MnO4-", "H2O")),
    (("H2O2", "I-", "H+"), ("I2", "H2O")),
    (("Fe+2", "NO3-", "H+"), ("Fe+3", "NO", "H2O")),
    (("MnO4-", "CN-", "H2O"), ("MnO2", "OCN-", "OH-")),
    (("Cr(OH)3", "ClO3-", "OH-"), ("CrO4-2", "Cl-", "H2O")),
    (("Ag", "NO3-", "H+"), ("Ag+", "NO", "H2O")),
    (("Cl2", "Br-"), ("Cl-", "Br2")),
    (("Br2", "I-"), ("Br-", "I2")),
    (("Fe", "H+"), ("Fe+2", "H2")),
    (("Zn", "H+"), ("Zn+2", "H2")),
    (("Al", "H+"), ("Al+3", "H2")),
    (("Mg", "H+"), ("Mg+2", "H2")),
    (("H+", "OH-"), ("H2O",)),
    (("CO3-2", "H+"), ("CO2", "H2O")),
    (("NH4+", "OH-"), ("NH3", "H2O")),
    (("S-2", "H+"), ("H2S",)),
)

INDUSTRIAL: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    (("CO2", "H2"), ("CH4", "H2O"), ("Ni",)),  # Sabatier
    (("N2", "H2"), ("NH3",), ("Fe",)),  # Haber-Bosch
    (("SO2", "O2"), ("SO3",), ("V2O5",)),  # contact process
    (("NH3", "O2"), ("NO", "H2O"), ("Pt",)),  # Ostwald
    (("CO", "H2O"), ("CO2", "H2"), ("Fe2O3",)),  # water-gas shift
    (("CH4", "H2O"), ("CO", "H2"), ("Ni",)),  # steam reforming
    (("CO", "H2"), ("CH3OH",), ("Cu", "ZnO")),  # methanol synthesis
    (("HCl", "O2"), ("Cl2", "H2O"), ("CuCl2",)),  # Deacon
    (("H2S", "SO2"), ("S", "H2O"), ("Al2O3",)),  # Claus
    (("C2H4", "H2O"), ("C2H5OH",), ("H3PO4",)),  # ethylene hydration
    (("C2H4", "H2"), ("C2H6",), ("Ni",)),  # hydrogenation
    (("CH4", "NH3", "O2"), ("HCN", "H2O"), ("Pt",)),  # Andrussow
    (("NaCl", "NH3", "CO2", "H2O"), ("NaHCO3", "NH4Cl"), ()),  # Solvay
    (("C6H12O6",), ("C2H5OH", "CO2"), ()),  # fermentation
    (("CO2", "H2O"), ("C6H12O6", "O2"), ()),  # photosynthesis
) + tuple((("CO", "H2"), (f"C{n}H{2 * n + 2}" if n > 1 else "CH4", "H2O"), ("Co",)) for n in range(1, 9))  # Fischer-Tropsch


def all_equations(pool_limit: int = 1200) -> list[ClassicEquation]:
    """Every classic equation skeleton (species only), in a fixed order."""
    eqs = combustion(pool_limit) + acid_base() + metal_acid() + oxide_acid() + synthesis() + decomposition()
    eqs += displacement() + precipitation() + gas_evolution()
    eqs += [ClassicEquation(r, p, "redox_molecular") for r, p in REDOX_MOLECULAR]
    eqs += [ClassicEquation(r, p, "redox_ionic") for r, p in REDOX_IONIC]
    eqs += [ClassicEquation(r, p, "industrial", g) for r, p, g in INDUSTRIAL]
    return eqs
