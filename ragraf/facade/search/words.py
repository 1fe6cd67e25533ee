"""The words of a query and of a chunk, as search compares them: pure functions of text, no
store (the lexicon's document frequencies come in as arguments).

Invariants a change must keep:
- Query text never reaches FTS5 syntax: it is tokenised like the index (``ragraf.tokens``)
  and every term is quoted (``fts_expression``).
- A query word matches a chunk's token when the token is the word, or starts with the word's
  stem (``stem``: a few English suffixes off, at least 3 letters kept), or is the word joined
  with the query's next or previous word ("time zone": ``timezone``); the same rule holds
  for the FTS5 expression (a stem is a prefix query), the words a hit holds (``matched_terms``)
  and a symbol's name (``name_match``).
- Shares of the query's words are idf-weighted (``coverage``): a word no chunk holds weighs
  the most; words found in different places never add up (``words_meet``).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from ragraf.kinds import NameMatch
from ragraf.tokens import identifier_tokens


@lru_cache(maxsize=8192)
def stem(t: str) -> str:
    """``t`` without one of a few English suffixes (-ing, -ed, -es, -s, -ly), when at least
    4 letters are left."""
    for suf in ("ing", "ed", "es", "s", "ly"):
        if len(t) > len(suf) + 3 and t.endswith(suf):
            return t[: -len(suf)]
    return t


def query_terms(query: str, stopwords: AbstractSet[str]) -> list[str]:
    """The query's search terms: its identifier tokens in lower case, once each, in order,
    without stop words and one-letter tokens."""
    seen: dict[str, None] = {}
    for tok in identifier_tokens(query):
        low = tok.lower()
        if len(low) < 2 or low in stopwords:
            continue
        seen[low] = None
    return list(seen)


def compounds(terms: list[str]) -> list[tuple[str, str, str]]:
    """The query's two-word compounds, as code writes them in one token: each two
    consecutive terms and their concatenation ("time", "zone" -> "timezone")."""
    return [(a, b, a + b) for a, b in zip(terms, terms[1:], strict=False) if len(a + b) >= 6]


def fts_expression(terms: list[str]) -> str:
    """An FTS5 expression matching any of ``terms`` (quoted), or a token its stem starts,
    or a two-word compound of them written as one token (``compounds``)."""
    parts = []
    for t in terms:
        parts.append(f'"{t}"')
        st = stem(t)
        if st != t and len(st) >= 3:
            parts.append(f'"{st}"*')
    parts.extend(f'"{ab}"' for _a, _b, ab in compounds(terms) if ab not in terms)
    return " OR ".join(parts)


def matched_terms(terms: list[str], tokens: str) -> list[str]:
    """The query terms a chunk's tokens hold: the term itself, or a token its stem starts
    (the tokens in order: those with a prefix are a run beginning at the first token not
    below it, found by bisection instead of testing every token)."""
    tokset = set(tokens.lower().split())
    ordered: list[str] | None = None
    out = []
    joined = {w for a, b, ab in compounds(terms) if ab in tokset for w in (a, b)}
    for t in terms:
        if t in tokset or t in joined:
            out.append(t)
            continue
        st = stem(t)
        if len(st) < 3:
            continue
        if ordered is None:
            ordered = sorted(tokset)
        i = bisect_left(ordered, st)
        if i < len(ordered) and ordered[i].startswith(st):
            out.append(t)
    return out


def name_tokens(text: str) -> list[str]:
    """The words of an identifier (camelCase and snake_case parts, not the whole)."""
    toks = [t.lower() for t in identifier_tokens(text) if len(t) >= 2]
    parts = [t for t in toks if t != text.lower() and t != text.lower().replace("_", "")]
    return parts or toks


_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def query_name_words(query: str) -> list[str]:
    """The words of the query's identifiers, in order, stop words kept: what an exact name
    is compared with ("RevisionStore getRevisionById" -> revision, store, get, revision, by,
    id; the search terms drop "get" and "by")."""
    return [w for ident in _IDENT.findall(query) for w in name_tokens(ident)]


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
    nt = name_tokens(name)
    ot = name_tokens(owner.rsplit("\\", 1)[-1]) if owner else []
    for said in (terms, words) if words else (terms,):
        if nt and (said == nt or (ot and said == ot + nt)):
            return 1.0, NameMatch.EXACT
    if nt and len(terms) == 1 and len(terms[0]) >= 4 and "".join(nt).startswith(terms[0]):
        return 0.9, NameMatch.PREFIX
    q = set(terms)
    stems = [st for st in (stem(t) for t in terms) if len(st) >= 3]

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
            return round(0.85 + 0.1 * k / len(words), 4), NameMatch.ORDERED
    own, both = dice(nt), 0.9 * dice(ot + nt)
    score = max(own, both)
    return (round(0.85 * score, 4), NameMatch.WORDS) if score > 0 else (0.0, "")


def coverage(matched: Iterable[str], idf: Mapping[str, float]) -> float:
    """The share of ``idf``'s total weight that the words ``matched`` hold (0 without weight)."""
    total = sum(idf.values())
    return sum(idf.get(t, 0.0) for t in set(matched)) / total if total > 0 else 0.0


def words_meet(places: Iterable[AbstractSet[str]], content: Mapping[str, float]) -> float | None:
    """How far the query's content words (``content``: word -> idf, function words left out)
    meet in one place: the largest idf-weighted share one place (a chunk, or a symbol's chunks
    together) holds, counting only places that hold at least half of the words by number
    (two rare words of five have not met: idf alone would let them outweigh the rest). None
    with fewer than two words (nothing to meet)."""
    if len(content) < 2:
        return None
    return max(
        (coverage(m, content) for m in places if 2 * len(content.keys() & m) >= len(content)),
        default=0.0,
    )


def expansion_terms(
    terms: list[str],
    sources: list[list[str]],
    df: Mapping[str, int],
    n_chunks: int,
    stop: AbstractSet[str],
    limit: int,
) -> list[str]:
    """Corpus words the first hits share (pseudo-relevance feedback): a word must occur in at
    least two of ``sources`` (the identifiers of the nearest chunks in embedding space and the
    doc comments of the first fused hits), be no query word, and be rare enough to be telling
    (in at most 2% of the chunks)."""
    if limit <= 0:
        return []
    have = set(terms) | {stem(t) for t in terms}
    count: dict[str, int] = {}
    for words in sources:
        for w in set(words):
            if len(w) < 4 or w in stop or w in have or stem(w) in have or w.isdigit():
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


def doc_words(text: str) -> list[str]:
    """The words of a chunk's comment lines (docblocks, // and # comments), lower case."""
    words: list[str] = []
    for line in text.splitlines()[1:40]:
        m = _DOC_LINE.match(line)
        if m and not m.group(1).lstrip().startswith("@"):
            words.extend(t.lower() for t in identifier_tokens(m.group(1)))
    return words


@dataclass(frozen=True)
class QueryWords:
    """A query's words and their weights, read once per search.

    ``terms`` are the search terms (``query_terms``); ``name_words`` the words of its
    identifiers, stop words kept (``query_name_words``); ``idf`` weighs every term
    (log(N / df): a word no chunk holds weighs the most); ``content`` only the terms the
    corpus has that are no function words (whether *they* meet in one place tells a near
    miss); ``said`` every term that is no function word."""

    text: str
    terms: list[str]
    name_words: list[str]
    idf: dict[str, float]
    content: dict[str, float]
    said: dict[str, float]

    @property
    def weighed(self) -> dict[str, float]:
        """The weights a candidate's word coverage is measured in: a query of function words
        alone is ranked on them."""
        return self.said or self.idf

    @classmethod
    def of(
        cls,
        text: str,
        terms: list[str],
        df: Mapping[str, int],
        n_chunks: int,
        function_words: AbstractSet[str],
    ) -> QueryWords:
        """The words of ``text`` (its ``terms``) weighed by their document frequencies ``df``
        among ``n_chunks`` chunks. Function words ("also", "over", "behind") weigh like
        content words under idf: they never count in a share of the query's words."""
        n = max(n_chunks, 1)
        idf = {t: math.log((n + 1) / (df.get(t, 0) + 0.5)) for t in terms}
        present = {t: w for t, w in idf.items() if df.get(t, 0) > 0}
        return cls(
            text=text,
            terms=terms,
            name_words=query_name_words(text),
            idf=idf,
            content={t: w for t, w in present.items() if t not in function_words},
            said={t: w for t, w in idf.items() if t not in function_words},
        )
