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
  used only when everything the facts depend on is unchanged. Entries are
  data only (``ragraf.lang.codec``, JSON): a cache shipped inside a repository
  can never run code; a row that does not decode is re-extracted.
"""

from __future__ import annotations

from collections.abc import Callable

from ragraf.build.workers import run_jobs
from ragraf.corpus import ScannedFile
from ragraf.kinds import ParseStatus
from ragraf.lang import codec, registry
from ragraf.lang.facts import FileFacts
from ragraf.lang.plain import line_count
from ragraf.store.graph import GraphStore

Progress = Callable[[str, int, int], None]

_JOBS: list[tuple[str, str | None, str]] = []
_MAX_LINES = 120


def _work(i: int) -> tuple[FileFacts, bytes]:
    """A worker's job: the facts of one file and their cache row, encoded here so the
    encoding runs in parallel instead of in the builder."""
    path, lang, text = _JOBS[i]
    facts = registry.extract(path, lang, text, _MAX_LINES)
    return facts, codec.encode(facts)


def extract_all(
    files: list[ScannedFile],
    workers: int,
    max_lines: int,
    progress: Progress | None,
    budget_s: float | None = None,
) -> list[tuple[FileFacts, bytes]]:
    """Facts of ``files`` in their order with their cache rows, extracted in ``workers``
    forked processes; a file whose extraction exceeds ``budget_s`` seconds is killed and
    recorded ``failed`` (and cached so: the same bytes under the same budget would only
    time out again)."""
    global _JOBS, _MAX_LINES
    jobs = [(f.path, f.lang, f.text or "") for f in files]
    total = len(jobs)
    _JOBS, _MAX_LINES = jobs, max_lines
    # largest first: the long tail of a pool is its biggest file
    order = sorted(range(total), key=lambda i: -len(jobs[i][2]))

    def tick(done: int, total: int) -> None:
        if progress:
            progress("parse", done, total)

    registry.warm({f.lang for f in files})  # before the fork: workers inherit it
    try:
        outcomes = run_jobs(order, _work, workers, budget_s, tick)
    finally:
        _JOBS = []
    out: list[tuple[FileFacts, bytes]] = []
    for i, (path, lang, text) in enumerate(jobs):
        got = outcomes[i]
        if got.timed_out or got.result is None:
            failed = FileFacts(
                path,
                lang,
                ParseStatus.FAILED,
                f"not indexed: extraction took longer than the {budget_s:g} s budget"
                " (index.file_time_budget_s)"
                if budget_s
                else "not indexed: the extraction process died",
                line_count(text),
            )
            out.append((failed, codec.encode(failed)))
        else:
            out.append(got.result)
    return out


def facts_of(
    files: list[ScannedFile],
    graph: GraphStore,
    *,
    reuse: bool,
    workers: int,
    max_lines: int,
    progress: Progress | None,
    budget_s: float | None = None,
) -> tuple[list[FileFacts], int]:
    """Facts of every file (cached ones reused when ``reuse``), and how many were reused.

    Freshly extracted facts are stored in the cache for the next build."""
    keys = [(f.sha256, registry.facts_key(f.path, f.lang, max_lines, budget_s)) for f in files]
    cached: dict[tuple[str, str], FileFacts] = {}
    if reuse:
        for key, blob in graph.cached_facts(keys).items():
            try:
                cached[key] = codec.decode(blob)
            except ValueError:
                continue  # not a row we wrote (or a damaged one): extract the file again
    todo = [f for f, k in zip(files, keys, strict=True) if k not in cached]
    fresh = dict(
        zip(
            (f.path for f in todo),
            extract_all(todo, workers, max_lines, progress, budget_s),
            strict=True,
        )
    )
    facts = [
        fresh[f.path][0] if f.path in fresh else cached[k] for f, k in zip(files, keys, strict=True)
    ]
    graph.store_facts(
        [
            (f.sha256, k[1], fresh[f.path][1])
            for f, k in zip(files, keys, strict=True)
            if f.path in fresh
        ]
    )
    return facts, len(files) - len(todo)
