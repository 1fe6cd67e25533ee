"""Ranking algorithms (the travsr algorithms chapter): k-core shells,
personalized PageRank over weighted edges, 0-1 knapsack.

Invariants a change must keep:
- Deterministic: equal inputs give equal outputs (ties broken by index).
- PageRank passes a node's rank along its out-edges in proportion to their
  weights, divided by max(total out-weight, 1): a node whose out-weight is below 1
  (its only links are guesses: a name match of confidence 0.125, a weak kind)
  passes only that share, the rest returns to the personalization vector like a
  dangling node's (total rank stays 1). Above 1 only the ratios matter. A
  degenerate personalization (sum <= 0 or not finite) falls back to uniform
  instead of producing NaN.
- The knapsack is exact (2-D DP with backtracking) while items x budget fits
  ``max_cells``; beyond that a value/cost greedy is used, and the result says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np  # imported where used: every build runs kcore, which needs none


def kcore(n: int, edges: Sequence[tuple[int, int]]) -> list[int]:
    """Shell number of every node of an undirected graph (Batagelj-Zaversnik, O(V+E))."""
    adj: list[set[int]] = [set() for _ in range(n)]
    for a, b in edges:
        if a != b:
            adj[a].add(b)
            adj[b].add(a)
    deg = [len(a) for a in adj]
    maxdeg = max(deg, default=0)
    bins = [0] * (maxdeg + 1)
    for d in deg:
        bins[d] += 1
    start = 0
    for d in range(maxdeg + 1):
        bins[d], start = start, start + bins[d]
    pos = [0] * n
    vert = [0] * n
    for v in range(n):
        pos[v] = bins[deg[v]]
        vert[pos[v]] = v
        bins[deg[v]] += 1
    for d in range(maxdeg, 0, -1):
        bins[d] = bins[d - 1]
    if maxdeg >= 0 and bins:
        bins[0] = 0
    for i in range(n):
        v = vert[i]
        for u in adj[v]:
            if deg[u] > deg[v]:
                du = deg[u]
                pu = pos[u]
                pw = bins[du]
                w = vert[pw]
                if u != w:
                    pos[u], pos[w] = pw, pu
                    vert[pu], vert[pw] = w, u
                bins[du] += 1
                deg[u] -= 1
    return deg


def ppr(
    n: int,
    src: np.ndarray,
    dst: np.ndarray,
    weight: np.ndarray,
    personalization: np.ndarray,
    alpha: float = 0.85,
    epsilon: float = 1e-6,
    max_iter: int = 50,
) -> tuple[np.ndarray, int]:
    """Personalized PageRank by power iteration; returns (scores, iterations)."""
    import numpy as np

    p = np.asarray(personalization, dtype=np.float64)
    total = p.sum()
    if not math.isfinite(total) or total <= 0:
        p = np.full(n, 1.0 / max(n, 1))
    else:
        p = p / total
    out_w = np.bincount(src, weights=weight, minlength=n) if len(src) else np.zeros(n)
    # a node passes min(out-weight, 1) of its rank: a guess passes what it is worth
    divisor = np.maximum(out_w, 1.0)
    norm = weight / divisor[src] if len(src) else weight
    kept = out_w / divisor  # the share each node passes on (0 for a dangling node)
    r = p.copy()
    iterations = 0
    while iterations < max_iter:
        iterations += 1
        flow = np.bincount(dst, weights=r[src] * norm, minlength=n) if len(src) else np.zeros(n)
        # what dangling nodes and weak links do not pass returns to the personalization
        leak = float((r * (1.0 - kept)).sum())
        r_next = alpha * (flow + leak * p) + (1 - alpha) * p
        delta = np.abs(r_next - r).sum()
        r = r_next
        if delta < epsilon:
            break
    return r, iterations


def knapsack(
    values: Sequence[float], costs: Sequence[int], budget: int, max_cells: int = 500_000
) -> tuple[list[int], bool]:
    """Indices of the chosen items and whether the exact DP was used."""
    n = len(values)
    if n == 0 or budget <= 0:
        return [], True
    if n * (budget + 1) > max_cells:
        order = sorted(range(n), key=lambda i: (-values[i] / max(costs[i], 1), i))
        chosen, used = [], 0
        for i in order:
            if used + costs[i] <= budget:
                chosen.append(i)
                used += costs[i]
        return sorted(chosen), False
    import numpy as np

    scale = 1e6
    vals = [int(v * scale) for v in values]
    table = np.zeros((n + 1, budget + 1), dtype=np.int64)
    for i in range(1, n + 1):
        c, v = costs[i - 1], vals[i - 1]
        prev = table[i - 1]
        row = prev.copy()
        if c <= budget:
            cand = prev[: budget + 1 - c] + v
            row[c:] = np.maximum(prev[c:], cand)
        table[i] = row
    chosen = []
    b = budget
    for i in range(n, 0, -1):
        if table[i, b] != table[i - 1, b]:
            chosen.append(i - 1)
            b -= costs[i - 1]
    return sorted(chosen), True
