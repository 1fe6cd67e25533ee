"""Helpers the tests import: paths, fixture copies, files, the CLI as a real process.

Fixtures and hooks live in ``tests/conftest.py``; nothing imports conftest.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PILOT = REPO / "fixtures" / "pilot"
SQLAPP = REPO / "fixtures" / "sqlapp"
#: What points at the user's home and caches; conftest gives every test its own values.
HOME_ENV = ("HOME", "XDG_CACHE_HOME", "RAGRAF_CACHE_DIR", "FASTEMBED_CACHE_PATH")


def copy_pilot(dest: Path) -> Path:
    """A copy of fixtures/pilot at ``dest`` (without any .ragraf/ of a `make example`)."""
    shutil.copytree(PILOT, dest, ignore=shutil.ignore_patterns(".ragraf"))
    return dest


def write(root: Path, rel: str, text: str | bytes) -> Path:
    """Write ``root/rel`` (folders created); str as UTF-8, bytes as they are."""
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """A real ``python -m ragraf`` process (it inherits os.environ plus ``env``)."""
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
