"""Long texts stored zlib-compressed (issue 44: one revision's disk): chunk texts, flow
units' JSON and the four token columns of a chunk (``chunk_tokens``). Used by the store
modules only (``ragraf.store.db`` registers ``ragraf_tokens`` / ``ragraf_token``, the SQL
functions of the lexicon's migration and triggers).

Invariants a change must keep:
- ``pack`` is deterministic (the same text gives the same bytes: a revision's delta
  compares stored values, ``ragraf.store.ranges``), and ``unpack(pack(t)) == t``.
- ``unpack`` takes a value as an older ragraf stored it (TEXT, not packed) and returns it
  as it is: an index written before keeps answering the same, and its next build
  rewrites those rows packed.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Iterator
from functools import lru_cache

from ragraf.model import FlowUnitRow

#: zlib's fastest level: most of what level 6 saves on these short texts, at a third of
#: its time (chunk texts and flow units are written at every full build)
LEVEL = 1


def pack(text: str) -> bytes:
    """The text as UTF-8, zlib-compressed (stored as a BLOB)."""
    return zlib.compress(text.encode("utf-8", "surrogatepass"), LEVEL)


def unpack(value: bytes | str) -> str:
    """The text ``pack`` stored, or a TEXT value as it is (written before packing)."""
    if isinstance(value, str):
        return value
    return zlib.decompress(value).decode("utf-8", "surrogatepass")


def packed_flows(rows: Iterable[FlowUnitRow]) -> Iterator[FlowUnitRow]:
    """Flow unit rows as graph ``flow_unit`` stores them: ``data`` packed."""
    for r in rows:
        yield r._replace(data=pack(r.data))  # type: ignore[arg-type]  # stored as a BLOB


def unpacked_flow(row: FlowUnitRow) -> FlowUnitRow:
    """A stored flow unit row with its ``data`` as the JSON text."""
    return row._replace(data=unpack(row.data))


def pack_tokens(symbol: str, code: str, sql: str, text: str) -> bytes:
    """A chunk's four token columns as ``chunk_tokens.tokens`` stores them."""
    return pack(json.dumps([symbol, code, sql, text], ensure_ascii=False, separators=(",", ":")))


@lru_cache(maxsize=4)  # the triggers read the four columns of one row in turn
def unpack_tokens(value: bytes) -> tuple[str, str, str, str]:
    """The four token columns ``pack_tokens`` stored."""
    s, c, q, t = json.loads(unpack(value))
    return str(s), str(c), str(q), str(t)


def sql_token(value: bytes, i: int) -> str:
    """SQL ``ragraf_token(tokens, i)``: column ``i`` (0-3) of packed tokens."""
    return unpack_tokens(value)[i]
