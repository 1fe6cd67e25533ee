"""How many CPUs this process may use: what "one per CPU" defaults mean.

``os.cpu_count()`` counts the machine's CPUs. In a container limited to 2 CPUs on a
64-core host it says 64, and "one parser process per CPU" would fork 64 workers (each with
its own heap) to share 2 CPUs. The usable count is the process's affinity mask (taskset,
cpusets), capped by a CFS quota of its cgroup (``docker --cpus``, Kubernetes limits):
cgroup v2 ``cpu.max``, or v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``.

Invariants a change must keep:
- Never below 1, never above the affinity mask; a quota rounds up (1.5 CPUs -> 2).
- Unreadable or absent cgroup files mean no quota, never an error.
- Computed once per process (the files do not change under a running build).
"""

from __future__ import annotations

import math
import os
from functools import cache
from pathlib import Path

_CGROUP = Path("/sys/fs/cgroup")


@cache
def usable() -> int:
    """The CPUs this process may run on (see the module doc)."""
    quota = cgroup_quota(_CGROUP, _own_cgroup())
    return max(1, min(_affinity(), math.ceil(quota) if quota else 1 << 30))


def _affinity() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def _own_cgroup() -> str:
    """This process's cgroup v2 path ("0::/a/b" in /proc/self/cgroup), or "" when unknown."""
    try:
        for line in Path("/proc/self/cgroup").read_text(encoding="ascii").splitlines():
            if line.startswith("0::"):
                return line[3:].strip().lstrip("/")
    except (OSError, UnicodeDecodeError):
        pass
    return ""


def cgroup_quota(root: Path, own: str = "") -> float | None:
    """CPUs the CFS quota under ``root`` allows (None: no quota): the process's own cgroup
    and each of its parents (v2; a container usually sees its own cgroup at the root), or
    v1's cpu controller at the root."""
    quotas = []
    parts = [p for p in own.split("/") if p]
    for depth in range(len(parts), -1, -1):
        got = _v2(root.joinpath(*parts[:depth], "cpu.max"))
        if got is not None:
            quotas.append(got)
    for folder in ("cpu", "cpu,cpuacct", "cpuacct,cpu"):
        got = _v1(root / folder)
        if got is not None:
            quotas.append(got)
            break
    return min(quotas) if quotas else None


def _v2(path: Path) -> float | None:
    try:
        fields = path.read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return None
    if len(fields) != 2 or fields[0] == "max":
        return None
    try:
        quota, period = int(fields[0]), int(fields[1])
    except ValueError:
        return None
    return quota / period if quota > 0 and period > 0 else None


def _v1(folder: Path) -> float | None:
    try:
        quota = int((folder / "cpu.cfs_quota_us").read_text(encoding="ascii").strip())
        period = int((folder / "cpu.cfs_period_us").read_text(encoding="ascii").strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return quota / period if quota > 0 and period > 0 else None
