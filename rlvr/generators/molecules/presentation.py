"""The SMILES presentation axis (section 3.3): canonical or randomised x aromatic or kekulised,
plus optional ring-closure renumbering.

Every choice draws from the task RNG, so the shown SMILES is a deterministic function of the
task key. Randomised SMILES come from a random atom permutation (``Chem.RenumberAtoms``) written
without canonicalisation, never from RDKit's own random generator (global state).
Atom indices in answers always refer to the SMILES as shown, so each presentation has its own
index ground truth (computed by :func:`rlvr.chem.molecules.features.molecule_features`
on the shown string).
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass

from rdkit import Chem

from rlvr.chem.smiles import parse_smiles, ring_closure_spans

_MAX_RANDOM_TRIES = 8


@dataclass(frozen=True)
class Presentation:
    """How a molecule was written: ``canonical`` (else randomised atom order), ``kekulized``
    (else aromatic lowercase), ``ring_renumbered`` (ring-closure digits relabelled)."""

    canonical: bool = True
    kekulized: bool = False
    ring_renumbered: bool = False

    @property
    def name(self) -> str:
        base = f"{'canonical' if self.canonical else 'randomized'}_{'kekulized' if self.kekulized else 'aromatic'}"
        return base + ("_renumbered" if self.ring_renumbered else "")

    def to_dict(self) -> dict:
        return {**asdict(self), "name": self.name}


def write_smiles(mol: Chem.Mol, *, canonical: bool, kekulized: bool, rng: random.Random | None = None) -> str:
    """Write ``mol`` canonically or from a random atom order (drawn from ``rng``), aromatic or kekulised."""
    work = Chem.Mol(mol)
    if kekulized:
        Chem.Kekulize(work, clearAromaticFlags=True)
    if canonical:
        return Chem.MolToSmiles(work, canonical=True, kekuleSmiles=kekulized)
    if rng is None:
        raise ValueError("a randomised SMILES needs an rng")
    order = list(range(work.GetNumAtoms()))
    rng.shuffle(order)
    shuffled = Chem.RenumberAtoms(work, order)
    return Chem.MolToSmiles(shuffled, canonical=False, kekuleSmiles=kekulized)


def _label_text(label: int) -> str:
    return str(label) if label < 10 else f"%{label}"


def renumber_ring_closures(smiles: str, rng: random.Random, max_label: int = 99) -> str:
    """Relabel the ring-closure digits of ``smiles`` with random labels (1..max_label).

    Only the labels change: atom tokens and their order are untouched, so atom indices and the
    molecule are the same (checked by the caller). Returns ``smiles`` unchanged if it has no rings.
    """
    spans = ring_closure_spans(smiles)
    if not spans:
        return smiles
    open_labels: dict[int, int] = {}  # old label -> new label, for bonds currently open
    replacement: list[str] = []
    for _start, _end, old in spans:
        if old in open_labels:
            new = open_labels.pop(old)
        else:
            in_use = set(open_labels.values())
            choices = [x for x in range(1, max_label + 1) if x not in in_use]
            new = rng.choice(choices)
            open_labels[old] = new
        replacement.append(_label_text(new))
    out: list[str] = []
    pos = 0
    for (start, end, _old), text in zip(spans, replacement):
        out.append(smiles[pos:start])
        out.append(text)
        pos = end
    out.append(smiles[pos:])
    return "".join(out)


def _same_molecule(a: str, b: str) -> bool:
    try:
        ma, mb = parse_smiles(a), parse_smiles(b)
    except ValueError:
        return False
    if [x.GetSymbol() for x in ma.GetAtoms()] != [x.GetSymbol() for x in mb.GetAtoms()]:
        return False
    return Chem.MolToSmiles(ma) == Chem.MolToSmiles(mb)


def present(
    canonical_smiles: str,
    rng: random.Random,
    *,
    p_randomized: float = 0.5,
    p_kekulized: float = 0.5,
    p_ring_renumber: float = 0.0,
) -> tuple[str, Presentation]:
    """Choose a presentation with the given probabilities and write the molecule in it.

    Two independent draws (randomised? kekulised?) as in the paper, then an optional ring-closure
    relabelling. Kekulisation that RDKit cannot perform falls back to the aromatic form (recorded).
    """
    mol = parse_smiles(canonical_smiles)
    randomized = rng.random() < p_randomized
    kekulized = rng.random() < p_kekulized
    renumber = rng.random() < p_ring_renumber
    try:
        if randomized:
            reference = write_smiles(mol, canonical=True, kekulized=kekulized)
            text = reference
            for _ in range(_MAX_RANDOM_TRIES):
                text = write_smiles(mol, canonical=False, kekulized=kekulized, rng=rng)
                if text != reference:
                    break
        else:
            text = write_smiles(mol, canonical=True, kekulized=kekulized)
    except (Chem.KekulizeException, ValueError, RuntimeError):
        kekulized = False
        text = write_smiles(mol, canonical=not randomized, kekulized=False, rng=rng)
    renumbered = False
    if renumber:
        candidate = text
        for _ in range(_MAX_RANDOM_TRIES):
            candidate = renumber_ring_closures(text, rng)
            if candidate != text:
                break
        if candidate != text and _same_molecule(candidate, text):
            text, renumbered = candidate, True
    return text, Presentation(canonical=not randomized, kekulized=kekulized, ring_renumbered=renumbered)
