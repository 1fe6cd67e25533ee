from __future__ import annotations

import numpy as np

from ragraf.rank import kcore, knapsack, ppr


def test_kcore_shells() -> None:
    # a 4-clique (shell 3), a triangle hanging off it (shell 2), a tail (shell 1), an isolated node (0)
    edges = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (3, 4), (4, 5), (5, 3), (5, 6)]
    assert kcore(8, edges) == [3, 3, 3, 3, 2, 2, 1, 0]


def test_ppr_prefers_what_the_seed_reaches() -> None:
    src = np.array([0, 1, 2, 3])
    dst = np.array([1, 2, 0, 0])
    w = np.ones(4)
    pers = np.array([1.0, 0, 0, 0, 0])
    r, it = ppr(5, src, dst, w, pers)
    assert abs(r.sum() - 1) < 1e-6 and 1 <= it <= 50
    assert r[0] > r[1] > r[2] and r[4] == 0
    # a degenerate personalization falls back to uniform instead of NaN
    r2, _ = ppr(5, src, dst, w, np.zeros(5))
    assert np.isfinite(r2).all()
    # only weight ratios matter
    r3, _ = ppr(5, src, dst, w * 7, pers)
    assert np.allclose(r, r3)


def test_ppr_a_guess_passes_only_what_it_is_worth() -> None:
    """A node whose only link is a low-confidence guess (a name match of confidence 0.125,
    weighted 0.4) passes that share of its rank, not all of it: many guessed callers must
    not make a symbol central (MediaWiki's map was led by bundled JavaScript ``push``)."""
    # 0 -> 2 stated (1.0); 1 -> 3 a guess (0.4 * 0.125); uniform teleport
    src, dst = np.array([0, 1]), np.array([2, 3])
    r, _ = ppr(4, src, dst, np.array([1.0, 0.05]), np.ones(4))
    assert abs(r.sum() - 1) < 1e-6
    assert r[2] > r[3] > r[0] * 0.99  # the guessed target gains little
    # two stated links out of one node share its rank as before
    r2, _ = ppr(3, np.array([0, 0]), np.array([1, 2]), np.array([1.0, 1.0]), np.ones(3))
    assert abs(r2[1] - r2[2]) < 1e-9 and r2[1] > r2[0]


def test_knapsack_exact_and_greedy() -> None:
    values, costs = [60.0, 100.0, 120.0], [10, 20, 30]
    assert knapsack(values, costs, 50) == ([1, 2], True)
    chosen, exact = knapsack(values, costs, 50, max_cells=10)
    assert not exact and sum(costs[i] for i in chosen) <= 50
    assert knapsack([], [], 10) == ([], True)
