"""Longest simple path (longest carbon chain) and ring-system helpers against brute force."""
from __future__ import annotations

import random

import pytest
from rdkit import Chem

from rlvr.chem.molecules.graph import REASON_BUDGET, longest_simple_path
from rlvr.chem.molecules.rings import bridgehead_atoms, fused_ring_systems, spiro_atoms

C60 = (
    "C12=C3C4=C5C6=C1C7=C8C9=C1C%10=C%11C(=C29)C3=C2C3=C4C4=C5C5=C9C6=C7C6=C7C8=C1C1=C8C%10=C%10C%11=C2C2=C3C3="
    "C4C4=C5C5=C%11C%12=C(C6=C95)C7=C1C1=C%12C5=C%11C4=C3C3=C5C(=C81)C%10=C23"
)


def _brute(adj: list[list[int]], nodes: list[int]) -> int:
    allowed = set(nodes)
    best = 0

    def dfs(u: int, seen: set[int]) -> None:
        nonlocal best
        best = max(best, len(seen))
        for v in adj[u]:
            if v in allowed and v not in seen:
                seen.add(v)
                dfs(v, seen)
                seen.remove(v)

    for s in nodes:
        dfs(s, {s})
    return best


def _is_path(adj: list[list[int]], path: tuple[int, ...]) -> bool:
    return len(set(path)) == len(path) and all(b in adj[a] for a, b in zip(path, path[1:]))


def _random_graph(rng: random.Random, n: int, extra: int) -> list[list[int]]:
    adj: list[list[int]] = [[] for _ in range(n)]
    for v in range(1, n):  # random tree, then a few chords (rings), max degree 4 like carbon
        u = rng.randrange(v)
        if len(adj[u]) < 4:
            adj[u].append(v)
            adj[v].append(u)
    for _ in range(extra):
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b and b not in adj[a] and len(adj[a]) < 4 and len(adj[b]) < 4:
            adj[a].append(b)
            adj[b].append(a)
    return adj


@pytest.mark.parametrize("seed", range(40))
def test_matches_brute_force_on_random_graphs(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 14)
    adj = _random_graph(rng, n, rng.randint(0, 5))
    nodes = sorted(rng.sample(range(n), rng.randint(1, n)))
    result = longest_simple_path(adj, nodes)
    assert result.exact
    assert _is_path(adj, result.path) and set(result.path) <= set(nodes)
    assert result.n_vertices == _brute(adj, nodes)


@pytest.mark.parametrize(
    "smiles",
    ["CC(C)CC(C)(C)C", "C1CC2CCC1C2", "C12C3C4C1C5C2C3C45", "c1ccc2cc3ccccc3cc2c1",
     "C(C1CC1)(C1CC1)C1CC1", "C1CCC(CC1)CC1CCCCC1", "CC1CCC2C(C1)CCC1C2CCC2(C)C(O)CCC12"],
)
def test_matches_brute_force_on_molecules(smiles):
    m = Chem.MolFromSmiles(smiles)
    adj = [[n.GetIdx() for n in a.GetNeighbors()] for a in m.GetAtoms()]
    nodes = [a.GetIdx() for a in m.GetAtoms() if a.GetAtomicNum() == 6]
    result = longest_simple_path(adj, nodes)
    assert result.exact and _is_path(adj, result.path)
    assert result.n_vertices == _brute(adj, nodes)


def test_budget_exhaustion_returns_a_valid_path_and_a_reason():
    m = Chem.MolFromSmiles(C60)
    adj = [[n.GetIdx() for n in a.GetNeighbors()] for a in m.GetAtoms()]
    nodes = list(range(60))
    tiny = longest_simple_path(adj, nodes, enum_budget=10, search_budget=5)
    assert not tiny.exact and tiny.reason == REASON_BUDGET
    assert _is_path(adj, tiny.path) and 1 <= tiny.n_vertices < 60
    full = longest_simple_path(adj, nodes)
    assert full.exact and full.n_vertices == 60 and _is_path(adj, full.path)


def test_bipartite_bound_proves_optimality_without_a_hamiltonian_path():
    # adamantane's carbon graph is bipartite with parts 4 and 6: no path has more than 9 atoms
    m = Chem.MolFromSmiles("C1C2CC3CC1CC(C2)C3")
    adj = [[n.GetIdx() for n in a.GetNeighbors()] for a in m.GetAtoms()]
    result = longest_simple_path(adj, list(range(10)), enum_budget=0)
    assert result.exact and result.n_vertices == 9


def test_tree_and_empty_cases():
    assert longest_simple_path([[]], []).path == ()
    assert longest_simple_path([[]], [0]).n_vertices == 1
    adj = [[1], [0, 2], [1]]
    assert longest_simple_path(adj, [0, 2]).n_vertices == 1  # two carbons not bonded to each other
    chain = [[i - 1] * (i > 0) + [i + 1] * (i < 499) for i in range(500)]
    assert longest_simple_path(chain, list(range(500))).n_vertices == 500


def test_ring_system_helpers():
    norbornane = Chem.MolFromSmiles("C1CC2CCC1C2")
    ri = norbornane.GetRingInfo()
    bonds = [(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in norbornane.GetBonds()]
    assert bridgehead_atoms(list(ri.BondRings()), bonds) == [2, 5]
    assert fused_ring_systems([(0, 1, 2, 3), (2, 3, 4, 5), (7, 8, 9)]) == [[0, 1]]
    assert fused_ring_systems([(0, 1, 2), (2, 3, 4)]) == []  # spiro, not fused
    assert spiro_atoms([(0, 1, 2), (2, 3, 4)]) == [2]
