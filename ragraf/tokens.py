"""Tokenization shared by the lexicon writer and the query side.

Identifiers are emitted in their original form and split on camelCase,
snake_case and namespace separators (``fetchResult`` -> ``fetchResult fetch
Result``), so FTS5's unicode61 tokenizer indexes both. Index and query must
use the same function, or matches silently disappear.
"""

from __future__ import annotations

import re
from functools import lru_cache

_SEP = re.compile(r"[_\\$:.\-/]+")
_IDENT = re.compile(r"[A-Za-z_\x80-\uffff][A-Za-z0-9_\x80-\uffff]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def _split(ident: str) -> tuple[str, ...]:
    """``split_identifier`` without its cache."""
    parts: list[str] = []
    for piece in _SEP.split(ident):
        if piece:
            parts.extend(_CAMEL.findall(piece) or [piece])
    whole = ident.strip("_$\\")
    if len(parts) <= 1:
        return (whole,) if whole else ()
    return (whole, *parts)


#: ``fetchResult`` -> (fetchResult, fetch, Result); parts only when there are several
#: (cached: search splits the words of its candidates' texts again and again)
split_identifier = lru_cache(maxsize=262_144)(_split)


def identifier_tokens(text: str) -> list[str]:
    out: list[str] = []
    split = split_identifier
    for word in _IDENT.findall(text):
        out.extend(split(word))
    return out


@lru_cache(maxsize=16_384)
def _word_tokens(ident: str) -> str:
    """``split_identifier`` of one word, joined ('' when it has no token). Its own cache
    is the only one a build needs: going through ``split_identifier``'s too kept a second
    entry per distinct word that was never hit. 16K words hit almost as often as room for
    every word would, at a fraction of its memory."""
    return " ".join(_split(ident))


def fts_text(text: str) -> str:
    """The token string stored in an ft_chunk column for ``text``: the tokens of
    ``identifier_tokens`` joined by single spaces (one cached string per distinct word,
    joined in C: the lexicon tokenizes every line of code once per build)."""
    return " ".join(filter(None, map(_word_tokens, _IDENT.findall(text))))
