"""What "one per CPU" means: the CPUs this process may use, not the machine's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragraf.cpus import cgroup_quota
from tests.helpers import REPO


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this OS")
def test_a_process_bound_to_one_cpu_uses_one(tmp_path: Path) -> None:
    """Bound to one CPU (as taskset or a cpuset does), a process forks one parser and runs
    the embedding on one thread, whatever os.cpu_count() says."""
    from ragraf import config

    config.init_project(tmp_path)
    code = (
        "import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]});"
        "from ragraf import config, cpus; from ragraf.embed import helper;"
        f"print(cpus.usable(), config.load(__import__('pathlib').Path({str(tmp_path)!r})).workers(),"
        " helper.wanted(), os.cpu_count())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.split()
    assert out[:3] == ["1", "1", "False"], out


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_container_quota_caps_the_count(tmp_path: Path) -> None:
    """cgroup v2 cpu.max (the process's own cgroup and its parents) and v1's CFS quota,
    read from files laid out as the kernel shows them."""
    assert cgroup_quota(tmp_path) is None  # no cgroup files: no quota
    _write(tmp_path / "cpu.max", "max 100000\n")
    assert cgroup_quota(tmp_path) is None  # unlimited
    _write(tmp_path / "cpu.max", "150000 100000\n")
    assert cgroup_quota(tmp_path) == 1.5
    _write(tmp_path / "docker" / "abc" / "cpu.max", "200000 100000\n")
    _write(tmp_path / "docker" / "cpu.max", "400000 100000\n")
    assert cgroup_quota(tmp_path, "docker/abc") == 1.5  # the tightest on the way up
    _write(tmp_path / "cpu.max", "max 100000\n")
    assert cgroup_quota(tmp_path, "/docker/abc") == 2.0
    v1 = tmp_path / "v1"
    _write(v1 / "cpu,cpuacct" / "cpu.cfs_quota_us", "300000\n")
    _write(v1 / "cpu,cpuacct" / "cpu.cfs_period_us", "100000\n")
    assert cgroup_quota(v1) == 3.0
    _write(v1 / "cpu,cpuacct" / "cpu.cfs_quota_us", "-1\n")
    assert cgroup_quota(v1) is None
    _write(tmp_path / "bad" / "cpu.max", "garbage\n")
    assert cgroup_quota(tmp_path / "bad") is None
