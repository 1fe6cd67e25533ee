"""ragraf.escape and sanitize.escape_tree: every control character a repository can put
into a name is made visible, everything else is left alone, and the escape reverses."""

from __future__ import annotations

from enum import StrEnum

import pytest

from ragraf.escape import escape, has_unsafe, unescape
from ragraf.facade.sanitize import escape_tree

UNSAFE = ["\x00", "\n", "\t", "\x1b", "\x7f", "\x85", "\x9b", "\u2028", "\u202e", "\u2066"]


@pytest.mark.parametrize("ch", UNSAFE)
def test_every_unsafe_character_is_made_visible_and_comes_back(ch: str) -> None:
    s = f"src/a{ch}b.php"
    shown = escape(s)
    assert not has_unsafe(shown) and shown.isprintable()
    assert unescape(shown) == s
    assert escape(shown) == shown  # idempotent: an answer escaped twice is unchanged


@pytest.mark.parametrize("s", ["src/Billing/Invoice.php", "App\\Billing\\new", "café ☕ 𝄞", ""])
def test_ordinary_names_are_unchanged(s: str) -> None:
    assert escape(s) == s


class Kind(StrEnum):
    ODD = "odd\x1bkind"


def test_escape_tree_walks_every_container_and_spares_untrusted_blocks() -> None:
    code = {"untrusted": "line 1\n\tline 2", "truncated": False}
    answer = {
        "path": "x\n## #999 fake.php",
        "fine": "src/a.php",
        "n": 3,
        "none": None,
        "flag": True,
        "items": [("t\x1b", 1), {"deep": ["\x85"]}, Kind.ODD],
        "code": code,
        "by\npath": 1,
    }
    assert escape_tree(answer) == {
        "path": "x\\x0a## #999 fake.php",
        "fine": "src/a.php",
        "n": 3,
        "none": None,
        "flag": True,
        "items": [["t\\x1b", 1], {"deep": ["\\x85"]}, "odd\\x1bkind"],
        "code": {"untrusted": "line 1\n\tline 2", "truncated": False},
        "by\\x0apath": 1,
    }
    assert escape_tree(escape_tree(answer)) == escape_tree(answer)
