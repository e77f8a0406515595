"""Named reaction templates (reaction SMARTS) that build the embedded reaction corpus.

Each :class:`Template` turns one or two substrates into its main product(s) with a reaction
SMARTS. Species the SMARTS does not draw (co-reactants such as H2, H2O, O2, and byproducts such
as H2O, HCl, CO2) are listed explicitly, and the stoichiometric coefficients of the whole
equation are computed by exact balancing (:func:`rlvr.chem.balance.balance_formulas`), never
typed in. Templates with a halide leaving group list one byproduct alternative per halogen; the
alternative that balances is used.

Substrates come from the RDKit wheel's molecule sets (see :mod:`rlvr.generators.stoich.corpus`)
in the slot marked ``None`` in ``partners``; the other slots take curated small partner
reagents. ``derive_from`` adds the main products of another template as substrates (for example
Boc-protected amines for Boc deprotection). Reagents (catalysts, bases, solvents, spectator ions)
appear unchanged on both sides; one set is picked per reaction by a stable hash.
"""
from __future__ import annotations

from dataclasses import dataclass

# --- functional-group SMARTS (the mapped atom is the reacting one) -------------------------------

AMINE = "[NX3;H2,H1;+0;!$(N[C,S,P]=[O,S,N]);!$(N[!#6;!#1]);!$(NC#N);!$(N-a:n)]"
PRIMARY_AMINE = "[NX3;H2;+0;!$(N[C,S,P]=[O,S,N]);!$(N[!#6;!#1]);!$(NC#N);!$(N-a:n)]"
ALIPHATIC_AMINE = "[NX3;H2,H1;+0;!$(N[C,S,P]=[O,S,N]);!$(N[!#6;!#1]);!$(NC#N);!$(Na)]"
ACID = "[CX3;$([CX3]([#6])(=O)[OX2H1])]"
ALCOHOL = "[OX2H1;$(O[CX4]);!$(O[CX4][O,N,S,F,Cl,Br,I])]"
PHENOL = "[OX2H1;$(Oc)]"
ALKYL_HALIDE_C = "[CX4;H2,H3;!$(C([Cl,Br,I,F])[F,Cl,Br,I,O,N,S]);!$(C[Si])]"
ARYL_HALIDE_C = "[c;$(c[Br,I])]"
ALDEHYDE_C = "[CX3H1;$([CX3H1]([#6])=[OX1])]"
KETONE_C = "[CX3;$([CX3]([#6])([#6])=[OX1]);!$(C(=O)[#6]=[#8,#7])]"
CARBONYL_C = "[CX3;$([CX3H1]([#6])=[OX1]),$([CX3]([#6])([#6])=[OX1]);!$(C(=O)[#6]=[#8,#7])]"
THIOL = "[SX2H1;$(S[#6])]"


def _m(atom: str, n: int) -> str:
    """Add atom-map number ``n`` to a bracket-atom SMARTS."""
    return f"{atom[:-1]}:{n}]"

# --- curated partner molecules -------------------------------------------------------------------

SMALL_ACIDS = (
    "CC(=O)O", "CCC(=O)O", "O=C(O)c1ccccc1", "O=C(O)C1CC1", "COc1ccc(C(=O)O)cc1", "O=C(O)c1cccnc1",
    "CC(C)C(=O)O", "O=C(O)Cc1ccccc1",
)
SMALL_AMINES = (
    "CN", "CNC", "CCN", "NCc1ccccc1", "C1COCCN1", "C1CCNCC1", "C1CCNC1", "Nc1ccccc1", "NC1CC1",
    "CN1CCNCC1", "CC(C)N", "Nc1ccc(F)cc1",
)
PRIMARY_AMINES = ("CN", "CCN", "NCc1ccccc1", "Nc1ccccc1", "NC1CC1", "CC(C)N", "Nc1ccc(F)cc1", "CCCCN")
SECONDARY_AMINES = ("CNC", "C1COCCN1", "C1CCNCC1", "C1CCNC1", "CN1CCNCC1", "CNCc1ccccc1")
SMALL_ALCOHOLS = ("CO", "CCO", "CC(C)O", "CCCCO", "OCc1ccccc1")
PHENOLS = ("Oc1ccccc1", "COc1ccc(O)cc1", "Oc1ccc(Cl)cc1")
ALKYL_HALIDES = ("CI", "CCBr", "BrCc1ccccc1", "C=CCBr", "C#CCBr", "CCCCBr", "ClCc1ccccc1", "CCI")
ACYL_CHLORIDES = ("CC(=O)Cl", "O=C(Cl)c1ccccc1", "O=C(Cl)C1CC1", "CC(C)(C)C(=O)Cl", "O=C(Cl)c1ccco1", "CCC(=O)Cl")
SULFONYL_CHLORIDES = ("Cc1ccc(S(=O)(=O)Cl)cc1", "CS(=O)(=O)Cl", "O=S(=O)(Cl)c1ccccc1")
ISOCYANATES = ("O=C=Nc1ccccc1", "CCN=C=O", "O=C=NC1CCCCC1")
BORONIC_ACIDS = (
    "OB(O)c1ccccc1", "COc1ccc(B(O)O)cc1", "OB(O)c1ccc(F)cc1", "OB(O)c1cccnc1", "OB(O)c1cccs1", "Cc1ccc(B(O)O)cc1",
)
TERMINAL_ALKYNES = ("C#Cc1ccccc1", "C#C[Si](C)(C)C", "C#CCO", "C#CC1CC1")
HECK_ALKENES = ("C=CC(=O)OC", "C=Cc1ccccc1", "C=CC#N", "C=CC(=O)OC(C)(C)C")
SMALL_CARBONYLS = ("CC(C)=O", "O=C1CCCCC1", "O=Cc1ccccc1", "O=C1CCOCC1", "CCC=O")
GRIGNARDS = ("C[Mg]Br", "CC[Mg]Br", "Br[Mg]c1ccccc1")
ARYL_HALIDES = ("Brc1ccccc1", "Brc1ccc(C)cc1", "Ic1ccccc1", "COc1ccc(Br)cc1", "Brc1cccnc1")

# --- small species ---------------------------------------------------------------------------------

H2 = "[H][H]"
WATER = "O"
O2 = "O=O"
CO2 = "O=C=O"
HALIDE_ACIDS = (("Cl",), ("Br",), ("I",))
HALIDE_IONS = (("[Cl-]",), ("[Br-]",), ("[I-]",))

# --- reagent sets (appear unchanged on both sides) -------------------------------------------------

DMF, DCM, THF, MECN, TOLUENE, DMSO, ACETONE, DIOXANE = (
    "CN(C)C=O", "ClCCl", "C1CCOC1", "CC#N", "Cc1ccccc1", "CS(C)=O", "CC(C)=O", "C1COCCO1")
TEA, DIPEA, PYRIDINE, DMAP = "CCN(CC)CC", "CCN(C(C)C)C(C)C", "c1ccncc1", "CN(C)c1ccncc1"
K2CO3, CS2CO3, NA2CO3 = "O=C(O[K])O[K]", "O=C(O[Cs])O[Cs]", "O=C(O[Na])O[Na]"
PD, PD_OAC2, PPH3, CUI, NI = "[Pd]", "CC(=O)O[Pd]OC(C)=O", "c1ccc(P(c2ccccc2)c2ccccc2)cc1", "[Cu]I", "[Ni]"
H2SO4, TSOH, TFA, HCL = "O=S(=O)(O)O", "Cc1ccc(S(=O)(=O)O)cc1", "O=C(O)C(F)(F)F", "Cl"
NA_ION, K_ION = "[Na+]", "[K+]"
TEMPO, CU = "CC1(C)CCCC(C)(C)N1[O]", "[Cu]"
NAOTBU = "CC(C)(C)O[Na]"


@dataclass(frozen=True)
class Template:
    """A named reaction template.

    - ``smarts``: reaction SMARTS drawing the main product(s) from the substrate slots.
    - ``partners``: per reactant slot, curated partner SMILES, or ``None`` for "substrate from the pool".
      A slot with partners can also take pool substrates when ``pool_slots`` says so.
    - ``co_reactants`` / ``byproducts``: extra species consumed / formed (coefficients by balancing);
      ``byproducts`` is a tuple of alternatives, the first that balances is used.
    - ``reagents``: alternative reagent sets; ``derive_from``: template whose main products are
      also substrates; ``cap``: maximum number of reactions kept.
    """

    name: str
    smarts: str
    partners: tuple[tuple[str, ...] | None, ...]
    co_reactants: tuple[str, ...] = ()
    byproducts: tuple[tuple[str, ...], ...] = ((),)
    reagents: tuple[tuple[str, ...], ...] = ((),)
    pool_slots: tuple[int, ...] | None = None
    derive_from: str | None = None
    cap: int = 450
    description: str = ""

    @property
    def n_slots(self) -> int:
        return len(self.partners)

    def substrate_slots(self) -> tuple[int, ...]:
        """Slots that take pool substrates (the other slots take partners)."""
        if self.pool_slots is not None:
            return self.pool_slots
        if self.n_slots == 1:
            return (0,)
        return tuple(i for i in range(self.n_slots) if all(self.partners[j] for j in range(self.n_slots) if j != i))


def _t(name: str, smarts: str, partners, **kw) -> Template:
    return Template(name=name, smarts=smarts, partners=tuple(partners), **kw)


TEMPLATES: tuple[Template, ...] = (
    _t("amide_coupling", f"{_m(ACID, 1)}(=[O:2])[OX2H1].{_m(AMINE, 3)}>>[C:1](=[O:2])[N:3]",
       (SMALL_ACIDS, SMALL_AMINES), byproducts=((WATER,),),
       reagents=((DMF, DIPEA), (DCM, TEA), (DMF, DMAP)), cap=600,
       description="carboxylic acid + amine -> amide + water"),
    _t("acylation_acyl_chloride", f"[CX3;$(C([#6])(=O)Cl):1](=[O:2])Cl.{_m(AMINE, 3)}>>[C:1](=[O:2])[N:3]",
       (ACYL_CHLORIDES, SMALL_AMINES), byproducts=(("Cl",),), reagents=((DCM, TEA), (THF, PYRIDINE)),
       description="acyl chloride + amine -> amide + HCl (Schotten-Baumann)"),
    _t("fischer_esterification", f"{_m(ACID, 1)}(=[O:2])[OX2H1].[OX2H1;$(O[CX4]);!$(O[CX4][O,N,S,F,Cl,Br,I]):3]>>[C:1](=[O:2])[O:3]",
       (SMALL_ACIDS, SMALL_ALCOHOLS), byproducts=((WATER,),), reagents=((H2SO4,), (TSOH, TOLUENE)),
       description="carboxylic acid + alcohol -> ester + water"),
    _t("ester_hydrolysis", "[CX3;$(C([#6])(=O)O[CX4]):1](=[O:2])!@[OX2:3][CX4:4]>>[C:1](=[O:2])[OH1].[O:3][C:4]",
       (None,), co_reactants=(WATER,), reagents=((H2SO4, DIOXANE), (HCL, THF)),
       derive_from="fischer_esterification",
       description="ester + water -> carboxylic acid + alcohol"),
    _t("ester_saponification", "[CX3;$(C([#6])(=O)O[CH3]):1](=[O:2])[OX2][CH3]>>[C:1](=[O:2])[O-]",
       (None,), co_reactants=("[OH-]",), byproducts=(("CO",),), reagents=((NA_ION, THF), (K_ION, DIOXANE)),
       derive_from="fischer_esterification",
       description="methyl ester + hydroxide -> carboxylate + methanol"),
    _t("ester_aminolysis", f"[CX3;$(C([#6])(=O)O[CH3,$([CH2][CH3])]):1](=[O:2])[OX2][CH3,$([CH2][CH3])].{_m(ALIPHATIC_AMINE, 3)}>>[C:1](=[O:2])[N:3]",
       (None, ("CN", "CNC", "CCN", "NCc1ccccc1", "C1COCCN1", "C1CCNCC1", "C1CCNC1", "NC1CC1")), byproducts=(("CO",), ("CCO",)), reagents=((), (TOLUENE,)),
       pool_slots=(0,), derive_from="fischer_esterification", cap=350,
       description="methyl/ethyl ester + amine -> amide + alcohol"),
    _t("alcohol_chlorination", "[CX4;!$(C[!#6;!#1;!O]):1][OX2H1;!$(O[CX4][O,N,S,F,Cl,Br,I])]>>[C:1]Cl",
       (None,), co_reactants=("O=S(Cl)Cl",), byproducts=(("O=S=O", "Cl"),), reagents=((DCM,), (DMF, DCM)),
       description="alcohol + SOCl2 -> alkyl chloride + SO2 + HCl"),
    _t("williamson_ether", f"[OX2H1;$(O[CX4,c]);!$(O[CX4][O,N,S,F,Cl,Br,I]);!$(OC=O):1].{_m(ALKYL_HALIDE_C, 2)}[Cl,Br,I]>>[O:1][C:2]",
       (PHENOLS + SMALL_ALCOHOLS[:2], ALKYL_HALIDES), byproducts=HALIDE_ACIDS,
       reagents=((K2CO3, DMF), (CS2CO3, MECN), (K2CO3, ACETONE)),
       description="alcohol/phenol + alkyl halide -> ether + HX"),
    _t("sn2_azide", f"{_m(ALKYL_HALIDE_C, 1)}[Cl,Br,I]>>[C:1]N=[N+]=[N-]",
       (None,), co_reactants=("[N-]=[N+]=[N-]",), byproducts=HALIDE_IONS, reagents=((NA_ION, DMF), (NA_ION, DMSO)),
       derive_from="alcohol_chlorination", cap=300,
       description="alkyl halide + azide ion -> alkyl azide + halide ion"),
    _t("sn2_cyanide", f"{_m(ALKYL_HALIDE_C, 1)}[Cl,Br,I]>>[C:1]C#N",
       (None,), co_reactants=("[C-]#N",), byproducts=HALIDE_IONS, reagents=((NA_ION, DMSO), (K_ION, DMF)),
       derive_from="alcohol_chlorination", cap=300, description="alkyl halide + cyanide ion -> nitrile + halide ion"),
    _t("finkelstein", "[CX4;H2;!$(C([Cl,Br])[F,Cl,Br,I,O,N,S]):1][Cl,Br]>>[C:1]I",
       (None,), co_reactants=("[I-]",), byproducts=HALIDE_IONS[:2], reagents=((NA_ION, ACETONE),),
       cap=250, description="alkyl chloride/bromide + iodide -> alkyl iodide + halide ion"),
    _t("n_alkylation", f"{_m(AMINE, 1)}.{_m(ALKYL_HALIDE_C, 2)}[Cl,Br,I]>>[N:1][C:2]",
       (SMALL_AMINES, ALKYL_HALIDES), byproducts=HALIDE_ACIDS, reagents=((K2CO3, DMF), (DIPEA, MECN)),
       description="amine + alkyl halide -> alkylated amine + HX"),
    _t("s_alkylation", f"{_m(THIOL, 1)}.{_m(ALKYL_HALIDE_C, 2)}[Cl,Br,I]>>[S:1][C:2]",
       (("CS", "Sc1ccccc1", "CCS"), ALKYL_HALIDES), byproducts=HALIDE_ACIDS, reagents=((K2CO3, DMF), (TEA, THF)),
       cap=300, description="thiol + alkyl halide -> thioether + HX"),
    _t("reductive_amination", f"{_m(CARBONYL_C, 1)}=[OX1].{_m(AMINE, 2)}>>[C:1][N:2]",
       (SMALL_CARBONYLS, SMALL_AMINES), co_reactants=(H2,), byproducts=((WATER,),), reagents=((PD, "CO"), (PD, "CCO")),
       description="aldehyde/ketone + amine + H2 -> amine + water"),
    _t("nitro_reduction", "[c:1][N+:2](=O)[O-]>>[c:1][N+0:2]",
       (None,), co_reactants=(H2,), byproducts=((WATER,),), reagents=((PD, "CCO"), (NI, "CO")),
       cap=450, description="aryl nitro compound + 3 H2 -> aniline + 2 H2O"),
    _t("boc_protection", f"{_m(AMINE, 1)}>>[N:1]C(=O)OC(C)(C)C",
       (None,), co_reactants=("CC(C)(C)OC(=O)OC(=O)OC(C)(C)C",), byproducts=((CO2, "CC(C)(C)O"),),
       reagents=((TEA, DCM), (DMAP, THF)), description="amine + Boc2O -> N-Boc amine + CO2 + tert-butanol"),
    _t("boc_deprotection", "[NX3:1]C(=O)OC([CH3])([CH3])[CH3]>>[N:1]",
       (None,), byproducts=((CO2, "C=C(C)C"),), reagents=((TFA, DCM), (HCL, DIOXANE)),
       derive_from="boc_protection", description="N-Boc amine -> amine + CO2 + isobutylene"),
    _t("cbz_protection", f"{_m(AMINE, 1)}>>[N:1]C(=O)OCc1ccccc1",
       (None,), co_reactants=("O=C(Cl)OCc1ccccc1",), byproducts=(("Cl",),), reagents=((NA2CO3, DIOXANE), (TEA, DCM)),
       cap=300, description="amine + benzyl chloroformate -> N-Cbz amine + HCl"),
    _t("cbz_deprotection", "[NX3:1]C(=O)O[CH2]c1ccccc1>>[N:1]",
       (None,), co_reactants=(H2,), byproducts=((CO2, TOLUENE),), reagents=((PD, "CO"), (PD, "CCO")),
       derive_from="cbz_protection", cap=300,
       description="N-Cbz amine + H2 -> amine + CO2 + toluene (hydrogenolysis)"),
    _t("tbu_ester_deprotection", "[CX3;$(C[#6]):1](=[O:2])[OX2]C([CH3])([CH3])[CH3]>>[C:1](=[O:2])O",
       (None,), byproducts=(("C=C(C)C",),), reagents=((TFA, DCM),), cap=200,
       description="tert-butyl ester -> carboxylic acid + isobutylene"),
    _t("suzuki_coupling", f"{_m(ARYL_HALIDE_C, 1)}[Br,I].[c:2]B(O)O>>[c:1]-[c:2]",
       (None, BORONIC_ACIDS), byproducts=(("OB(O)Br",), ("OB(O)I",)),
       reagents=((PD_OAC2, PPH3, K2CO3), (PD, K2CO3, DIOXANE)), pool_slots=(0,),
       description="aryl bromide/iodide + arylboronic acid -> biaryl + XB(OH)2"),
    _t("buchwald_hartwig", f"{_m(ARYL_HALIDE_C, 1)}[Br,I].{_m(ALIPHATIC_AMINE, 2)}>>[c:1][N:2]",
       (ARYL_HALIDES, SECONDARY_AMINES + ("NCc1ccccc1",)), byproducts=(("Br",), ("I",)),
       reagents=((PD_OAC2, NAOTBU, TOLUENE), (PD, CS2CO3, DIOXANE)),
       description="aryl halide + amine -> aryl amine + HX (Pd)"),
    _t("sonogashira_coupling", f"{_m(ARYL_HALIDE_C, 1)}[Br,I].[CH1:2]#[C:3]>>[c:1][C:2]#[C:3]",
       (None, TERMINAL_ALKYNES), byproducts=(("Br",), ("I",)), reagents=((PD, CUI, TEA),), pool_slots=(0,),
       description="aryl halide + terminal alkyne -> aryl alkyne + HX (Pd/Cu)"),
    _t("heck_reaction", f"{_m(ARYL_HALIDE_C, 1)}[Br,I].[CH2:2]=[CH1:3][*:4]>>[c:1]/[CH1:2]=[CH1:3]/[*:4]",
       (None, HECK_ALKENES), byproducts=(("Br",), ("I",)), reagents=((PD_OAC2, TEA, DMF),), pool_slots=(0,),
       description="aryl halide + alkene -> (E)-aryl alkene + HX (Pd)"),
    _t("acetal_formation", f"{_m(CARBONYL_C, 1)}=[OX1]>>[C:1]1OCCO1",
       (None,), co_reactants=("OCCO",), byproducts=((WATER,),), reagents=((TSOH, TOLUENE),),
       description="aldehyde/ketone + ethylene glycol -> 1,3-dioxolane + water"),
    _t("dimethyl_acetal_formation", f"{_m(ALDEHYDE_C, 1)}=[OX1]>>[C:1](OC)OC",
       (None,), co_reactants=("CO",), byproducts=((WATER,),), reagents=((TSOH,), (H2SO4,)), cap=300,
       description="aldehyde + 2 methanol -> dimethyl acetal + water"),
    _t("acetal_hydrolysis", "[CX4;R:1]1O[CH2][CH2]O1>>[C:1]=O",
       (None,), co_reactants=(WATER,), byproducts=(("OCCO",),), reagents=((HCL, ACETONE), (TSOH, ACETONE)),
       derive_from="acetal_formation", description="1,3-dioxolane + water -> aldehyde/ketone + ethylene glycol"),
    _t("borohydride_reduction", f"{_m(CARBONYL_C, 1)}=[OX1:2]>>[C:1][O:2]",
       (None,), co_reactants=("[BH4-]", WATER), byproducts=(("O[B-](O)(O)O",),), reagents=((NA_ION,),),
       description="4 aldehyde/ketone + BH4- + 4 H2O -> 4 alcohol + B(OH)4-"),
    _t("alkene_hydrogenation", "[CX3;!$(C[!#6;!#1]);!$(C=C=*):1]=[CX3;!$(C[!#6;!#1]);!$(C=C=*):2]>>[C:1][C:2]",
       (None,), co_reactants=(H2,), reagents=((PD, "CCO"), (PD, "CO")),
       description="alkene + H2 -> alkane (Pd/C)"),
    _t("nitrile_hydrolysis", "[CX2;$(C[#6]):1]#[NX1]>>[C:1](=O)O",
       (None,), co_reactants=(WATER,), byproducts=(("N",),), reagents=((H2SO4,),),
       derive_from="sn2_cyanide", description="nitrile + 2 H2O -> carboxylic acid + NH3"),
    _t("nitrile_reduction", "[CX2;$(C[#6]):1]#[NX1:2]>>[CH2:1][NH2:2]",
       (None,), co_reactants=(H2,), reagents=((NI, "CCO"),), cap=300,
       description="nitrile + 2 H2 -> primary amine (Raney Ni)"),
    _t("alcohol_oxidation", "[CX4;H2;$(C[#6]);!$(C[!#6;!#1;!O]):1][OX2H1]>>[C:1]=O",
       (None,), co_reactants=(O2,), byproducts=((WATER,),), reagents=((TEMPO, CU, MECN),),
       description="2 primary alcohol + O2 -> 2 aldehyde + 2 H2O (aerobic, TEMPO/Cu)"),
    _t("sulfonamide_formation", f"{_m(AMINE, 1)}.[S:2](=[O:3])(=[O:4])Cl>>[N:1][S:2](=[O:3])=[O:4]",
       (None, SULFONYL_CHLORIDES), byproducts=(("Cl",),), reagents=((PYRIDINE, DCM), (TEA, DCM)), pool_slots=(0,),
       description="amine + sulfonyl chloride -> sulfonamide + HCl"),
    _t("urea_formation", f"{_m(AMINE, 1)}.[N:2]=[C:3]=[O:4]>>[N:1][C:3](=[O:4])[N:2]",
       (None, ISOCYANATES), reagents=((DCM,), (THF,)), pool_slots=(0,), cap=350,
       description="amine + isocyanate -> urea"),
    _t("n_acetylation", f"{_m(AMINE, 1)}>>[N:1]C(C)=O",
       (None,), co_reactants=("CC(=O)OC(C)=O",), byproducts=(("CC(=O)O",),), reagents=((PYRIDINE,), (TEA, DCM)),
       description="amine + acetic anhydride -> acetamide + acetic acid"),
    _t("o_acetylation", "[OX2H1;$(O[CX4,c]);!$(O[CX4][O,N,S,F,Cl,Br,I]);!$(OC=O):1]>>[O:1]C(C)=O",
       (None,), co_reactants=("CC(=O)OC(C)=O",), byproducts=(("CC(=O)O",),), reagents=((PYRIDINE, DMAP),),
       description="alcohol/phenol + acetic anhydride -> acetate ester + acetic acid"),
    _t("imine_formation", f"{_m(ALDEHYDE_C, 1)}=[OX1].{_m(PRIMARY_AMINE, 2)}>>[C:1]=[N:2]",
       (("O=Cc1ccccc1", "CCC=O", "O=Cc1ccc(O)cc1"), PRIMARY_AMINES), byproducts=((WATER,),),
       reagents=((TOLUENE,), ("CO",)), cap=350, description="aldehyde + primary amine -> imine + water"),
    _t("oxime_formation", f"{_m(CARBONYL_C, 1)}=[OX1]>>[C:1]=NO",
       (None,), co_reactants=("NO",), byproducts=((WATER,),), reagents=(("CCO", PYRIDINE),), cap=350,
       description="aldehyde/ketone + hydroxylamine -> oxime + water"),
    _t("grignard_addition", f"{_m(CARBONYL_C, 1)}=[OX1:2].[#6:3][Mg]Br>>[C:1]([#6:3])[O:2]",
       (None, GRIGNARDS), co_reactants=(WATER,), byproducts=(("O[Mg]Br",),), reagents=((THF,), ("CCOCC",)),
       pool_slots=(0,), description="aldehyde/ketone + Grignard reagent + water -> alcohol + Mg(OH)Br"),
    _t("wittig_olefination", f"{_m(ALDEHYDE_C, 1)}=[OX1]>>[C:1]=C",
       (None,), co_reactants=("C=P(c1ccccc1)(c1ccccc1)c1ccccc1",), byproducts=(("O=P(c1ccccc1)(c1ccccc1)c1ccccc1",),),
       reagents=((THF,),), cap=300, description="aldehyde + methylenetriphenylphosphorane -> alkene + Ph3PO"),
    _t("acid_chloride_formation", f"{_m(ACID, 1)}(=[O:2])[OX2H1]>>[C:1](=[O:2])Cl",
       (None,), co_reactants=("O=S(Cl)Cl",), byproducts=(("O=S=O", "Cl"),), reagents=((DMF, TOLUENE), (DCM,)),
       description="carboxylic acid + SOCl2 -> acyl chloride + SO2 + HCl"),
)

TEMPLATE_NAMES: tuple[str, ...] = tuple(t.name for t in TEMPLATES)


def get_template(name: str) -> Template:
    """The template called ``name`` (``KeyError`` listing names otherwise)."""
    for t in TEMPLATES:
        if t.name == name:
            return t
    raise KeyError(f"unknown reaction template {name!r}; known: {list(TEMPLATE_NAMES)}")
