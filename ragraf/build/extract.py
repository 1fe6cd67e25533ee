"""Extraction of a build: every parseable file through its language's extractor,
in worker processes, with the per-file facts cache.

Invariants a change must keep:
- A file's facts come from ``ragraf.lang.registry.extract`` alone; the result
  is the same in a worker and in the builder (nothing global is read).
- Results come back in the order of the input list, whatever order the
  workers finish in (the build is deterministic).
- Workers hold nothing the builder owns (they are forked before the build's
  stores are written and receive only (path, lang, text)).
- The cache is keyed by (sha256, ``registry.facts_key``): a cached entry is
  used only when everything the facts depend on is unchanged.
"""

from __future__ import annotations

import multiprocessing
import pickle
import zlib
from collections.abc import Callable

from ragraf.corpus import ScannedFile
from ragraf.lang import registry
from ragraf.lang.facts import FileFacts
from ragraf.store.graph import GraphStore

Progress = Callable[[str, int, int], None]
#: below this many files a pool costs more than it saves (fork + pickling, measured)
PARALLEL_MIN_FILES = 24

_JOBS: list[tuple[str, str | None, str]] = []
_MAX_LINES = 120


def _work(i: int) -> tuple[int, FileFacts]:
    path, lang, text = _JOBS[i]
    return i, registry.extract(path, lang, text, _MAX_LINES)


def extract_all(
    files: list[ScannedFile], workers: int, max_lines: int, progress: Progress | None
) -> list[FileFacts]:
    """Facts of ``files`` in their order; in ``workers`` forked processes when worth it."""
    global _JOBS, _MAX_LINES
    jobs = [(f.path, f.lang, f.text or "") for f in files]
    out: list[FileFacts | None] = [None] * len(jobs)
    total = len(jobs)
    if workers <= 1 or total < PARALLEL_MIN_FILES:
        for i, (p, lang, text) in enumerate(jobs):
            out[i] = registry.extract(p, lang, text, max_lines)
            if progress:
                progress("parse", i + 1, total)
    else:
        _JOBS, _MAX_LINES = jobs, max_lines
        # largest first: the long tail of a pool is its biggest file
        order = sorted(range(total), key=lambda i: -len(jobs[i][2]))
        try:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(workers) as pool:
                for done, (i, facts) in enumerate(
                    pool.imap_unordered(_work, order, chunksize=2), 1
                ):
                    out[i] = facts
                    if progress:
                        progress("parse", done, total)
        finally:
            _JOBS = []
    return [f for f in out if f is not None]


def facts_of(
    files: list[ScannedFile],
    graph: GraphStore,
    *,
    reuse: bool,
    workers: int,
    max_lines: int,
    progress: Progress | None,
) -> tuple[list[FileFacts], int]:
    """Facts of every file (cached ones reused when ``reuse``), and how many were reused.

    Freshly extracted facts are stored in the cache for the next build."""
    keys = [(f.sha256, registry.facts_key(f.path, f.lang, max_lines)) for f in files]
    cached = graph.cached_facts(keys) if reuse else {}
    todo = [f for f, k in zip(files, keys, strict=True) if k not in cached]
    fresh = dict(
        zip(
            (f.path for f in todo),
            extract_all(todo, workers, max_lines, progress),
            strict=True,
        )
    )
    facts = [
        fresh[f.path] if f.path in fresh else _decode(cached[k])
        for f, k in zip(files, keys, strict=True)
    ]
    graph.store_facts(
        [
            (f.sha256, k[1], _encode(fresh[f.path]))
            for f, k in zip(files, keys, strict=True)
            if f.path in fresh
        ]
    )
    return facts, len(files) - len(todo)


def _encode(facts: FileFacts) -> bytes:
    return zlib.compress(pickle.dumps(facts, protocol=5), 1)


def _decode(blob: bytes) -> FileFacts:
    facts: FileFacts = pickle.loads(zlib.decompress(blob))
    return facts
