"""One explanation section per feature key, recomputed on the SMILES as written (positions are
written heavy-atom indices): the atoms, rings, bonds, group instances or sites a key counts, shown
only when they agree with the feature solver's value, ending with ``key = value``."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from rdkit import Chem
from rdkit.Chem import BRICS

from rlvr.chem.formula import hill_formula
from rlvr.chem.molecules.features import FeatureSpec, oxidation_numbers_x2, spec_for_key
from rlvr.chem.molecules.functional_groups import functional_group_instances
from rlvr.chem.molecules.rings import fused_ring_systems
from rlvr.chem.molecules.reactions import PREFIX as TEMPLATE_PREFIX
from rlvr.chem.molecules.reactions import reaction_sites
from rlvr.chem.molecules.solvers import STRICT_ROTATABLE
from rlvr.chem.smiles import parse_smiles
from rlvr.solutions.common import SolutionError
from rlvr.solutions.smiles_walk import AtomToken, labels, positions, walk

#: atoms listed per line before the list is cut (the count is always exact)
MAX_LISTED = 60


def feature_spec(key: str) -> FeatureSpec:
    """The feature a key belongs to (:class:`SolutionError` for an unknown key)."""
    try:
        return spec_for_key(key)
    except KeyError as exc:
        raise SolutionError(f"unknown feature key {key!r}") from exc



@dataclass(frozen=True)
class Ring:
    atoms: tuple[int, ...]  # written positions, in ring order
    aromatic: bool
    hetero: bool
    saturated: bool

    @property
    def size(self) -> int:
        return len(self.atoms)

    def text(self) -> str:
        kinds = ["aromatic" if self.aromatic else "aliphatic"]
        if self.saturated:
            kinds.append("saturated")
        if self.hetero:
            kinds.append("hetero")
        return f"{self.size}-ring [{', '.join(map(str, sorted(self.atoms)))}] ({', '.join(kinds)})"


@dataclass(frozen=True)
class Structure:
    """What the traces name, recomputed once per SMILES: atoms, rings, hydrogens."""

    smiles: str
    atoms: tuple[AtomToken, ...]
    rings: tuple[Ring, ...]
    h_counts: tuple[int, ...]  # hydrogens on each written heavy atom (implicit + explicit)
    pos: dict[int, int]  # RDKit index -> written position

    def tokens(self, idx: Sequence[int], limit: int | None = MAX_LISTED) -> str:
        by = {a.index: a for a in self.atoms}
        return labels([by[i] for i in sorted(idx) if i in by], limit)

    def mapped(self, rdkit_atoms: Sequence[int]) -> tuple[int, ...]:
        return tuple(sorted(self.pos[i] for i in rdkit_atoms if i in self.pos))


@lru_cache(maxsize=2048)
def structure(smiles: str) -> Structure:
    """Atoms, rings and hydrogen counts of ``smiles`` as written."""
    mol = parse_smiles(smiles)
    atoms = walk(smiles)
    pos = positions(smiles)
    ri = mol.GetRingInfo()
    bonds = list(mol.GetBonds())
    rings = []
    for atom_ring, bond_ring in zip(ri.AtomRings(), ri.BondRings()):
        arom = all(bonds[b].GetIsAromatic() for b in bond_ring)
        sat = all(not bonds[b].GetIsAromatic() and bonds[b].GetBondType() == Chem.BondType.SINGLE for b in bond_ring)
        het = any(mol.GetAtomWithIdx(a).GetAtomicNum() != 6 for a in atom_ring)
        rings.append(Ring(tuple(pos[a] for a in atom_ring if a in pos), arom, het, sat))
    h_counts = []
    for a in atoms:
        atom = mol.GetAtomWithIdx(a.rdkit_idx)
        explicit_h = sum(1 for n in atom.GetNeighbors() if n.GetAtomicNum() == 1 and n.GetIsotope() == 0)
        h_counts.append(atom.GetTotalNumHs() + explicit_h)
    return Structure(smiles, atoms, tuple(rings), tuple(h_counts), pos)


_RING_KINDS = {
    "ring": lambda r: True,
    "aromatic_ring": lambda r: r.aromatic,
    "aliphatic_ring": lambda r: not r.aromatic,
    "heterocycle": lambda r: r.hetero,
    "saturated_ring": lambda r: r.saturated,
}


def value_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _union(rings: Sequence[Ring]) -> list[int]:
    out: set[int] = set()
    for r in rings:
        out.update(r.atoms)
    return sorted(out)


def section(key: str, smiles: str, values: dict[str, Any]) -> list[tuple[str, bool]]:
    """Lines explaining ``key`` for the molecule; the last line states ``key = value``."""
    spec = feature_spec(key)
    st = structure(smiles)
    value = values[key]
    is_index = key == spec.index_key
    index = values.get(spec.index_key) if spec.index_key else None
    count = values.get(spec.count_key) if spec.count_key else None
    what = spec.definition.split(";")[0]
    lines: list[tuple[str, bool]] = [(f"{key}: {what}.", False)]
    explained = False
    name = spec.name

    if name in _RING_KINDS or name.startswith("smallest_largest_ring_size") or name == "fused_ring":
        rings = list(st.rings)
        if not rings:
            if not index and not count:
                lines.append(("No ring closures: the molecule has no rings.", False))
                explained = True
        else:
            lines.append(("Rings: " + "; ".join(r.text() for r in rings) + ".", False))
            if name in _RING_KINDS:
                chosen = [r for r in rings if _RING_KINDS[name](r)]
                if len(chosen) == count and _union(chosen) == sorted(index or []):
                    lines.append((f"Matching rings: {len(chosen)}; their atoms: {_union(chosen)}.", False))
                    explained = True
            elif name.startswith("smallest_largest_ring_size"):
                sizes = [r.size for r in rings]
                target = min(sizes) if name.endswith("smallest") else max(sizes)
                chosen = [r for r in rings if r.size == target]
                if target == count and _union(chosen) == sorted(index or []):
                    word = "Smallest" if name.endswith("smallest") else "Largest"
                    lines.append((f"{word} ring size: {target}; atoms of rings of that size: {_union(chosen)}.", False))
                    explained = True
            else:  # fused ring systems
                systems = fused_ring_systems([r.atoms for r in rings])
                atoms = sorted({a for g in systems for i in g for a in rings[i].atoms})
                if len(systems) == count and atoms == sorted(index or []):
                    if systems:
                        lines.append((f"Rings sharing >= 2 atoms form {len(systems)} fused system(s); atoms: {atoms}.", False))
                    else:
                        lines.append(("No two rings share two atoms: no fused system.", False))
                    explained = True
    elif name == "hydrogen_atom":
        parts = [f"{a.label()}:{h}" for a, h in zip(st.atoms, st.h_counts) if h]
        if sum(st.h_counts) == value:
            lines.append((f"Hydrogens per heavy atom: {', '.join(parts) if parts else 'none'}; total {value}.", False))
            explained = True
    elif name == "molecular_formula":
        by_el: dict[str, int] = {}
        for a in st.atoms:
            by_el[a.symbol] = by_el.get(a.symbol, 0) + 1
        by_el["H"] = by_el.get("H", 0) + sum(st.h_counts)
        charge = Chem.GetFormalCharge(parse_smiles(smiles))
        if hill_formula(by_el, charge) == value:
            order = (["C", "H"] if "C" in by_el else []) + sorted(el for el in by_el if "C" not in by_el or el not in ("C", "H"))
            counts = ", ".join(f"{el} {by_el[el]}" for el in order if by_el.get(el))
            lines.append((f"Atom counts: {counts}" + (f"; net charge {charge:+d}" if charge else "")
                          + "; written in Hill order.", False))
            explained = True
    elif spec.count_unit == "instances" and name.startswith("functional_group_"):
        inst = functional_group_instances(parse_smiles(smiles)).get(name[len("functional_group_"):], [])
        mapped = [st.mapped(i) for i in inst]
        atoms = sorted({a for m in mapped for a in m})
        if len(mapped) == count and atoms == sorted(index or []):
            if mapped:
                lines.append(("Instances: " + "; ".join(f"[{st.tokens(m)}]" for m in mapped) + ".", False))
            else:
                lines.append(("No atoms match this group.", False))
            explained = True
    elif spec.count_unit == "sites" and name.startswith(TEMPLATE_PREFIX):
        sites = reaction_sites(parse_smiles(smiles)).get(name[len(TEMPLATE_PREFIX):], [])
        mapped = [st.mapped(i) for i in sites]
        atoms = sorted({a for m in mapped for a in m})
        if len(mapped) == count and atoms == sorted(index or []):
            if mapped:
                lines.append(("Reactive sites: " + "; ".join(f"[{st.tokens(m)}]" for m in mapped) + ".", False))
            else:
                lines.append(("No site matches the template.", False))
            explained = True
    elif spec.count_unit == "bonds":
        pairs = _bond_pairs(name, smiles, st)
        if pairs is not None and len(pairs) == count and sorted({a for p in pairs for a in p}) == sorted(index or []):
            if pairs:
                lines.append(("Bonds: " + "; ".join(f"{a}-{b}" for a, b in pairs) + f" (atoms {st.tokens(sorted({a for p in pairs for a in p}))}).", False))
            else:
                lines.append(("No such bond.", False))
            explained = True
    elif name == "brics_decomposition":
        mol = parse_smiles(smiles)
        pairs = sorted(tuple(sorted((st.pos[a], st.pos[b]))) for (a, b), _ in BRICS.FindBRICSBonds(mol))
        if sorted({a for p in pairs for a in p}) == sorted(index or []):
            if pairs:
                lines.append(("BRICS bonds: " + "; ".join(f"{a}-{b}" for a, b in pairs)
                              + f"; breaking them leaves {count} distinct fragment(s).", False))
            else:
                lines.append(("No BRICS bond: the molecule stays one fragment.", False))
            explained = True
    elif spec.count_unit == "atoms" and index is not None:
        detail = _atom_details(name, smiles, st)
        if detail and _details_agree(name, smiles, st, index):
            lines.append((detail, True))
        lines.append((f"Atoms: {st.tokens(index)} ({len(index)} in total).", False))
        explained = True
    if not explained:
        if index is not None:
            lines.append((f"Atoms involved: {st.tokens(index)}.", False))
        if count is not None and spec.count_unit not in ("atoms", "value") and count != value:
            lines.append((f"That is {count} {spec.count_unit}.", False))
    lines.append((f"{key} = {value_text(sorted(value) if is_index else value)}", False))
    return lines


def _bond_pairs(name: str, smiles: str, st: Structure) -> list[tuple[int, int]] | None:
    """Atom pairs (written positions) of the bonds a bond-valued feature counts, or None if unknown."""
    mol = Chem.Mol(parse_smiles(smiles))
    if name == "rotatable_bond":
        matches = mol.GetSubstructMatches(STRICT_ROTATABLE, uniquify=True)
        return sorted(tuple(sorted((st.pos[a], st.pos[b]))) for a, b in matches if a in st.pos and b in st.pos)
    wanted = {
        "e_z_stereochemistry_double_bond_e": Chem.BondStereo.STEREOE,
        "e_z_stereochemistry_double_bond_z": Chem.BondStereo.STEREOZ,
        "stereochemistry_unspecified_double_bond": None,
    }
    if name not in wanted:
        return None
    Chem.AssignStereochemistry(mol, cleanIt=True, force=True)
    pairs = []
    for el in Chem.FindPotentialStereo(Chem.Mol(mol), cleanIt=False):
        if el.type != Chem.StereoType.Bond_Double:
            continue
        bond = mol.GetBondWithIdx(el.centeredOn)
        stereo = bond.GetStereo()
        kind = stereo if stereo in (Chem.BondStereo.STEREOE, Chem.BondStereo.STEREOZ) else None
        if kind == wanted[name]:
            a, b = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
            if a in st.pos and b in st.pos:
                pairs.append(tuple(sorted((st.pos[a], st.pos[b]))))
    return sorted(pairs)


def _atom_details(name: str, smiles: str, st: Structure) -> str | None:
    """A detailed-style line with the per-atom property the feature tests (degree, oxidation number)."""
    mol = parse_smiles(smiles)
    carbons = [a for a in st.atoms if a.symbol == "C"]
    if name in ("chain_termini", "branch_point") and carbons:
        deg = [f"{a.label()}:{sum(1 for n in mol.GetAtomWithIdx(a.rdkit_idx).GetNeighbors() if n.GetAtomicNum() != 1)}"
               for a in carbons]
        return "Heavy neighbours of each carbon: " + ", ".join(deg[:MAX_LISTED]) + "."
    if name.startswith("oxidation_state_"):
        el = name.split("_")[2]
        ox2 = oxidation_numbers_x2(Chem.Mol(mol))
        values = [(a, ox2[a.rdkit_idx]) for a in st.atoms if a.symbol == el]
        if not values:
            return f"No {el} atoms."
        parts = [f"{a.label()}:{_half(v)}" for a, v in values]
        return f"Oxidation numbers of {el} atoms: " + ", ".join(parts[:MAX_LISTED]) + "."
    return None


def _details_agree(name: str, smiles: str, st: Structure, index: Sequence[int]) -> bool:
    """Whether the per-atom numbers of :func:`_atom_details` select exactly ``index`` (else they are not shown)."""
    mol = parse_smiles(smiles)
    if name in ("chain_termini", "branch_point"):
        deg = {a.index: sum(1 for n in mol.GetAtomWithIdx(a.rdkit_idx).GetNeighbors() if n.GetAtomicNum() != 1)
               for a in st.atoms if a.symbol == "C"}
        chosen = [i for i, d in deg.items() if (d == 1 if name == "chain_termini" else d >= 3)]
        return sorted(chosen) == sorted(index)
    if name.startswith("oxidation_state_"):
        el, mm = name.split("_")[2], name.split("_")[3]
        ox2 = oxidation_numbers_x2(Chem.Mol(mol))
        values = {a.index: ox2[a.rdkit_idx] for a in st.atoms if a.symbol == el}
        if not values:
            return not index
        target = max(values.values()) if mm == "max" else min(values.values())
        return sorted(i for i, v in values.items() if v == target) == sorted(index)
    return True


def _half(x2: int) -> str:
    """An oxidation number stored doubled (``3`` -> ``+1.5``, ``-4`` -> ``-2``)."""
    return f"{x2 // 2:+d}" if x2 % 2 == 0 else f"{x2 / 2:+.1f}"


__all__ = ["MAX_LISTED", "Ring", "Structure", "feature_spec", "section", "structure", "value_text"]
