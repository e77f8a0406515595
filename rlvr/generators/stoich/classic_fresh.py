"""Fresh classic skeletons from grown tables: the charge-built classes (neutralization, metal + acid,
oxide + acid, synthesis, decomposition, displacement, precipitation, gas evolution, metal + water).

Like :mod:`rlvr.generators.stoich.classic`, only species are written, from ion charges
(:mod:`rlvr.generators.stoich.fresh_tables`); coefficients come from exact balancing when the
``classic-fresh`` corpus is built (:mod:`rlvr.generators.stoich.fresh_build`), which also drops
every reaction the classic corpus already has. The redox, industrial and combustion skeletons are in
:mod:`rlvr.generators.stoich.fresh_molecular`.
"""
from __future__ import annotations

from itertools import product

from rlvr.generators.stoich.classic import PRECIPITATES as CLASSIC_PRECIPITATES, ClassicEquation, ion
from rlvr.generators.stoich.fresh_tables import (
    ACID_METALS,
    ACIDS,
    ACTIVITY,
    ALKALI,
    ANIONS,
    BASES,
    DEFAULT_SALT_ANIONS,
    NON_OXIDISING_ACIDS,
    OXIDE_METALS,
    PRECIPITATES,
    SOLUBLE_SALT_ANIONS,
    SOURCE_ANIONS,
    WEAK_ACIDS,
    hydroxide,
    oxide,
    salt,
    salt_ok,
    source_salt_ok,
)

Eq = ClassicEquation


def neutralization() -> list[Eq]:
    """Acid + hydroxide -> salt + water, acid + NH3 -> ammonium salt, and the acid salts (NaHSO4, KH2PO4, ...)."""
    eqs = []
    pairs = list(ACIDS.items()) + [("H2SO4", "HSO4"), ("H3PO4", "H2PO4"), ("H3PO4", "HPO4"), ("H2CO3", "HCO3")]
    for acid, anion in pairs:
        for metal, q in BASES:
            if salt_ok(metal, q, anion):
                eqs.append(Eq((acid, hydroxide(metal, q)), (salt(metal, q, anion), "H2O"), "neutralization"))
        if salt_ok("NH4", 1, anion):
            eqs.append(Eq((acid, "NH3"), (salt("NH4", 1, anion),), "neutralization"))
    return eqs


def metal_acid() -> list[Eq]:
    """Active metal + non-oxidising acid -> salt + H2."""
    return [Eq((metal, acid), (salt(metal, q, ACIDS[acid]), "H2"), "metal_acid")
            for acid in NON_OXIDISING_ACIDS for metal, q in ACID_METALS if salt_ok(metal, q, ACIDS[acid])]


def oxide_acid() -> list[Eq]:
    """Basic oxide + acid -> salt + water."""
    return [Eq((oxide(metal, q), acid), (salt(metal, q, anion), "H2O"), "oxide_acid")
            for acid, anion in ACIDS.items() if acid not in WEAK_ACIDS
            for metal, q in OXIDE_METALS if salt_ok(metal, q, anion)]


#: metals burnt or combined with the elements, with the charge of their binary compounds
_ELEMENT_METALS = (
    ("Li", 1), ("Na", 1), ("K", 1), ("Rb", 1), ("Cs", 1), ("Be", 2), ("Mg", 2), ("Ca", 2), ("Sr", 2), ("Ba", 2),
    ("Al", 3), ("Zn", 2), ("Cd", 2), ("Cu", 2), ("Fe", 3), ("Ni", 2), ("Co", 2), ("Sn", 4), ("Mn", 2), ("Cr", 3),
    ("Pb", 2), ("Ag", 1), ("Hg", 2), ("Bi", 3), ("La", 3), ("Ce", 3), ("Y", 3), ("Sc", 3), ("Ga", 3), ("In", 3),
    ("Ti", 4), ("Au", 3),
)
_OXIDES_ONLY = (("Ge", 4), ("Mo", 6), ("W", 6), ("B", 3), ("Cu", 1), ("Sb", 3))
_NITRIDES = {"Be": "Be3N2", "Sr": "Sr3N2", "Ba": "Ba3N2", "Al": "AlN", "Ti": "TiN", "Li": "Li3N", "Mg": "Mg3N2",
             "Ca": "Ca3N2"}
_HYDRIDES = {"Li": "LiH", "Na": "NaH", "K": "KH", "Rb": "RbH", "Cs": "CsH", "Mg": "MgH2", "Ca": "CaH2",
             "Sr": "SrH2", "Ba": "BaH2"}
_ELEMENT_SYNTHESES = (
    (("H2", "F2"), ("HF",)), (("H2", "I2"), ("HI",)), (("H2", "S"), ("H2S",)), (("N2", "O2"), ("NO",)),
    (("C", "S"), ("CS2",)), (("Si", "Cl2"), ("SiCl4",)), (("P4", "Br2"), ("PBr3",)), (("P4", "I2"), ("PI3",)),
    (("S", "F2"), ("SF6",)), (("Xe", "F2"), ("XeF2",)), (("Xe", "F2"), ("XeF4",)), (("I2", "Cl2"), ("ICl",)),
    (("Cl2", "F2"), ("ClF3",)), (("Br2", "F2"), ("BrF3",)), (("SO2", "Cl2"), ("SO2Cl2",)), (("NO", "Cl2"), ("NOCl",)),
    (("C", "O2"), ("CO",)), (("P4", "O2"), ("P4O6",)), (("NO2",), ("N2O4",)), (("Ca", "C"), ("CaC2",)),
    (("Al", "C"), ("Al4C3",)), (("Si", "C"), ("SiC",)), (("W", "C"), ("WC",)), (("Ca", "P4"), ("Ca3P2",)),
    (("Mg", "P4"), ("Mg3P2",)), (("Zn", "P4"), ("Zn3P2",)), (("Mg", "Si"), ("Mg2Si",)), (("Fe", "S"), ("FeS",)),
    (("Cu", "S"), ("Cu2S",)), (("Na", "O2"), ("Na2O2",)), (("K", "O2"), ("KO2",)), (("Rb", "O2"), ("RbO2",)),
    (("Cs", "O2"), ("CsO2",)), (("Ba", "O2"), ("BaO2",)),
)
#: charge of a metal in its oxide when it differs from its salts'; alkali metals burn to (su)peroxides
_OXIDE_CHARGE = {"Ce": 4}
_NO_OXIDE = {"Au", "Ag", "Hg", "Rb", "Cs"}
#: charge of a metal in its iodide when iodide reduces the usual cation
_IODIDE_CHARGE = {("Fe", 3): 2, ("Cu", 2): 1, ("Au", 3): 1}
#: acidic oxide + water -> acid
_ACID_ANHYDRIDES = (("N2O3", "HNO2"), ("SeO2", "H2SeO3"), ("SeO3", "H2SeO4"), ("B2O3", "H3BO3"), ("I2O5", "HIO3"),
                    ("Cl2O", "HClO"), ("P4O6", "H3PO3"), ("Mn2O7", "HMnO4"), ("CrO3", "H2CrO4"), ("As2O5", "H3AsO4"))
#: acidic oxide -> the anion it gives with a basic oxide
_OXIDE_ANIONS = (("CO2", "CO3"), ("SO3", "SO4"), ("SO2", "SO3"), ("SiO2", "SiO3"), ("P4O10", "PO4"), ("N2O5", "NO3"))
_BASIC_OXIDES = (("Li", 1), ("Na", 1), ("K", 1), ("Rb", 1), ("Cs", 1), ("Mg", 2), ("Ca", 2), ("Sr", 2), ("Ba", 2),
                 ("Zn", 2), ("Pb", 2), ("Cu", 2), ("Fe", 2), ("Mn", 2))


def synthesis() -> list[Eq]:
    """Element + element, oxide + water and basic oxide + acidic oxide."""
    eqs = []
    for metal, q in _ELEMENT_METALS + _OXIDES_ONLY:
        if metal not in _NO_OXIDE:
            eqs.append(Eq((metal, "O2"), (oxide(metal, _OXIDE_CHARGE.get(metal, q)),), "synthesis"))
        if (metal, q) in _OXIDES_ONLY:
            continue
        for halogen in ("F", "Cl", "Br", "I"):
            qh = _IODIDE_CHARGE.get((metal, q), q) if halogen == "I" else q
            if salt_ok(metal, qh, halogen):
                eqs.append(Eq((metal, f"{halogen}2"), (salt(metal, qh, halogen),), "synthesis"))
        if metal not in ("Au", "Ti") and salt_ok(metal, q, "S"):
            eqs.append(Eq((metal, "S"), (salt(metal, q, "S"),), "synthesis"))
        if metal in _NITRIDES:
            eqs.append(Eq((metal, "N2"), (_NITRIDES[metal],), "synthesis"))
        if metal in _HYDRIDES:
            eqs.append(Eq((metal, "H2"), (_HYDRIDES[metal],), "synthesis"))
    eqs += [Eq(r, p, "synthesis") for r, p in _ELEMENT_SYNTHESES]
    for metal, q in ALKALI + (("Ba", 2),):
        eqs.append(Eq((oxide(metal, q), "H2O"), (hydroxide(metal, q),), "synthesis"))
    eqs += [Eq((anhydride, "H2O"), (acid,), "synthesis") for anhydride, acid in _ACID_ANHYDRIDES]
    for (acidic, anion), (metal, q) in product(_OXIDE_ANIONS, _BASIC_OXIDES):
        if salt_ok(metal, q, anion):
            eqs.append(Eq((oxide(metal, q), acidic), (salt(metal, q, anion),), "synthesis"))
    return eqs


_HYDRATES = ("MgSO4.7H2O", "CaSO4.2H2O", "BaCl2.2H2O", "CoCl2.6H2O", "FeSO4.7H2O", "ZnSO4.7H2O", "NiSO4.6H2O",
             "Na2SO4.10H2O", "CuCl2.2H2O", "MgCl2.6H2O", "CaCl2.2H2O", "Na2S2O3.5H2O", "Al2(SO4)3.18H2O",
             "KAl(SO4)2.12H2O", "Na2B4O7.10H2O", "Ba(OH)2.8H2O", "Na3PO4.12H2O", "CoSO4.7H2O", "SrCl2.6H2O",
             "(NH4)2Fe(SO4)2.6H2O", "MnSO4.H2O", "Na2CO3.H2O", "CuSO4.H2O", "LiCl.H2O")
_DECOMPOSITIONS = (
    (("NaClO3",), ("NaCl", "O2")), (("Ba(ClO3)2",), ("BaCl2", "O2")), (("KClO4",), ("KCl", "O2")),
    (("NaClO4",), ("NaCl", "O2")), (("LiClO4",), ("LiCl", "O2")), (("KBrO3",), ("KBr", "O2")),
    (("NaBrO3",), ("NaBr", "O2")), (("KIO3",), ("KI", "O2")), (("KHCO3",), ("K2CO3", "H2O", "CO2")),
    (("Ca(HCO3)2",), ("CaCO3", "H2O", "CO2")), (("Mg(HCO3)2",), ("MgCO3", "H2O", "CO2")),
    (("NH4HCO3",), ("NH3", "H2O", "CO2")), (("(NH4)2CO3",), ("NH3", "H2O", "CO2")), (("NH4Br",), ("NH3", "HBr")),
    (("NH4I",), ("NH3", "HI")), (("(NH4)2SO4",), ("NH3", "NH4HSO4")), (("PbO2",), ("PbO", "O2")),
    (("BaO2",), ("BaO", "O2")), (("Na2O2",), ("Na2O", "O2")), (("MnO2",), ("Mn2O3", "O2")),
    (("Pb3O4",), ("PbO", "O2")), (("CuO",), ("Cu2O", "O2")), (("Au2O3",), ("Au", "O2")), (("PtO2",), ("Pt", "O2")),
    (("Co3O4",), ("CoO", "O2")), (("CrO3",), ("Cr2O3", "O2")), (("KMnO4",), ("K2MnO4", "MnO2", "O2")),
    (("NaHSO4",), ("Na2S2O7", "H2O")), (("CaC2O4",), ("CaCO3", "CO")), (("H2CO3",), ("H2O", "CO2")),
    (("H2SO3",), ("H2O", "SO2")), (("HNO3",), ("NO2", "O2", "H2O")), (("NI3",), ("N2", "I2")),
    (("SO2Cl2",), ("SO2", "Cl2")), (("N2O4",), ("NO2",)), (("COCl2",), ("CO", "Cl2")), (("O3",), ("O2",)),
    (("N2O",), ("N2", "O2")), (("NH3",), ("N2", "H2")), (("CH4",), ("C", "H2")), (("HI",), ("H2", "I2")),
    (("AgCl",), ("Ag", "Cl2")), (("AgBr",), ("Ag", "Br2")), (("NaCl",), ("Na", "Cl2")), (("Al2O3",), ("Al", "O2")),
    (("H3BO3",), ("B2O3", "H2O")), (("KClO3",), ("KClO4", "KCl")), (("ZnSO4",), ("ZnO", "SO3")),
    (("CuSO4",), ("CuO", "SO3")), (("RbNO3",), ("RbNO2", "O2")), (("CsNO3",), ("CsNO2", "O2")),
    (("AgNO3",), ("Ag", "NO2", "O2")), (("Hg(NO3)2",), ("Hg", "NO2", "O2")), (("Ag2CO3",), ("Ag2O", "CO2")),
)


def decomposition() -> list[Eq]:
    """Carbonates, hydroxides and nitrates to oxides; hydrates; oxysalts, peroxides and small molecules."""
    eqs = []
    for metal, q in (("Be", 2), ("Cd", 2), ("Co", 2), ("La", 3), ("Y", 3), ("Sr", 2), ("Ba", 2), ("Mg", 2), ("Ca", 2),
                     ("Zn", 2), ("Cu", 2), ("Fe", 2), ("Pb", 2), ("Ni", 2), ("Mn", 2), ("Li", 1)):
        eqs.append(Eq((salt(metal, q, "CO3"),), (oxide(metal, q), "CO2"), "decomposition"))
    for metal, q in BASES:
        if (metal, q) not in ALKALI[1:] and metal != "Ce":
            eqs.append(Eq((hydroxide(metal, q),), (oxide(metal, q), "H2O"), "decomposition"))
    for metal, q in (("Sr", 2), ("Ba", 2), ("Be", 2), ("Cd", 2), ("Co", 2), ("Ni", 2), ("Fe", 3), ("Al", 3), ("Cr", 3),
                     ("Bi", 3), ("La", 3), ("Y", 3), ("Li", 1), ("Cu", 2), ("Pb", 2), ("Zn", 2), ("Mg", 2), ("Ca", 2)):
        eqs.append(Eq((salt(metal, q, "NO3"),), (oxide(metal, q), "NO2", "O2"), "decomposition"))
    eqs += [Eq((h,), (h.split(".")[0], "H2O"), "decomposition") for h in _HYDRATES]
    eqs += [Eq(r, p, "decomposition") for r, p in _DECOMPOSITIONS]
    return eqs


_HALIDE_METALS = (("Li", 1), ("Na", 1), ("K", 1), ("Rb", 1), ("Cs", 1), ("Mg", 2), ("Ca", 2), ("Sr", 2), ("Ba", 2),
                  ("Zn", 2), ("NH4", 1))


def single_displacement() -> list[Eq]:
    """Metal + salt of a less active metal, halogen + halide salt or hydrogen halide, halogen + H2S."""
    eqs = []
    for i, (active, qa) in enumerate(ACTIVITY):
        for passive, qp in ACTIVITY[i + 1:]:
            for anion in SOLUBLE_SALT_ANIONS.get((passive, qp), DEFAULT_SALT_ANIONS):
                if salt_ok(passive, qp, anion) and salt_ok(active, qa, anion):
                    eqs.append(Eq((active, salt(passive, qp, anion)), (salt(active, qa, anion), passive),
                                  "single_displacement"))
    for halogen, halide in (("F2", "Cl"), ("F2", "Br"), ("Cl2", "Br"), ("Cl2", "I"), ("Br2", "I")):
        for metal, q in _HALIDE_METALS:
            eqs.append(Eq((halogen, salt(metal, q, halide)), (salt(metal, q, halogen[:-1]), f"{halide}2"),
                          "single_displacement"))
        if halogen != "F2":
            eqs.append(Eq((halogen, f"H{halide}"), (f"H{halogen[:-1]}", f"{halide}2"), "single_displacement"))
    for halogen in ("Cl2", "Br2", "I2"):
        eqs.append(Eq((halogen, "H2S"), (f"H{halogen[:-1]}", "S"), "single_displacement"))
    return eqs


def _counter_salts(anion: str) -> list[tuple[str, int]]:
    """Soluble Na, K and ammonium salts of ``anion`` (sodium and potassium hydroxide for OH)."""
    return [(c, q) for c, q in (("Na", 1), ("K", 1), ("NH4", 1)) if salt_ok(c, q, anion) and not
            (c == "NH4" and anion == "OH")]


def precipitation() -> list[Eq]:
    """Net ionic precipitations of the grown insoluble-salt list."""
    return [Eq((ion(metal, q), ion(anion, ANIONS[anion])), (salt(metal, q, anion),), "precipitation")
            for metal, q, anion in PRECIPITATES]


def double_displacement() -> list[Eq]:
    """Soluble cation source (nitrate, chloride, acetate) + soluble Na/K/NH4 salt -> precipitate + soluble salt."""
    eqs = []
    for metal, q, anion in CLASSIC_PRECIPITATES + list(PRECIPITATES):
        for source in SOURCE_ANIONS:
            if not source_salt_ok(metal, q, source):
                continue
            for counter, qc in _counter_salts(anion):
                eqs.append(Eq((salt(metal, q, source), salt(counter, qc, anion)),
                              (salt(metal, q, anion), salt(counter, qc, source)), "double_displacement"))
    return eqs


_GAS_ACIDS = ("HCl", "HNO3", "H2SO4", "HBr", "HI", "HClO4", "CH3COOH", "HCOOH", "C2H5COOH")
_WATER_REACTIONS = (
    (("CaC2", "H2O"), ("Ca(OH)2", "C2H2")), (("Al4C3", "H2O"), ("Al(OH)3", "CH4")),
    (("Be2C", "H2O"), ("Be(OH)2", "CH4")), (("Mg3N2", "H2O"), ("Mg(OH)2", "NH3")), (("Li3N", "H2O"), ("LiOH", "NH3")),
    (("Ca3N2", "H2O"), ("Ca(OH)2", "NH3")), (("Ca3P2", "H2O"), ("Ca(OH)2", "PH3")), (("NaH", "H2O"), ("NaOH", "H2")),
    (("LiH", "H2O"), ("LiOH", "H2")), (("KH", "H2O"), ("KOH", "H2")), (("CaH2", "H2O"), ("Ca(OH)2", "H2")),
    (("CaC2", "HCl"), ("CaCl2", "C2H2")), (("Mg3N2", "HCl"), ("MgCl2", "NH4Cl")),
    (("Mg2Si", "HCl"), ("MgCl2", "SiH4")), (("Zn3P2", "HCl"), ("ZnCl2", "PH3")),
)
_CARBONATE_METALS = ALKALI + (("Ca", 2), ("Mg", 2), ("Ba", 2), ("Sr", 2), ("Zn", 2), ("Cu", 2), ("Mn", 2), ("Co", 2),
                              ("Ni", 2), ("Cd", 2), ("Fe", 2), ("Pb", 2), ("Ag", 1))
_SULFIDE_METALS = ALKALI + (("Ca", 2), ("Mg", 2), ("Ba", 2), ("Sr", 2), ("Zn", 2), ("Fe", 2), ("Mn", 2))


def gas_evolution() -> list[Eq]:
    """Carbonates, hydrogen carbonates, sulfides, sulfites and thiosulfates with acids; ammonium salts with
    bases; carbides, nitrides, phosphides and hydrides with water or acid."""
    eqs = []
    for (metal, q), acid in product(_CARBONATE_METALS, _GAS_ACIDS):
        anion = ACIDS[acid]
        if salt_ok(metal, q, anion) and not (metal == "Ag" and anion not in ("NO3", "ClO4", "SO4")) \
                and not (metal == "Fe" and acid == "HNO3"):
            eqs.append(Eq((salt(metal, q, "CO3"), acid), (salt(metal, q, anion), "H2O", "CO2"), "gas_evolution"))
    for source, (cation, q) in (("NaHCO3", ("Na", 1)), ("KHCO3", ("K", 1)), ("NH4HCO3", ("NH4", 1)),
                                ("Ca(HCO3)2", ("Ca", 2))):
        for acid in _GAS_ACIDS + ("H3PO4",):
            if salt_ok(cation, q, ACIDS[acid]):
                eqs.append(Eq((source, acid), (salt(cation, q, ACIDS[acid]), "H2O", "CO2"), "gas_evolution"))
    for (metal, q), acid in product(_SULFIDE_METALS, ("HCl", "H2SO4", "HBr", "HI", "HClO4")):
        eqs.append(Eq((salt(metal, q, "S"), acid), (salt(metal, q, ACIDS[acid]), "H2S"), "gas_evolution"))
    for (metal, q), acid in product(ALKALI + (("Ca", 2), ("Mg", 2), ("Ba", 2)), ("HCl", "H2SO4", "HBr", "HClO4")):
        eqs.append(Eq((salt(metal, q, "SO3"), acid), (salt(metal, q, ACIDS[acid]), "H2O", "SO2"), "gas_evolution"))
        if (metal, q) in ALKALI:
            eqs.append(Eq((salt(metal, q, "S2O3"), acid), (salt(metal, q, ACIDS[acid]), "S", "SO2", "H2O"),
                          "gas_evolution"))
    for anion in ("Cl", "Br", "I", "NO3", "SO4", "PO4", "CO3", "ClO4", "CH3COO"):
        for metal, q in (("Li", 1), ("Na", 1), ("K", 1), ("Ca", 2), ("Ba", 2), ("Sr", 2)):
            eqs.append(Eq((salt("NH4", 1, anion), hydroxide(metal, q)), (salt(metal, q, anion), "NH3", "H2O"),
                          "gas_evolution"))
    eqs += [Eq(r, p, "gas_evolution") for r, p in _WATER_REACTIONS]
    return eqs


def metal_water() -> list[Eq]:
    """Metals with water or steam, and amphoteric metals with hydroxide solutions."""
    eqs = [Eq((m, "H2O"), (hydroxide(m, q), "H2"), "metal_water")
           for m, q in (("Rb", 1), ("Cs", 1), ("Mg", 2), ("Mn", 2), ("La", 3), ("Ce", 3), ("Al", 3))]
    eqs += [Eq((m, "H2O"), (oxide(m, q), "H2"), "metal_water") for m, q in (("Mg", 2), ("Zn", 2), ("Sn", 4))]
    for base in ("NaOH", "KOH"):
        cation = base[:-2]
        eqs += [
            Eq(("Zn", base, "H2O"), (f"{cation}2Zn(OH)4", "H2"), "metal_water"),
            Eq(("Be", base, "H2O"), (f"{cation}2Be(OH)4", "H2"), "metal_water"),
            Eq(("Si", base, "H2O"), (f"{cation}2SiO3", "H2"), "metal_water"),
            Eq(("Al", base, "H2O"), (f"{cation}AlO2", "H2"), "metal_water"),
            Eq(("Sn", base, "H2O"), (f"{cation}2Sn(OH)4", "H2"), "metal_water"),
        ]
    eqs.append(Eq(("Al", "KOH", "H2O"), ("KAl(OH)4", "H2"), "metal_water"))
    eqs.append(Eq(("Zn", "NaOH"), ("Na2ZnO2", "H2"), "metal_water"))
    return eqs
