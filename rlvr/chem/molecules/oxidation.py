"""Oxidation numbers of atoms in a molecule, from RDKit's ``CalcOxidationNumbers``.

RDKit assigns each bond's electrons to the more electronegative partner (Pauling scale), splits
bonds between equal partners, counts hydrogens as bonded atoms and adds the formal charge. It
works on one Kekulé structure: aromatic bonds are single or double, never 1.5. Counting an
aromatic bond as 1.5 gives impossible values to heteroatoms in five-membered aromatic rings
(furan O -3, pyrrole N -4, thiophene S -3), because their two ring bonds are single in every
Kekulé structure.

The choice for aromatic systems is explicit here: the molecule is kekulised with RDKit's
``Chem.Kekulize`` on the atom order it is given in (:func:`oxidation_numbers`). Heteroatoms then
get their chemical values (furan O -2, pyrrole N -3, thiophene S -2, pyridine N -3) in every
Kekulé structure; a carbon bonded to a heteroatom inside an aromatic ring gets the value of that
Kekulé structure (in pyridine one alpha carbon is +1 and the other 0). Which of two symmetry-
equivalent atoms gets which value depends only on the atom order, so
:func:`symmetric_oxidation_numbers` averages the numbers over each class of symmetry-equivalent
atoms (both alpha carbons of pyridine +1/2, as in the resonance average); atoms that are not
equivalent keep the value of the Kekulé structure. :mod:`rlvr.chem.molecules.features` uses the
symmetric numbers on the canonical atom order, so its values never depend on how a molecule was
written; the MolecularIQ benchmark's solver calls RDKit on the molecule as written, which
``convention="moleculariq"`` reproduces.

Every value lies within the element's range of known oxidation states (:data:`OXIDATION_RANGE`),
which the tests check over the whole embedded molecule pool.
"""
from __future__ import annotations

from fractions import Fraction

from rdkit import Chem
from rdkit.Chem import rdMolDescriptors

#: known oxidation-state range (min, max) of the elements organic molecules are made of
OXIDATION_RANGE: dict[str, tuple[int, int]] = {
    "H": (-1, 1), "B": (-5, 3), "C": (-4, 4), "N": (-3, 5), "O": (-2, 2), "F": (-1, 0),
    "Si": (-4, 4), "P": (-3, 5), "S": (-2, 6), "Cl": (-1, 7), "Se": (-2, 6), "Br": (-1, 7),
    "I": (-1, 7), "As": (-3, 5), "Te": (-2, 6), "Ge": (-4, 4), "Sn": (-4, 4),
}


def oxidation_numbers(mol: Chem.Mol) -> list[int]:
    """The oxidation number of every atom of ``mol``, in atom order (``mol`` is not modified).

    Aromatic molecules are kekulised first (RDKit's Kekulé structure for the given atom order);
    a molecule RDKit cannot kekulise keeps its aromatic flags and RDKit's own handling.
    """
    work = Chem.Mol(mol)
    try:
        Chem.Kekulize(work, clearAromaticFlags=True)
    except Chem.rdchem.KekulizeException:
        pass
    rdMolDescriptors.CalcOxidationNumbers(work)
    return [a.GetIntProp("OxidationNumber") if a.HasProp("OxidationNumber") else 0 for a in work.GetAtoms()]


def symmetric_oxidation_numbers(mol: Chem.Mol) -> list[Fraction]:
    """:func:`oxidation_numbers` averaged over each class of symmetry-equivalent atoms."""
    numbers = oxidation_numbers(mol)
    classes = list(Chem.CanonicalRankAtoms(mol, breakTies=False))
    total: dict[int, int] = {}
    size: dict[int, int] = {}
    for c, n in zip(classes, numbers):
        total[c] = total.get(c, 0) + n
        size[c] = size.get(c, 0) + 1
    return [Fraction(total[c], size[c]) for c in classes]


def extreme_atoms(mol: Chem.Mol, numbers: list[int] | list[Fraction], element: str, which: str) -> list[int]:
    """Indices of the ``element`` atoms whose oxidation number is the ``"max"`` or ``"min"`` among them."""
    pairs = [(a.GetIdx(), n) for a, n in zip(mol.GetAtoms(), numbers) if a.GetSymbol() == element]
    if not pairs:
        return []
    target = max(n for _, n in pairs) if which == "max" else min(n for _, n in pairs)
    return sorted(i for i, n in pairs if n == target)
