"""Ring-system topology from RDKit's ring set: fused ring systems, bridgehead atoms, spiro atoms."""
from __future__ import annotations


def fused_ring_systems(atom_rings: list[tuple[int, ...]]) -> list[list[int]]:
    """Groups of ring ids joined by sharing at least two atoms (only groups of two or more rings)."""
    n = len(atom_rings)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    sets = [set(r) for r in atom_rings]
    for i in range(n):
        for j in range(i + 1, n):
            if len(sets[i] & sets[j]) >= 2:
                ri, rj = find(i), find(j)
                if ri != rj:
                    parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return [g for g in groups.values() if len(g) >= 2]


def bridgehead_atoms(bond_rings: list[tuple[int, ...]], bond_atoms: list[tuple[int, int]]) -> list[int]:
    """RDKit's bridgehead definition (``CalcNumBridgeheadAtoms``), returning the atoms.

    For every pair of rings sharing more than one bond, the atoms at the two ends of the shared
    bond path (atoms touched by exactly one shared bond) are bridgeheads.
    """
    heads: set[int] = set()
    sets = [set(r) for r in bond_rings]
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            shared = sets[i] & sets[j]
            if len(shared) > 1:
                touch: dict[int, int] = {}
                for b in shared:
                    for a in bond_atoms[b]:
                        touch[a] = touch.get(a, 0) + 1
                heads.update(a for a, c in touch.items() if c == 1)
    return sorted(heads)


def spiro_atoms(atom_rings: list[tuple[int, ...]]) -> list[int]:
    """Atoms shared by two rings that have exactly that one atom in common."""
    sets = [set(r) for r in atom_rings]
    out: set[int] = set()
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            shared = sets[i] & sets[j]
            if len(shared) == 1:
                out.update(shared)
    return sorted(out)


__all__ = ["bridgehead_atoms", "fused_ring_systems", "spiro_atoms"]
