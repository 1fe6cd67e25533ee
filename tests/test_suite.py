"""The test suite's own rules (tests/helpers.py, tests/conftest.py)."""

from __future__ import annotations

import re

from tests.helpers import REPO


def test_no_test_imports_conftest() -> None:
    """Helpers are imported from tests/helpers.py; conftest.py holds fixtures and hooks only."""
    offenders = [
        p.name
        for p in sorted((REPO / "tests").glob("*.py"))
        if re.search(r"^\s*(from|import)\s+(tests\.)?conftest\b", p.read_text(), re.M)
    ]
    assert offenders == []
