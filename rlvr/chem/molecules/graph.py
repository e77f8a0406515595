"""Bounded graph algorithms behind the topology features.

The only exponential problem among the MolecularIQ features is the longest simple path
(longest carbon chain). :func:`longest_simple_path` solves it exactly with a work bound:

1. A connected component that is a tree (no carbon ring) is solved by two breadth-first
   searches (tree diameter), ``O(n)``.
2. Otherwise the component is split into biconnected blocks (rings, fused ring systems,
   bridges). A simple path enters and leaves each block at most once, at cut vertices, so
   the longest path is a dynamic programme over the block-cut tree; inside each block the
   longest path between every pair of vertices is found by enumerating simple paths.
   Exact while the total number of enumeration steps stays within ``enum_budget``.
3. If a block is too large to enumerate (fullerenes, large cages, big fused systems), the
   dynamic programme is re-run with every oversized block replaced by the bound
   ``len(block) - 1`` edges, which yields an upper bound (tightened by the 2-colouring bound
   for bipartite components: a path alternates colours), and a depth-first search with
   Warnsdorff ordering and reachability pruning looks for a path of that length within
   ``search_budget`` work units (expansions plus vertices scanned by the pruning bound).
   Reaching the bound (a Hamiltonian path of C60, say) or
   finishing the search proves optimality; otherwise the best path found is returned with
   ``reason="search_budget_exhausted"`` (a lower bound on the true length).

All functions work on plain adjacency lists (``list[list[int]]``) and are deterministic:
ties are broken by the smallest vertex id. The block decomposition and its dynamic programme are in
:mod:`~rlvr.chem.molecules.blocks`; ring-system topology (fused systems, bridgeheads, spiro atoms)
in :mod:`~rlvr.chem.molecules.rings`.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from rlvr.chem.molecules.blocks import BudgetExceeded, biconnected_blocks, block_dp, block_pair_paths

#: default number of path-extension steps for the per-block enumeration (whole molecule)
ENUM_BUDGET = 10_000
#: default work units (expansions + vertices scanned by the pruning bound) of the fallback search
SEARCH_BUDGET = 50_000

REASON_BUDGET = "search_budget_exhausted"


@dataclass(frozen=True)
class PathResult:
    """A longest simple path: vertex sequence, whether it is proven optimal, and why not."""

    path: tuple[int, ...]
    exact: bool = True
    reason: str = ""

    @property
    def n_vertices(self) -> int:
        return len(self.path)


def connected_components(adj: list[list[int]], nodes: list[int]) -> list[list[int]]:
    """Connected components of the subgraph on ``nodes`` (each sorted, ordered by smallest id)."""
    allowed = set(nodes)
    seen: set[int] = set()
    comps: list[list[int]] = []
    for start in sorted(nodes):
        if start in seen:
            continue
        seen.add(start)
        comp = [start]
        queue = deque([start])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if v in allowed and v not in seen:
                    seen.add(v)
                    comp.append(v)
                    queue.append(v)
        comps.append(sorted(comp))
    return comps


def _bfs_far(adj: dict[int, list[int]], start: int) -> tuple[int, dict[int, int]]:
    parent = {start: -1}
    dist = {start: 0}
    queue = deque([start])
    far = start
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if v not in dist:
                dist[v] = dist[u] + 1
                parent[v] = u
                queue.append(v)
                if dist[v] > dist[far] or (dist[v] == dist[far] and v < far):
                    far = v
    return far, parent


def _tree_diameter(adj: dict[int, list[int]], comp: list[int]) -> tuple[int, ...]:
    a, _ = _bfs_far(adj, comp[0])
    b, parent = _bfs_far(adj, a)
    path = [b]
    while parent[path[-1]] != -1:
        path.append(parent[path[-1]])
    return tuple(path)


def _bounded_dfs(
    adj: dict[int, list[int]], comp: list[int], target: int, budget: int
) -> tuple[tuple[int, ...], bool]:
    """Depth-first search for a path with ``target`` vertices; returns (best, completed)."""
    best: list[int] = [comp[0]]
    steps = 0  # work units: one per expansion plus one per vertex visited by the reachability bound
    in_comp = set(comp)

    def reachable(u: int, visited: set[int]) -> int:
        seen = {u}
        queue = [u]
        while queue:
            x = queue.pop()
            for y in adj[x]:
                if y not in seen and y not in visited:
                    seen.add(y)
                    queue.append(y)
        return len(seen)

    starts = sorted(comp, key=lambda v: (len(adj[v]), v))
    for s in starts:
        path = [s]
        visited = {s}

        def order(u: int) -> list[int]:
            cand = [w for w in adj[u] if w not in visited and w in in_comp]
            cand.sort(key=lambda w: (sum(1 for z in adj[w] if z not in visited), w))
            return cand

        iters = [iter(order(s))]
        while iters:
            advanced = False
            for w in iters[-1]:
                if w in visited:
                    continue
                # prune: even visiting everything reachable cannot beat the best
                reach = reachable(w, visited)
                steps += 1 + reach
                if steps > budget:
                    return tuple(best), False
                if len(path) + reach <= len(best):
                    continue
                path.append(w)
                visited.add(w)
                if len(path) > len(best):
                    best = list(path)
                    if len(best) >= target:
                        return tuple(best), True
                iters.append(iter(order(w)))
                advanced = True
                break
            if not advanced:
                iters.pop()
                visited.discard(path.pop())
    return tuple(best), True


def longest_simple_path(
    adj: list[list[int]],
    nodes: list[int],
    enum_budget: int = ENUM_BUDGET,
    search_budget: int = SEARCH_BUDGET,
) -> PathResult:
    """Longest simple path in the subgraph induced by ``nodes`` (see module docstring)."""
    if not nodes:
        return PathResult(())
    allowed = set(nodes)
    sub = {u: sorted(v for v in adj[u] if v in allowed) for u in nodes}
    best: tuple[int, ...] = ()
    unproven_bounds: list[int] = []  # upper bounds (vertices) of components not solved exactly
    enum_left = [enum_budget]
    for comp in connected_components(adj, sorted(nodes)):
        if len(comp) <= len(best):
            continue  # cannot hold a longer path
        n_edges = sum(len(sub[u]) for u in comp) // 2
        if n_edges == len(comp) - 1:
            path, upper = _tree_diameter(sub, comp), None
        else:
            path, upper = _cyclic_component(sub, comp, enum_left, search_budget)
        if upper is not None:
            unproven_bounds.append(upper)
        if len(path) > len(best):
            best = path
    exact = all(len(best) >= ub for ub in unproven_bounds)
    return PathResult(best, exact, "" if exact else REASON_BUDGET)


def _cyclic_component(
    sub: dict[int, list[int]], comp: list[int], enum_left: list[int], search_budget: int
) -> tuple[tuple[int, ...], int | None]:
    """Longest path of a component with a cycle: (path, None) if exact, else (best, upper bound)."""
    blocks = biconnected_blocks(sub, comp[0])
    pair_paths: list[dict[tuple[int, int], tuple[int, ...]] | None] = [None] * len(blocks)
    # small blocks first, so one oversized block cannot starve the others of budget
    for b in sorted(range(len(blocks)), key=lambda i: (len(blocks[i]), i)):
        try:
            pair_paths[b] = block_pair_paths(sub, blocks[b], enum_left)
        except BudgetExceeded:
            pair_paths[b] = None  # oversized: bounded by len(block) - 1 edges
    upper_edges, path = block_dp(sub, comp, blocks, pair_paths)
    if path is not None:
        return path, None
    upper = min(upper_edges + 1, _bipartite_bound(sub, comp))
    found, completed = _bounded_dfs(sub, comp, upper, search_budget)
    if completed or len(found) >= upper:
        return found, None
    return found, upper


def _bipartite_bound(sub: dict[int, list[int]], comp: list[int]) -> int:
    """Upper bound on path vertices from 2-colouring: a path alternates colours (benzenoid cores)."""
    colour = {comp[0]: 0}
    queue = deque([comp[0]])
    while queue:
        u = queue.popleft()
        for v in sub[u]:
            if v not in colour:
                colour[v] = 1 - colour[u]
                queue.append(v)
            elif colour[v] == colour[u]:
                return len(comp)  # odd cycle: no bound from colouring
    a = sum(colour.values())
    b = len(comp) - a
    return 2 * min(a, b) + (1 if a != b else 0)
