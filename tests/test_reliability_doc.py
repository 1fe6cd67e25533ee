"""docs/RELIABILITY.md names, for every fault, the test that holds the promise: every test
it names exists (in the file it names, else tests/test_reliability.py)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.helpers import REPO

DOC = REPO / "docs" / "RELIABILITY.md"


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def test_every_test_the_reliability_doc_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    checked = 0
    for span in re.findall(r"`([^`]+)`", text):
        m = re.fullmatch(r"(?:(tests/[\w/]+\.py)(?:::)?)?(test_\w+)?(?:\[[^\]]*\])?", span)
        if m is None or not any(m.groups()):
            continue
        file, name = m.groups()
        path = REPO / (file or "tests/test_reliability.py")
        assert path.exists(), f"docs/RELIABILITY.md names {span}"
        if name:
            assert name in _tests_in(path), f"docs/RELIABILITY.md names {name}, not in {path.name}"
            checked += 1
    assert checked >= 40


def test_every_reliability_test_is_in_the_doc() -> None:
    text = DOC.read_text(encoding="utf-8")
    tests = {n for n in _tests_in(REPO / "tests" / "test_reliability.py") if n.startswith("test_")}
    missing = sorted(t for t in tests if t not in text)
    assert missing == [], f"add these to docs/RELIABILITY.md: {missing}"
