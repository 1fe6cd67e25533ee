from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragraf.globs import GlobError, GlobSet, glob_to_regex


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("**/.git/**", ".git/config", True),
        ("**/.git/**", "a/b/.git/x", True),
        ("**/vendor/**", "vendor/a.php", True),
        ("**/*.php", "a.php", True),
        ("**/*.php", "a/b/c.php", True),
        ("db/migrations/*.sql", "db/migrations/1.sql", True),
        ("db/migrations/*.sql", "db/migrations/x/1.sql", False),
        ("**/*_bak*", "src/old_bak/a.php", True),
        ("src/?.php", "src/a.php", True),
        ("src/[!a].php", "src/a.php", False),
        ("**/cache/**", "src/Cache/a.php", False),
    ],
)
def test_match(pattern: str, path: str, expected: bool) -> None:
    assert GlobSet([pattern]).match(path) is expected


def test_case_insensitive_option_fixes_r_core_1() -> None:
    assert GlobSet(["**/cache/**"], case_insensitive=True).match("src/Cache/a.php")


@pytest.mark.parametrize("bad", ["", "/abs/**", "../up", "a**", "x/[ab", "a\\b"])
def test_bad_patterns(bad: str) -> None:
    with pytest.raises(GlobError):
        GlobSet([bad])


def _reference(patterns: list[str], case_insensitive: bool) -> re.Pattern[str]:
    """The one-regex matcher GlobSet's fast paths must agree with."""
    flags = re.IGNORECASE if case_insensitive else 0
    return re.compile("(?:" + "|".join(glob_to_regex(p) for p in patterns) + r")\Z", flags)


_segment = st.sampled_from(["a", "src", "vendor", "x.php", "go.mod", ".env", "B.PHP", "y.min.js"])


@settings(max_examples=300, deadline=None)
@given(
    patterns=st.lists(
        st.sampled_from(
            [
                "**/*.php",
                "**/go.mod",
                "**/.env",
                "**/vendor/**",
                "**/*.min.js",
                "src/*",
                "**/*_bak*",
            ]
        ),
        min_size=1,
        max_size=4,
    ),
    parts=st.lists(_segment, min_size=1, max_size=4),
    fold=st.booleans(),
)
def test_fast_paths_agree_with_the_regex(patterns: list[str], parts: list[str], fold: bool) -> None:
    """``**/*<suffix>`` and ``**/<name>`` are tested without the regex: same answers."""
    gs = GlobSet(patterns, case_insensitive=fold)
    rx = _reference(patterns, fold)
    path = "/".join(parts)
    for probe in (path, path + "/"):
        assert gs.match_exact(probe) == bool(rx.match(probe)), (patterns, probe)
    prefixes = [path[:i] for i, c in enumerate(path) if c == "/"]
    want = bool(rx.match(path)) or any(rx.match(p) or rx.match(p + "/") for p in prefixes)
    assert gs.match(path) == want, (patterns, path)
