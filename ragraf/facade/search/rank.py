"""Stages 2 and 3 of search: fuse the channels by reciprocal rank, then re-rank the fused top
on explained features, and order the hits.

Fusion: each channel adds ``weight / (rrf_k + rank)`` to a candidate's ``fused`` score, the
rank counted among the chunks the scope accepts (lexical and vector weigh 1, the name channel
``name_weight``, the expansion ``expansion_weight``); one more first place goes to the best
candidate of each ``strong_channels`` channel when its score is ``strong_z`` standard
deviations above that channel's own distribution. The re-rank scores the fused top
``rerank_top`` on ``Features`` weighed by ``rerank_weights``: rrf, name match, idf-weighted
word coverage, cosine, bm25, PageRank centrality (``repomap.centrality``), definition kind,
declarations that implement nothing (``abstract``: interfaces, their methods, abstract
methods) and code copied in from other projects (``vendored``: a path under
``vendored_paths``).

Invariants a change must keep:
- RRF uses ranks, never raw scores: bm25 and cosine are not comparable. Raw scores enter only
  normalised within one query's candidates (re-rank features) or as z-scores within one
  channel.
- Only accepted candidates are fused; ties break on the chunk id, so an order never depends
  on the order of a store's rows.
- Exact symbol anchors come first; after them, a symbol whose name's words are exactly the
  query's words (``name_how`` "exact"); then the re-ranked top, then the other fused
  candidates by fused score. The ranking is per chunk (a symbol's windows scored together
  would favour long symbols: measured, issue 17); ``fold`` makes it one hit per symbol.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from ragraf.facade.context import Ctx
from ragraf.facade.search.candidate import (
    Candidate,
    Channel,
    Features,
    Pool,
    Scope,
    Settings,
    StrongSignal,
)
from ragraf.facade.search.channels import Found
from ragraf.facade.search.words import QueryWords, coverage, matched_terms
from ragraf.globs import GlobSet
from ragraf.kinds import NameMatch, NodeKind
from ragraf.model import NodeRow, props_of
from ragraf.tokens import fts_text

_DEFINITIONS = frozenset(
    {
        NodeKind.CLASS,
        NodeKind.INTERFACE,
        NodeKind.TRAIT,
        NodeKind.ENUM,
        NodeKind.FUNCTION,
        NodeKind.METHOD,
    }
)


def fuse(
    ranked: Iterable[Candidate], channel: Channel, weight: float, rrf_k: int, scope: Scope
) -> None:
    """Fuse one channel's ranked list: each candidate the scope accepts gets its rank among
    those (``ranks[channel]``, 1-based) and ``weight / (rrf_k + rank)`` added to ``fused``;
    the others are left as they are."""
    rank = 0
    for c in ranked:
        if not scope.accepts(c):
            continue
        rank += 1
        c.fused = (c.fused or 0.0) + weight / (rrf_k + rank)
        c.ranks[channel] = rank


def zscores(scores: Mapping[str, float]) -> dict[str, float]:
    """Each score's distance from its channel's mean in standard deviations (needs 5+ scores)."""
    vals = list(scores.values())
    if len(vals) < 5:
        return {}
    mean = sum(vals) / len(vals)
    sd = (sum((v - mean) ** 2 for v in vals) / len(vals)) ** 0.5
    if sd <= 1e-9:
        return {}
    return {c: (v - mean) / sd for c, v in scores.items()}


def strong_signal(
    channel: Channel, scores: Mapping[str, float], pool: Pool, z_min: float, rrf_k: int
) -> None:
    """One more first place (``1 / (rrf_k + 1)``) for the candidate ``scores`` (a channel's
    scores of the fused candidates) puts furthest above their mean, when at least ``z_min``
    standard deviations; the candidate's ``strong`` says so."""
    zs = zscores(scores)
    best = max(zs, key=lambda c: (zs[c], c), default=None)
    c = pool.get(best) if best is not None else None
    if best is not None and c is not None and c.fused is not None and zs[best] >= z_min:
        c.fused += 1.0 / (rrf_k + 1)
        c.strong.append(StrongSignal(channel, round(zs[best], 2)))


def channel_scores(channel: Channel, found: Found, pool: Pool) -> dict[str, float]:
    """A channel's own scores of the fused candidates, in the channel's order: bm25, cosine or
    name match."""
    if channel is Channel.LEXICAL:
        return {c.id: c.bm25 for c in found.lexical if c.bm25 is not None and c.fused is not None}
    if channel is Channel.VECTOR:
        return {
            c.id: c.cosine for c in found.vector if c.cosine is not None and c.fused is not None
        }
    if channel is Channel.NAME:
        return {c.id: c.name_score for c in pool if c.name_score > 0 and c.fused is not None}
    raise ValueError(f"no strong signal for the {channel} channel")


def fuse_channels(found: Found, pool: Pool, s: Settings, scope: Scope) -> None:
    """Fuse the lexical, vector and name channels, then the strong signals."""
    fuse(found.lexical, Channel.LEXICAL, 1.0, s.rrf_k, scope)
    fuse(found.vector, Channel.VECTOR, 1.0, s.rrf_k, scope)
    fuse(found.by_name, Channel.NAME, s.name_weight, s.rrf_k, scope)
    fuse(found.ui, Channel.UI, s.ui_weight, s.rrf_k, scope)
    for channel in s.strong_channels:
        scores = channel_scores(channel, found, pool)
        strong_signal(channel, scores, pool, s.strong_z, s.rrf_k)


@dataclass(frozen=True)
class SymbolFacts:
    """What the re-rank knows of the top candidates beyond the channels: each symbol's
    PageRank percentile (by node id), the node ids that declare without implementing, and
    the globs of vendored paths."""

    centrality: Mapping[str, float]
    abstract: AbstractSet[str]
    vendored: GlobSet


def read_facts(
    ctx: Ctx, top: Sequence[Candidate], q: QueryWords, found: Found, s: Settings
) -> SymbolFacts:
    """Read what the re-rank of ``top`` needs: the tokens of a candidate only the vector
    channel returned (it holds the query's words too), the cosine of one the vector channel
    did not return, and the facts of their symbols."""
    unread = [c for c in top if c.tokens is None]
    texts = ctx.lex.texts(ctx.rev, [c.id for c in unread])
    for c in unread:
        if c.id in texts:
            c.tokens = fts_text(texts[c.id])
            c.matched = matched_terms(q.terms, c.tokens)
    if found.cosines is not None:
        cosines = found.cosines([c.id for c in top if c.cosine is None])
        for c in top:
            if c.cosine is None and c.id in cosines:
                c.cosine = cosines[c.id]
    return SymbolFacts(
        centrality=_centrality(ctx) if top else {},
        abstract=_declarations_only(ctx, [c.node for c in top if c.node is not None]),
        vendored=_vendored_globs(s.vendored_paths),
    )


def rerank(
    top: Sequence[Candidate],
    weighed: Mapping[str, float],
    weights: Mapping[str, float],
    facts: SymbolFacts,
) -> None:
    """Score each of ``top`` (the fused top, fused scores set) on its ``Features`` (each
    normalised within ``top``; ``weighed``: the query words' weights for the coverage) and
    set ``final``, their sum weighed by ``weights``."""
    best_fused = max((c.fused or 0.0 for c in top), default=1.0) or 1.0
    best_bm25 = max((c.bm25 or 0.0 for c in top), default=0.0)
    cos_vals = [c.cosine for c in top if c.cosine is not None]
    cos_lo, cos_hi = (min(cos_vals), max(cos_vals)) if cos_vals else (0.0, 0.0)
    for c in top:
        n = c.node
        f = Features(
            rrf=(c.fused or 0.0) / best_fused,
            name=c.name_score,
            coverage=coverage(c.matched or [], weighed),
            cosine=(c.cosine - cos_lo) / (cos_hi - cos_lo)
            if c.cosine is not None and cos_hi > cos_lo
            else 0.0,
            bm25=(c.bm25 or 0.0) / best_bm25 if best_bm25 > 0 else 0.0,
            centrality=facts.centrality.get(n.node_id, 0.0) if n else 0.0,
            definition=1.0 if n is not None and n.kind in _DEFINITIONS else 0.0,
            abstract=1.0 if n is not None and n.node_id in facts.abstract else 0.0,
            vendored=1.0 if facts.vendored.match(c.chunk.path) else 0.0,
        )
        c.features = f
        c.final = sum(weights[k] * v for k, v in zip(Features._fields, f, strict=True))


def rerank_pool(fused: list[Candidate], near: list[Candidate], top_n: int) -> list[Candidate]:
    """What the re-rank scores: the fused top ``top_n`` and the fused neighbours ``near``
    (``channels.neighbours``) wherever their fused rank falls, each once."""
    out = dict.fromkeys(fused[:top_n])
    for c in near:
        if c.fused is not None:
            out.setdefault(c)
    return list(out)


def order(
    anchors: list[Candidate], fused: list[Candidate], top: list[Candidate]
) -> list[Candidate]:
    """The hits in order, each once: the anchors, then the fused candidates whose name is
    exactly the query's words, then the re-ranked ``top`` (by ``final``), then the rest of
    ``fused`` (best first, as given)."""
    ranked_top = sorted(top, key=lambda c: (-(c.final or 0.0), c.id))
    taken = set(top)
    rest = [c for c in fused if c not in taken]
    # the query's words are exactly a symbol's name (in order): a literal name, first after anchors
    exact_names = [c for c in ranked_top + rest if c.name_how == NameMatch.EXACT]
    out = anchors + [c for c in exact_names + ranked_top + rest if not c.exact]
    return list(dict.fromkeys(out))


@lru_cache(maxsize=8)
def _vendored_globs(patterns: tuple[str, ...]) -> GlobSet:
    return GlobSet(patterns)


def _centrality(ctx: Ctx) -> dict[str, float]:
    """The revision's centrality: kept by an earlier process (``rankcache``), else computed
    (``repomap``: numpy and the whole graph) and kept for the next one."""
    from ragraf.facade import rankcache

    got = rankcache.load(ctx)
    if got is None:
        from ragraf.facade.repomap import centrality

        got = centrality(ctx)
        rankcache.save(ctx, got)
    return got


def _declarations_only(ctx: Ctx, nodes: list[NodeRow]) -> set[str]:
    """The ids of ``nodes`` that declare without implementing: interfaces, abstract methods
    and the methods of an interface (the place that does the work is an implementation)."""
    owner = {
        n.node_id: n.fqn.rsplit("::", 1)[0]
        for n in nodes
        if n.kind == NodeKind.METHOD and n.fqn and "::" in n.fqn
    }
    kinds = ctx.graph.kinds_by_fqn(ctx.rev, owner.values()) if owner else {}
    return {
        n.node_id
        for n in nodes
        if n.kind == NodeKind.INTERFACE
        or n.kind == NodeKind.METHOD
        and (
            bool(props_of(n.props).get("abstract"))
            or NodeKind.INTERFACE in kinds.get(owner.get(n.node_id, ""), ())
        )
    }
