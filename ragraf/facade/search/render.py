"""Stage 6 of search, the result: the hits in order with their ``why``, the confidence and the
measures the abstention weighed.

Invariants a change must keep:
- Every feature that moved a hit is in its ``why``, built from its candidate alone (``why``):
  exact_symbol, fts_terms, the rank in each channel (with the cosine of a vector neighbour),
  strong_signal, expanded_with, ui_terms (the user-facing text channel), neighbour_of (how a
  candidate beyond the channels came next to a first hit), rerank features, name_match, bm25,
  windows, built_copies.
- While the revision's vectors are still arriving, a hit whose chunk has no vector yet says
  so in ``why`` (``vector``).
- Each hit has a one-line ``reason`` in plain words, made from the same candidate
  (``reason``); ``why`` keeps the measures.
- Paths are touched for the stale warnings; names and texts pass ``sanitize``.
"""

from __future__ import annotations

from typing import Any

from ragraf.facade import sanitize
from ragraf.facade.context import Ctx
from ragraf.facade.search.abstain import Evidence, Verdict
from ragraf.facade.search.candidate import Candidate, Channel
from ragraf.facade.search.words import QueryWords
from ragraf.kinds import NameMatch

#: anchors score this, above any fused score
EXACT_SCORE = 1000.0


def why(c: Candidate, expanded_with: list[str]) -> dict[str, Any]:
    """What moved ``c``, in the order the stages learnt it (``expanded_with``: the words of
    the vocabulary expansion, named on the candidates it ranked)."""
    w: dict[str, Any] = {}
    if c.exact:
        w["exact_symbol"] = True
    if c.bm25 is not None:
        w["fts_terms"] = c.matched
    for channel in (Channel.LEXICAL, Channel.VECTOR, Channel.NAME):
        if channel in c.ranks:
            w[f"{channel}_rank"] = c.ranks[channel]
            if channel is Channel.VECTOR:
                w["cosine"] = c.cosine
    if c.strong:
        w["strong_signal"] = [{"channel": str(s.channel), "z": s.z} for s in c.strong]
    if Channel.EXPANSION in c.ranks:
        w["expansion_rank"] = c.ranks[Channel.EXPANSION]
        w["expanded_with"] = expanded_with
    if Channel.UI in c.ranks:
        w["ui_rank"] = c.ranks[Channel.UI]
        w["ui_terms"] = c.ui_matched
    if Channel.NEIGHBOUR in c.ranks:
        w["neighbour_rank"] = c.ranks[Channel.NEIGHBOUR]
        w["neighbour_of"] = c.neighbour_of
    if c.features is not None:
        w["rerank"] = {k: round(v, 3) for k, v in c.features._asdict().items() if v}
        if c.name_how:
            w["name_match"] = c.name_how
        if c.cosine is not None and "cosine" not in w:
            w["cosine"] = c.cosine
    if c.bm25 is not None:
        w["bm25"] = c.bm25
    return w


#: what a brief hit's ``why`` keeps: what places it or says how it was found beyond its
#: one-line ``reason`` (the scoring features are in ``detail: full``)
BRIEF_WHY = ("exact_symbol", "windows", "built_copies", "neighbour_of", "expanded_with", "vector")


def brief_why(w: dict[str, Any]) -> dict[str, Any]:
    """``why`` without its scoring features (``BRIEF_WHY``)."""
    return {k: w[k] for k in BRIEF_WHY if k in w}


#: the query words a hit's one-line reason names (all are in ``why.fts_terms``)
REASON_WORDS = 5
#: a vector neighbour's cosine from which the reason calls it close in meaning
CLOSE_COSINE = 0.5


def reason(c: Candidate) -> str:
    """Why ``c`` is a hit, in one line of plain words (``why`` holds the measures): its
    name, the query's words in its text, its meaning."""
    parts = []
    if c.exact or c.name_how == NameMatch.EXACT:
        parts.append("its name is the query")
    elif c.name_how == NameMatch.PREFIX:
        parts.append("its name starts with the query")
    elif c.name_how:
        parts.append("its name has words of the query")
    if c.matched and not c.exact:
        shown = ", ".join(c.matched[:REASON_WORDS]) + (
            " ..." if len(c.matched) > REASON_WORDS else ""
        )
        parts.append(f"its text has {shown}")
    if Channel.VECTOR in c.ranks:
        parts.append(
            "close in meaning"
            if c.cosine is not None and c.cosine >= CLOSE_COSINE
            else "among the nearest in meaning"
        )
    if c.ui_matched and Channel.UI in c.ranks:
        parts.append("its messages to the user have " + ", ".join(c.ui_matched[:REASON_WORDS]))
    if not parts and Channel.NEIGHBOUR in c.ranks and c.neighbour_of:
        parts.append(f"next to a first hit ({c.neighbour_of})")
    if not parts and Channel.EXPANSION in c.ranks:
        parts.append("through words related to the query")
    return "; ".join(parts) or "found by its name"


def score(c: Candidate) -> float:
    """An anchor's ``EXACT_SCORE``, else the re-rank's score, else the fused one."""
    if c.exact:
        return EXACT_SCORE
    return round(c.final if c.final is not None else (c.fused or 0.0), 6)


def render(
    ctx: Ctx,
    args: dict[str, Any],
    q: QueryWords,
    hits: list[Candidate],
    ev: Evidence,
    verdict: Verdict,
    expanded_with: list[str],
) -> dict[str, Any]:
    """The search result of the folded ``hits`` (the first ``args["limit"]``; with their text
    when ``args["with_text"]``)."""
    shown = hits[: args["limit"]]
    no_vector: dict[str, str] = {}
    if ev.best_cosine is not None and ctx.vectors_filling() is not None:
        from ragraf.indexing.vectors import skip_reason

        missing = sorted(ctx.lex.without_vector(ctx.rev, [c.id for c in shown]))
        for cid, text in ctx.lex.texts(ctx.rev, missing).items():
            skipped = skip_reason(text)
            no_vector[cid] = f"none ({skipped})" if skipped else "not embedded yet"
    out_hits = []
    for c in shown:
        n = c.node
        ctx.touch(c.chunk.path)
        w = why(c, expanded_with)
        if c.id in no_vector:
            w["vector"] = no_vector[c.id]
        if c.built_copies is not None:
            w["built_copies"] = c.built_copies
        if c.windows is not None:
            w["windows"] = c.windows
        out_hits.append(
            {
                "chunk_id": c.id,
                "path": c.chunk.path,
                "start_line": c.chunk.start_line,
                "end_line": c.chunk.end_line,
                "evidence": f"{c.chunk.path}:{c.chunk.start_line}",
                "score": score(c),
                "source_kind": c.chunk.source_kind,
                "kind": c.kind,
                "fqn": sanitize.name(n.fqn) if n else None,
                "node_id": c.chunk.node_id,
                "reason": reason(c),
                "why": (w if args.get("detail") == "full" else brief_why(w)) or {"fused": True},
            }
        )
    if args.get("with_text"):
        texts = ctx.lex.texts(ctx.rev, [c.id for c in shown])
        for h in out_hits:
            h["text"] = sanitize.untrusted(texts.get(str(h["chunk_id"]), ""))
    out: dict[str, Any] = {
        "query": sanitize.clean(q.text),
        "terms": q.terms,
        "hits": out_hits,
        "abstained": not out_hits,
        "confidence": verdict.confidence,
        "hint": None,
    }
    if ev.best_cosine is not None:
        out["best_cosine"] = ev.best_cosine
    out["term_coverage"] = round(ev.coverage, 4)
    if ev.meet is not None:
        out["words_meet"] = round(ev.meet, 4)
    if ev.near is not None:
        out["words_meet_near"] = round(ev.near, 4)
    if out_hits and verdict.confidence == "weak" and verdict.reason:
        out["weak_reason"] = verdict.reason
    if not out_hits:
        out["hint"] = (
            f"not found: {verdict.reason}. Try a symbol name or other words, or search the"
            " working tree (rg) for code added after the index."
        )
    return out
