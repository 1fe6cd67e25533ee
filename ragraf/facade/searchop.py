"""search: exact symbol anchors, lexical FTS5 matches, a symbol-name channel and vector
neighbours, fused by reciprocal rank fusion (k = 60), re-ranked on explained features, with
abstention (travsr low-level design §6; issue 17).

Stages: 1. anchors (an identifier-like query that names a symbol); 2. lexical (all columns)
and the name channel (the symbol column, ranked by ``name_match``); 3. vector neighbours;
4. RRF over the channels (the name channel weighs ``name_weight``), plus one first place for
a hit that a ``strong_channels`` channel scores ``strong_z`` deviations above its own
distribution; 5. vocabulary expansion: rare corpus words shared by the first hits' doc
comments and the identifiers of the nearest chunks in embedding space (pseudo-relevance
feedback), searched alone and fused at ``expansion_weight``; 6. a re-rank of the fused top
``rerank_top`` on rrf, name match, idf-weighted word coverage (read from the chunk's text for
a candidate the lexical channels did not return), cosine, bm25, PageRank
centrality (``repomap.centrality``), definition kind, declarations that implement nothing
(``abstract``: interfaces, their methods, abstract methods) and code copied in from other
projects (``vendored``: a path under ``vendored_paths``), weighed by ``rerank_weights``.

Invariants a change must keep:
- Query text never reaches FTS5 syntax: it is tokenised like the index
  (``ragraf.tokens``) and every term is quoted.
- Exact symbol-name matches come first and say so in ``why``; after them, a symbol whose
  name's words are exactly the query's words (``name_match`` "exact").
- RRF uses ranks, never raw scores: bm25 and cosine are not comparable. Raw scores enter
  only normalised within one query's candidates (re-rank features) or as z-scores within
  one channel.
- One hit per symbol: after ranking, a later window of a symbol longer than
  ``max_chunk_lines`` (several chunks) folds into its best-ranked window, whose hit names
  the windows found (``why.windows``); the ranking itself is per chunk (a symbol's windows
  scored together would favour long symbols: measured, issue 17).
- Every feature that moved a hit is in its ``why`` (ranks per channel, strong_signal,
  expanded_with, rerank features, name_match).
- Abstention: nothing near is an answer (``abstained`` with a hint). A query that shares
  only generic words with the code, or whose words do not meet in one chunk or symbol
  (idf-weighted; ``min_term_coverage``, calibratable; below ``abstain_cosine`` in one place
  near in meaning), is vetoed when the embedding is not confident (below ``abstain_cosine`` /
  ``coverage_cosine``); a purely conceptual query (no
  lexical hit) is answered only when the embedding is confident. Below ``near_cosine`` the
  query's content words (not ``function_words``) must also meet in one place *near in
  meaning* (a symbol among the vector neighbours within ``near_band`` of the best cosine):
  ``min_near_meet`` of their idf weight, calibratable. Words that meet only in a place far
  in meaning (a settings list, a language file) are a near miss, not an answer.
- A query is embedded in the space of the revision's vectors (``Ctx.query_embedder``: the
  configured model in the arithmetic they were made in); vectors of another model are not
  searched, and limits say why.
- Vector neighbours are similarity, never a structural fact (``similar_to`` is
  not an edge here). Without vectors the search is lexical and limits say so; while
  the revision's vectors are still arriving, limits say how far they are and a hit
  whose chunk has no vector yet says so in ``why`` (``vector``).
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from ragraf.facade import sanitize
from ragraf.facade.context import Ctx
from ragraf.globs import GlobSet
from ragraf.lang.registry import suffixes_of
from ragraf.model import ChunkRef, NodeRow
from ragraf.tokens import fts_text, identifier_tokens

_IDENTISH = re.compile(r"^\\?[A-Za-z_$][\w\\$]*(::\$?\w+)?$")


@lru_cache(maxsize=8192)
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
    """The query terms a chunk's tokens hold: the term itself, or a token its stem starts
    (the tokens in order: those with a prefix are a run beginning at the first token not
    below it, found by bisection instead of testing every token)."""
    tokset = set(tokens.lower().split())
    ordered: list[str] | None = None
    out = []
    for t in terms:
        if t in tokset:
            out.append(t)
            continue
        st = _stem(t)
        if len(st) < 3:
            continue
        if ordered is None:
            ordered = sorted(tokset)
        i = bisect_left(ordered, st)
        if i < len(ordered) and ordered[i].startswith(st):
            out.append(t)
    return out


#: the symbol-name channel searches the symbol column only for queries of this many words or
#: fewer (a name has few words; a longer query is a description)
NAME_MAX_WORDS = 4
_DEFINITIONS = frozenset({"class", "interface", "trait", "enum", "function", "method"})


def _name_tokens(text: str) -> list[str]:
    """The words of an identifier (camelCase and snake_case parts, not the whole)."""
    toks = [t.lower() for t in identifier_tokens(text) if len(t) >= 2]
    parts = [t for t in toks if t != text.lower() and t != text.lower().replace("_", "")]
    return parts or toks


_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def query_name_words(query: str) -> list[str]:
    """The words of the query's identifiers, in order, stop words kept: what an exact name
    is compared with ("RevisionStore getRevisionById" -> revision, store, get, revision, by,
    id; the search terms drop "get" and "by")."""
    return [w for ident in _IDENT.findall(query) for w in _name_tokens(ident)]


def name_match(
    terms: list[str], name: str, owner: str | None, words: list[str] | None = None
) -> tuple[float, str]:
    """How well the query's words name a symbol: 1.0 exact (the words are the name's words in
    order, alone or after the class's), 0.9 prefix (one word the name starts with), 0.85-0.95
    ordered (the words are a run of the name's, e.g. behind a vendor prefix), else 0.85 x the
    Dice overlap of the word sets of the name (or of class + name, counted a little lower;
    a word matches by its stem), 0 when no word is shared. ``words`` (``query_name_words``:
    stop words kept) also count for "exact". Returns (score, how)."""
    if not terms:
        return 0.0, ""
    nt = _name_tokens(name)
    ot = _name_tokens(owner.rsplit("\\", 1)[-1]) if owner else []
    for said in (terms, words) if words else (terms,):
        if nt and (said == nt or (ot and said == ot + nt)):
            return 1.0, "exact"
    if nt and len(terms) == 1 and len(terms[0]) >= 4 and "".join(nt).startswith(terms[0]):
        return 0.9, "prefix"
    q = set(terms)
    stems = [st for st in (_stem(t) for t in terms) if len(st) >= 3]

    def dice(words: list[str]) -> float:
        ws = set(words)
        if not ws:
            return 0.0
        shared = sum(1 for w in ws if w in q or any(w.startswith(st) for st in stems))
        return 2 * min(shared, len(q)) / (len(ws) + len(q))

    k = len(terms)
    for words in (nt, ot + nt):
        runs = [words[i : i + k] for i in range(len(words) - k + 1)]
        if k >= 2 and terms in runs:  # the words in the name's order, e.g. wp_[schedule_event]
            return round(0.85 + 0.1 * k / len(words), 4), "ordered"
    own, both = dice(nt), 0.9 * dice(ot + nt)
    score = max(own, both)
    return (round(0.85 * score, 4), "words") if score > 0 else (0.0, "")


def _zscores(scores: dict[str, float]) -> dict[str, float]:
    """Each score's distance from its channel's mean in standard deviations (needs 5+ scores)."""
    vals = list(scores.values())
    if len(vals) < 5:
        return {}
    mean = sum(vals) / len(vals)
    sd = (sum((v - mean) ** 2 for v in vals) / len(vals)) ** 0.5
    if sd <= 1e-9:
        return {}
    return {c: (v - mean) / sd for c, v in scores.items()}


def _idf(ctx: Ctx, terms: list[str]) -> tuple[dict[str, float], dict[str, int]]:
    """log(N / df) per term (a word no chunk holds weighs the most), and the df itself."""
    n = max(ctx.lex.chunk_count(ctx.rev), 1)
    df = ctx.lex.doc_freq(ctx.rev, terms)
    return {t: math.log((n + 1) / (df.get(t, 0) + 0.5)) for t in terms}, df


def near_meet(
    ctx: Ctx,
    knn: list[str],
    cosine: dict[str, float],
    chunks: dict[str, ChunkRef],
    tokens_of: dict[str, str],
    terms: list[str],
    weights: dict[str, float],
    band: float,
) -> tuple[float, str] | None:
    """The largest share of ``weights`` (the idf of the query words that count) that one
    place near in meaning holds, and that place (a node id, or a chunk id for a chunk
    without a node). The places are the symbols (their chunks together) of the vector
    neighbours ``knn`` (best first) whose cosine is within ``band`` of the best. None without
    neighbours or weights. A chunk's words are its lexicon tokens (``tokens_of``, read from
    its text with the index's tokenizer when the lexical channels did not return it)."""
    if not knn or not weights:
        return None
    best = cosine[knn[0]]
    near = [c for c in knn if cosine[c] >= best - band]
    missing = [c for c in near if c not in tokens_of]
    for cid, text in ctx.lex.texts(ctx.rev, missing).items():
        tokens_of[cid] = fts_text(text)
    places: dict[str, set[str]] = {}
    for cid in near:
        ref = chunks.get(cid)
        key = ref.node_id if ref and ref.node_id else cid
        places.setdefault(key, set()).update(_matched(terms, tokens_of.get(cid, "")))
    key, words = max(places.items(), key=lambda kv: (_coverage(kv[1], weights), kv[0]))
    return _coverage(words, weights), key


def _coverage(matched: Iterable[str], idf: dict[str, float]) -> float:
    total = sum(idf.values())
    return sum(idf.get(t, 0.0) for t in set(matched)) / total if total > 0 else 0.0


def words_meet(places: Iterable[set[str]], content: dict[str, float]) -> float | None:
    """How far the query's content words (``content``: word -> idf, function words left out)
    meet in one place: the largest idf-weighted share one place (a chunk, or a symbol's chunks
    together) holds, counting only places that hold at least half of the words by number
    (two rare words of five have not met: idf alone would let them outweigh the rest). None
    with fewer than two words (nothing to meet)."""
    if len(content) < 2:
        return None
    return max(
        (_coverage(m, content) for m in places if 2 * len(content.keys() & m) >= len(content)),
        default=0.0,
    )


def _expansion_terms(
    terms: list[str],
    sources: list[list[str]],
    df: dict[str, int],
    n_chunks: int,
    stop: set[str],
    limit: int,
) -> list[str]:
    """Corpus words the first hits share (pseudo-relevance feedback): a word must occur in at
    least two of ``sources`` (the identifiers of the nearest chunks in embedding space and the
    doc comments of the first fused hits), be no query word, and be rare enough to be telling
    (in at most 2% of the chunks)."""
    if limit <= 0:
        return []
    have = set(terms) | {_stem(t) for t in terms}
    count: dict[str, int] = {}
    for words in sources:
        for w in set(words):
            if len(w) < 4 or w in stop or w in have or _stem(w) in have or w.isdigit():
                continue
            count[w] = count.get(w, 0) + 1
    cands = sorted((w for w, c in count.items() if c >= 2), key=lambda w: (-count[w], w))
    out = []
    for w in cands:
        d = df.get(w)
        if d is None or d == 0 or d > max(2, 0.02 * n_chunks):
            continue
        out.append(w)
        if len(out) >= limit:
            break
    return out


_DOC_LINE = re.compile(r"^\s*(?:/\*\*|\*|//|#)\s?(.*)$")


def _doc_words(text: str) -> list[str]:
    """The words of a chunk's comment lines (docblocks, // and # comments), lower case."""
    words: list[str] = []
    for line in text.splitlines()[1:40]:
        m = _DOC_LINE.match(line)
        if m and not m.group(1).lstrip().startswith("@"):
            words.extend(t.lower() for t in identifier_tokens(m.group(1)))
    return words


def run_search(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    cfg = dict(ctx.s.config().project["search"])
    cal = ctx.control.latest_calibration("threshold")
    if cal is not None:
        cal_id, cal_params = cal
        cfg.update(cal_params)
        shown = ", ".join(f"{k} {v}" for k, v in sorted(cal_params.items()))
        ctx.limits.append(f"search threshold from calibration #{cal_id} ({shown})")
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
    # 2. lexical (all columns) and the symbol-name channel (the symbol column only)
    terms = query_terms(query, stop)
    idf, dfs = _idf(ctx, terms) if terms else ({}, {})
    # the words the corpus has: whether *they* meet in one place tells a near miss
    present = {t: w for t, w in idf.items() if dfs.get(t, 0) > 0}
    # function words ("also", "over", "behind") weigh like content words under idf: they
    # never count in a share of the query's words
    function_words = {w.lower() for w in cfg["function_words"]}
    content = {t: w for t, w in present.items() if t not in function_words}
    said = {t: w for t, w in idf.items() if t not in function_words}
    weighed = said or idf  # a query of function words alone is ranked on them
    lexical: list[str] = []
    bm25: dict[str, float] = {}
    matched_of: dict[str, list[str]] = {}
    tokens_of: dict[str, str] = {}
    named: list[str] = []
    if terms:
        expr = fts_expression(terms)
        for r in ctx.lex.fts(ctx.rev, expr, cfg["bm25_weights"], ncand):
            chunks.setdefault(r.chunk_id, ChunkRef._make(r[:6]))
            tokens_of[r.chunk_id] = " ".join(
                (r.symbol_tokens, r.code_tokens, r.sql_tokens, r.text_tokens)
            )
            m = _matched(terms, tokens_of[r.chunk_id])
            matched_of[r.chunk_id] = m
            why.setdefault(r.chunk_id, {})["fts_terms"] = m
            bm25[r.chunk_id] = round(float(r.score), 4)
            lexical.append(r.chunk_id)
    if terms and len(terms) <= NAME_MAX_WORDS:
        # a name has few words: a longer query is a description, its candidates suffice
        sym_w = {"symbol": 1.0, "code": 0.0, "sql": 0.0, "text": 0.0}
        for r in ctx.lex.fts(ctx.rev, f"symbol_tokens : ({fts_expression(terms)})", sym_w, ncand):
            chunks.setdefault(r.chunk_id, ChunkRef._make(r[:6]))
            if r.chunk_id not in tokens_of:
                tokens_of[r.chunk_id] = " ".join(
                    (r.symbol_tokens, r.code_tokens, r.sql_tokens, r.text_tokens)
                )
                matched_of[r.chunk_id] = _matched(terms, tokens_of[r.chunk_id])
            named.append(r.chunk_id)
    # 3. vectors
    knn: list[str] = []
    cosine: dict[str, float] = {}
    qv = None
    vec = None
    vec_note = _vector_state(ctx)
    if vec_note is None:
        emb, err = ctx.query_embedder()
        if emb is None:
            vec_note = f"vectors unavailable ({err}): search is lexical"
        else:
            from ragraf.store.vec import VecStore, cosine_of

            qv = emb.embed_query(query)
            vec = VecStore(ctx.lex.db, emb.dim)
            for cid, dist in vec.knn(ctx.rev, qv, ncand):
                knn.append(cid)
                cosine[cid] = round(cosine_of(dist), 4)
    if vec_note:
        ctx.limits.append(vec_note)
    missing = [c for c in knn if c not in chunks]
    chunks.update(ctx.lex.chunk_refs(ctx.rev, missing))
    node_ids = [c.node_id for c in chunks.values() if c.node_id and c.node_id not in nodes]
    nodes.update(ctx.graph.nodes_by_ids(ctx.rev, node_ids))

    def node_of(cid: str) -> NodeRow | None:
        c = chunks.get(cid)
        return nodes.get(c.node_id) if c and c.node_id else None

    # the name channel ranks by how well the words name the chunk's symbol
    name_score: dict[str, float] = {}
    name_how: dict[str, str] = {}
    name_words = query_name_words(query)
    for cid in set(named) | set(lexical) | set(knn):
        n = node_of(cid)
        if n is None or not n.name:
            continue
        owner = n.fqn.rsplit("::", 1)[0] if n.fqn and "::" in n.fqn else None
        sc, how = name_match(terms, n.name, owner, name_words)
        if sc > 0:
            name_score[cid], name_how[cid] = sc, how
    by_name = sorted(
        (c for c in name_score if c in set(named) or name_score[c] >= 0.5),
        key=lambda c: (-name_score[c], -bm25.get(c, 0.0), c),
    )
    # 4. fusion: reciprocal ranks (k = 60) of each channel ...
    fused: dict[str, float] = {}
    channels = (
        (lexical, "lexical_rank", 1.0),
        (knn, "vector_rank", 1.0),
        (by_name, "name_rank", float(cfg["name_weight"])),
    )

    def fuse(ranked: list[str], label: str, weight: float) -> None:
        rank = 0
        for cid in ranked:
            if cid not in chunks or not accept(cid):
                continue
            rank += 1
            fused[cid] = fused.get(cid, 0.0) + weight / (rrf_k + rank)
            why.setdefault(cid, {})[label] = rank
            if label == "vector_rank":
                why[cid]["cosine"] = cosine[cid]

    for ranked, label, weight in channels:
        fuse(ranked, label, weight)
    # ... plus a first place for a hit that one channel scores far above its own distribution
    z_strong = float(cfg["strong_z"])
    strong_channels = {"lexical": bm25, "vector": cosine, "name": name_score}
    for label in cfg["strong_channels"]:
        scores = strong_channels[label]
        zs = _zscores({c: v for c, v in scores.items() if c in fused})
        best = max(zs, key=lambda c: (zs[c], c), default=None)
        for cid, z in [(best, zs[best])] if best is not None else []:
            if z >= z_strong:
                fused[cid] += 1.0 / (rrf_k + 1)
                why[cid].setdefault("strong_signal", []).append(
                    {"channel": label, "z": round(z, 2)}
                )
    # 5. vocabulary expansion: the corpus's own words for the query (weighted below it)
    first = sorted(fused, key=lambda c: (-fused[c], c))[:5]
    if terms and int(cfg["expansion_terms"]) > 0 and first:
        texts = ctx.lex.texts(ctx.rev, first)
        sources = [_doc_words(texts.get(c, "")) for c in first[:3]]
        for cid in knn[:10]:
            n = node_of(cid)
            if n is not None and n.name:
                sources.append(_name_tokens(n.name))
        words = sorted({w for src in sources for w in src})
        df = ctx.lex.doc_freq(ctx.rev, [w for w in words if len(w) >= 4 and w not in stop])
        extra = _expansion_terms(
            terms, sources, df, ctx.lex.chunk_count(ctx.rev), stop, int(cfg["expansion_terms"])
        )
        if extra:
            expanded: list[str] = []
            # the rare corpus words alone (short posting lists), fused below the query's lists
            for r in ctx.lex.fts(ctx.rev, fts_expression(extra), cfg["bm25_weights"], ncand):
                chunks.setdefault(r.chunk_id, ChunkRef._make(r[:6]))
                if r.chunk_id not in tokens_of:
                    tokens_of[r.chunk_id] = " ".join(
                        (r.symbol_tokens, r.code_tokens, r.sql_tokens, r.text_tokens)
                    )
                    matched_of[r.chunk_id] = _matched(terms, tokens_of[r.chunk_id])
                expanded.append(r.chunk_id)
            fresh = [c.node_id for c in chunks.values() if c.node_id and c.node_id not in nodes]
            nodes.update(ctx.graph.nodes_by_ids(ctx.rev, fresh))
            fuse(expanded, "expansion_rank", float(cfg["expansion_weight"]))
            for cid in expanded:
                if cid in why:
                    why[cid]["expanded_with"] = extra
    # 6. re-rank the fused top candidates on features, each explained in why
    top = sorted(fused, key=lambda c: (-fused[c], c))[: int(cfg["rerank_top"])]
    # a candidate only the vector channel returned holds the query's words too: read them
    unread = [c for c in top if c not in tokens_of]
    for cid, text in ctx.lex.texts(ctx.rev, unread).items():
        tokens_of[cid] = fts_text(text)
        matched_of[cid] = _matched(terms, tokens_of[cid])
    if qv is not None and vec is not None:
        from ragraf.store.vec import cosine_of

        for cid, dist in vec.distances(ctx.rev, qv, [c for c in top if c not in cosine]).items():
            cosine[cid] = round(cosine_of(dist), 4)
    central = _centrality(ctx) if top else {}
    abstract = _declarations_only(ctx, [n for n in map(node_of, top) if n is not None])
    vendored = _vendored_globs(tuple(cfg["vendored_paths"]))
    wts = cfg["rerank_weights"]
    best_fused = max((fused[c] for c in top), default=1.0) or 1.0
    best_bm25 = max((bm25.get(c, 0.0) for c in top), default=0.0)
    cos_vals = [cosine[c] for c in top if c in cosine]
    cos_lo, cos_hi = (min(cos_vals), max(cos_vals)) if cos_vals else (0.0, 0.0)
    final: dict[str, float] = {}
    for cid in top:
        n = node_of(cid)
        feats = {
            "rrf": fused[cid] / best_fused,
            "name": name_score.get(cid, 0.0),
            "coverage": _coverage(matched_of.get(cid, []), weighed),
            "cosine": (cosine[cid] - cos_lo) / (cos_hi - cos_lo)
            if cid in cosine and cos_hi > cos_lo
            else 0.0,
            "bm25": bm25.get(cid, 0.0) / best_bm25 if best_bm25 > 0 else 0.0,
            "centrality": central.get(n.node_id, 0.0) if n else 0.0,
            "definition": 1.0 if n is not None and n.kind in _DEFINITIONS else 0.0,
            "abstract": 1.0 if n is not None and n.node_id in abstract else 0.0,
            "vendored": 1.0 if vendored.match(chunks[cid].path) else 0.0,
        }
        final[cid] = sum(float(wts[k]) * v for k, v in feats.items())
        w = why.setdefault(cid, {})
        w["rerank"] = {k: round(v, 3) for k, v in feats.items() if v}
        if cid in name_how:
            w["name_match"] = name_how[cid]
        if cid in cosine and "cosine" not in w:
            w["cosine"] = cosine[cid]
    rest = sorted((c for c in fused if c not in final), key=lambda c: (-fused[c], c))
    ranked_top = sorted(final, key=lambda c: (-final[c], c))
    # the query's words are exactly a symbol's name (in order): a literal name, first after anchors
    exact_names = [c for c in ranked_top + rest if name_how.get(c) == "exact" and accept(c)]
    order = anchors + [c for c in exact_names + ranked_top + rest if c not in anchors]
    order = list(dict.fromkeys(order))
    # 7. abstention: the query's (idf-weighted) words must meet in one chunk or one symbol
    best_cos = max(cosine[c] for c in knn) if knn else None
    per_node: dict[str, set[str]] = {}
    for cid, m in matched_of.items():
        ref = chunks.get(cid)
        key = ref.node_id if ref and ref.node_id else cid
        per_node.setdefault(key, set()).update(m)
    best_cover = max((_coverage(m, idf) for m in per_node.values()), default=0.0)
    meet = words_meet(per_node.values(), content)
    matched_all = {t for m in matched_of.values() for t in m}
    # ... and, for the content words, in one place near in meaning (a near miss's words meet
    # only far from what it asks, if at all)
    band = float(cfg["near_band"])
    near = near_cover = None
    near_at = None
    if lexical and not anchors:
        near = near_meet(ctx, knn, cosine, chunks, tokens_of, terms, content, band)
        # below abstain_cosine the words alone answer: they too must meet near the query's
        # meaning (here a word the corpus lacks weighs the most, as in term_coverage)
        near_cover = near_meet(ctx, knn, cosine, chunks, tokens_of, terms, said, band)
    if near is not None:
        n, ref = nodes.get(near[1]), chunks.get(near[1])
        near_at = sanitize.name(n.fqn or n.name) if n else (ref.path if ref else None)
    confidence, reason = _confidence(
        anchors,
        lexical,
        best_cover,
        meet,
        matched_all,
        generic,
        best_cos,
        cfg,
        bool(knn),
        (near[0], near_at) if near is not None else None,
        near_cover[0] if near_cover is not None else None,
    )
    if confidence == "none":
        order = []
    order, copies = built_copies(order, chunks, nodes)
    order, windows = one_per_symbol(order, chunks)
    filling = bool(knn) and ctx.vectors_filling() is not None
    no_vector: dict[str, str] = {}
    if filling:
        from ragraf.indexing.vectors import skip_reason

        missing = sorted(ctx.lex.without_vector(ctx.rev, order[:limit]))
        for cid, text in ctx.lex.texts(ctx.rev, missing).items():
            skipped = skip_reason(text)
            no_vector[cid] = f"none ({skipped})" if skipped else "not embedded yet"
    hits = []
    for cid in order[:limit]:
        c = chunks[cid]
        n = nodes.get(c.node_id) if c.node_id else None
        ctx.touch(c.path)
        score = 1000.0 if cid in anchors else round(final.get(cid, fused.get(cid, 0.0)), 6)
        w = why.get(cid, {})
        if cid in bm25:
            w["bm25"] = bm25[cid]
        if cid in no_vector:
            w["vector"] = no_vector[cid]
        if cid in copies:
            w["built_copies"] = copies[cid]
        if cid in windows:
            w["windows"] = windows[cid]
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
    out["term_coverage"] = round(best_cover, 4)
    if meet is not None:
        out["words_meet"] = round(meet, 4)
    if near is not None:
        out["words_meet_near"] = round(near[0], 4)
    if not hits:
        out["hint"] = (
            f"not found: {reason}. Try a symbol name or other words, or search the working tree (rg) "
            "for code added after the index."
        )
    return out


@lru_cache(maxsize=8)
def _vendored_globs(patterns: tuple[str, ...]) -> GlobSet:
    return GlobSet(patterns)


def _declarations_only(ctx: Ctx, nodes: list[NodeRow]) -> set[str]:
    """The ids of ``nodes`` that declare without implementing: interfaces, abstract methods
    and the methods of an interface (the place that does the work is an implementation)."""
    owner = {
        n.node_id: n.fqn.rsplit("::", 1)[0]
        for n in nodes
        if n.kind == "method" and n.fqn and "::" in n.fqn
    }
    kinds = ctx.graph.kinds_by_fqn(ctx.rev, owner.values()) if owner else {}
    return {
        n.node_id
        for n in nodes
        if n.kind == "interface"
        or n.kind == "method"
        and (
            bool(n.props and '"abstract"' in n.props and json.loads(n.props).get("abstract"))
            or "interface" in kinds.get(owner.get(n.node_id, ""), ())
        )
    }


#: folders whose files are usually built from others (a bundler's or compiler's output)
BUILT_DIRS = frozenset({"dist", "build"})
#: the folders such output is built from
SOURCE_DIRS = frozenset({"src", "source", "lib"})


def _copy_key(path: str, n: NodeRow | None) -> tuple[tuple[str, str, str], bool] | None:
    """(kind, name, the path without its built / source folders), and whether the path is
    under a built folder; None for a chunk without a named node."""
    if n is None or not n.name:
        return None
    parts = path.split("/")
    folder = [p for p in parts[:-1] if p not in BUILT_DIRS | SOURCE_DIRS]
    built = any(p in BUILT_DIRS for p in parts[:-1])
    return (n.kind, n.name, "/".join([*folder, parts[-1]])), built


def built_copies(
    order: list[str], chunks: dict[str, Any], nodes: dict[str, NodeRow]
) -> tuple[list[str], dict[str, list[str]]]:
    """The ranked chunk ids with each built copy (a symbol under ``dist/`` or ``build/``
    whose kind and name a candidate under the source folder has at the same place, as
    ``js/dist/functions.js`` to ``js/src/functions.js``) folded into its source: the source
    takes the better of the two ranks, and its hit names the copies (``why.built_copies``).
    A copy with no source among the candidates stays a hit of its own."""
    keyed: dict[str, tuple[tuple[str, str, str], bool]] = {}
    source_of: dict[tuple[str, str, str], str] = {}
    for cid in order:
        c = chunks.get(cid)
        got = _copy_key(c.path, nodes.get(c.node_id) if c.node_id else None) if c else None
        if got is None:
            continue
        keyed[cid] = got
        if not got[1]:
            source_of.setdefault(got[0], cid)
    copies: dict[str, list[str]] = {}
    out: list[str] = []
    placed: set[str] = set()
    for cid in order:
        got = keyed.get(cid)
        src = source_of.get(got[0]) if got is not None and got[1] else None
        if src is not None:
            copies.setdefault(src, []).append(f"{chunks[cid].path}:{chunks[cid].start_line}")
            cid = src  # the source takes the copy's place
        if cid not in placed:
            placed.add(cid)
            out.append(cid)
    return out, copies


def one_per_symbol(
    order: list[str], chunks: dict[str, ChunkRef]
) -> tuple[list[str], dict[str, list[int]]]:
    """The ranked chunk ids with each symbol once, at its best-ranked window (a chunk without
    a node stands for itself), and for a symbol found in several windows the start lines of
    those windows, in order."""
    first: dict[str, str] = {}
    out: list[str] = []
    found: dict[str, list[int]] = {}
    for cid in order:
        c = chunks[cid]
        key = c.node_id or cid
        kept = first.setdefault(key, cid)
        if kept == cid:
            out.append(cid)
        found.setdefault(kept, []).append(c.start_line)
    return out, {cid: sorted(lines) for cid, lines in found.items() if len(lines) > 1}


def _centrality(ctx: Ctx) -> dict[str, float]:
    from ragraf.facade.repomap import centrality

    return centrality(ctx)


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
    meet: float | None,
    matched: set[str],
    generic: set[str],
    best_cos: float | None,
    cfg: dict[str, Any],
    have_vectors: bool,
    near: tuple[float, str | None] | None = None,
    near_cover: float | None = None,
) -> tuple[str, str]:
    """exact | strong | weak | none (abstain), and the reason for none.

    ``coverage`` is the largest idf-weighted share of the query's words (a word the corpus
    lacks weighs the most) found together in one chunk or one symbol (its chunks together);
    ``meet`` the same over only the content words the corpus has, in a place that holds at
    least half of them (``words_meet``; None with fewer than two): words found only in
    different places do not add up; ``near`` the share of the query's content
    words (not function words) the corpus has that one place near in meaning holds, and that
    place's name, ``near_cover`` the same share over all its content words (None without
    vectors). Below ``abstain_cosine`` the query is answered only when its words reach
    ``min_term_coverage`` in one place near in meaning (``near_cover``, else ``coverage``) and
    are not all generic; below ``coverage_cosine`` only when the corpus's words meet
    (``meet``); below ``near_cosine`` only when ``near`` reaches ``min_near_meet``."""
    if anchors:
        return "exact", ""
    abstain, promote = float(cfg["abstain_cosine"]), float(cfg["promote_cosine"])
    cover_cos = max(float(cfg["coverage_cosine"]), abstain)
    min_cover = float(cfg["min_term_coverage"])
    if not have_vectors or best_cos is None:
        return ("weak", "") if lexical else ("none", "no indexed chunk contains these words")
    if lexical:
        words = ", ".join(sorted(matched)) or "-"
        held = coverage if near_cover is None else near_cover
        if best_cos < abstain and (matched <= generic or held < min_cover):
            return "none", (
                f"the words shared with the code are generic or few ({words}; at most"
                f" {held:.0%} of the query's weight in one chunk or symbol near its meaning)"
                f" and nothing is near in meaning (best cosine {best_cos:.2f} < {abstain})"
            )
        if best_cos < cover_cos and meet is not None and meet < min_cover:
            return "none", (
                f"the query's words occur in the code ({words}) but never together: "
                + (
                    f"at most {meet:.0%} of their weight in one chunk or symbol"
                    if meet > 0
                    else "no chunk or symbol holds half of them"
                )
                + f", and nothing is near enough in meaning (best cosine {best_cos:.2f} < {cover_cos})"
            )
        near_cos, min_near = float(cfg["near_cosine"]), float(cfg["min_near_meet"])
        if near is not None and best_cos < near_cos and near[0] < min_near:
            at = f" ({near[1]})" if near[1] else ""
            return "none", (
                f"the query's words occur in the code ({words}) but not together near what it"
                f" asks: the place near in meaning that holds most of them{at} has"
                f" {near[0]:.0%} of their weight, and the embedding alone is not sure (best"
                f" cosine {best_cos:.2f} < {near_cos})"
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
    if _vector_state(ctx) is not None:
        return None
    emb, _err = ctx.query_embedder()
    if emb is None:
        return None
    from ragraf.store.vec import VecStore, cosine_of

    hits = VecStore(ctx.lex.db, emb.dim).knn(ctx.rev, emb.embed_query(query), 1)
    return round(cosine_of(hits[0][1]), 4) if hits else None
