"""Fresh classic skeletons: ionic and molecular redox, catalysed industrial processes, incomplete
combustion and combustion of enumerated C/H/O fuel formulas.

Redox skeletons pair an oxidant's half-reaction with a reductant's when the oxidant's standard
potential exceeds the reductant's by at least :data:`MIN_DRIVING_VOLTS` and no other reaction takes
over (silver ions precipitate iodide rather than oxidise it; only strong oxidants take Mn2+ to
permanganate; thiosulfate gives tetrathionate only with iodine and iron(III)); the medium (H+ / H2O,
OH- / H2O, H2SO4 / H2O) is written on both possible sides and exact balancing keeps the side that
gives positive coefficients (the other skeleton is dropped by the build). Combustion fuels are
*twins* of the classic corpus's fuels (:func:`twin_fuels`): one valid formula next to each, so the
fresh fuels have about the same sizes and oxygen contents.
"""
from __future__ import annotations

from itertools import product
from typing import Iterable, Sequence

from rlvr.chem.formula import Formula, parse_formula
from rlvr.generators.stoich.classic import ClassicEquation, ion
from rlvr.generators.stoich.fresh_tables import ACID_METALS, ACTIVITY, salt
from rlvr.rng import stable_hash

Eq = ClassicEquation
#: a half-reaction: (species, what it becomes, standard potential E° / V of the couple)
Half = tuple[str, str, float]
#: least difference of standard potentials (V) for an oxidant/reductant pair
MIN_DRIVING_VOLTS = 0.2

#: (oxidised form, reduced form, E° / V) in acid
ACID_OXIDANTS: tuple[Half, ...] = (
    ("MnO4-", "Mn+2", 1.51), ("Cr2O7-2", "Cr+3", 1.33), ("BrO3-", "Br-", 1.42), ("ClO3-", "Cl-", 1.45),
    ("IO3-", "I2", 1.20), ("H2O2", "H2O", 1.78), ("NO3-", "NO", 0.96), ("PbO2", "Pb+2", 1.46), ("MnO2", "Mn+2", 1.23),
    ("Cl2", "Cl-", 1.36), ("Br2", "Br-", 1.07), ("Fe+3", "Fe+2", 0.77), ("I2", "I-", 0.54), ("S2O8-2", "SO4-2", 2.01),
    ("BiO3-", "Bi+3", 1.80), ("O2", "H2O", 1.23), ("Ce+4", "Ce+3", 1.61), ("Ag+", "Ag", 0.80), ("Hg+2", "Hg", 0.85),
    ("Au+3", "Au", 1.50),
)
#: (reduced form, oxidised form, E° / V) in acid
ACID_REDUCTANTS: tuple[Half, ...] = (
    ("Fe+2", "Fe+3", 0.77), ("Sn+2", "Sn+4", 0.15), ("I-", "I2", 0.54), ("Br-", "Br2", 1.07), ("Cl-", "Cl2", 1.36),
    ("SO3-2", "SO4-2", 0.17), ("C2O4-2", "CO2", -0.49), ("H2C2O4", "CO2", -0.49), ("H2S", "S", 0.14),
    ("NO2-", "NO3-", 0.94), ("H2O2", "O2", 0.70), ("S2O3-2", "S4O6-2", 0.08), ("Mn+2", "MnO4-", 1.51),
    ("Cr+3", "Cr2O7-2", 1.33), ("SO2", "SO4-2", 0.17), ("N2H4", "N2", -0.23),
)
#: the same in base
BASIC_OXIDANTS: tuple[Half, ...] = (
    ("MnO4-", "MnO2", 0.59), ("ClO-", "Cl-", 0.89), ("H2O2", "OH-", 0.88), ("BrO3-", "Br-", 0.61),
    ("O2", "OH-", 0.40), ("ClO3-", "Cl-", 0.62),
)
BASIC_REDUCTANTS: tuple[Half, ...] = (
    ("SO3-2", "SO4-2", -0.93), ("Cr(OH)3", "CrO4-2", -0.13), ("CN-", "OCN-", -0.97), ("Fe(OH)2", "Fe(OH)3", -0.56),
    ("S-2", "S", -0.48), ("NO2-", "NO3-", 0.01), ("I-", "IO3-", 0.26), ("Mn(OH)2", "MnO2", -0.05),
    ("N2H4", "N2", -1.16), ("Co(OH)2", "Co(OH)3", 0.17),
)

_OXALATE_OXIDANTS = frozenset({"MnO4-", "Ce+4", "Cr2O7-2", "MnO2", "PbO2", "Au+3", "BrO3-", "KMnO4", "K2Cr2O7",
                               "Na2Cr2O7"})
#: reductant -> the only oxidants it is paired with
ONLY_OXIDISED_BY: dict[str, frozenset[str]] = {
    "Mn+2": frozenset({"S2O8-2", "BiO3-", "PbO2"}),
    "Cr+3": frozenset({"S2O8-2", "BiO3-", "MnO4-", "Ce+4"}),
    "S2O3-2": frozenset({"Fe+3", "I2"}),
    "H2O2": frozenset({"Cl2", "Br2", "Au+3", "Ce+4", "MnO4-", "PbO2"}),
    "C2O4-2": _OXALATE_OXIDANTS, "H2C2O4": _OXALATE_OXIDANTS, "Na2C2O4": _OXALATE_OXIDANTS,
}
#: oxidant -> the only reductants it is paired with (metal ions that would precipitate the others)
ONLY_REDUCED_BY: dict[str, frozenset[str]] = {
    "Ag+": frozenset({"Sn+2", "N2H4", "Fe+2"}),
    "Hg+2": frozenset({"Sn+2", "N2H4"}),
    "Au+3": frozenset({"Sn+2", "N2H4", "Fe+2", "H2C2O4", "C2O4-2", "SO2", "H2O2"}),
}


def paired(oxidant: str, e_ox: float, reductant: str, e_red: float) -> bool:
    """Whether the oxidant and the reductant are paired (see module docs)."""
    return (e_ox - e_red >= MIN_DRIVING_VOLTS and oxidant != reductant
            and oxidant in ONLY_OXIDISED_BY.get(reductant, {oxidant})
            and reductant in ONLY_REDUCED_BY.get(oxidant, {reductant}))


def _skeleton(left: Sequence[str], right: Sequence[str], rclass: str) -> Eq | None:
    """A skeleton with repeated species merged; None when a species is on both sides."""
    lhs, rhs = tuple(dict.fromkeys(left)), tuple(dict.fromkeys(right))
    return None if set(lhs) & set(rhs) else Eq(lhs, rhs, rclass)


def _paired(oxidants: Sequence[Half], reductants: Sequence[Half],
            media: Sequence[tuple[Sequence[str], Sequence[str]]], rclass: str) -> list[Eq]:
    """Skeletons of every paired oxidant and reductant, once per medium (species added left, right)."""
    eqs = []
    for (ox, ox_red, e_ox), (red, red_ox, e_red) in product(oxidants, reductants):
        if not paired(ox, e_ox, red, e_red):
            continue
        for extra_left, extra_right in media:
            eq = _skeleton([ox, red, *extra_left], [ox_red, red_ox, *extra_right], rclass)
            if eq is not None:
                eqs.append(eq)
    return eqs


def redox_ionic() -> list[Eq]:
    """Metal + ion displacements, metal + H+, and oxidant/reductant half-reaction pairs in acid and base."""
    eqs = []
    for i, (active, qa) in enumerate(ACTIVITY):
        for passive, qp in ACTIVITY[i + 1:]:
            eqs.append(Eq((active, ion(passive, qp)), (ion(active, qa), passive), "redox_ionic"))
    eqs += [Eq((metal, "H+"), (ion(metal, q), "H2"), "redox_ionic") for metal, q in ACID_METALS]
    acid_media = (((), ()), (("H+",), ("H2O",)), (("H2O",), ("H+",)))
    eqs += _paired(ACID_OXIDANTS, ACID_REDUCTANTS, acid_media, "redox_ionic")
    eqs += _paired(BASIC_OXIDANTS, BASIC_REDUCTANTS, ((("OH-",), ("H2O",)), (("H2O",), ("OH-",))), "redox_ionic")
    return eqs


#: (oxidant, its cation as (symbol, charge) or None, its reduced products, E° / V) in sulfuric acid
SULFATE_OXIDANTS = (
    ("KMnO4", ("K", 1), ("MnSO4",), 1.51), ("K2Cr2O7", ("K", 1), ("Cr2(SO4)3",), 1.33),
    ("Na2Cr2O7", ("Na", 1), ("Cr2(SO4)3",), 1.33), ("H2O2", None, (), 1.78), ("KIO3", ("K", 1), ("I2",), 1.20),
    ("MnO2", None, ("MnSO4",), 1.23), ("PbO2", None, ("PbSO4",), 1.46),
)
#: (reductant, its cation or None, its oxidised products, E° / V)
SULFATE_REDUCTANTS = (
    ("FeSO4", None, ("Fe2(SO4)3",), 0.77), ("KI", ("K", 1), ("I2",), 0.54), ("NaI", ("Na", 1), ("I2",), 0.54),
    ("Na2SO3", ("Na", 1), (), 0.17), ("K2SO3", ("K", 1), (), 0.17), ("H2C2O4", None, ("CO2",), -0.49),
    ("Na2C2O4", ("Na", 1), ("CO2",), -0.49), ("H2S", None, ("S",), 0.14), ("NaNO2", None, ("NaNO3",), 0.94),
    ("SnSO4", None, ("Sn(SO4)2",), 0.15), ("SO2", None, ("H2SO4",), 0.17), ("KBr", ("K", 1), ("Br2",), 1.07),
    ("NaBr", ("Na", 1), ("Br2",), 1.07),
)
#: oxidant + hydrogen halide -> metal halides + halogen + water
HALIDE_OXIDANTS = (
    ("KMnO4", (("K", 1), ("Mn", 2))), ("K2Cr2O7", (("K", 1), ("Cr", 3))), ("Na2Cr2O7", (("Na", 1), ("Cr", 3))),
    ("MnO2", (("Mn", 2),)), ("NaClO", (("Na", 1),)), ("Ca(ClO)2", (("Ca", 2),)), ("Pb3O4", (("Pb", 2),)),
    ("NaMnO4", (("Na", 1), ("Mn", 2))),
)
_NITRIC_METALS = (("Cu", 2), ("Ag", 1), ("Hg", 2), ("Pb", 2), ("Zn", 2), ("Fe", 3), ("Ni", 2), ("Co", 2), ("Cd", 2),
                  ("Bi", 3), ("Mn", 2), ("Mg", 2), ("Al", 3))
_REDUCTIONS = (
    *[(("H2", ox), (m, "H2O")) for ox, m in (("PbO", "Pb"), ("Fe2O3", "Fe"), ("NiO", "Ni"), ("MoO3", "Mo"),
                                              ("SnO2", "Sn"), ("Ag2O", "Ag"), ("CoO", "Co"), ("Fe3O4", "Fe"),
                                              ("Cu2O", "Cu"), ("Bi2O3", "Bi"), ("GeO2", "Ge"))],
    *[(("C", ox), (m, gas)) for ox, m, gas in (("ZnO", "Zn", "CO"), ("PbO", "Pb", "CO2"), ("CuO", "Cu", "CO2"),
                                                ("SnO2", "Sn", "CO2"), ("Fe3O4", "Fe", "CO2"), ("SiO2", "Si", "CO"))],
    *[(("CO", ox), (m, "CO2")) for ox, m in (("CuO", "Cu"), ("NiO", "Ni"), ("PbO", "Pb"), ("FeO", "Fe"),
                                             ("SnO2", "Sn"))],
    *[(("Al", ox), ("Al2O3", m)) for ox, m in (("CuO", "Cu"), ("NiO", "Ni"), ("Fe3O4", "Fe"), ("Co3O4", "Co"),
                                               ("SnO2", "Sn"), ("WO3", "W"), ("V2O5", "V"))],
    *[(("Mg", ox), ("MgO", m)) for ox, m in (("SiO2", "Si"), ("B2O3", "B"), ("CuO", "Cu"), ("TiO2", "Ti"))],
    (("Na", "TiCl4"), ("Ti", "NaCl")), (("Mg", "ZrCl4"), ("Zr", "MgCl2")), (("Na", "KCl"), ("K", "NaCl")),
    (("NH3", "Cl2"), ("N2", "HCl")), (("NH3", "Cl2"), ("N2", "NH4Cl")), (("Br2", "NaOH"), ("NaBr", "NaBrO3", "H2O")),
    (("Cl2", "KOH"), ("KCl", "KClO3", "H2O")), (("I2", "NaOH"), ("NaI", "NaIO3", "H2O")),
    (("Cl2", "Ca(OH)2"), ("CaCl2", "Ca(ClO)2", "H2O")), (("P4", "KOH", "H2O"), ("PH3", "KH2PO2")),
    (("S", "NaOH"), ("Na2S", "Na2SO3", "H2O")), (("Cl2", "H2O"), ("HCl", "HClO")),
    (("NO2", "NaOH"), ("NaNO3", "NaNO2", "H2O")), (("S", "H2SO4"), ("SO2", "H2O")),
    (("P", "H2SO4"), ("H3PO4", "SO2", "H2O")), (("S", "HNO3"), ("H2SO4", "NO")),
    (("P", "HNO3", "H2O"), ("H3PO4", "NO")), (("As", "HNO3"), ("H3AsO4", "NO2", "H2O")),
    (("Zn", "H2SO4"), ("ZnSO4", "H2S", "H2O")), (("Zn", "H2SO4"), ("ZnSO4", "S", "H2O")),
)


def redox_molecular() -> list[Eq]:
    """Metals with nitric and hot concentrated sulfuric acid, oxidants with hydrogen halides and with reductants
    in sulfuric acid, reductions of oxides and chlorides, disproportionations."""
    eqs = []
    for metal, q in _NITRIC_METALS:
        nitrate = salt(metal, q, "NO3")
        for gas in ("NO", "NO2"):
            eqs.append(Eq((metal, "HNO3"), (nitrate, gas, "H2O"), "redox_molecular"))
        if metal in ("Zn", "Mg", "Al", "Fe"):
            eqs.append(Eq((metal, "HNO3"), (nitrate, "NH4NO3", "H2O"), "redox_molecular"))
        if metal in ("Zn", "Mg", "Al"):
            eqs += [Eq((metal, "HNO3"), (nitrate, gas, "H2O"), "redox_molecular") for gas in ("N2O", "N2")]
    for metal, q in (("Cu", 2), ("Ag", 1), ("Hg", 2), ("Zn", 2), ("Fe", 3), ("Pb", 2), ("Bi", 3)):
        eqs.append(Eq((metal, "H2SO4"), (salt(metal, q, "SO4"), "SO2", "H2O"), "redox_molecular"))
    for (oxidant, cations), (acid, halogen) in product(HALIDE_OXIDANTS, (("HCl", "Cl"), ("HBr", "Br"), ("HI", "I"))):
        if halogen == "I" and oxidant in ("NaClO", "Ca(ClO)2", "Pb3O4"):
            continue
        halides = [salt(m, q, halogen) for m, q in cations]
        eqs.append(Eq((oxidant, acid), (*halides, f"{halogen}2", "H2O"), "redox_molecular"))
    for oxidant, reductant in product(SULFATE_OXIDANTS, SULFATE_REDUCTANTS):
        (ox, ox_cation, ox_products, e_ox), (red, red_cation, red_products, e_red) = oxidant, reductant
        if not paired(ox, e_ox, red, e_red):
            continue
        sulfates = [salt(*cation, "SO4") for cation in (ox_cation, red_cation) if cation is not None]
        for left, right in ((("H2SO4",), ("H2O",)), (("H2O",), ("H2SO4",))):
            eq = _skeleton([ox, red, *left], [*sulfates, *ox_products, *red_products, *right], "redox_molecular")
            if eq is not None:
                eqs.append(eq)
    eqs += [Eq(r, p, "redox_molecular") for r, p in _REDUCTIONS]
    return eqs


def _alkane(n: int) -> str:
    return "CH4" if n == 1 else f"C{n}H{2 * n + 2}"


_INDUSTRIAL = (
    (("CO2", "H2"), ("CH3OH", "H2O"), ("Cu", "ZnO")), (("CO2", "H2"), ("CO", "H2O"), ("Cu",)),
    (("CH4", "O2"), ("CO", "H2"), ("Rh",)), (("CH4", "CO2"), ("CO", "H2"), ("Ni",)),
    (("C2H4", "O2"), ("C2H4O",), ("Ag",)), (("CH3OH", "CO"), ("CH3COOH",), ("Rh",)),
    (("CH3OH", "O2"), ("CH2O", "H2O"), ("Ag",)), (("CH3OH",), ("CH2O", "H2"), ("Cu",)),
    (("CH4", "NH3"), ("HCN", "H2"), ("Pt",)), (("NH3", "CO2"), ("CH4N2O", "H2O"), ()),
    (("NaCl", "H2O"), ("NaOH", "Cl2", "H2"), ()), (("Al2O3", "C"), ("Al", "CO2"), ()),
    (("C2H4", "Cl2"), ("C2H4Cl2",), ("FeCl3",)), (("C2H4Cl2",), ("C2H3Cl", "HCl"), ()),
    (("C2H2", "HCl"), ("C2H3Cl",), ("HgCl2",)), (("C6H6", "C2H4"), ("C8H10",), ("AlCl3",)),
    (("C8H10",), ("C8H8", "H2"), ("Fe2O3",)), (("C6H6", "C3H6"), ("C9H12",), ("H3PO4",)),
    (("CH3OH",), ("CH3OCH3", "H2O"), ("Al2O3",)), (("CH3OH",), ("C2H4", "H2O"), ()),
    (("C3H6", "NH3", "O2"), ("C3H3N", "H2O"), ("Bi2O3", "MoO3")),
    (("C2H4", "HCl", "O2"), ("C2H4Cl2", "H2O"), ("CuCl2",)), (("NO", "NH3", "O2"), ("N2", "H2O"), ("V2O5",)),
    (("CH3Cl", "Cl2"), ("CH2Cl2", "HCl"), ()), (("CH2Cl2", "Cl2"), ("CHCl3", "HCl"), ()),
    (("CHCl3", "Cl2"), ("CCl4", "HCl"), ()), (("CO", "Cl2"), ("COCl2",), ("C",)),
    (("CH4", "H2O"), ("CO2", "H2"), ("Ni",)), (("C", "H2O"), ("CO", "H2"), ()),
    (("C2H5OH",), ("C2H4", "H2O"), ("Al2O3",)), (("C2H5OH", "O2"), ("CH3COOH", "H2O"), ()),
    (("C6H12O6",), ("C3H6O3",), ()), (("C12H22O11", "H2O"), ("C6H12O6",), ()),
)


def industrial() -> list[Eq]:
    """Catalysed industrial processes (catalysts as reagents): Fischer-Tropsch to longer alkanes and to alkenes,
    steam reforming, hydrogenation, dehydrogenation and hydration of alkenes, and named processes."""
    eqs = [Eq(("CO", "H2"), (_alkane(n), "H2O"), "industrial", ("Co",)) for n in range(9, 17)]
    eqs += [Eq(("CO", "H2"), (f"C{n}H{2 * n}", "H2O"), "industrial", ("Fe",)) for n in range(2, 9)]
    eqs += [Eq((_alkane(n), "H2O"), ("CO", "H2"), "industrial", ("Ni",)) for n in range(2, 9)]
    eqs += [Eq((f"C{n}H{2 * n}", "H2"), (_alkane(n),), "industrial", ("Ni",)) for n in range(3, 9)]
    eqs += [Eq((_alkane(n),), (f"C{n}H{2 * n}", "H2"), "industrial", ("Pt",)) for n in range(2, 7)]
    eqs += [Eq((f"C{n}H{2 * n}", "H2O"), (f"C{n}H{2 * n + 2}O",), "industrial", ("H3PO4",)) for n in range(3, 7)]
    eqs += [Eq(r, p, "industrial", g) for r, p, g in _INDUSTRIAL]
    return eqs


def incomplete_combustion() -> list[Eq]:
    """Alkanes, alkenes and alcohols burnt to carbon monoxide."""
    fuels = [_alkane(n) for n in range(11, 21)] + [f"C{n}H{2 * n}" for n in range(2, 11)]
    fuels += [f"C{n}H{2 * n + 2}O" for n in range(1, 9)]
    return [Eq((f, "O2"), ("CO", "H2O"), "incomplete_combustion") for f in fuels]


def _fuel_ok(c: int, h: int, o: int) -> bool:
    """A neutral C/H/O formula some molecule has: even H count, 0 <= degree of unsaturation <= C, O <= C."""
    dou2 = 2 * c + 2 - h
    return c >= 1 and h >= 2 and h % 2 == 0 and 0 <= dou2 <= 2 * c and 0 <= o <= c


def twin_fuels(classic_fuels: Iterable[str]) -> list[str]:
    """One new C/H/O fuel formula next to each classic fuel formula (Hill notation).

    For each classic formula C_x H_y O_z (in a stable hashed order), the formulas one step away
    (x +- 1, y +- 2, z +- 1) that are valid fuels (:func:`_fuel_ok`), not classic fuels and not yet taken
    are ranked by a stable hash and the first is taken.
    """
    classic = sorted({parse_formula(f).hill() for f in classic_fuels})
    taken: set[str] = set(classic)
    twins = []
    for hill in sorted(classic, key=lambda f: (stable_hash("fresh-fuel", f), f)):
        counts = parse_formula(hill).as_dict()
        if set(counts) - {"C", "H", "O"}:
            continue
        c, h, o = counts.get("C", 0), counts.get("H", 0), counts.get("O", 0)
        near = [Formula.of({"C": c + dc, "H": h + dh, "O": o + do}).hill()
                for dc, dh, do in product((-1, 0, 1), (-2, 0, 2), (-1, 0, 1))
                if (dc, dh, do) != (0, 0, 0) and _fuel_ok(c + dc, h + dh, o + do)]
        for twin in sorted((f for f in near if f not in taken), key=lambda f: (stable_hash("fresh-twin", hill, f), f)):
            taken.add(twin)
            twins.append(twin)
            break
    return twins


def combustion(fuels: Sequence[str]) -> list[Eq]:
    """Complete combustion of formula-only C/H/O fuels."""
    return [Eq((f, "O2"), ("CO2", "H2O"), "combustion") for f in fuels]
