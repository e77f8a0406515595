"""Exact longest simple paths through biconnected blocks (step 2 of
:func:`rlvr.chem.molecules.graph.longest_simple_path`).

A simple path enters and leaves each biconnected block (ring, fused ring system, bridge) at most
once, at cut vertices, so the longest path of a component is a dynamic programme over its
block-cut tree; inside each block the longest path between every pair of vertices is found by
enumerating simple paths, within a shared step budget (:class:`BudgetExceeded` when it runs out).
"""
from __future__ import annotations

from collections import deque


class BudgetExceeded(Exception):
    """A block's path enumeration ran out of its step budget."""


def biconnected_blocks(adj: dict[int, list[int]], root: int) -> list[list[int]]:
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


def block_pair_paths(
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
                    raise BudgetExceeded
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


def block_dp(
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


__all__ = ["BudgetExceeded", "biconnected_blocks", "block_dp", "block_pair_paths"]
