"""Extraction workers: forked processes with a hard time budget per file.

Invariants a change must keep:
- Each job runs in a forked worker; a job that runs longer than the budget is
  killed with its worker (SIGKILL: a worker stuck in C code cannot be stopped
  any other way), reported as timed out, and a fresh worker takes over. The
  other jobs are unaffected, so one pathological file costs its budget, not
  the build.
- Results come back keyed by job index, whatever order workers finish in.
- Workers hold nothing of the builder: a job's input is inherited through fork
  (``run_jobs``) or sent with it (``Pool.run`` with ``arg``), never re-read; locks
  are POSIX record locks (``fcntl.lockf``), which a child does not inherit, so an
  orphaned worker never blocks the next build.
- A ``Pool`` may fork its workers before the builder reads anything (``start``):
  a process forked later maps every page the builder holds at that moment (the
  files' texts, the scan) and counts them in its RSS, so the inputs then travel
  through the pipe instead.
- A worker freezes the heap it inherits (``gc.freeze``) and collects only its own
  garbage, after each job: the builder's objects are never scanned nor copied by the
  collector.
- A worker exits as soon as the builder is gone: its pipe closes, or its parent
  pid changes (checked between jobs and every second while idle: the pipe alone
  is not enough, a sibling worker holds a copy of the builder's end).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

from ragraf.failpoints import failpoint

T = TypeVar("T")
Job = int  # an index into the caller's job list

#: how often an idle worker checks that its builder still lives
_ORPHAN_CHECK_S = 1.0


def _loop(conn: Connection, parent: int, work: Callable[[Any], object]) -> None:
    """A worker: receive (job, argument), send (job, work(argument)) back, until told to stop."""
    gc.freeze()  # the heap inherited from the builder is never scanned (nor copied)
    # a worker's own garbage is collected once per job, after it, instead of every 700
    # allocations (the builder may have paused the collector anyway): a job's cycles (an
    # extractor and its bound handlers) are young then, and what outlives jobs (caches) is
    # never scanned again. WordPress's extraction: 4-5% less CPU in the workers (8% in one
    # process), the same peak memory (switched off entirely: the cycles kept every file's
    # facts, twice the memory)
    gc.disable()
    while True:
        try:
            # a sibling forked later holds a copy of the builder's end of this pipe, so a
            # killed builder does not always close it: look at the parent every second
            if not conn.poll(_ORPHAN_CHECK_S):
                if os.getppid() != parent:
                    return
                continue
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None or os.getppid() != parent:
            return
        job, arg = message
        message = None
        try:
            result = work(arg)
        except BaseException as e:  # a bug in the work: the builder reports it and fails
            import traceback

            conn.send((job, _Failure(f"{type(e).__name__}: {e}", traceback.format_exc())))
            return
        arg = None
        conn.send((job, result))
        result = None
        gc.collect(1)


class _Failure:
    """An exception a job raised in a worker, carried back to the builder."""

    def __init__(self, message: str, traceback: str) -> None:
        self.message = message
        self.traceback = traceback


class WorkerError(RuntimeError):
    """A job raised an exception in its worker (a bug, not bad input)."""


class _Worker:
    def __init__(
        self, ctx: multiprocessing.context.BaseContext, work: Callable[[Any], object]
    ) -> None:
        self.conn, child = multiprocessing.Pipe()
        # forked: the target and its arguments are the child's as they are, never pickled
        self.proc = ctx.Process(target=_loop, args=(child, os.getpid(), work), daemon=True)  # type: ignore[attr-defined]
        self.proc.start()
        child.close()
        self.job: int | None = None
        self.started = 0.0

    def give(self, job: int, arg: object) -> None:
        self.job, self.started = job, time.monotonic()
        self.conn.send((job, arg))

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.kill()
        else:
            self.conn.close()


class Outcome(Generic[T]):
    """A job's result, or ``timed_out`` after the budget (result None)."""

    __slots__ = ("result", "timed_out", "seconds")

    def __init__(self, result: T | None, timed_out: bool, seconds: float) -> None:
        self.result = result
        self.timed_out = timed_out
        self.seconds = seconds


class Pool(Generic[T]):
    """``size`` forked workers running ``work``; they fork at ``start`` (or at the first
    ``run``), and stop at ``close``. Start a pool before the builder reads the files and
    send each job's input with it (``run``'s ``arg``): the workers then never map the
    builder's texts (MediaWiki: ~70 MB in each worker's RSS otherwise)."""

    def __init__(self, work: Callable[[Any], T], size: int) -> None:
        self.work = work
        self.size = max(1, size)
        self._ctx = multiprocessing.get_context("fork")
        self._pool: list[_Worker] = []

    def start(self, size: int | None = None) -> Pool[T]:
        """Fork the workers now (at most ``size`` of them; idempotent)."""
        want = self.size if size is None else max(1, min(size, self.size))
        while len(self._pool) < want:
            self._pool.append(_Worker(self._ctx, self.work))
        return self

    def close(self) -> None:
        pool, self._pool = self._pool, []
        for w in pool:
            w.stop()

    def __enter__(self) -> Pool[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(
        self,
        jobs: Sequence[int],
        arg: Callable[[int], object] | None,
        budget_s: float | None,
        progress: Callable[[int, int], None] | None = None,
    ) -> dict[int, Outcome[T]]:
        """``work(arg(job))`` (``work(job)`` without ``arg``) for every job, in the order
        given, killing any job that exceeds ``budget_s`` seconds; the pool stays up."""
        out: dict[int, Outcome[T]] = {}
        if not jobs:
            return out

        def give(w: _Worker, job: int) -> None:
            w.give(job, job if arg is None else arg(job))

        self.start(len(jobs))
        pool = self._pool
        todo = list(reversed(jobs))
        for w in pool:
            if todo:
                give(w, todo.pop())
        failpoint("workers-started")
        while len(out) < len(jobs):
            busy = [i for i, w in enumerate(pool) if w.job is not None]
            timeout = None
            if budget_s:
                now = time.monotonic()
                timeout = max(0.0, min(pool[i].started + budget_s - now for i in busy))
            ready = wait([pool[i].conn for i in busy], timeout)
            for i in busy:
                w = pool[i]
                job = w.job
                assert job is not None
                if w.conn in ready:
                    try:
                        raw = w.conn.recv_bytes()
                    except (EOFError, OSError):  # the worker died (killed from outside, OOM)
                        out[job] = Outcome(None, True, time.monotonic() - w.started)
                        w.kill()
                        pool[i] = w = _Worker(self._ctx, self.work)
                    else:
                        seconds = time.monotonic() - w.started
                        w.job = None
                        if todo:  # the next job first: the worker works while we decode
                            give(w, todo.pop())
                        done, result = pickle.loads(raw)
                        if isinstance(result, _Failure):
                            raise WorkerError(f"job {done}: {result.message}\n{result.traceback}")
                        out[done] = Outcome(result, False, seconds)
                elif budget_s and time.monotonic() - w.started > budget_s:
                    out[job] = Outcome(None, True, time.monotonic() - w.started)
                    w.kill()
                    pool[i] = w = _Worker(self._ctx, self.work)
                if w.job is None and todo:
                    give(w, todo.pop())
            if progress is not None:
                progress(len(out), len(jobs))
        return out


def run_jobs(
    jobs: Sequence[int],
    work: Callable[[int], T],
    workers: int,
    budget_s: float | None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[int, Outcome[T]]:
    """Run ``work(job)`` for every job in ``workers`` processes forked now (they inherit
    whatever ``work`` reads), in the order given, killing any job that exceeds
    ``budget_s`` seconds."""
    with Pool(work, min(workers, len(jobs)) if jobs else 1) as pool:
        return pool.run(jobs, None, budget_s, progress)
