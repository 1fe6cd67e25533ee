"""search: exact symbol anchors, lexical FTS5 matches and vector neighbours, fused by
reciprocal rank fusion (k = 60), with abstention (travsr low-level design §6).

Invariants a change must keep:
- Query text never reaches FTS5 syntax: it is tokenised like the index
  (``ragraf.tokens``) and every term is quoted.
- Exact symbol-name matches come first and say so in ``why``.
- RRF uses ranks, never raw scores: bm25 and cosine are not comparable.
- Abstention: nothing near is an answer (``abstained`` with a hint). A query
  that shares only generic words with the code, or covers few of its own terms,
  is vetoed when the embedding says nothing is near; a purely conceptual query
  (no lexical hit) is answered only when the embedding is confident.
- Vector neighbours are similarity, never a structural fact (``similar_to`` is
  not an edge here). Without vectors the search is lexical and limits say so; while
  the revision's vectors are still arriving, limits say how far they are and a hit
  whose chunk has no vector yet says so in ``why`` (``vector``).
"""

from __future__ import annotations

import re
from typing import Any

from ragraf.facade import sanitize
from ragraf.facade.context import Ctx
from ragraf.lang.registry import suffixes_of
from ragraf.model import ChunkRef, NodeRow
from ragraf.tokens import identifier_tokens

_IDENTISH = re.compile(r"^\\?[A-Za-z_$][\w\\$]*(::\$?\w+)?$")


def _stem(t: str) -> str:
    for suf in ("ing", "ed", "es", "s", "ly"):
        if len(t) > len(suf) + 3 and t.endswith(suf):
            return t[: -len(suf)]
    return t


def query_terms(query: str, stopwords: set[str]) -> list[str]:
    seen: dict[str, None] = {}
    for tok in identifier_tokens(query):
        low = tok.lower()
        if len(low) < 2 or low in stopwords:
            continue
        seen[low] = None
    return list(seen)


def fts_expression(terms: list[str]) -> str:
    parts = []
    for t in terms:
        parts.append(f'"{t}"')
        st = _stem(t)
        if st != t and len(st) >= 3:
            parts.append(f'"{st}"*')
    return " OR ".join(parts)


def _matched(terms: list[str], tokens: str) -> list[str]:
    tokset = set(tokens.lower().split())
    out = []
    for t in terms:
        st = _stem(t)
        if t in tokset or (len(st) >= 3 and any(x.startswith(st) for x in tokset)):
            out.append(t)
    return out


def run_search(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    cfg = dict(ctx.s.config().project["search"])
    cal = ctx.control.latest_calibration("threshold")
    if cal is not None:
        cal_id, cal_params = cal
        cfg.update(cal_params)
        ctx.limits.append(
            f"search threshold from calibration #{cal_id}"
            f" (abstain_cosine {cal_params['abstain_cosine']})"
        )
    stop = {s.lower() for s in cfg["stopwords"]}
    generic = {s.lower() for s in cfg["generic_words"]}
    query = args["query"]
    limit = args["limit"]
    ncand = int(cfg["candidates"])
    rrf_k = int(cfg["rrf_k"])
    nodes: dict[str, NodeRow] = {}
    chunks: dict[str, ChunkRef] = {}
    why: dict[str, dict[str, Any]] = {}
    lang = args.get("lang")
    suffixes = suffixes_of(lang) if lang else ()

    def accept(cid: str) -> bool:
        c = chunks[cid]
        n = nodes.get(c.node_id) if c.node_id else None
        if lang and not c.path.endswith(suffixes):
            return False
        return not (args.get("kinds") and (n.kind if n else c.source_kind) not in args["kinds"])

    # 1. exact symbol anchors
    anchors: list[str] = []
    q = query.strip().lstrip("\\")
    if _IDENTISH.match(q):
        rows = ctx.graph.nodes_by_fqn(ctx.rev, q) or ctx.graph.nodes_by_name(ctx.rev, q)
        if not rows and "::" in q:
            rows = ctx.graph.nodes_by_fqn_suffix(ctx.rev, q)
        nodes.update({n.node_id: n for n in rows})
        for c in ctx.lex.chunks_of_nodes(ctx.rev, [n.node_id for n in rows]):
            chunks[c.chunk_id] = c
            if c.chunk_id not in anchors and accept(c.chunk_id):
                anchors.append(c.chunk_id)
                why.setdefault(c.chunk_id, {})["exact_symbol"] = True
    # 2. lexical
    terms = query_terms(query, stop)
    lexical: list[str] = []
    bm25: dict[str, float] = {}
    matched_all: set[str] = set()
    best_cover = 0.0  # the largest share of the query's terms found in one chunk
    if terms:
        for r in ctx.lex.fts(ctx.rev, fts_expression(terms), cfg["bm25_weights"], ncand):
            chunks.setdefault(r.chunk_id, ChunkRef._make(r[:6]))
            tokens = (r.symbol_tokens, r.code_tokens, r.sql_tokens, r.text_tokens)
            m = _matched(terms, " ".join(tokens))
            why.setdefault(r.chunk_id, {})["fts_terms"] = m
            matched_all.update(m)
            best_cover = max(best_cover, len(m) / len(terms))
            bm25[r.chunk_id] = round(float(r.score), 4)
            lexical.append(r.chunk_id)
    # 3. vectors
    knn: list[str] = []
    cosine: dict[str, float] = {}
    vec_note = _vector_state(ctx)
    if vec_note is None:
        emb, err = ctx.s.embedder()
        if emb is None:
            vec_note = f"vectors unavailable ({err}): search is lexical"
        else:
            from ragraf.store.vec import VecStore, cosine_of

            qv = emb.embed_query(query)
            for cid, dist in VecStore(ctx.lex.db, emb.dim).knn(ctx.rev, qv, ncand):
                knn.append(cid)
                cosine[cid] = round(cosine_of(dist), 4)
    if vec_note:
        ctx.limits.append(vec_note)
    missing = [c for c in knn if c not in chunks]
    chunks.update(ctx.lex.chunk_refs(ctx.rev, missing))
    node_ids = [c.node_id for c in chunks.values() if c.node_id and c.node_id not in nodes]
    nodes.update(ctx.graph.nodes_by_ids(ctx.rev, node_ids))
    # 4. fusion
    fused: dict[str, float] = {}
    for ranked, name in ((lexical, "lexical_rank"), (knn, "vector_rank")):
        rank = 0
        for cid in ranked:
            if cid not in chunks or not accept(cid):
                continue
            rank += 1
            fused[cid] = fused.get(cid, 0.0) + 1.0 / (rrf_k + rank)
            why.setdefault(cid, {})[name] = rank
            if name == "vector_rank":
                why[cid]["cosine"] = cosine[cid]
    order = anchors + sorted((c for c in fused if c not in anchors), key=lambda c: (-fused[c], c))
    # 5. abstention
    best_cos = max(cosine.values(), default=None)
    confidence, reason = _confidence(
        anchors, lexical, best_cover, matched_all, generic, best_cos, cfg, bool(knn)
    )
    if confidence == "none":
        order = []
    filling = bool(knn) and ctx.vectors_filling() is not None
    no_vector: dict[str, str] = {}
    if filling:
        from ragraf.build.vectors import skip_reason

        missing = sorted(ctx.lex.without_vector(ctx.rev, order[:limit]))
        for cid, text in ctx.lex.texts(ctx.rev, missing).items():
            skipped = skip_reason(text)
            no_vector[cid] = f"none ({skipped})" if skipped else "not embedded yet"
    hits = []
    for cid in order[:limit]:
        c = chunks[cid]
        n = nodes.get(c.node_id) if c.node_id else None
        ctx.touch(c.path)
        score = 1000.0 if cid in anchors else round(fused.get(cid, 0.0), 6)
        w = why.get(cid, {})
        if cid in bm25:
            w["bm25"] = bm25[cid]
        if cid in no_vector:
            w["vector"] = no_vector[cid]
        hits.append(
            {
                "chunk_id": cid,
                "path": c.path,
                "start_line": c.start_line,
                "end_line": c.end_line,
                "evidence": f"{c.path}:{c.start_line}",
                "score": score,
                "source_kind": c.source_kind,
                "kind": n.kind if n else c.source_kind,
                "fqn": sanitize.name(n.fqn) if n else None,
                "node_id": c.node_id,
                "why": w or {"fused": True},
            }
        )
    if args.get("with_text"):
        texts = ctx.lex.texts(ctx.rev, [str(h["chunk_id"]) for h in hits])
        for h in hits:
            h["text"] = sanitize.untrusted(texts.get(str(h["chunk_id"]), ""))
    out: dict[str, Any] = {
        "query": sanitize.clean(query),
        "terms": terms,
        "hits": hits,
        "abstained": not hits,
        "confidence": confidence,
        "hint": None,
    }
    if best_cos is not None:
        out["best_cosine"] = best_cos
    if not hits:
        out["hint"] = (
            f"not found: {reason}. Try a symbol name or other words, or search the working tree (rg) "
            "for code added after the index."
        )
    return out


def _vector_state(ctx: Ctx) -> str | None:
    """None when the revision has vectors to search; otherwise why not (for limits)."""
    status = ctx.man.get("vectors") if ctx.rev == ctx.active else None
    if isinstance(status, dict) and status.get("status") == "disabled":
        return "vectors disabled for this revision (--no-vectors): search is lexical"
    if isinstance(status, dict) and status.get("status") == "unavailable":
        return f"vectors unavailable ({status.get('reason')}): search is lexical"
    filling = ctx.vectors_filling()
    if filling is not None:
        going = (
            "still embedding"
            if filling["status"] == "embedding"
            else "embedding interrupted: `ragraf vectors --resume` finishes it"
        )
        ctx.limits.append(
            f"vectors {filling['percent']}% embedded ({filling['embedded']} of {filling['total']}"
            f" chunks; {going}): chunks without a vector yet are found by their words only"
        )
    if not ctx.lex.has_vectors(ctx.rev):
        return "vectors unavailable for this revision: search is lexical"
    return None


def _confidence(
    anchors: list[str],
    lexical: list[str],
    coverage: float,
    matched: set[str],
    generic: set[str],
    best_cos: float | None,
    cfg: dict[str, Any],
    have_vectors: bool,
) -> tuple[str, str]:
    """exact | strong | weak | none (abstain), and the reason for none.

    ``coverage`` is the largest share of the query's terms that one chunk contains."""
    if anchors:
        return "exact", ""
    abstain, promote = float(cfg["abstain_cosine"]), float(cfg["promote_cosine"])
    min_cover = float(cfg["min_term_coverage"])
    if not have_vectors or best_cos is None:
        return ("weak", "") if lexical else ("none", "no indexed chunk contains these words")
    if lexical:
        if best_cos < abstain and (matched <= generic or coverage < min_cover):
            return "none", (
                f"the words shared with the code are generic or few ({', '.join(sorted(matched)) or '-'}; "
                f"at most {coverage:.0%} of the query in one place) and nothing is near in meaning "
                f"(best cosine {best_cos:.2f} < {abstain})"
            )
        return ("strong" if best_cos >= promote or coverage >= 0.99 else "weak"), ""
    if best_cos >= promote:
        return "strong", ""
    if best_cos >= abstain:
        return "weak", ""
    return (
        "none",
        f"no word matches and nothing is near in meaning (best cosine {best_cos:.2f} < {abstain})",
    )


def best_cosine(ctx: Ctx, query: str) -> float | None:
    """The cosine of the nearest chunk to ``query`` in this revision (None without vectors)."""
    if _vector_state(ctx) is not None:
        return None
    emb, _err = ctx.s.embedder()
    if emb is None:
        return None
    from ragraf.store.vec import VecStore, cosine_of

    hits = VecStore(ctx.lex.db, emb.dim).knn(ctx.rev, emb.embed_query(query), 1)
    return round(cosine_of(hits[0][1]), 4) if hits else None
