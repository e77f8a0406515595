"""Template-based 1 -> 1 reaction prediction (MolecularIQ "synthesis and fragmentation").

Each template is a unimolecular reaction SMIRKS whose reagents are implied (an oxidation, a
reduction, a substitution by a named nucleophile, ...). Applied at one reactive site at a time,
a template turns the molecule into one product; small by-products that split off (the alcohol
of an ester hydrolysis, CO2 of a decarboxylation, the Boc group) are dropped: the product is the
connected fragment that contains the template atom mapped ``:1``.

Feature keys per template ``<t>`` (prefix ``template_based_reaction_prediction_``):
``<t>_count`` number of reactive sites (matches of the reactant pattern), ``<t>_index`` atoms of
those sites, ``<t>_success`` 1 if the template yields at least one valid product, else 0, and
``<t>_products`` the sorted list of distinct canonical product SMILES (one per site).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from rdkit import Chem
from rdkit.Chem import rdChemReactions

PREFIX = "template_based_reaction_prediction_"

#: bound on the products generated per template and molecule
MAX_PRODUCTS = 64


@dataclass(frozen=True)
class ReactionTemplate:
    """A named 1 -> 1 reaction template: SMIRKS, reaction class and one-line description."""

    name: str
    category: str
    smirks: str
    description: str


def _t(name: str, category: str, smirks: str, description: str) -> ReactionTemplate:
    return ReactionTemplate(name, category, smirks, description)


_CARBONYL_CARBON = "[CX3;$(C([#6])[#6]),$([CH1][#6]),$([CH2]);!$(C=[O,S,N][!#1;!#6])"
_AMINE_NH = "[NX3;H1,H2;+0;$(N[CX4,c]);!$(N[#6]=[O,S,N]);!$(N~[!#6;!#1])"

REACTION_TEMPLATES: tuple[ReactionTemplate, ...] = (
    # --- oxidations ---
    _t("primary_alcohol_to_aldehyde", "oxidation", "[CX4;H2,H3:1][OX2H1:2]>>[C:1]=[O:2]",
       "oxidation of a primary alcohol to an aldehyde"),
    _t("secondary_alcohol_to_ketone", "oxidation", "[CX4;H1;$(C([#6])[#6]):1][OX2H1:2]>>[C:1]=[O:2]",
       "oxidation of a secondary alcohol to a ketone"),
    _t("aldehyde_to_carboxylic_acid", "oxidation", "[CX3;H1;$(C[#6]):1]=[OX1:2]>>[C:1](=[O:2])[OH]",
       "oxidation of an aldehyde to a carboxylic acid"),
    _t("benzylic_alcohol_oxidation", "oxidation", "[CX4;H1,H2;$(Cc):1][OX2H1:2]>>[C:1]=[O:2]",
       "oxidation of a benzylic alcohol to the carbonyl compound"),
    _t("benzylic_oxidation", "oxidation", "[CX4;H2;$(C(c)[#6]):1]>>[C:1]=O",
       "oxidation of a benzylic CH2 (between an aryl and a carbon) to a ketone"),
    _t("sulfide_to_sulfoxide", "oxidation", "[SX2;H0;+0;$(S([#6])[#6]);!$(S[#6]=[O,S,N]):1]>>[S:1]=O",
       "oxidation of a thioether to a sulfoxide"),
    _t("epoxidation", "oxidation", "[CX3:1]=[CX3:2]>>[C:1]1O[C:2]1", "epoxidation of a C=C double bond"),
    _t("ozonolysis_terminal", "oxidation", "[CX3:1]=[CH2]>>[C:1]=O",
       "ozonolysis of a terminal alkene to the carbonyl compound (CH2 lost as formaldehyde)"),
    # --- reductions ---
    _t("aldehyde_to_primary_alcohol", "reduction", "[CX3;H1;$(C[#6]):1]=[OX1:2]>>[C:1][O:2]",
       "reduction of an aldehyde to a primary alcohol"),
    _t("ketone_to_secondary_alcohol", "reduction", "[CX3;$(C([#6])[#6]):1]=[OX1:2]>>[C:1][O:2]",
       "reduction of a ketone to a secondary alcohol"),
    _t("carboxylic_acid_to_primary_alcohol", "reduction", "[CX3;$(C[#6]):1](=[OX1])[OX2H1:2]>>[C:1][O:2]",
       "reduction of a carboxylic acid to a primary alcohol"),
    _t("ester_to_alcohol", "reduction",
       "[CX3;$(C[#6]):1](=[OX1])[OX2H0:2][#6:3]>>([C:1][OH].[O:2][#6:3])",
       "reduction of an ester to the primary alcohol of its acyl part"),
    _t("amide_to_amine", "reduction", "[CX3;$(C[#6]),$([CH1]):1](=[OX1])[NX3:2]>>[C:1][N:2]",
       "reduction of an amide to an amine"),
    _t("nitrile_to_amine", "reduction", "[CX2;$(C[#6]):1]#[NX1:2]>>[C:1][N:2]",
       "reduction of a nitrile to a primary amine"),
    _t("nitro_to_amine", "reduction", "[NX3+;$(N[#6]):1](=[OX1])[OX1-]>>[N+0:1]",
       "reduction of a nitro group to a primary amine"),
    _t("azide_to_amine", "reduction", "[NX2;$(N[#6]):1]=[NX2+]=[NX1-]>>[N:1]",
       "reduction of an azide to a primary amine"),
    _t("imine_to_amine", "reduction", "[CX3;!$(C[NX3]);!$(C[OX2]):1]=[NX2;+0;!$(N[O,N]):2]>>[C:1][N:2]",
       "reduction of an imine to an amine"),
    _t("alkene_to_alkane", "reduction", "[CX3:1]=[CX3:2]>>[C:1][C:2]", "hydrogenation of a C=C double bond"),
    _t("alkyne_to_alkene", "reduction", "[CX2:1]#[CX2:2]>>[C:1]=[C:2]",
       "partial hydrogenation of a C#C triple bond to a double bond"),
    # --- substitutions ---
    _t("alcohol_to_alkyl_halide_Cl", "substitution", "[CX4:1][OX2H1]>>[C:1]Cl",
       "conversion of an alcohol to an alkyl chloride"),
    _t("alcohol_to_alkyl_halide_Br", "substitution", "[CX4:1][OX2H1]>>[C:1]Br",
       "conversion of an alcohol to an alkyl bromide"),
    _t("alcohol_to_alkyl_halide_I", "substitution", "[CX4:1][OX2H1]>>[C:1]I",
       "conversion of an alcohol to an alkyl iodide"),
    _t("alcohol_to_mesylate", "substitution", "[CX4:1][OX2H1:2]>>[C:1][O:2]S(C)(=O)=O",
       "mesylation of an alcohol"),
    _t("alcohol_to_tosylate", "substitution", "[CX4:1][OX2H1:2]>>[C:1][O:2]S(=O)(=O)c1ccc(C)cc1",
       "tosylation of an alcohol"),
    _t("alkyl_halide_to_alcohol", "substitution", "[CX4:1][Cl,Br,I]>>[C:1][OH]",
       "hydrolysis of an alkyl halide to an alcohol"),
    _t("alkyl_halide_to_azide", "substitution", "[CX4:1][Cl,Br,I]>>[C:1]N=[N+]=[N-]",
       "substitution of an alkyl halide by azide"),
    _t("alkyl_halide_to_nitrile", "substitution", "[CX4:1][Cl,Br,I]>>[C:1]C#N",
       "substitution of an alkyl halide by cyanide"),
    _t("acid_to_acid_chloride", "substitution", "[CX3;$(C[#6]):1](=[OX1:2])[OX2H1]>>[C:1](=[O:2])Cl",
       "conversion of a carboxylic acid to an acid chloride"),
    _t("acid_chloride_to_amide", "substitution", "[CX3:1](=[OX1:2])Cl>>[C:1](=[O:2])N",
       "aminolysis of an acid chloride to a primary amide"),
    _t("acid_chloride_to_ester_methyl", "substitution", "[CX3:1](=[OX1:2])Cl>>[C:1](=[O:2])OC",
       "methanolysis of an acid chloride to a methyl ester"),
    # --- aromatic substitutions ---
    _t("nitration", "aromatic_substitution", "[cH:1]>>[c:1][N+](=O)[O-]", "nitration of an aromatic C-H"),
    _t("bromination", "aromatic_substitution", "[cH:1]>>[c:1]Br", "bromination of an aromatic C-H"),
    _t("chlorination", "aromatic_substitution", "[cH:1]>>[c:1]Cl", "chlorination of an aromatic C-H"),
    _t("aromatic_iodination", "aromatic_substitution", "[cH:1]>>[c:1]I", "iodination of an aromatic C-H"),
    _t("aromatic_fluorination", "aromatic_substitution", "[cH:1]>>[c:1]F", "fluorination of an aromatic C-H"),
    _t("aromatic_sulfonation", "aromatic_substitution", "[cH:1]>>[c:1]S(=O)(=O)O",
       "sulfonation of an aromatic C-H"),
    _t("aromatic_amine_to_diazonium", "aromatic_substitution", "[c:2][NX3H2;+0:1]>>[c:2][N+:1]#N",
       "diazotisation of a primary aromatic amine"),
    # --- additions ---
    _t("hydration_of_alkene", "addition", "[CH2:1]=[CX3;H1,H0:2]>>[C:1][C:2][OH]",
       "Markovnikov hydration of a terminal alkene"),
    _t("hydrohalogenation_HBr", "addition", "[CH2:1]=[CX3;H1,H0:2]>>[C:1][C:2]Br",
       "Markovnikov addition of HBr to a terminal alkene"),
    _t("hydrohalogenation_HCl", "addition", "[CH2:1]=[CX3;H1,H0:2]>>[C:1][C:2]Cl",
       "Markovnikov addition of HCl to a terminal alkene"),
    _t("dibromination", "addition", "[CX3:1]=[CX3:2]>>[C:1](Br)[C:2]Br", "addition of Br2 to a C=C double bond"),
    _t("dichlorination", "addition", "[CX3:1]=[CX3:2]>>[C:1](Cl)[C:2]Cl", "addition of Cl2 to a C=C double bond"),
    _t("oxime_formation", "addition", f"{_CARBONYL_CARBON}:1]=[OX1]>>[C:1]=NO",
       "condensation of an aldehyde or ketone with hydroxylamine to an oxime"),
    _t("hydrazone_formation", "addition", f"{_CARBONYL_CARBON}:1]=[OX1]>>[C:1]=NN",
       "condensation of an aldehyde or ketone with hydrazine to a hydrazone"),
    # --- eliminations ---
    _t("dehydration_alcohol", "elimination", "[CX4;!H0:1][CX4:2][OX2H1]>>[C:1]=[C:2]",
       "dehydration of an alcohol to an alkene (each beta-hydrogen gives one product)"),
    _t("dehydrohalogenation", "elimination", "[CX4;!H0:1][CX4:2][Cl,Br,I]>>[C:1]=[C:2]",
       "elimination of HX from an alkyl halide to an alkene"),
    _t("decarboxylation", "elimination", "[#6:1][CX3](=[OX1])[OX2H1]>>[#6:1]",
       "loss of CO2 from a carboxylic acid"),
    # --- hydrolyses and ring openings ---
    _t("ester_hydrolysis_to_acid", "hydrolysis",
       "[CX3;$(C[#6]),$([CH1]):1](=[OX1:2])[OX2H0:3][#6:4]>>([C:1](=[O:2])[OH].[O:3][#6:4])",
       "hydrolysis of an ester to the carboxylic acid (lactones open to hydroxy acids)"),
    _t("amide_hydrolysis_to_acid", "hydrolysis",
       "[CX3;$(C[#6]),$([CH1]):1](=[OX1:2])[NX3:3]>>([C:1](=[O:2])[OH].[N:3])",
       "hydrolysis of an amide to the carboxylic acid (lactams open to amino acids)"),
    _t("nitrile_hydrolysis", "hydrolysis", "[CX2;$(C[#6]):1]#[NX1]>>[C:1](=O)[OH]",
       "hydrolysis of a nitrile to a carboxylic acid"),
    _t("epoxide_to_diol", "ring_opening", "[CX4;r3:1]1[OX2;r3:3][CX4;r3:2]1>>[C:1]([O:3])[C:2][OH]",
       "hydrolytic opening of an epoxide to a 1,2-diol"),
    _t("epoxide_to_halohydrin_Br", "ring_opening", "[CX4;r3:1]1[OX2;r3:3][CX4;r3:2]1>>[C:1]([O:3])[C:2]Br",
       "opening of an epoxide by bromide to a bromohydrin"),
    _t("epoxide_to_halohydrin_Cl", "ring_opening", "[CX4;r3:1]1[OX2;r3:3][CX4;r3:2]1>>[C:1]([O:3])[C:2]Cl",
       "opening of an epoxide by chloride to a chlorohydrin"),
    # --- protection / deprotection ---
    _t("acetylation", "protection", "[OX2H1;$(O[CX4,c]):1]>>[O:1]C(C)=O",
       "O-acetylation of an alcohol or phenol"),
    _t("deacetylation", "deprotection", "[OX2,NX3;$(*[#6;!$(C=O)]):1][CX3](=[OX1])[CH3]>>[*:1]",
       "removal of an acetyl group from an acetate ester or acetamide"),
    _t("boc_protection", "protection", f"{_AMINE_NH}:1]>>[N:1]C(=O)OC(C)(C)C",
       "Boc protection of a primary or secondary amine"),
    _t("boc_deprotection", "deprotection", "[NX3:1][CX3](=[OX1])[OX2][CX4]([CH3])([CH3])[CH3]>>[N:1]",
       "removal of a Boc protecting group"),
    # --- rearrangements ---
    _t("beckmann_rearrangement", "rearrangement",
       "[#6:3][CX3:1]([#6:4])=[NX2:2][OX2H1]>>[#6:3][C:1](=O)[N:2][#6:4]",
       "Beckmann rearrangement of a ketoxime to an amide (either group may migrate)"),
)

TEMPLATE_NAMES: tuple[str, ...] = tuple(t.name for t in REACTION_TEMPLATES)
assert len(set(TEMPLATE_NAMES)) == len(TEMPLATE_NAMES), "duplicate template name"


@lru_cache(maxsize=1)
def compiled_templates() -> tuple[tuple[str, rdChemReactions.ChemicalReaction, Chem.Mol], ...]:
    """(name, reaction, reactant pattern) of every template, compiled once per process."""
    out = []
    for t in REACTION_TEMPLATES:
        rxn = rdChemReactions.ReactionFromSmarts(t.smirks)
        if rxn is None or rxn.GetNumReactantTemplates() != 1 or rxn.GetNumProductTemplates() != 1:
            raise ValueError(f"template {t.name}: not a 1 -> 1 reaction SMIRKS")
        rxn.Initialize()
        pattern = Chem.MolFromSmarts(t.smirks.split(">>")[0])
        out.append((t.name, rxn, pattern))
    return tuple(out)


def _finish_product(prod: Chem.Mol, reactant: Chem.Mol, n_template_atoms: int) -> str | None:
    """Fix hydrogens and stereo on changed atoms, keep the fragment holding map 1 -> canonical SMILES.

    An atom carried over from the reactant counts as changed when its charge, its neighbours or
    the orders of its bonds differ; its hydrogens are then recomputed from valence and its
    tetrahedral stereo tag is cleared (the template does not say what happens to it).
    """
    rw = Chem.RWMol(prod)
    keep_seed = -1
    # product-template atoms come first in RDKit's products; only they can have changed
    for i in range(min(n_template_atoms, rw.GetNumAtoms())):
        atom = rw.GetAtomWithIdx(i)
        if not atom.HasProp("react_atom_idx"):
            continue
        if atom.HasProp("old_mapno"):
            if atom.GetIntProp("old_mapno") == 1:
                keep_seed = atom.GetIdx()
        else:
            continue
        ratom = reactant.GetAtomWithIdx(atom.GetIntProp("react_atom_idx"))
        now = {}
        for b in atom.GetBonds():
            other = b.GetOtherAtom(atom)
            key = other.GetIntProp("react_atom_idx") if other.HasProp("react_atom_idx") else -1 - other.GetIdx()
            now[key] = b.GetBondType()
        before = {b.GetOtherAtomIdx(ratom.GetIdx()): b.GetBondType() for b in ratom.GetBonds()}
        if now != before or atom.GetFormalCharge() != ratom.GetFormalCharge():
            if not atom.GetIsAromatic():
                atom.SetNoImplicit(False)
                atom.SetNumExplicitHs(0)
            atom.SetChiralTag(Chem.ChiralType.CHI_UNSPECIFIED)
    if keep_seed < 0:
        return None
    mol = rw.GetMol()
    try:
        mol.UpdatePropertyCache(strict=False)
        frags = Chem.GetMolFrags(mol, asMols=False, sanitizeFrags=False)
        if len(frags) > 1:
            keep = next(f for f in frags if keep_seed in f)
            rw = Chem.RWMol(mol)
            for i in sorted(set(range(mol.GetNumAtoms())) - set(keep), reverse=True):
                rw.RemoveAtom(i)
            mol = rw.GetMol()
        Chem.SanitizeMol(mol)
        Chem.AssignStereochemistry(mol, cleanIt=True, force=True)
        return Chem.MolToSmiles(mol)
    except (Chem.rdchem.MolSanitizeException, RuntimeError, ValueError, StopIteration):
        return None


def reaction_sites(mol: Chem.Mol) -> dict[str, list[tuple[int, ...]]]:
    """Reactive sites (sorted atom tuples) of every template that matches ``mol``."""
    out: dict[str, list[tuple[int, ...]]] = {}
    for name, _, pattern in compiled_templates():
        sites = mol.GetSubstructMatches(pattern, uniquify=True, maxMatches=MAX_PRODUCTS)
        if sites:
            out[name] = [tuple(sorted(s)) for s in sites]
    return out


def template_products(mol: Chem.Mol, name: str) -> list[str]:
    """Sorted distinct canonical products of template ``name`` applied at each site of ``mol``."""
    rxn, pattern = _compiled_by_name()[name]
    if not mol.HasSubstructMatch(pattern):
        return []
    n_template = rxn.GetProductTemplate(0).GetNumAtoms()
    products: set[str] = set()
    for prods in rxn.RunReactants((mol,), MAX_PRODUCTS):
        smi = _finish_product(prods[0], mol, n_template)
        if smi:
            products.add(smi)
    return sorted(products)


@lru_cache(maxsize=1)
def _compiled_by_name() -> dict[str, tuple[rdChemReactions.ChemicalReaction, Chem.Mol]]:
    return {name: (rxn, pattern) for name, rxn, pattern in compiled_templates()}


def reaction_results(mol: Chem.Mol) -> dict[str, tuple[list[tuple[int, ...]], list[str]]]:
    """Per applicable template: (reactive-site atom tuples, sorted distinct product SMILES)."""
    return {name: (sites, template_products(mol, name)) for name, sites in reaction_sites(mol).items()}
