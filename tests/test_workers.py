"""Extraction workers: real forked processes, a real kill at the budget."""

from __future__ import annotations

import os
import time

import pytest

from ragraf.build.workers import WorkerError, run_jobs


def _square_or_stall(i: int) -> int:
    if i == 3:
        time.sleep(60)  # stuck: only a kill ends it
    return i * i


@pytest.mark.slow
def test_results_come_back_by_job_and_a_stuck_job_is_killed() -> None:
    t0 = time.monotonic()
    out = run_jobs(list(range(8)), _square_or_stall, 2, 1.0)
    assert time.monotonic() - t0 < 30  # far below the stuck job's 60 s
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
