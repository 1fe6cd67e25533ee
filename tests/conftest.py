"""Fixtures and hooks of the suite (helpers to import are in tests/helpers.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import copy_pilot

# The embedding layer is exercised by tests/test_search.py with the real model; every
# other test indexes without it so the suite stays fast (subprocesses inherit this).
os.environ["RAGRAF_VECTORS"] = "off"


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
