"""Shared test helpers: real files in tmp folders, real SQLite, real processes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# The embedding layer is exercised by tests/test_search.py with the real model; every
# other test indexes without it so the suite stays fast (subprocesses inherit this).
os.environ["RAGRAF_VECTORS"] = "off"
PILOT = REPO / "fixtures" / "pilot"


def copy_pilot(dest: Path) -> Path:
    shutil.copytree(PILOT, dest, ignore=shutil.ignore_patterns(".ragraf"))
    return dest


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-m", "ragraf", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"ragraf {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


@pytest.fixture
def pilot(tmp_path: Path) -> Path:
    """A fresh copy of fixtures/pilot with `ragraf init` done."""
    from ragraf.config import init_project

    root = copy_pilot(tmp_path / "pilot")
    init_project(root)
    return root


@pytest.fixture
def indexed_pilot(pilot: Path) -> Path:
    from ragraf import config
    from ragraf.build import indexer

    indexer.build(config.load(pilot))
    return pilot


def write(root: Path, rel: str, text: str | bytes) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p
