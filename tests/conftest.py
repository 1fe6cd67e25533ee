"""Fixtures and hooks of the suite (helpers to import are in tests/helpers.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.guards import MARIADB
from tests.helpers import GIT_REPO_ENV, HOME_ENV, copy_pilot

# The embedding layer is exercised by the tests marked `model` with the real model; every
# other test indexes without it so the suite stays fast (subprocesses inherit this).
os.environ["RAGRAF_VECTORS"] = "off"
# Tests make git repositories of their own; under a git hook or `git rebase --exec` GIT_DIR
# would send their git commands (and ragraf.gitinfo) to the repository running the suite.
for _name in [n for n in os.environ if n in GIT_REPO_ENV or n.startswith("GIT_CONFIG_")]:
    del os.environ[_name]

MARIADB.install()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before any fixture of the test (module-scoped ones included) connects."""
    MARIADB.start_test(marked=item.get_closest_marker("mariadb") is not None)


@pytest.fixture(autouse=True)
def _mariadb_marker_is_honest(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if MARIADB.unmarked_connections:
        pytest.fail(
            f"{request.node.nodeid} connected to MariaDB on 127.0.0.1:3306 but is not marked "
            "`mariadb`; add @pytest.mark.mariadb",
            pytrace=False,
        )


def _isolate_home(base: Path, mp: pytest.MonkeyPatch) -> None:
    """HOME, the caches and the state folder under ``base``, in os.environ so subprocesses
    inherit them.

    The packaged model still loads: ragraf.embed prepares its folder of symlinks under
    RAGRAF_CACHE_DIR/models again (a few links and a hash, well under a second). The
    ledger anchors (ragraf/drift/anchor.py) go to RAGRAF_STATE_DIR."""
    home, cache, state = base / "home", base / "cache", base / "state"
    for folder in (home, cache, state):
        folder.mkdir(parents=True, exist_ok=True)
    values = (home, cache, cache / "ragraf", cache / "fastembed", state, state / "ragraf")
    for name, value in zip(HOME_ENV, values, strict=True):
        mp.setenv(name, str(value))
    if _DERIVED is not None:
        # the model's int8 graph (ragraf/embed/quantize.py, a few seconds to make) is made
        # once per session and shared: a pure function of the model's bytes and versions.
        # tests/test_embed.py makes it in caches of its own
        (cache / "ragraf" / "models").mkdir(parents=True, exist_ok=True)
        (cache / "ragraf" / "models" / "derived").symlink_to(_DERIVED)


#: the session's folder of derived model graphs (set by _session_home)
_DERIVED: Path | None = None


@pytest.fixture(scope="session", autouse=True)
def _session_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Module- and session-scoped fixtures run before any function-scoped one: they get a
    home of the session, so not even they write into the real ~/.cache."""
    global _DERIVED
    mp = pytest.MonkeyPatch()
    base = tmp_path_factory.mktemp("session-home")
    _isolate_home(base, mp)
    _DERIVED = base / "cache" / "ragraf" / "models" / "derived"
    _DERIVED.mkdir(parents=True, exist_ok=True)
    yield base
    mp.undo()


@pytest.fixture(autouse=True)
def isolated_home(
    _session_home: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test: its own HOME, caches and state folder (HOME_ENV), outside tmp_path
    (tests use tmp_path itself as a project root)."""
    base = tmp_path_factory.mktemp("home")
    _isolate_home(base, monkeypatch)
    return base


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
    from ragraf.indexing import indexer

    indexer.build(config.load(pilot))
    return pilot
