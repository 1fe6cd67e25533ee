from __future__ import annotations

import pytest

from ragraf.globs import GlobError, GlobSet


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
