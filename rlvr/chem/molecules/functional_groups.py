"""A named SMARTS library of functional groups, counted as instances.

Each group is one or more SMARTS patterns written so that one (uniquified) match is one
instance of the group and the matched atoms are the group's own atoms (the characteristic
heteroatoms and functional carbons, never the whole substituent R). Context that is not part
of the group is expressed with recursive SMARTS (``$(...)``), so it constrains the match
without adding atoms to it.

Feature keys: ``functional_group_<name>_count`` (number of instances) and
``functional_group_<name>_index`` (sorted union of the instances' atoms).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rdkit import Chem


@dataclass(frozen=True)
class FunctionalGroup:
    """One library entry: name, SMARTS pattern(s), family and a one-line definition."""

    name: str
    smarts: tuple[str, ...]
    family: str
    definition: str


def _g(name: str, family: str, definition: str, *smarts: str) -> FunctionalGroup:
    return FunctionalGroup(name, tuple(smarts), family, definition)


# atoms that make an N, O or S "acylated" (amide, ester, sulfonamide, ... rather than amine/ether)
_ACYL = "[#6,#16,#15]=[O,S,N]"
_AMINE_N = "[NX3;+0;$(N[#6]);!$(N~[!#6;!#1]);!$(N[#6]=[O,S,N]);!$(N[#6]#*)]"

FUNCTIONAL_GROUPS: tuple[FunctionalGroup, ...] = (
    # --- alcohols, phenols, ethers (ROH, ROR) ---
    _g("alcohol", "alcohols", "hydroxyl O on an sp3 carbon (the C and O)", "[CX4][OX2H]"),
    _g("primary_alcohol", "alcohols", "OH on a CH2 or CH3 carbon", "[CX4;H2,H3][OX2H]"),
    _g("secondary_alcohol", "alcohols", "OH on a CH carbon with two other heavy neighbours", "[CX4;H1][OX2H]"),
    _g("tertiary_alcohol", "alcohols", "OH on a carbon without hydrogens", "[CX4;H0][OX2H]"),
    _g("phenol", "alcohols", "OH on an aromatic carbon (the c and O)", "[c][OX2H]"),
    _g("enol", "alcohols", "OH on a carbon of a C=C double bond", "[OX2H][CX3]=[CX3]"),
    _g("ether", "ethers", "divalent O between two carbons, neither of them a C=O/C=S/C=N carbon (the O)",
       f"[OX2;H0;+0;$(O([#6])[#6]);!$(O{_ACYL})]"),
    _g("epoxide", "ethers", "three-membered C-C-O ring", "[OX2;r3]1[#6;r3][#6;r3]1"),
    _g("methoxy", "ethers", "CH3-O- on a carbon (the C and O)", f"[CH3;X4][OX2;$(O[#6]);!$(O{_ACYL})]"),
    _g("acetal", "ethers", "sp3 carbon bearing two ether oxygens (the C and both O)",
       "[CX4]([OX2;$(O[#6]);!$(O[#6]=[O,S,N])])[OX2;$(O[#6]);!$(O[#6]=[O,S,N])]"),
    _g("peroxide", "ethers", "O-O single bond", "[OX2][OX2]"),
    # --- carbonyls (C=O) ---
    _g("carbonyl", "carbonyls", "any C=O double bond (the C and O)", "[CX3]=[OX1]"),
    _g("aldehyde", "carbonyls", "CHO group (the C and O)", "[CX3;$([CH2]),$([CH1][#6])]=[OX1]"),
    _g("ketone", "carbonyls", "C=O between two carbons (the C and O)", "[CX3;$(C([#6])[#6])]=[OX1]"),
    _g("carboxylic_acid", "carbonyls", "C(=O)OH (C and both O)", "[CX3](=[OX1])[OX2H1]"),
    _g("carboxylate", "carbonyls", "C(=O)O- anion (C and both O)", "[CX3](=[OX1])[OX1-]"),
    _g("ester", "carbonyls", "acyl C(=O)O bonded to a carbon on the O (C and both O); includes lactones",
       "[CX3;$(C[#6]),$([CH1])](=[OX1])[OX2H0;$(O[#6])]"),
    _g("lactone", "carbonyls", "cyclic ester: ester whose C-O bond is in a ring",
       "[CX3;$(C[#6])](=[OX1])@[OX2;$(O[#6])]"),
    _g("acyl_halide", "carbonyls", "C(=O)X with X = F, Cl, Br, I", "[CX3](=[OX1])[F,Cl,Br,I]"),
    _g("acid_anhydride", "carbonyls", "C(=O)OC(=O)", "[CX3](=[OX1])[OX2][CX3](=[OX1])"),
    _g("carbonate", "carbonyls", "O-C(=O)-O (C and the three O)", "[OX2,OX1-][CX3](=[OX1])[OX2,OX1-]"),
    _g("acetyl", "carbonyls", "CH3-C(=O)- attached to another heavy atom (both C and O)",
       "[CH3;X4][CX3;$(C[!#1;!$([CH3])])]=[OX1]"),
    _g("enone", "carbonyls", "alpha,beta-unsaturated carbonyl C=C-C=O", "[CX3]=[CX3][CX3]=[OX1]"),
    _g("thioester", "carbonyls", "C(=O)S bonded to a carbon on the S", "[CX3](=[OX1])[SX2;$(S[#6])]"),
    # --- nitrogen: amines and relatives (NR) ---
    _g("amine", "amines", "N bonded only to carbons/H, none of them C=O/C=S/C=N or nitrile carbons (the N)",
       _AMINE_N),
    _g("primary_amine", "amines", "amine N with two hydrogens", _AMINE_N[:-1] + ";H2]"),
    _g("secondary_amine", "amines", "amine N with one hydrogen", _AMINE_N[:-1] + ";H1]"),
    _g("tertiary_amine", "amines", "amine N without hydrogens", _AMINE_N[:-1] + ";H0]"),
    _g("aniline", "amines", "amine N bonded to an aromatic carbon", _AMINE_N[:-1] + ";$(N[c])]"),
    _g("quaternary_ammonium", "amines", "N+ bonded to four carbons", "[NX4+;H0;$(N([#6])([#6])([#6])[#6])]"),
    _g("protonated_amine", "amines", "N+ with four single bonds and at least one H", "[NX4+;!H0]"),
    _g("enamine", "amines", "amine N on a C=C carbon (N and both C)",
       f"[NX3;+0;!$(N{_ACYL})][CX3]=[CX3]"),
    _g("hydroxylamine", "amines", "N-OH with the N not acylated (N and O)",
       f"[NX3;+0;!$(N=*);!$(N{_ACYL})][OX2H]"),
    _g("hydrazine", "amines", "N-N single bond between two sp3-type nitrogens",
       "[NX3;+0;!$(N=*)][NX3;+0;!$(N=*)]"),
    # --- amides and relatives (C=O) ---
    _g("amide", "carbonyls", "acyl C(=O)N with the acyl C bonded to C or H (C, O, N)",
       "[CX3;$(C[#6]),$([CH1])](=[OX1])[NX3]"),
    _g("primary_amide", "carbonyls", "amide with an NH2", "[CX3;$(C[#6]),$([CH1])](=[OX1])[NX3H2]"),
    _g("secondary_amide", "carbonyls", "amide with an NH", "[CX3;$(C[#6]),$([CH1])](=[OX1])[NX3H1]"),
    _g("tertiary_amide", "carbonyls", "amide with an N without H", "[CX3;$(C[#6]),$([CH1])](=[OX1])[NX3H0]"),
    _g("lactam", "carbonyls", "cyclic amide: amide whose C-N bond is in a ring", "[CX3;$(C[#6])](=[OX1])@[NX3]"),
    _g("imide", "carbonyls", "C(=O)NC(=O)", "[CX3](=[OX1])[NX3][CX3](=[OX1])"),
    _g("urea", "carbonyls", "N-C(=O)-N", "[NX3][CX3](=[OX1])[NX3]"),
    _g("carbamate", "carbonyls", "N-C(=O)-O", "[NX3][CX3](=[OX1])[OX2]"),
    _g("thioamide", "organosulfur", "C(=S)N with the C bonded to C or H", "[CX3;$(C[#6]),$([CH1])](=[SX1])[NX3]"),
    _g("thiourea", "organosulfur", "N-C(=S)-N", "[NX3][CX3](=[SX1])[NX3]"),
    _g("guanidine", "amines", "N-C(=N)-N", "[NX3][CX3](=[NX2,NX3+])[NX3]"),
    _g("amidine", "amines", "C(=N)N with the C bonded to C or H",
       "[CX3;$(C[#6]),$([CH1])](=[NX2;!$(N[O,N])])[NX3]"),
    # --- C=N, N=N, nitriles, nitro (C#N/N=O) ---
    _g("imine", "nitriles_nitro", "C=N (not amidine, guanidine, oxime or hydrazone; C and N)",
       "[CX3;!$(C[NX3]);!$(C[OX2])]=[NX2;+0;!$(N[O,N])]"),
    _g("oxime", "nitriles_nitro", "C=N-OH (C, N, O)", "[CX3]=[NX2][OX2H]"),
    _g("hydrazone", "nitriles_nitro", "C=N-N (C and both N)", "[CX3]=[NX2][NX3]"),
    _g("azo", "nitriles_nitro", "C-N=N-C (both N)", "[NX2;$(N[#6])]=[NX2;$(N[#6])]"),
    _g("azide", "nitriles_nitro", "N=N+=N- (three N)", "[NX2]=[NX2+]=[NX1-]", "[NX2-][NX2+]#[NX1]"),
    _g("diazo", "nitriles_nitro", "C=N+=N- (C and both N)", "[CX3]=[NX2+]=[NX1-]"),
    _g("nitrile", "nitriles_nitro", "C#N (C and N)", "[CX2]#[NX1]"),
    _g("isonitrile", "nitriles_nitro", "N+#C- (N and C)", "[NX2+]#[CX1-]"),
    _g("nitro", "nitriles_nitro", "C-NO2, charge-separated or pentavalent (N and both O)",
       "[NX3+;$(N[#6])](=[OX1])[OX1-]", "[NX3;+0;$(N[#6])](=[OX1])=[OX1]"),
    _g("nitrate_ester", "nitriles_nitro", "C-O-NO2 (ester O, N and both O)",
       "[OX2;$(O[#6])][NX3+](=[OX1])[OX1-]"),
    _g("nitroso", "nitriles_nitro", "C-N=O or N-N=O (N and O)", "[NX2;$(N[#6,#7])]=[OX1]"),
    _g("n_oxide", "nitriles_nitro", "amine or aromatic N-oxide N+-O- (N and O)", "[$([NX4+]),$([nX3+])][OX1-]"),
    _g("isocyanate", "nitriles_nitro", "N=C=O", "[NX2]=[CX2]=[OX1]"),
    _g("isothiocyanate", "organosulfur", "N=C=S", "[NX2]=[CX2]=[SX1]"),
    _g("cyanate", "nitriles_nitro", "O-C#N", "[OX2][CX2]#[NX1]"),
    _g("thiocyanate", "organosulfur", "S-C#N", "[SX2][CX2]#[NX1]"),
    # --- organosulfur (S/SO2) ---
    _g("thiol", "organosulfur", "SH on a carbon (C and S)", "[#6][SX2H1]"),
    _g("sulfide", "organosulfur", "thioether: divalent S between two carbons, not thioester (the S)",
       f"[SX2;H0;+0;$(S([#6])[#6]);!$(S{_ACYL})]"),
    _g("disulfide", "organosulfur", "S-S single bond", "[SX2][SX2]"),
    _g("thiocarbonyl", "organosulfur", "C=S between two carbons (C and S)", "[CX3;$(C([#6])[#6])]=[SX1]"),
    _g("sulfoxide", "organosulfur", "C-S(=O)-C (S and O)", "[SX3;+0;$(S([#6])[#6])]=[OX1]",
       "[SX3+;$(S([#6])[#6])][OX1-]"),
    _g("sulfone", "organosulfur", "C-S(=O)(=O)-C (S and both O)", "[SX4;$(S([#6])[#6])](=[OX1])=[OX1]"),
    _g("sulfonamide", "organosulfur", "C-S(=O)(=O)-N (S, both O, N)", "[SX4;$(S[#6])](=[OX1])(=[OX1])[NX3]"),
    _g("sulfonic_acid", "organosulfur", "C-S(=O)(=O)-OH or its anion (S and three O)",
       "[SX4;$(S[#6])](=[OX1])(=[OX1])[OX2H1,OX1-]"),
    _g("sulfonate_ester", "organosulfur", "C-S(=O)(=O)-O-C (S and three O)",
       "[SX4;$(S[#6])](=[OX1])(=[OX1])[OX2;$(O[#6])]"),
    _g("sulfonyl_halide", "organosulfur", "S(=O)(=O)X with X = F, Cl, Br, I", "[SX4](=[OX1])(=[OX1])[F,Cl,Br,I]"),
    _g("sulfate", "organosulfur", "O-S(=O)(=O)-O (S and four O)",
       "[SX4](=[OX1])(=[OX1])([OX2,OX1-])[OX2,OX1-]"),
    # --- phosphorus, boron, silicon ---
    _g("phosphate", "other", "P(=O) with three single-bonded O (P and four O)",
       "[PX4](=[OX1])([OX2,OX1-])([OX2,OX1-])[OX2,OX1-]"),
    _g("phosphonate", "other", "C-P(=O) with two single-bonded O (P and three O)",
       "[PX4;$(P[#6])](=[OX1])([OX2,OX1-])[OX2,OX1-]"),
    _g("phosphine", "other", "trivalent P bonded to three carbons (the P)", "[PX3;$(P([#6])([#6])[#6])]"),
    _g("phosphine_oxide", "other", "P(=O) bonded to three carbons (P and O)", "[PX4;$(P([#6])([#6])[#6])]=[OX1]"),
    _g("boronic_acid", "other", "B(OH)2 (B and both O)", "[BX3]([OX2H])[OX2H]"),
    _g("silyl_ether", "ethers", "Si-O-C (Si and O)", "[SiX4][OX2;$(O[#6])]"),
    # --- organohalides (Hal) ---
    _g("organohalide", "organohalides", "halogen bonded to carbon (C and X)", "[#6][F,Cl,Br,I]"),
    _g("alkyl_halide", "organohalides", "halogen on an sp3 carbon (C and X)", "[CX4][F,Cl,Br,I]"),
    _g("aryl_halide", "organohalides", "halogen on an aromatic carbon (c and X)", "[c][F,Cl,Br,I]"),
    _g("vinyl_halide", "organohalides", "halogen on a C=C carbon (C and X)", "[CX3;$(C=C)][F,Cl,Br,I]"),
    _g("trifluoromethyl", "organohalides", "CF3 (C and three F)", "[CX4](F)(F)F"),
    # --- pi systems and alkyl groups ---
    _g("alkene", "pi_systems", "non-aromatic C=C (both C)", "[CX3]=[CX3]"),
    _g("alkyne", "pi_systems", "C#C (both C)", "[CX2]#[CX2]"),
    _g("allene", "pi_systems", "C=C=C", "[CX3]=[CX2]=[CX3]"),
    _g("vinyl", "pi_systems", "terminal CH2=CH- (both C)", "[CH2;X3]=[CH1;X3;$(C[!#1])]"),
    _g("methyl", "alkyl", "CH3 bonded to another heavy atom", "[CH3;X4;$(C[!#1])]"),
    _g("ethyl", "alkyl", "CH3-CH2- attached to an atom that is not CH2/CH3 (both C)",
       "[CH3;X4][CH2;X4;$(C([CH3])[!#1;!$([CH2;X4]);!$([CH3;X4])])]"),
    _g("isopropyl", "alkyl", "CH(CH3)2- attached to a non-methyl atom (CH and both CH3)",
       "[CH1;X4;$(C([CH3])([CH3])[!#1;!$([CH3;X4])])]([CH3;X4])[CH3;X4]"),
    _g("tert_butyl", "alkyl", "C(CH3)3- attached to a non-methyl atom (four C)",
       "[CH0;X4;$(C([CH3])([CH3])([CH3])[!#1;!$([CH3;X4])])]([CH3;X4])([CH3;X4])[CH3;X4]"),
    # --- aromatic rings (Ar) ---
    _g("benzene_ring", "aromatics", "six-membered all-carbon aromatic ring (six c)", "c1ccccc1"),
    _g("phenyl", "aromatics", "monosubstituted benzene ring (six c)",
       "[cR1;$(c-[!#1])]1[cR1H][cR1H][cR1H][cR1H][cR1H]1"),
    _g("benzyl", "aromatics", "CH2 between a phenyl ring and another heavy atom (CH2 and six c)",
       "[CX4H2;!R;$(C([!#1])c)]-[cR1]1[cR1H][cR1H][cR1H][cR1H][cR1H]1"),
    _g("pyridine", "aromatics", "six-membered aromatic ring with exactly one n (ring atoms)",
       "[nX2]1[cX3][cX3][cX3][cX3][cX3]1"),
    _g("pyrimidine", "aromatics", "six-membered aromatic ring with n at 1,3 (ring atoms)", "n1cnccc1"),
    _g("pyrrole", "aromatics", "five-membered aromatic ring with one n and four c", "[nX3]1cccc1"),
    _g("furan", "aromatics", "five-membered aromatic ring with one o and four c", "o1cccc1"),
    _g("thiophene", "aromatics", "five-membered aromatic ring with one s and four c", "s1cccc1"),
    _g("imidazole", "aromatics", "five-membered aromatic ring n-c-n-c-c", "n1cncc1"),
    _g("pyrazole", "aromatics", "five-membered aromatic ring n-n-c-c-c", "n1nccc1"),
    _g("oxazole", "aromatics", "five-membered aromatic ring o-c-n-c-c", "o1cncc1"),
    _g("thiazole", "aromatics", "five-membered aromatic ring s-c-n-c-c", "s1cncc1"),
    _g("triazole", "aromatics", "five-membered aromatic ring with three n and two c", "n1nncc1", "n1ncnc1"),
    _g("tetrazole", "aromatics", "five-membered aromatic ring with four n and one c", "n1nnnc1"),
    _g("indole", "aromatics", "benzene fused to pyrrole (nine ring atoms)", "c1ccc2[nX3]ccc2c1"),
    # --- saturated heterocycles ---
    _g("piperidine", "amines", "saturated six-membered ring with one N", "[NX3,NX4+]1[CX4][CX4][CX4][CX4][CX4]1"),
    _g("piperazine", "amines", "saturated six-membered ring with N at 1,4",
       "[NX3,NX4+]1[CX4][CX4][NX3,NX4+][CX4][CX4]1"),
    _g("morpholine", "amines", "saturated six-membered ring with N and O at 1,4",
       "[NX3,NX4+]1[CX4][CX4][OX2][CX4][CX4]1"),
    _g("pyrrolidine", "amines", "saturated five-membered ring with one N", "[NX3,NX4+]1[CX4][CX4][CX4][CX4]1"),
    _g("tetrahydrofuran", "ethers", "saturated five-membered ring with one O", "[OX2]1[CX4][CX4][CX4][CX4]1"),
)

FUNCTIONAL_GROUP_NAMES: tuple[str, ...] = tuple(g.name for g in FUNCTIONAL_GROUPS)
_BY_NAME = {g.name: g for g in FUNCTIONAL_GROUPS}
assert len(_BY_NAME) == len(FUNCTIONAL_GROUPS), "duplicate functional group name"


def functional_group(name: str) -> FunctionalGroup:
    """The library entry called ``name`` (KeyError if unknown)."""
    return _BY_NAME[name]


@lru_cache(maxsize=1)
def compiled_patterns() -> tuple[tuple[str, tuple[Chem.Mol, ...]], ...]:
    """Every group's compiled SMARTS (compiled once per process)."""
    out = []
    for g in FUNCTIONAL_GROUPS:
        pats = []
        for s in g.smarts:
            p = Chem.MolFromSmarts(s)
            if p is None:
                raise ValueError(f"functional group {g.name}: invalid SMARTS {s!r}")
            pats.append(p)
        out.append((g.name, tuple(pats)))
    return tuple(out)


#: cap on matches per pattern (a bound on work for adversarial molecules)
MAX_MATCHES = 1000


def functional_group_instances(mol: Chem.Mol) -> dict[str, list[tuple[int, ...]]]:
    """Instances (sorted atom-index tuples) of every group present in ``mol`` (absent groups omitted)."""
    out: dict[str, list[tuple[int, ...]]] = {}
    for name, pats in compiled_patterns():
        seen: set[tuple[int, ...]] = set()
        for p in pats:
            for match in mol.GetSubstructMatches(p, uniquify=True, maxMatches=MAX_MATCHES):
                seen.add(tuple(sorted(match)))
        if seen:
            out[name] = sorted(seen)
    return out
