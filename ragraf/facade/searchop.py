"""search: exact symbol anchors, then lexical FTS5 matches (vectors arrive with issue 5).

Invariants a change must keep:
- Query text never reaches FTS5 syntax: it is tokenised like the index
  (``ragraf.tokens``) and every term is quoted.
- Exact symbol-name matches come first and say so in ``why``.
- No hits is an answer: ``abstained`` with a hint.
"""

from __future__ import annotations

import re
from typing import Any

from ragraf.facade import sanitize
from ragraf.facade.context import Ctx
from ragraf.tokens import identifier_tokens

_IDENTISH = re.compile(r"^\\?[A-Za-z_$][\w\\$]*(::\$?\w+)?$")
LANG_SUFFIX = {"php": (".php", ".inc", ".phtml"), "markdown": (".md",), "sql": (".sql",)}


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


def run_search(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    cfg = ctx.s.config().project["search"]
    stop = {s.lower() for s in cfg["stopwords"]}
    query = args["query"]
    limit = args["limit"]
    hits: list[dict[str, Any]] = []
    seen: set[str] = set()
    nodes_cache: dict[str, tuple[Any, ...]] = {}

    def accept(row_path: str, node_kind: str | None) -> bool:
        if args.get("lang") and not row_path.endswith(LANG_SUFFIX.get(args["lang"], ("." + args["lang"],))):
            return False
        return not (args.get("kinds") and node_kind not in args["kinds"])

    # 1. exact symbol anchors
    q = query.strip().lstrip("\\")
    if _IDENTISH.match(q):
        rows = ctx.graph.nodes_by_fqn(ctx.rev, q) or ctx.graph.nodes_by_name(ctx.rev, q)
        if not rows and "::" in q:
            rows = ctx.graph.nodes_by_fqn_suffix(ctx.rev, q)
        for n in rows:
            nodes_cache[n[0]] = n
        for c in ctx.lex.chunks_of_nodes(ctx.rev, [n[0] for n in rows]):
            n = nodes_cache.get(c[3])
            if c[0] in seen or not accept(c[1], n[1] if n else c[2]):
                continue
            seen.add(c[0])
            hits.append(_hit(ctx, c, 1000.0, n, {"exact_symbol": True}))
    # 2. lexical
    terms = query_terms(query, stop)
    if terms:
        weights = cfg["bm25_weights"]
        rows = ctx.lex.fts(ctx.rev, fts_expression(terms), weights, max(limit * 4, 40))
        node_rows = ctx.graph.nodes_by_ids(ctx.rev, [r[3] for r in rows if r[3]])
        for r in rows:
            if r[0] in seen:
                continue
            n = node_rows.get(r[3]) if r[3] else None
            if not accept(r[1], n[1] if n else r[2]):
                continue
            seen.add(r[0])
            tokens = " ".join(r[7:11]).lower().split()
            tokset = set(tokens)
            matched = [t for t in terms if t in tokset or any(x.startswith(_stem(t)) for x in tokset if len(_stem(t)) >= 3)]
            hits.append(_hit(ctx, r, round(float(r[6]), 4), n, {"fts_terms": matched}))
            if len(hits) >= limit:
                break
    hits = hits[:limit]
    if args.get("with_text"):
        texts = ctx.lex.texts(ctx.rev, [h["chunk_id"] for h in hits])
        for h in hits:
            h["text"] = sanitize.untrusted(texts.get(h["chunk_id"], ""))
    ctx.limits.append("vectors unavailable: search is lexical (exact names + FTS5)")
    out: dict[str, Any] = {"query": sanitize.clean(query), "terms": terms, "hits": hits, "abstained": not hits,
                           "hint": None}
    if not hits:
        out["hint"] = ("nothing in the index matches these words; try a symbol name, other words, "
                       "or search the working tree (rg) for code added after the index")
    return out


def _hit(ctx: Ctx, r: tuple[Any, ...], score: float, n: tuple[Any, ...] | None, why: dict[str, Any]) -> dict[str, Any]:
    ctx.touch(r[1])
    return {
        "chunk_id": r[0], "path": r[1], "start_line": r[4], "end_line": r[5], "evidence": f"{r[1]}:{r[4]}",
        "score": score, "source_kind": r[2], "kind": n[1] if n else r[2],
        "fqn": sanitize.name(n[3]) if n else None, "node_id": r[3], "why": why,
    }
