"""search: the operation. ``run_search`` reads the settings (the project's ``search`` section
with the latest calibration applied; limits say which) and runs the stages of
``ragraf.facade.search`` in order; ``signals`` reports the measures the abstention weighs,
without the thresholds, for ``calibrate``.

Invariants a change must keep:
- The stages run in the order ``ragraf.facade.search`` states, over one pool per query.
- The corpus's floor (measured at index time) moves the configured cosine thresholds; a
  calibration then overrides the thresholds it names, and limits say so.
"""

from __future__ import annotations

from typing import Any

from ragraf.facade.context import Ctx
from ragraf.facade.search import abstain, channels, fold, rank, render
from ragraf.facade.search.candidate import Channel, Pool, Scope, Settings
from ragraf.lang.registry import suffixes_of


def run_search(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """The ``search`` operation: ``args`` are the validated parameters (query, limit, lang,
    kinds, with_text); the result is the hits in order, or an abstention with a hint."""
    cfg = ctx.s.config().search
    vectors = ctx.man.get("vectors") if ctx.rev == ctx.active else None
    cfg = cfg.floored(vectors.get("floor") if isinstance(vectors, dict) else None)
    cal = ctx.control.latest_calibration("threshold")
    if cal is not None:
        cal_id, cal_params = cal
        cfg = cfg.calibrated(cal_params)
        shown = ", ".join(f"{k} {v}" for k, v in sorted(cal_params.items()))
        ctx.limits.append(f"search threshold from calibration #{cal_id} ({shown})")
    s = Settings.of(cfg)
    lang = args.get("lang")
    scope = Scope(suffixes_of(lang) if lang else None, frozenset(args.get("kinds") or ()))
    q = channels.read_query(ctx, args["query"], s)
    pool = Pool()
    # 1. channels
    found = channels.gather(ctx, q, s, scope, pool)
    # 2. fuse, then the vocabulary expansion (it reads the first fused hits) fused below
    rank.fuse_channels(found, pool, s, scope)
    extra, expanded = channels.expansion(ctx, pool, found, q, s)
    rank.fuse(expanded, Channel.EXPANSION, s.expansion_weight, s.rrf_k, scope)
    # the neighbours of the first hits and the symbols named with the query's words join the
    # re-rank pool, wherever their fused rank falls
    near = channels.neighbours(ctx, pool, q, s, extra) if s.neighbour_seeds > 0 else []
    rank.fuse(near, Channel.NEIGHBOUR, s.neighbour_weight, s.rrf_k, scope)
    # 3. re-rank the fused top (and the neighbours), order the hits
    fused = pool.fused()
    top = rank.rerank_pool(fused, near, s.rerank_top)
    facts = rank.read_facts(ctx, top, q, found, s)
    rank.rerank(top, q.weighed, s.rerank_weights, facts)
    order = rank.order(found.anchors, fused, top)
    # 4. abstain (after the re-rank: the words it read count in the coverage)
    ev = abstain.weigh(ctx, pool, found, q, s.near_band)
    verdict = abstain.confidence(ev, s.thresholds)
    # 5. fold, 6. render
    hits = [] if verdict.confidence == "none" else fold.one_per_symbol(fold.built_copies(order))
    return render.render(ctx, args, q, hits, ev, verdict, extra)


def signals(ctx: Ctx, query: str) -> tuple[float | None, float, float | None, float | None]:
    """(best cosine, term coverage, words meet, words meet near) of ``query`` as search
    measures them, for ``calibrate``; none depends on the thresholds. The search's limits are
    not kept."""
    before = list(ctx.limits)
    r = run_search(ctx, {"query": query, "limit": 1})
    ctx.limits[:] = before
    return (
        r.get("best_cosine"),
        float(r.get("term_coverage", 0.0)),
        r.get("words_meet"),
        r.get("words_meet_near"),
    )


def best_cosine(ctx: Ctx, query: str) -> float | None:
    """The cosine of the nearest chunk to ``query`` in this revision (None without vectors)."""
    if channels.vector_state(ctx) is not None:
        return None
    emb, _err = ctx.query_embedder()
    if emb is None:
        return None
    from ragraf.store.vec import VecStore, cosine_of

    hits = VecStore(ctx.lex.db, emb.dim).knn(ctx.rev, emb.embed_query(query), 1)
    return round(cosine_of(hits[0][1]), 4) if hits else None
