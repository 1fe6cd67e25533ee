"""Stage 1 of search, the channels: each ranks chunks on one kind of evidence, and every chunk
one of them returns becomes a candidate of the pool.

- anchors: an identifier-like query that names a symbol (by fqn, by name, by fqn suffix):
  its accepted chunks, in file order;
- lexical: FTS5 bm25 over all token columns (``bm25_weights``), ``candidates`` rows;
- name: the symbol column alone, for a query of at most ``NAME_MAX_WORDS`` words, ranked by
  how well the words name the chunk's symbol (``words.name_match``; a chunk of the other
  channels joins when its name matches at 0.5 or more);
- vectors: the ``candidates`` nearest chunks in embedding space, with their cosines;
- expansion (run after the first fusion, ``expansion``): rare corpus words the first fused
  hits' doc comments and the nearest chunks' names share, searched alone.

Invariants a change must keep:
- A query is embedded in the space of the revision's vectors (``Ctx.query_embedder``: the
  configured model in the arithmetic they were made in); vectors of another model are not
  searched, and limits say why. Without vectors the search is lexical and limits say so;
  while the revision's vectors are still arriving, limits say how far they are.
- Vector neighbours are similarity, never a structural fact (``similar_to`` is not an edge
  here).
- A channel reads each chunk's tokens once (the first channel that returns it), and the node
  of every candidate is read before the name channel ranks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ragraf.facade.context import Ctx
from ragraf.facade.search.candidate import Candidate, Pool, Scope, Settings
from ragraf.facade.search.words import (
    QueryWords,
    doc_words,
    expansion_terms,
    fts_expression,
    matched_terms,
    name_match,
    name_tokens,
    query_terms,
)
from ragraf.kinds import EdgeKind, VectorStatus
from ragraf.model import ChunkRef, FtsHit

#: the symbol-name channel searches the symbol column only for queries of this many words or
#: fewer (a name has few words; a longer query is a description)
NAME_MAX_WORDS = 4
_IDENTISH = re.compile(r"^\\?[A-Za-z_$][\w\\$]*(::\$?\w+)?$")
_SYMBOL_ONLY = {"symbol": 1.0, "code": 0.0, "sql": 0.0, "text": 0.0}


@dataclass
class Found:
    """What the channels returned, best first (the candidates are in the pool).

    ``knn`` keeps every vector neighbour with its cosine, nearest first (a neighbour whose
    chunk is not in the revision's chunk map has no candidate: it counts for the best cosine
    and the places near in meaning only); ``vector`` the neighbours that are candidates.
    ``cosines`` reads the cosines of other chunks to the query (None without vectors)."""

    anchors: list[Candidate]
    lexical: list[Candidate]
    knn: list[tuple[str, float]]
    vector: list[Candidate]
    by_name: list[Candidate]
    cosines: Callable[[list[str]], dict[str, float]] | None = None
    ui: list[Candidate] = field(default_factory=list)


def read_query(ctx: Ctx, text: str, s: Settings) -> QueryWords:
    """The query's terms weighed by the revision's document frequencies."""
    terms = query_terms(text, s.stopwords)
    n, df = (ctx.lex.chunk_count(ctx.rev), ctx.lex.doc_freq(ctx.rev, terms)) if terms else (0, {})
    return QueryWords.of(text, terms, df, n, s.function_words)


def gather(ctx: Ctx, q: QueryWords, s: Settings, scope: Scope, pool: Pool) -> Found:
    """Run the channels of query ``q`` into ``pool``; limits say how vectors were searched.
    Afterwards every candidate has its node, and its name scored when a lexical, name or
    vector channel returned it."""
    anchors = _anchors(ctx, q.text, scope, pool)
    lexical: list[Candidate] = []
    named: list[Candidate] = []
    if q.terms:
        for r in ctx.lex.fts(ctx.rev, fts_expression(q.terms), s.bm25_weights, s.candidates):
            c = pool.add(ChunkRef._make(r[:6]))
            c.tokens = _row_tokens(r)
            c.matched = matched_terms(q.terms, c.tokens)
            c.bm25 = round(float(r.score), 4)
            lexical.append(c)
    ui = user_text(ctx, q, s, pool) if q.terms and s.ui_weight > 0 else []
    if q.terms and len(q.terms) <= NAME_MAX_WORDS:
        # a name has few words: a longer query is a description, its candidates suffice
        expr = f"symbol_tokens : ({fts_expression(q.terms)})"
        named = _read_rows(ctx.lex.fts(ctx.rev, expr, _SYMBOL_ONLY, s.candidates), q, pool)
    knn, cosines = _vectors(ctx, q.text, s.candidates)
    refs = ctx.lex.chunk_refs(ctx.rev, [cid for cid, _cos in knn if cid not in pool])
    vector = []
    for cid, cos in knn:
        neighbour = pool.get(cid) or (pool.add(refs[cid]) if cid in refs else None)
        if neighbour is not None:
            neighbour.cosine = cos
            vector.append(neighbour)
    pool.give_nodes(ctx.graph.nodes_by_ids(ctx.rev, pool.nodes_to_read()))
    by_name = name_channel([*named, *lexical, *vector], named, q)
    return Found(anchors, lexical, knn, vector, by_name, cosines, ui)


def user_text(ctx: Ctx, q: QueryWords, s: Settings, pool: Pool) -> list[Candidate]:
    """The user-facing text channel: chunks whose translation, exception and log messages
    (ft_ui) hold the query's words, by bm25; a chunk counts when its text holds half of the
    query's content words and at least two (the one, when the query has one): a message that
    shares a word or two with a long question is noise."""
    n_content = len(q.content or q.terms)
    need = min(n_content, max(2, (n_content + 1) // 2))
    out = []
    for r in ctx.lex.fts_ui(ctx.rev, fts_expression(q.terms), s.candidates):
        held = matched_terms(q.terms, r.ui_tokens)
        if len([t for t in held if t in q.content or not q.content]) < need:
            continue
        c = pool.add(ChunkRef._make(r[:6]))
        c.ui_matched = held
        out.append(c)
    return out


def _row_tokens(r: FtsHit) -> str:
    return " ".join((r.symbol_tokens, r.code_tokens, r.sql_tokens, r.text_tokens))


def _read_rows(rows: list[FtsHit], q: QueryWords, pool: Pool) -> list[Candidate]:
    """The candidates of FTS rows, in order; a chunk's tokens are kept from the first row."""
    out = []
    for r in rows:
        c = pool.add(ChunkRef._make(r[:6]))
        if c.tokens is None:
            c.tokens = _row_tokens(r)
            c.matched = matched_terms(q.terms, c.tokens)
        out.append(c)
    return out


def _anchors(ctx: Ctx, text: str, scope: Scope, pool: Pool) -> list[Candidate]:
    """The accepted chunks of the symbols an identifier-like query names exactly."""
    q = text.strip().lstrip("\\")
    if not _IDENTISH.match(q):
        return []
    rows = ctx.graph.nodes_by_fqn(ctx.rev, q) or ctx.graph.nodes_by_name(ctx.rev, q)
    if not rows and "::" in q:
        rows = ctx.graph.nodes_by_fqn_suffix(ctx.rev, q)
    pool.give_nodes({n.node_id: n for n in rows})
    anchors: list[Candidate] = []
    for ref in ctx.lex.chunks_of_nodes(ctx.rev, [n.node_id for n in rows]):
        c = pool.add(ref)
        if not c.exact and scope.accepts(c):
            c.exact = True
            anchors.append(c)
    # the name as written first (validateUser before a class ValidateUser), then file order
    same = {n.node_id for n in rows if q in (n.name, n.fqn)}
    return sorted(anchors, key=lambda c: c.chunk.node_id not in same)


def name_channel(
    returned: list[Candidate], named: list[Candidate], q: QueryWords
) -> list[Candidate]:
    """Score how well ``q`` names the symbol of each candidate ``returned`` (sets
    ``name_score``, ``name_how``) and rank the name channel: the candidates the symbol-column
    search returned (``named``) whose name matches at all, and any other whose name matches
    at 0.5 or more; best match first, then the higher bm25, then the chunk id."""
    scored: list[Candidate] = []
    for c in dict.fromkeys(returned):
        n = c.node
        if n is None or not n.name:
            continue
        owner = n.fqn.rsplit("::", 1)[0] if n.fqn and "::" in n.fqn else None
        c.name_score, c.name_how = name_match(q.terms, n.name, owner, q.name_words)
        if c.name_score > 0:
            scored.append(c)
    from_names = set(named)
    return sorted(
        (c for c in scored if c in from_names or c.name_score >= 0.5),
        key=lambda c: (-c.name_score, -(c.bm25 or 0.0), c.id),
    )


def _vectors(
    ctx: Ctx, text: str, k: int
) -> tuple[list[tuple[str, float]], Callable[[list[str]], dict[str, float]] | None]:
    """The ``k`` nearest chunks to the query, with their cosines, and how to read the
    cosine of any other chunk; ([], None) without vectors (limits say why)."""
    note = vector_state(ctx)
    knn: list[tuple[str, float]] = []
    cosines = None
    if note is None:
        emb, err = ctx.query_embedder()
        if emb is None:
            note = f"vectors unavailable ({err}): search is lexical"
        else:
            from ragraf.store.vec import VecStore, cosine_of

            qv = emb.embed_query(text)
            vec = VecStore(ctx.lex.db, emb.dim)
            knn = [(cid, round(cosine_of(dist), 4)) for cid, dist in vec.knn(ctx.rev, qv, k)]

            def cosines(ids: list[str]) -> dict[str, float]:
                return {
                    cid: round(cosine_of(d), 4)
                    for cid, d in vec.distances(ctx.rev, qv, ids).items()
                }

    if note:
        ctx.limits.append(note)
    return knn, cosines


#: edges that make a symbol a neighbour of a first hit, and how ``why`` says it (out, in)
_NEIGHBOUR_EDGES = {
    EdgeKind.CALLS: ("calls", "called by"),
    EdgeKind.CALLS_HEURISTIC: ("calls", "called by"),
    EdgeKind.CONTAINS: ("holds", "member of"),
}
#: at most this many neighbours of one first hit join the pool
NEIGHBOURS_PER_SEED = 8


def neighbours(
    ctx: Ctx, pool: Pool, q: QueryWords, s: Settings, extra: list[str]
) -> list[Candidate]:
    """Candidates beyond the channels' first 50 (issue 46): the callers, callees and class
    members (and class) of the first ``neighbour_seeds`` fused hits, their names scored
    against the query's words and its expansion ``extra`` (best first within a hit, hits in
    their fused order), then the symbols whose names share those words (the symbol column
    searched for them). Each says how it came (``neighbour_of``); their first chunks join."""
    seeds = [c for c in pool.fused()[: s.neighbour_seeds] if c.node is not None]
    if not seeds or not q.terms:
        return []
    words = list(dict.fromkeys([*q.terms, *extra]))
    seed_ids = [c.node.node_id for c in seeds if c.node is not None]
    kinds = list(_NEIGHBOUR_EDGES)
    edges = ctx.graph.edges_from(ctx.rev, seed_ids, kinds) + ctx.graph.edges_to(
        ctx.rev, seed_ids, kinds
    )
    near: dict[str, str] = {}  # node id -> how
    by_seed: dict[str, list[tuple[str, str]]] = {}
    for e in edges:
        outward = e.src in seed_ids
        other = e.dst if outward else e.src
        seed = e.src if outward else e.dst
        if other in seed_ids:
            continue
        how = _NEIGHBOUR_EDGES[EdgeKind(e.kind)][0 if outward else 1]
        by_seed.setdefault(seed, []).append((other, how))
    nodes = ctx.graph.nodes_by_ids(ctx.rev, {o for lst in by_seed.values() for o, _h in lst})
    for sid in seed_ids:
        seed_node = pool.node(sid)
        seed_name = (seed_node.fqn or seed_node.name) if seed_node else sid
        scored = []
        for other, how in dict.fromkeys(by_seed.get(sid, [])):
            n = nodes.get(other)
            if n is None or not n.name or other in near:
                continue
            owner = n.fqn.rsplit("::", 1)[0] if n.fqn and "::" in n.fqn else None
            scored.append((-name_match(words, n.name, owner)[0], n.fqn or n.name, other, how))
        for _sc, _name, other, how in sorted(scored)[:NEIGHBOURS_PER_SEED]:
            near[other] = f"{how} {seed_name}"
    expr = f"symbol_tokens : ({fts_expression(words)})"
    for r in ctx.lex.fts(ctx.rev, expr, _SYMBOL_ONLY, s.candidates):
        if r.node_id and r.node_id not in near and r.node_id not in seed_ids:
            shared = [w for w in words if w in matched_terms([w], r.symbol_tokens)]
            if len(shared) >= min(2, len(words)):
                near[r.node_id] = "name shares " + ", ".join(shared)
    pool.give_nodes(ctx.graph.nodes_by_ids(ctx.rev, [i for i in near if pool.node(i) is None]))
    firsts: dict[str, ChunkRef] = {}
    for chunk in ctx.lex.chunks_of_nodes(ctx.rev, list(near)):
        if chunk.node_id and chunk.node_id not in firsts:
            firsts[chunk.node_id] = chunk
    out = []
    for node_id, how in near.items():
        first = firsts.get(node_id)
        if first is None:
            continue
        c = pool.add(first)
        if c.neighbour_of is None:
            c.neighbour_of = how
        out.append(c)
    pool.give_nodes({})
    return out


def vector_state(ctx: Ctx) -> str | None:
    """None when the revision has vectors to search; otherwise why not (for limits)."""
    status = ctx.man.get("vectors") if ctx.rev == ctx.active else None
    if isinstance(status, dict) and status.get("status") == VectorStatus.DISABLED:
        return "vectors disabled for this revision (--no-vectors): search is lexical"
    if isinstance(status, dict) and status.get("status") == VectorStatus.UNAVAILABLE:
        return f"vectors unavailable ({status.get('reason')}): search is lexical"
    filling = ctx.vectors_filling()
    if filling is not None:
        going = (
            "still embedding"
            if filling["status"] == VectorStatus.EMBEDDING
            else "embedding interrupted: `ragraf vectors --resume` finishes it"
        )
        ctx.limits.append(
            f"vectors {filling['percent']}% embedded ({filling['embedded']} of {filling['total']}"
            f" chunks; {going}): chunks without a vector yet are found by their words only"
        )
    if not ctx.lex.has_vectors(ctx.rev):
        return "vectors unavailable for this revision: search is lexical"
    return None


def expansion(
    ctx: Ctx, pool: Pool, found: Found, q: QueryWords, s: Settings
) -> tuple[list[str], list[Candidate]]:
    """Vocabulary expansion, after the first fusion: the corpus's own words for the query
    (``words.expansion_terms`` over the doc comments of the first three fused hits and the
    names of the ten nearest chunks) and the candidates they alone find (their nodes read);
    ([], []) when there are none."""
    first = pool.fused()[:5]
    if not (q.terms and s.expansion_terms > 0 and first):
        return [], []
    texts = ctx.lex.texts(ctx.rev, [c.id for c in first[:3]])
    sources = [doc_words(texts.get(c.id, "")) for c in first[:3]]
    for cid, _cos in found.knn[:10]:
        c = pool.get(cid)
        if c is not None and c.node is not None and c.node.name:
            sources.append(name_tokens(c.node.name))
    words = sorted({w for src in sources for w in src})
    df = ctx.lex.doc_freq(ctx.rev, [w for w in words if len(w) >= 4 and w not in s.stopwords])
    n_chunks = ctx.lex.chunk_count(ctx.rev)
    extra = expansion_terms(q.terms, sources, df, n_chunks, s.stopwords, s.expansion_terms)
    if not extra:
        return [], []
    # the rare corpus words alone (short posting lists), fused below the query's lists
    rows = ctx.lex.fts(ctx.rev, fts_expression(extra), s.bm25_weights, s.candidates)
    expanded = _read_rows(rows, q, pool)
    pool.give_nodes(ctx.graph.nodes_by_ids(ctx.rev, pool.nodes_to_read()))
    return extra, expanded
