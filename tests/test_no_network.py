"""Nothing leaves the machine: the first ``index`` with vectors, in a fresh HOME, as a real
process under strace, makes no network connection (no socket to an internet address, no
name lookup through nscd) and leaves no telemetry state behind (onnxruntime's 1DS
telemetry wrote ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/`` and queued uploads
before ``ragraf.embed.ort`` switched it off)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import copy_pilot

pytestmark = [pytest.mark.slow, pytest.mark.model]

#: a connect / sendto / sendmsg to an internet address, or a name lookup through nscd
_OUTBOUND = re.compile(r"AF_INET6?\b|sun_path=\"/(?:var/)?run/nscd/")


def test_the_first_index_makes_no_connection_and_leaves_no_telemetry(
    tmp_path: Path, isolated_home: Path
) -> None:
    strace = shutil.which("strace")
    if strace is None:
        if os.environ.get("RAGRAF_CI"):
            pytest.fail("strace is not installed; .ci/run installs it (Debian: strace)")
        pytest.skip("strace is not installed (Debian: apt-get install strace)")
    root = copy_pilot(tmp_path / "pilot")
    subprocess.run(
        [sys.executable, "-m", "ragraf", "init", str(root)], check=True, capture_output=True
    )
    trace = tmp_path / "strace.log"
    env = {**os.environ, "RAGRAF_VECTORS": "on"}
    env.pop("ORT_DISABLE_TELEMETRY", None)  # ragraf must set it itself
    done = subprocess.run(
        [
            strace,
            "-f",
            "-qq",
            "-e",
            "trace=connect,sendto,sendmsg,sendmmsg",
            "-o",
            str(trace),
            sys.executable,
            "-m",
            "ragraf",
            "-C",
            str(root),
            "index",
            "--wait-vectors",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "vectors:" in said and "computed" in said  # the model ran
    outbound = [line for line in trace.read_text().splitlines() if _OUTBOUND.search(line)]
    assert outbound == [], "network activity:\n" + "\n".join(outbound[:10])
    left = [
        p for p in isolated_home.rglob("*") if "Microsoft" in p.parts or "onnxruntime" in p.name
    ]
    assert left == [], f"telemetry state written: {left[:5]}"
