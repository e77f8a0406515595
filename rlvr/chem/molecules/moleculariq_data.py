"""The MolecularIQ benchmark's own functional-group SMARTS and reaction templates, as data.

Copied unchanged from moleculariq-core (ml-jku/moleculariq-core, MIT licence, commit a1b8963):
``_data/smarts_functional_groups.txt`` (``name:rank:SMARTS``) and ``_data/reaction_templates.txt``
(``name;category;SMIRKS;description``). :mod:`rlvr.chem.molecules.moleculariq` evaluates them the
way the benchmark's solver does for ``convention="moleculariq"``, every pattern as it is (the
ones that contradict their group's name included, :data:`~rlvr.chem.molecules.moleculariq.QUIRKS`).
"""
from __future__ import annotations

FUNCTIONAL_GROUP_TABLE = """\
aldehyde:100:[$([CX3H1](=O)[#6]),$([CX3H2](=O))]
ketone:101:[#6][CX3](=[OX1])[#6]
carboxylic_acid:102:[CX3](=O)[OH]
ester:103:[CX3](=[OX1])[OX2][#6]
amide:104:[CX3](=[OX1])[NX3]
lactone:105:[#6X3;R](=O)[OX2;R][*;R]
lactam:106:[#6X3;R](=O)[NX3;R][*;R]
acyl_chloride:107:[CX3](=[OX1])[ClX1]
acyl_bromide:108:[CX3](=[OX1])[BrX1]
acyl_fluoride:109:[CX3](=[OX1])[FX1]
acyl_iodide:110:[CX3](=[OX1])[IX1]
anhydride:111:[CX3](=[OX1])[OX2][CX3](=[OX1])
primary_amine:200:[NX3;H2;!$([NX3]-[CX3](=O));!$([NX3]-[SX4](=O)(=O));!$([NX3]-[PX4](=O))]
secondary_amine:201:[NX3;H1;!$([NX3]-[CX3](=O));!$([NX3]-[SX4](=O)(=O));!$([NX3]-[PX4](=O))]([#6])[#6]
tertiary_amine:202:[NX3;H0;!$([NX3]-[CX3](=O));!$([NX3]-[SX4](=O)(=O));!$([NX3]-[PX4](=O))]([#6])([#6])[#6]
quaternary_ammonium:203:[NX4H0+]
imine:204:[NX2]=[CX3]
nitrile:205:[NX1]#[CX2]
nitro:206:[$([NX3](=O)=O),$([NX3+](=O)[O-])]
nitroso:207:[NX2]=[OX1]
azide:208:[NX1]~[NX2]~[NX2,NX1]
hydrazine:209:[NX3][NX3]
hydrazone:210:[NX3][NX2]=[CX3]
oxime:211:[NX2]=[CX3][OX2H]
isocyanate:212:[NX2]=[CX2]=[OX1]
isothiocyanate:213:[NX2]=[CX2]=[SX1]
carbodiimide:214:[NX2]=[CX2]=[NX2]
urea:215:[NX3][CX3](=[OX1])[NX3]
thiourea:216:[NX3][CX3](=[SX1])[NX3]
guanidine:217:[NX3][CX3](=[NX2])[NX3]
alcohol:300:[OX2H][CX4]
phenol:301:[OX2H]c
ether:302:[CX4][OX2][CX4]
aryl_ether:303:c[OX2]c
epoxide:304:[OX2;R]1[CX4;R][CX4;R]1
peroxide:305:[OX2][OX2]
hydroperoxide:306:[OX2H][OX2]
enol:307:[OX2H][CX3]=[CX3]
hemiacetal:308:[OX2H][CX4][OX2][#6]
hemiketal:309:[OX2H][CX4]([#6])([#6])[OX2][#6]
acetal:310:[CX4H1]([OX2][#6])([OX2][#6])
ketal:311:[CX4H0]([OX2][#6])([OX2][#6])([#6])[#6]
thiol:400:[SX2H]
thioether:401:[#6][SX2][#6]
disulfide:402:[SX2][SX2]
sulfoxide:403:[$([SX3]=[OX1]),$([SX3+][OX1-])]
sulfone:404:[$([SX4](=[OX1])(=[OX1])),$([SX4+2]([OX1-])([OX1-]))]
sulfonic_acid:405:[SX4](=[OX1])(=[OX1])[OX2H,OX1-]
sulfonamide:406:[SX4](=[OX1])(=[OX1])[NX3]
sulfonic_ester:407:[SX4](=[OX1])(=[OX1])[OX2][#6]
thioketone:408:[#6][CX3](=[SX1])[#6]
thioaldehyde:409:[CX3H]=[SX1]
alkyl_fluoride:500:[CX4][F]
alkyl_chloride:501:[CX4][Cl]
alkyl_bromide:502:[CX4][Br]
alkyl_iodide:503:[CX4][I]
aryl_fluoride:504:c[F]
aryl_chloride:505:c[Cl]
aryl_bromide:506:c[Br]
aryl_iodide:507:c[I]
vinyl_halide:508:[F,Cl,Br,I][CX3]=[CX3]
trifluoromethyl:509:C(F)(F)(F)
perfluoroalkyl:510:[CX4](F)(F)[CX4](F)(F)
phosphine:600:[PX3]
phosphine_oxide:601:[PX4]=[OX1]
phosphonium:602:[PX4+]
phosphonic_acid:603:[PX4](=[OX1])([OX2H,OX1-])[OX2H,OX1-]
phosphate:604:[PX4](=[OX1])([OX2])([OX2])[OX2]
phosphonate:605:[PX4](=[OX1])([OX2][#6])[OX2]
phosphoramide:606:[PX4](=[OX1])([NX3])[NX3]
alkene:700:[CX3]=[CX3]
alkyne:701:[CX2]#[CX2]
allene:702:[CX3]=[CX2]=[CX3]
aromatic:703:[aR]
conjugated_system:704:[#6]=[#6]-[#6]=[#6]
enamine:800:[NX3][CX3]=[CX3]
enol_ether:801:[OX2][CX3]=[CX3]
ketene:802:[CX3]=[CX2]=[OX1]
carbene:803:[C;+0;X2;H0;v2;!$(*=*)&!$(*#*)]
michael_acceptor:804:[C,c]=[C,c][CX3](=O)[O,N,S]
alpha_beta_unsaturated:805:[CX3]=[CX3][CX3]=[OX1,NX2,SX1]
benzene:900:c1ccccc1
naphthalene:901:c1ccc2ccccc2c1
pyridine:902:n1ccccc1
pyrrole:903:[nH]1cccc1
furan:904:o1cccc1
thiophene:905:s1cccc1
imidazole:906:n1cc[nH]c1
pyrazole:907:n1[nH]ccc1
oxazole:908:n1cocc1
thiazole:909:n1cscc1
pyrimidine:910:n1cnccc1
indole:911:[nH]1c2ccccc2cc1
quinoline:912:n1c2ccccc2ccc1
isoquinoline:913:c1nc2ccccc2cc1
methyl:1000:[CX4H3]
ethyl:1001:[CX4H3][CX4H2]
propyl:1002:[CX4H3][CX4H2][CX4H2]
isopropyl:1003:[CX4H3][CX4H]([CX4H3])
butyl:1004:[CX4H3][CX4H2][CX4H2][CX4H2]
isobutyl:1005:[CX4H3][CX4H]([CX4H3])[CX4H2]
sec_butyl:1006:[CX4H3][CX4H2][CX4H]([CX4H3])
tert_butyl:1007:[CX4]([CX4H3])([CX4H3])([CX4H3])
primary_carbon:1008:[C;X4;H3;$(C([#6]));!$(C([#6])([#6]))]
secondary_carbon:1009:[C;X4;$(C([#6])([#6]));!$(C([#6])([#6])([#6]))]
tertiary_carbon:1010:[C;X4;$(C([#6])([#6])([#6]));!$(C([#6])([#6])([#6])[#6])]
quaternary_carbon:1011:[C;X4;$(C([#6])([#6])([#6])[#6])]
boc:1100:CC(C)(C)OC(=O)N
cbz:1101:c1ccccc1COC(=O)N
fmoc:1102:C1c2ccccc2Cc3c1cccc3OC(=O)N
tosyl:1103:Cc1ccc(cc1)S(=O)(=O)
mesyl:1104:CS(=O)(=O)
triflate:1105:C(F)(F)(F)S(=O)(=O)O
carbonate:1200:[#6][OX2]C(=O)[OX2][#6]
carbamate:1201:[#6][OX2]C(=O)[NX3]
thioester:1202:[CX3](=O)[SX2][#6]
imide:1203:[CX3](=O)[NX3][CX3](=O)
sulfonyl_chloride:1204:[SX4](=O)(=O)[Cl]
isonitrile:1205:[N+]#[C-]
n_oxide:1206:[$([NX4+][OX1-]),$([n+][O-])]
hydroxylamine:1207:[NX3][OX2H]
diazo:1208:[#6]=[NX2+]=[NX1-]
nitrone:1209:[#6]=[N+]([#6])[O-]
aziridine:1210:[NX3;R]1[CX4;R][CX4;R]1
silyl_ether:1300:[Si]([#6])([#6])([#6])[OX2][#6]
silane:1301:[Si]([#6])([#6])([#6])
silyl_enol_ether:1302:[Si]([#6])([#6])([#6])[OX2][CX3]=[CX3]
boronic_acid:1400:[#5]([OH])([OH])
boronic_ester:1401:[#5]([OX2][#6])([OX2][#6])
borate:1402:[#5]([OX2])([OX2])[OX2]
vinyl_ether:1500:[#6][OX2][CX3]=[CX3]
orthoester:1501:[CX4]([OX2][#6])([OX2][#6])[OX2][#6]
allyl:1502:[CX3]=[CX3][CX4]
benzyl:1503:c[CX4H2]
propargyl:1504:[CX2]#[CX2][CX4]
"""

TEMPLATE_TABLE = """\
primary_alcohol_to_aldehyde;oxidation;[CH2:1]([OH])[#6:2]>>[CH:1](=[O])[#6:2];Oxidation of primary alcohol to aldehyde
secondary_alcohol_to_ketone;oxidation;[CH:1]([OH])([#6:2])[#6:3]>>[C:1](=[O])([#6:2])[#6:3];Oxidation of secondary alcohol to ketone
aldehyde_to_carboxylic_acid;oxidation;[CH:1](=[O])[#6:2]>>[C:1](=[O])([OH])[#6:2];Oxidation of aldehyde to carboxylic acid
ketone_to_secondary_alcohol;reduction;[C:1](=[O])([#6:2])[#6:3]>>[CH:1]([OH])([#6:2])[#6:3];Reduction of ketone to secondary alcohol
aldehyde_to_primary_alcohol;reduction;[CH:1](=[O])[#6:2]>>[CH2:1]([OH])[#6:2];Reduction of aldehyde to primary alcohol
carboxylic_acid_to_primary_alcohol;reduction;[C:1](=[O])([OH])[#6:2]>>[CH2:1]([OH])[#6:2];Reduction of carboxylic acid to primary alcohol
nitro_to_amine;reduction;[#6:1][N+:2](=[O])[O-]>>[#6:1][NH2:2];Reduction of nitro group to amine
imine_to_amine;reduction;[#6:1][N:2]=[C:3]([#6:4])[#6:5]>>[#6:1][NH:2][CH:3]([#6:4])[#6:5];Reduction of imine to amine
alkene_to_alkane;reduction;[C:1]=[C:2]>>[C:1][C:2];Hydrogenation of alkene to alkane
alkyne_to_alkene;reduction;[C:1]#[C:2]>>[C:1]=[C:2];Partial reduction of alkyne to alkene
alcohol_to_alkyl_halide_Cl;substitution;[C:1][OH:2]>>[C:1]Cl;Conversion of alcohol to alkyl chloride
alcohol_to_alkyl_halide_Br;substitution;[C:1][OH:2]>>[C:1]Br;Conversion of alcohol to alkyl bromide
alkyl_halide_to_alcohol;substitution;[C:1][Cl,Br,I]>>[C:1][OH];Hydrolysis of alkyl halide to alcohol
alkyl_halide_to_azide;substitution;[C:1][Cl,Br,I]>>[C:1][N-][N+]#N;Substitution of halide with azide
alkyl_halide_to_nitrile;substitution;[C:1][Cl,Br,I]>>[C:1]C#N;Substitution of halide with cyanide
ester_hydrolysis_to_acid;hydrolysis;[C:1](=[O:2])[O:3][#6:4]>>[C:1](=[O:2])[OH];Hydrolysis of ester to acid
amide_hydrolysis_to_acid;hydrolysis;[C:1](=[O:2])[NH:3][#6:4]>>[C:1](=[O:2])[OH];Hydrolysis of amide to acid
nitrile_hydrolysis;hydrolysis;[C:1]#N>>[C:1](=O)[OH];Hydrolysis of nitrile to carboxylic acid
hydration_of_alkene;addition;[C:1]=[C:2]>>[C:1]([OH])[C:2];Hydration of alkene to alcohol
hydrohalogenation_HCl;addition;[C:1]=[C:2]>>[C:1](Cl)[C:2];Addition of HCl to alkene
hydrohalogenation_HBr;addition;[C:1]=[C:2]>>[C:1](Br)[C:2];Addition of HBr to alkene
epoxidation;addition;[C:1]=[C:2]>>[C:1]1[C:2][O]1;Epoxidation of alkene (fixed mapping)
dehydration_alcohol;elimination;[C:1][CH:2]([OH])[CH:3][C:4]>>[C:1][C:2]=[C:3][C:4];E2 elimination of alcohol
dehydrohalogenation;elimination;[C:1][CH:2]([Cl,Br,I])[CH:3][C:4]>>[C:1][C:2]=[C:3][C:4];E2 elimination of alkyl halide
nitration;aromatic_substitution;[cH:1]>>[c:1][N+](=O)[O-];Nitration of benzene
bromination;aromatic_substitution;[cH:1]>>[c:1]Br;Bromination of benzene
chlorination;aromatic_substitution;[cH:1]>>[c:1]Cl;Chlorination of benzene
beckmann_rearrangement;rearrangement;[C:1](=[N:2][OH])[#6:3]>>[NH:2][C:1](=[O])[#6:3];Beckmann rearrangement of oxime
decarboxylation;decarboxylation;[#6:1][C:2](=[O])[OH]>>[#6:1][H];Decarboxylation of carboxylic acid (adds H)
boc_protection;protection;[NH2:1][#6:2]>>CC(C)(C)OC(=O)[NH:1][#6:2];BOC protection of amine
boc_deprotection;deprotection;CC(C)(C)OC(=O)[NH:1][#6:2]>>[NH2:1][#6:2];BOC deprotection
acetylation;protection;[OH:1][#6:2]>>CC(=O)[O:1][#6:2];Acetylation of alcohol
deacetylation;deprotection;CC(=O)[O:1][#6:2]>>[OH:1][#6:2];Deacetylation
oxime_formation;condensation;[C:1](=[O:2])[#6,H:3]>>[C:1](=[N][OH])[#6,H:3];Formation of oxime from carbonyl
hydrazone_formation;condensation;[C:1](=[O:2])[#6,H:3]>>[C:1](=[N][NH2])[#6,H:3];Formation of hydrazone from carbonyl
benzylic_oxidation;oxidation;[c:1][CH3:2]>>[c:1][CH:2]=O;Oxidation of benzylic methyl to aldehyde
benzylic_alcohol_oxidation;oxidation;[c:1][CH2:2]([OH])>>[c:1][C:2]=O;Oxidation of benzylic alcohol to aldehyde
sulfide_to_sulfoxide;oxidation;[#6:1][S:2][#6:3]>>[#6:1][S:2](=O)[#6:3];Oxidation of sulfide to sulfoxide
azide_to_amine;reduction;[C:1]N=[N+]=[N-]>>[C:1][NH2];Reduction of azide to amine
ester_to_alcohol;reduction;[C:1](=[O])[O:2][C:3]>>[C:1][OH];Reduction of ester to alcohol (loses other part)
nitrile_to_amine;reduction;[C:1]C#N>>[C:1]C[NH2];Reduction of nitrile to primary amine
amide_to_amine;reduction;[C:1](=[O])[NH:2][#6:3]>>[C:1][NH:2][#6:3];Reduction of amide to amine
alcohol_to_alkyl_halide_I;substitution;[C:1][OH:2]>>[C:1]I;Conversion of alcohol to alkyl iodide
alcohol_to_tosylate;substitution;[C:1][OH:2]>>[C:1][O]S(=O)(=O)c1ccc(C)cc1;Tosylation of alcohol
alcohol_to_mesylate;substitution;[C:1][OH:2]>>[C:1][O]S(=O)(=O)C;Mesylation of alcohol
dibromination;addition;[C:1]=[C:2]>>[C:1](Br)[C:2](Br);Dibromination of alkene
dichlorination;addition;[C:1]=[C:2]>>[C:1](Cl)[C:2](Cl);Dichlorination of alkene
aromatic_sulfonation;aromatic_substitution;[cH:1]>>[c:1]S(=O)(=O)O;Sulfonation of benzene
aromatic_iodination;aromatic_substitution;[cH:1]>>[c:1]I;Iodination of benzene
aromatic_fluorination;aromatic_substitution;[cH:1]>>[c:1]F;Fluorination of benzene
acid_to_acid_chloride;conversion;[C:1](=[O])[OH]>>[C:1](=[O])Cl;Conversion of acid to acid chloride
acid_chloride_to_ester_methyl;conversion;[C:1](=[O])Cl>>[C:1](=[O])OC;Acid chloride to methyl ester
acid_chloride_to_amide;conversion;[C:1](=[O])Cl>>[C:1](=[O])N;Acid chloride to primary amide
aromatic_amine_to_diazonium;conversion;[c:1][NH2]>>[c:1][N+]#N;Diazotization of aromatic amine
epoxide_to_diol;ring_opening;[C:1]1[O][C:2]1>>[C:1]([OH])[C:2]([OH]);Epoxide opening to vicinal diol
epoxide_to_halohydrin_Br;ring_opening;[C:1]1[O][C:2]1>>[C:1](Br)[C:2]([OH]);Epoxide to bromohydrin
epoxide_to_halohydrin_Cl;ring_opening;[C:1]1[O][C:2]1>>[C:1](Cl)[C:2]([OH]);Epoxide to chlorohydrin
ozonolysis_terminal;cleavage;[C:1]C=C>>[C:1]C=O;Ozonolysis of terminal alkene (loses CO2)
"""



def functional_group_smarts() -> dict[str, str]:
    """Group name -> SMARTS, in the benchmark's order."""
    out: dict[str, str] = {}
    for line in FUNCTIONAL_GROUP_TABLE.splitlines():
        parts = line.split(":")  # the benchmark's own parsing: the third field
        out[parts[0].strip()] = parts[2].strip()
    return out


def template_smirks() -> dict[str, str]:
    """Template name -> SMIRKS, in the benchmark's order."""
    out: dict[str, str] = {}
    for line in TEMPLATE_TABLE.splitlines():
        parts = line.split(";")
        out[parts[0]] = parts[2]
    return out
