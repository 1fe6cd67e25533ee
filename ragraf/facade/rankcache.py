"""The whole revision's centrality (``repomap.centrality``) kept on disk between processes:
a cold ``search`` reads it instead of ranking the whole graph again (issue 44.4).

Invariants a change must keep:
- Only a cache: when it is missing, stale, unreadable or unwritable, the centrality is
  computed as before; a value read is the one computed, bit for bit (JSON floats round-trip).
- The key names everything the value depends on: the revision (id, when it was sealed,
  its corpus hash), the ``repo_map`` configuration and the code that computes it (the
  bytes of ``ragraf/facade/repomap.py`` and ``ragraf/rank.py``). A sealed revision never
  changes, so a key that matches is a value that is right.
- One file (``CACHE_FILE`` in the index folder), the newest key's; written whole by an
  atomic rename, never read half-written.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from ragraf.facade.context import Ctx

CACHE_FILE = "centrality.json.z"
#: the ``Session.memo`` key of a revision's centrality (``repomap.centrality`` uses it too)
MEMO = "centrality"


@cache
def _code_hash() -> str:
    here = Path(__file__).resolve().parent
    h = hashlib.sha1()
    for p in (here / "repomap.py", here.parent / "rank.py"):
        try:
            h.update(p.read_bytes())
        except OSError:
            h.update(b"?")
    return h.hexdigest()


def _key(ctx: Ctx) -> str | None:
    row = ctx.graph.rev_row(ctx.rev)
    if row is None:
        return None
    conf = repr(ctx.s.config().repo_map).encode()
    parts = (ctx.rev, row["created_at"], row["corpus_hash"], hashlib.sha1(conf).hexdigest())
    return "|".join((*parts, _code_hash()))


def load(ctx: Ctx) -> dict[str, float] | None:
    """The revision's centrality: this session's, else the cache file's when its key
    matches (kept in the session then), else None."""
    memo = (MEMO, ctx.rev or "")
    got: dict[str, float] | None = ctx.s.memo.get(memo)
    if got is not None:
        return got
    key = _key(ctx)
    if key is None:
        return None
    try:
        raw = (ctx.s.layout.index_dir / CACHE_FILE).read_bytes()
        head, _, body = raw.partition(b"\n")
        if head.decode("ascii") != key:
            return None
        data: Any = orjson.loads(zlib.decompress(body))
    except (OSError, ValueError, zlib.error):  # orjson.JSONDecodeError is a ValueError
        return None
    if not isinstance(data, dict):
        return None
    ctx.s.memo[memo] = data
    return data


def save(ctx: Ctx, value: dict[str, float]) -> None:
    """Keep ``value`` (the revision's centrality) for the next process; a store that
    cannot be written is left as it is."""
    key = _key(ctx)
    if key is None:
        return
    target = ctx.s.layout.index_dir / CACHE_FILE
    tmp = target.with_name(f"{CACHE_FILE}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(key.encode("ascii") + b"\n" + zlib.compress(orjson.dumps(value), 1))
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)
