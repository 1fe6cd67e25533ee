"""Extraction workers: real forked processes, a real kill at the budget."""

from __future__ import annotations

import os
import time

import pytest

from ragraf.workers import Pool, WorkerError, run_jobs


def _square_or_stall(i: int) -> int:
    if i == 3:
        time.sleep(60)  # stuck: only a kill ends it
    return i * i


@pytest.mark.slow
def test_results_come_back_by_job_and_a_stuck_job_is_killed() -> None:
    out = run_jobs(list(range(8)), _square_or_stall, 2, 1.0)
    assert out[3].timed_out and out[3].result is None
    assert {i: o.result for i, o in out.items() if i != 3} == {i: i * i for i in range(8) if i != 3}


def _pid(_i: int) -> int:
    return os.getpid()


def test_jobs_run_in_other_processes() -> None:
    out = run_jobs([0, 1, 2], _pid, 2, None)
    assert os.getpid() not in {o.result for o in out.values()}


def _boom(i: int) -> int:
    if i == 1:
        raise ValueError("a bug")
    return i


def test_an_exception_in_a_job_is_a_worker_error_not_a_timeout() -> None:
    with pytest.raises(WorkerError, match="ValueError: a bug"):
        run_jobs([0, 1, 2], _boom, 1, 10.0)


def _rss_kib(_arg: object) -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def _describe(arg: tuple[str, int]) -> str:
    return f"{arg[0]}:{arg[1] * 2}"


def test_a_pool_runs_each_job_on_the_argument_sent_with_it() -> None:
    with Pool(_describe, 2) as pool:
        out = pool.run([0, 1, 2], lambda i: ("job", i), None)
        assert {i: o.result for i, o in out.items()} == {0: "job:0", 1: "job:2", 2: "job:4"}
        again = pool.run([5], lambda i: ("again", i), None)  # the pool stays up between runs
    assert again[5].result == "again:10"


def test_a_pool_forked_early_never_maps_what_the_builder_reads_later() -> None:
    """Workers forked after the builder read the files count every text in their RSS;
    forked before, they hold only the job in hand (issue 18: MediaWiki's tree peak)."""
    size = 256 * 1024 * 1024
    with Pool(_rss_kib, 1) as early:
        early.start()
        corpus = bytearray(os.urandom(1024)) * (size // 1024)  # read after the fork
        late = run_jobs([0], _rss_kib, 1, None)[0].result
        mine = early.run([0], lambda i: i, None)[0].result
    assert late is not None and mine is not None and len(corpus) == size
    assert late - mine > 0.8 * size // 1024, (late, mine)
