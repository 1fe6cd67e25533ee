"""Stage 4 of search, abstention: nothing near is an answer (``abstained`` with a hint).

``weigh`` measures on one query's candidates what ``confidence`` decides on (``Evidence``);
the thresholds are configured and calibratable (``calibrate`` fits them on the same measures,
read through ``searchop.signals``).

Invariants a change must keep:
- An exact symbol name always answers ("exact").
- A query that shares only generic words with the code, or whose words do not meet in one
  chunk or symbol (idf-weighted; ``min_term_coverage``; below ``abstain_cosine`` in one place
  near in meaning), is vetoed when the embedding is not confident (below ``abstain_cosine`` /
  ``coverage_cosine``); a purely conceptual query (no lexical hit) is answered only when the
  embedding is confident.
- Below ``near_cosine`` the query's content words (not ``function_words``) must also meet in
  one place *near in meaning* (a symbol among the vector neighbours within ``near_band`` of
  the best cosine): ``min_near_meet`` of their idf weight. Words that meet only in a place
  far in meaning (a settings list, a language file) are a near miss, not an answer.
- The measures do not depend on the thresholds (calibration reads them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ragraf.facade import sanitize
from ragraf.facade.context import Ctx
from ragraf.facade.search.candidate import Candidate, Pool, Thresholds
from ragraf.facade.search.channels import Found
from ragraf.facade.search.words import QueryWords, coverage, matched_terms, words_meet
from ragraf.tokens import fts_text


@dataclass(frozen=True)
class Evidence:
    """What abstention weighs, measured on one query's candidates.

    ``coverage`` is the largest idf-weighted share of the query's words (a word the corpus
    lacks weighs the most) found together in one chunk or one symbol (its chunks together);
    ``meet`` the same over only the content words the corpus has, in a place that holds at
    least half of them (``words_meet``; None with fewer than two): words found only in
    different places do not add up; ``near`` the share of the query's content words the
    corpus has that one place near in meaning holds, and ``near_at`` that place's name;
    ``near_cover`` the same share over all its content words (both None without vectors, with
    an anchor or without a lexical match). ``best_cosine`` is None when no vectors were
    searched."""

    anchored: bool
    lexical: bool
    best_cosine: float | None
    coverage: float
    meet: float | None
    matched: frozenset[str]
    near: float | None = None
    near_at: str | None = None
    near_cover: float | None = None
    #: a place the first ``AGREE_TOP`` of two or more channels hold (their names, and its
    #: name): the channels agree on a specific answer
    agree: tuple[str, ...] = ()
    agree_at: str | None = None


class Verdict(NamedTuple):
    """exact | strong | weak | none (abstain), and the reason for none."""

    confidence: str
    reason: str = ""


#: how deep in each channel a place counts for the channels' agreement
AGREE_TOP = 3


def agreement(found: Found) -> tuple[tuple[str, ...], Candidate | None]:
    """The channels whose first ``AGREE_TOP`` hold one place (a symbol, or a chunk without
    one) that at least one other channel's first ``AGREE_TOP`` hold too, and a candidate of
    that place (the first such place in the lexical, then vector, name, ui order)."""
    lists = {
        "lexical": found.lexical,
        "vector": found.vector,
        "name": found.by_name,
        "ui": found.ui,
    }
    tops = {ch: [c.place for c in lst[:AGREE_TOP]] for ch, lst in lists.items()}
    for lst in lists.values():
        for c in lst[:AGREE_TOP]:
            held = tuple(k for k, places in tops.items() if c.place in places)
            if len(held) >= 2:
                return held, c
    return (), None


def weigh(ctx: Ctx, pool: Pool, found: Found, q: QueryWords, band: float) -> Evidence:
    """The evidence of a ranked query: the term coverage over the candidates whose words were
    read, and (with lexical matches and no anchor) how far the words meet among the vector
    neighbours within ``band`` of the best cosine (their texts read when no channel did)."""
    best_cos = max(cos for _cid, cos in found.knn) if found.knn else None
    read = [c for c in pool if c.matched is not None]
    per_place = places(read)
    near = near_cover = None
    near_at = None
    if found.lexical and not found.anchors and q.said:
        near_places = _near_places(ctx, pool, found.knn, q.terms, band)
        near = best_place(near_places, q.content)
        # below abstain_cosine the words alone answer: they too must meet near the query's
        # meaning (here a word the corpus lacks weighs the most, as in term_coverage)
        near_cover = best_place(near_places, q.said)
    if near is not None:
        n, c = pool.node(near[1]), pool.get(near[1])
        near_at = sanitize.name(n.fqn or n.name) if n else (c.chunk.path if c else None)
    agree, agreed = agreement(found)
    agree_at = None
    if agreed is not None:
        agree_at = (
            sanitize.name(agreed.node.fqn or agreed.node.name)
            if agreed.node is not None
            else agreed.chunk.path
        )
    return Evidence(
        anchored=bool(found.anchors),
        lexical=bool(found.lexical),
        best_cosine=best_cos,
        coverage=max((coverage(m, q.idf) for m in per_place.values()), default=0.0),
        meet=words_meet(per_place.values(), q.content),
        matched=frozenset(t for c in read for t in c.matched or ()),
        near=near[0] if near is not None else None,
        near_at=near_at,
        near_cover=near_cover[0] if near_cover is not None else None,
        agree=agree,
        agree_at=agree_at,
    )


def places(cands: Sequence[Candidate]) -> dict[str, set[str]]:
    """The query words each place holds: a symbol (its chunks together), or a chunk without
    one, over the words ``matched`` of ``cands``."""
    out: dict[str, set[str]] = {}
    for c in cands:
        out.setdefault(c.place, set()).update(c.matched or ())
    return out


def _near_places(
    ctx: Ctx, pool: Pool, knn: list[tuple[str, float]], terms: list[str], band: float
) -> dict[str, set[str]]:
    """The query words each place near in meaning holds: the symbols (their chunks together)
    of the vector neighbours ``knn`` (best first) whose cosine is within ``band`` of the best.
    A chunk's words are its lexicon tokens, read from its text with the index's tokenizer when
    no channel read them."""
    if not knn:
        return {}
    best = knn[0][1]
    near = [cid for cid, cos in knn if cos >= best - band]
    tokens = {cid: c.tokens for cid in near if (c := pool.get(cid)) and c.tokens is not None}
    missing = [cid for cid in near if cid not in tokens]
    for cid, text in ctx.lex.texts(ctx.rev, missing).items():
        tokens[cid] = fts_text(text)
    out: dict[str, set[str]] = {}
    for cid in near:
        c = pool.get(cid)
        key = c.place if c is not None else cid
        out.setdefault(key, set()).update(matched_terms(terms, tokens.get(cid, "")))
    return out


def best_place(
    near: Mapping[str, set[str]], weights: Mapping[str, float]
) -> tuple[float, str] | None:
    """The largest share of ``weights`` (the idf of the query words that count) that one of
    the places ``near`` holds, and that place (the last by key among equals); None without
    places or weights."""
    if not near or not weights:
        return None
    key, words = max(near.items(), key=lambda kv: (coverage(kv[1], weights), kv[0]))
    return coverage(words, weights), key


def confidence(ev: Evidence, th: Thresholds) -> Verdict:
    """exact | strong | weak | none (abstain), and the reason for none or for weak.

    A query the rules below would refuse is answered ``weak`` instead, with the refusal's
    reason, when channels agree on one specific place (``agree``: it is among the first
    ``AGREE_TOP`` of two or more channels) and the best cosine reaches ``agree_cosine``:
    a refusal of what the corpus can answer costs more than a weak answer that says why."""
    v = _rules(ev, th)
    if v.confidence != "none" or not ev.agree or ev.best_cosine is None:
        return v
    if ev.best_cosine < th.agree_cosine:
        return v
    return Verdict(
        "weak",
        f"{ev.agree_at} is among the first {AGREE_TOP} hits of the {' and '.join(ev.agree)}"
        f" channels, though {v.reason}",
    )


def _rules(ev: Evidence, th: Thresholds) -> Verdict:
    """exact | strong | weak | none (abstain), and the reason for none.

    Below ``abstain_cosine`` the query is answered only when its words reach
    ``min_term_coverage`` in one place near in meaning (``near_cover``, else ``coverage``) and
    are not all generic; below ``coverage_cosine`` only when the corpus's words meet
    (``meet``); below ``near_cosine`` only when ``near`` reaches ``min_near_meet``."""
    if ev.anchored:
        return Verdict("exact")
    abstain, promote = th.abstain_cosine, th.promote_cosine
    cover_cos = max(th.coverage_cosine, abstain)
    min_cover = th.min_term_coverage
    best_cos = ev.best_cosine
    if best_cos is None:
        if ev.lexical:
            return Verdict("weak")
        return Verdict("none", "no indexed chunk contains these words")
    if ev.lexical:
        words = ", ".join(sorted(ev.matched)) or "-"
        held = ev.coverage if ev.near_cover is None else ev.near_cover
        if best_cos < abstain and (ev.matched <= th.generic_words or held < min_cover):
            return Verdict(
                "none",
                f"the words shared with the code are generic or few ({words}; at most"
                f" {held:.0%} of the query's weight in one chunk or symbol near its meaning)"
                f" and nothing is near in meaning (best cosine {best_cos:.2f} < {abstain})",
            )
        if best_cos < cover_cos and ev.meet is not None and ev.meet < min_cover:
            return Verdict(
                "none",
                f"the query's words occur in the code ({words}) but never together: "
                + (
                    f"at most {ev.meet:.0%} of their weight in one chunk or symbol"
                    if ev.meet > 0
                    else "no chunk or symbol holds half of them"
                )
                + f", and nothing is near enough in meaning (best cosine {best_cos:.2f} < {cover_cos})",
            )
        near_cos, min_near = th.near_cosine, th.min_near_meet
        if ev.near is not None and best_cos < near_cos and ev.near < min_near:
            at = f" ({ev.near_at})" if ev.near_at else ""
            return Verdict(
                "none",
                f"the query's words occur in the code ({words}) but not together near what it"
                f" asks: the place near in meaning that holds most of them{at} has"
                f" {ev.near:.0%} of their weight, and the embedding alone is not sure (best"
                f" cosine {best_cos:.2f} < {near_cos})",
            )
        return Verdict("strong" if best_cos >= promote or ev.coverage >= 0.99 else "weak")
    if best_cos >= promote:
        return Verdict("strong")
    if best_cos >= abstain:
        return Verdict("weak")
    return Verdict(
        "none",
        f"no word matches and nothing is near in meaning (best cosine {best_cos:.2f} < {abstain})",
    )
