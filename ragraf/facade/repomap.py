"""repo_map: modules -> files -> key symbols within a token budget.

Personalized PageRank over code links weighted by kind and confidence (the
teleport vector is uniform over the in-scope symbols), boosted by the k-core
shell computed at index time, then a 0-1 knapsack picks the symbols that fit
``budget_tokens`` (cost = rendered line length / 4). Every parameter lives in
the ``repo_map`` section of project.yaml.

The map is of the project's own code: a built copy (a symbol under ``dist/`` or
``build/`` whose source the index holds at the same place under ``src/``, as search folds
it) and code copied in from other projects (``search.vendored_paths``) are left out, and
``left_out`` says how many of each.
"""

from __future__ import annotations

import math
import posixpath
from collections import defaultdict
from typing import Any

import numpy as np

from ragraf.facade import sanitize
from ragraf.facade.context import LIMIT_GREEDY_MAP, Ctx
from ragraf.facade.search.fold import copy_key
from ragraf.globs import GlobSet
from ragraf.kinds import MAP
from ragraf.model import MapSymbol, props_of
from ragraf.rank import knapsack, ppr


def _in_scope(scope: str | None, path: str, fqn: str | None) -> bool:
    if not scope:
        return True
    if "\\" in scope:
        return fqn is not None and fqn.lower().startswith(scope.lower().lstrip("\\"))
    s = scope.rstrip("/")
    return path == s or path.startswith(s + "/")


def _line(kind: str, fqn: str, props: dict[str, Any], detail: str) -> str:
    if detail == "signatures" and props.get("signature"):
        return sanitize.clean(props["signature"])
    short = fqn.rsplit("\\", 1)[-1]
    return f"{kind} {short}"


def _ranked(ctx: Ctx, scope: str | None) -> tuple[list[MapSymbol], np.ndarray, np.ndarray, int]:
    """The map symbols, their PageRank scores (k-core boosted), which are in scope, iterations."""
    cfg = ctx.s.config().repo_map
    rows = ctx.graph.symbols_for_map(ctx.rev)
    index = {r.node_id: i for i, r in enumerate(rows)}
    n = len(rows)
    weights = cfg.edge_weights
    src, dst, w = [], [], []
    for e in ctx.graph.graph_for_ranking(ctx.rev, list(weights)):
        a, b = index.get(e.src), index.get(e.dst)
        if a is None or b is None:
            continue
        src.append(a)
        dst.append(b)
        w.append(weights[e.kind] * e.confidence)
    in_scope = np.array(
        [r.kind in MAP and _in_scope(scope, r.path, r.fqn) for r in rows], dtype=bool
    )
    if not in_scope.any():
        return rows, np.zeros(n), in_scope, 0
    scores, iters = ppr(
        n,
        np.array(src, dtype=np.int64),
        np.array(dst, dtype=np.int64),
        np.array(w, dtype=np.float64),
        in_scope.astype(np.float64),
        cfg.alpha,
        cfg.epsilon,
        cfg.max_iter,
    )
    shells = np.array([r.shell for r in rows], dtype=np.float64)
    maxshell = shells.max() if n else 0
    if maxshell > 0:
        scores = scores * (1 + cfg.kcore_boost * shells / maxshell)
    return rows, scores, in_scope, iters


def centrality(ctx: Ctx) -> dict[str, float]:
    """Every map symbol's place in the whole revision's PageRank (the ranking ``repo_map``
    uses without a scope) as a percentile in [0, 1], 1 = the most central. Computed once
    per session and revision (search re-ranks with it)."""
    key = ("centrality", ctx.rev or "")
    cached = ctx.s.memo.get(key)
    if cached is None:
        rows, scores, _in, _it = _ranked(ctx, None)
        n = len(rows)
        pct = np.zeros(n)
        if n > 1:
            pct[np.argsort(scores, kind="stable")] = np.arange(n) / (n - 1)
        cached = ctx.s.memo[key] = {r.node_id: float(pct[i]) for i, r in enumerate(rows)}
    return cached  # shared: callers only read it


def _not_the_projects(ctx: Ctx, rows: list[MapSymbol], in_scope: np.ndarray) -> dict[str, int]:
    """Take out of ``in_scope`` (in place) the built copies whose source is indexed and the
    vendored symbols; returns how many of each."""
    keys = [copy_key(r.path, r.kind, r.name) if r.name else None for r in rows]
    sources = {k[0] for k in keys if k is not None and not k[1]}
    vendored = GlobSet(ctx.s.config().search.vendored_paths)
    out = {"built_copies": 0, "vendored": 0}
    for i, r in enumerate(rows):
        if not in_scope[i]:
            continue
        k = keys[i]
        if k is not None and k[1] and k[0] in sources:
            in_scope[i] = False
            out["built_copies"] += 1
            continue
        if vendored.match(r.path):
            in_scope[i] = False
            out["vendored"] += 1
    return out


def build_map(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    cfg = ctx.s.config().repo_map
    scope = args.get("scope")
    budget = args["budget_tokens"]
    detail = args["detail"]
    rows, scores, in_scope, iters = _ranked(ctx, scope)
    left_out = _not_the_projects(ctx, rows, in_scope)
    if not in_scope.any():
        return {
            "scope": scope,
            "modules": [],
            "budget_tokens": budget,
            "used_tokens": 0,
            "candidates": 0,
            "chosen": 0,
            "hint": f"nothing indexed under scope '{scope}'",
        }
    cand = [i for i in np.argsort(-scores, kind="stable") if in_scope[i]][: cfg.max_candidates]
    props = {i: props_of(rows[i].props) for i in cand}
    lines = {i: _line(rows[i].kind, rows[i].fqn or "", props[i], detail) for i in cand}
    per_file: dict[str, int] = defaultdict(int)
    for i in cand:
        per_file[rows[i].path] += 1
    costs = []
    for i in cand:
        header = math.ceil((len(rows[i].path) + 4) / 4)
        costs.append(
            math.ceil((len(lines[i]) + 8) / 4) + math.ceil(header / per_file[rows[i].path])
        )
    values = [float(scores[i]) for i in cand]
    chosen, exact = knapsack(values, costs, budget, cfg.knapsack_max_cells)
    picked = [cand[j] for j in chosen]
    # render and enforce the budget on the real rendering
    while True:
        modules, used = _render(ctx, rows, picked, lines)
        if used <= budget or not picked:
            break
        picked.remove(min(picked, key=lambda i: scores[i]))
    if not exact:
        ctx.limits.append(LIMIT_GREEDY_MAP)
    return {
        "scope": scope,
        "detail": detail,
        "modules": modules,
        "budget_tokens": budget,
        "used_tokens": used,
        "candidates": len(cand),
        "chosen": len(picked),
        "pagerank_iterations": iters,
        "left_out": left_out,
    }


def _render(
    ctx: Ctx, rows: list[MapSymbol], picked: list[int], lines: dict[int, str]
) -> tuple[list[dict[str, Any]], int]:
    files: dict[str, list[int]] = defaultdict(list)
    for i in picked:
        files[rows[i].path].append(i)
    mods: dict[str, list[str]] = defaultdict(list)
    for path in files:
        mods[posixpath.dirname(path) or "."].append(path)
    out = []
    used = 0
    for mod in sorted(mods):
        used += math.ceil((len(mod) + 2) / 4)
        fl = []
        for path in sorted(mods[mod]):
            ctx.touch(path)
            used += math.ceil((len(path) + 4) / 4)
            syms = []
            for i in sorted(files[path], key=lambda k: rows[k].start_line or 0):
                used += math.ceil((len(lines[i]) + 8) / 4)
                syms.append(
                    {
                        "kind": rows[i].kind,
                        "fqn": sanitize.name(rows[i].fqn),
                        "line": rows[i].start_line,
                        "text": lines[i],
                        "node_id": rows[i].node_id,
                    }
                )
            fl.append({"path": path, "symbols": syms})
        out.append({"module": mod, "files": fl})
    return out, used
