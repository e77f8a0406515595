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
ties are broken by the smallest vertex id.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

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


class _BudgetExceeded(Exception):
    pass


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


def _blocks(adj: dict[int, list[int]], root: int) -> list[list[int]]:
    """Biconnected components (vertex lists) of a connected graph, iterative Tarjan."""
    disc: dict[int, int] = {root: 0}
    low: dict[int, int] = {root: 0}
    counter = 1
    edge_stack: list[tuple[int, int]] = []
    blocks: list[list[int]] = []
    stack = [(root, -1, iter(adj[root]))]
    while stack:
        u, parent, it = stack[-1]
        advanced = False
        for v in it:
            if v == parent:
                continue
            if v not in disc:
                disc[v] = low[v] = counter
                counter += 1
                edge_stack.append((u, v))
                stack.append((v, u, iter(adj[v])))
                advanced = True
                break
            if disc[v] < disc[u]:
                edge_stack.append((u, v))
                low[u] = min(low[u], disc[v])
        if advanced:
            continue
        stack.pop()
        if stack:
            p = stack[-1][0]
            low[p] = min(low[p], low[u])
            if low[u] >= disc[p]:
                verts: set[int] = set()
                while True:
                    e = edge_stack.pop()
                    verts.update(e)
                    if e == (p, u):
                        break
                blocks.append(sorted(verts))
    return blocks


def _block_pair_paths(
    adj: dict[int, list[int]], verts: list[int], budget: list[int]
) -> dict[tuple[int, int], tuple[int, ...]]:
    """Longest simple path (as a vertex tuple) between every ordered pair of a block's vertices."""
    inside = set(verts)
    if len(verts) == 2:
        u, v = verts
        return {(u, v): (u, v), (v, u): (v, u)}
    best: dict[tuple[int, int], tuple[int, ...]] = {}
    local = {u: [w for w in adj[u] if w in inside] for u in verts}
    for s in verts:
        path = [s]
        on_path = {s}
        iters = [iter(local[s])]
        while iters:
            advanced = False
            for w in iters[-1]:
                if w in on_path:
                    continue
                budget[0] -= 1
                if budget[0] < 0:
                    raise _BudgetExceeded
                path.append(w)
                on_path.add(w)
                key = (s, w)
                old = best.get(key)
                if old is None or len(path) > len(old):
                    best[key] = tuple(path)
                iters.append(iter(local[w]))
                advanced = True
                break
            if not advanced:
                iters.pop()
                on_path.discard(path.pop())
    return best


def _block_dp(
    adj: dict[int, list[int]],
    comp: list[int],
    blocks: list[list[int]],
    pair_paths: list[dict[tuple[int, int], tuple[int, ...]] | None],
) -> tuple[int, tuple[int, ...] | None]:
    """Longest path over the block-cut tree.

    ``pair_paths[b]`` holds exact within-block paths, or ``None`` for an oversized block,
    which then counts ``len(block) - 1`` edges between any two of its vertices (an upper
    bound). Returns (edges, path); the path is ``None`` when an oversized block was used.
    """
    member: dict[int, list[int]] = {v: [] for v in comp}
    for b, verts in enumerate(blocks):
        for v in verts:
            member[v].append(b)

    def pair_len(b: int, u: int, v: int) -> int:
        pp = pair_paths[b]
        if pp is None:
            return len(blocks[b]) - 1
        return len(pp[(u, v)]) - 1

    # root the block-cut tree at the smallest vertex
    root = comp[0]
    parent_block: dict[int, int] = {root: -1}
    parent_vertex: dict[int, int] = {}
    order: list[tuple[str, int]] = [("v", root)]
    queue = deque([("v", root)])
    while queue:
        kind, x = queue.popleft()
        if kind == "v":
            for b in member[x]:
                if b != parent_block[x] and b not in parent_vertex:
                    parent_vertex[b] = x
                    order.append(("b", b))
                    queue.append(("b", b))
        else:
            for y in blocks[x]:
                if y != parent_vertex[x] and y not in parent_block:
                    parent_block[y] = x
                    order.append(("v", y))
                    queue.append(("v", y))

    # arm[(x, b)] = (edges, exit vertex y, next block or -1): longest path leaving x through b
    arm: dict[tuple[int, int], tuple[int, int, int]] = {}

    def ext(x: int, excl: int) -> tuple[int, int]:
        best, via = 0, -1
        for b in member[x]:
            if b == excl:
                continue
            a = arm.get((x, b))
            if a is not None and a[0] > best:
                best, via = a[0], b
        return best, via

    def best_exit(b: int, x: int, e: dict[int, tuple[int, int]]) -> tuple[int, int, int]:
        """Longest arm entering block b at x: max over exits y != x of L_b(x, y) + ext(y)."""
        if pair_paths[b] is None:  # oversized block: constant pair length, take the best ext
            k1 = len(blocks[b]) - 1
            y = max((z for z in blocks[b] if z != x), key=lambda z: (e[z][0], -z))
            return k1 + e[y][0], y, e[y][1]
        best = (-1, -1, -1)
        for y in blocks[b]:
            if y != x:
                total = pair_len(b, x, y) + e[y][0]
                if total > best[0]:
                    best = (total, y, e[y][1])
        return best

    # downward arms, children before parents (ext of a child vertex only uses its own children)
    for kind, b in reversed(order):
        if kind == "b":
            p = parent_vertex[b]
            e = {y: ext(y, b) for y in blocks[b] if y != p}
            e[p] = (0, -1)
            arm[(p, b)] = best_exit(b, p, e)
    # upward arms, parents before children
    for kind, b in order:
        if kind == "b":
            e = {z: ext(z, b) for z in blocks[b]}
            for y in blocks[b]:
                if y != parent_vertex[b]:
                    arm[(y, b)] = best_exit(b, y, e)

    best_total, best_choice = 0, None
    for b, verts in enumerate(blocks):
        e = {z: ext(z, b) for z in verts}
        if pair_paths[b] is None:
            top = sorted(verts, key=lambda z: (-e[z][0], z))[:2]
            u, v = top
            total = e[u][0] + len(verts) - 1 + e[v][0]
            if total > best_total:
                best_total, best_choice = total, (b, u, v, e[u][1], e[v][1])
            continue
        for i, u in enumerate(verts):
            eu, vu = e[u]
            for v in verts[i + 1:]:
                ev, vv = e[v]
                total = eu + pair_len(b, u, v) + ev
                if total > best_total:
                    best_total, best_choice = total, (b, u, v, vu, vv)
    if best_choice is None:
        return 0, (root,)
    if any(pp is None for pp in pair_paths):
        return best_total, None

    def expand(x: int, b: int) -> list[int]:
        out: list[int] = []
        while b != -1:
            _, y, nb = arm[(x, b)]
            seg = pair_paths[b][(x, y)]  # type: ignore[index]
            out.extend(seg[1:])
            x, b = y, nb
        return out

    b, u, v, vu, vv = best_choice
    left = expand(u, vu) if vu != -1 else []
    middle = list(pair_paths[b][(u, v)])  # type: ignore[index]
    right = expand(v, vv) if vv != -1 else []
    path = tuple(list(reversed(left)) + middle + right)
    return best_total, path


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
    blocks = _blocks(sub, comp[0])
    pair_paths: list[dict[tuple[int, int], tuple[int, ...]] | None] = [None] * len(blocks)
    # small blocks first, so one oversized block cannot starve the others of budget
    for b in sorted(range(len(blocks)), key=lambda i: (len(blocks[i]), i)):
        try:
            pair_paths[b] = _block_pair_paths(sub, blocks[b], enum_left)
        except _BudgetExceeded:
            pair_paths[b] = None  # oversized: bounded by len(block) - 1 edges
    upper_edges, path = _block_dp(sub, comp, blocks, pair_paths)
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


# ---------------------------------------------------------------------------------------
# ring-system helpers


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
