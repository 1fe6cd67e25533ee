"""The fast lexicon tokenization (issue 18) gives exactly what the plain definitions give.

``fts_text`` joins cached per-word strings, ``chunking._tokens`` finds the comments in one
pass with a faster pattern and looks at string literals only when a cheap test says a SQL
string can be there. The plain definitions are written out here; the chunks of every PHP
fixture, cut into windows, and hand-written corner cases must tokenize the same (and
hypothesis adds random text made of the characters these patterns care about).
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ragraf.lang import chunking
from ragraf.sql.sqltext import looks_like_sql
from ragraf.tokens import fts_text, identifier_tokens

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_PLAIN_COMMENT = re.compile(
    r"/\*.*?\*/|(?<![:\w])//[^\n]*|^\s*#(?!\[)[^\n]*", re.DOTALL | re.MULTILINE
)


def plain_fts_text(text: str) -> str:
    return " ".join(identifier_tokens(text))


def plain_tokens(code: str) -> tuple[str, str, str]:
    comments = " ".join(m.group(0) for m in _PLAIN_COMMENT.finditer(code))
    stripped = _PLAIN_COMMENT.sub(" ", code)
    sql = " ".join(
        m.group(0)
        for m in chunking._STRING.finditer(stripped)
        if looks_like_sql(chunking._body(m.group(0)))
    )
    return plain_fts_text(stripped), plain_fts_text(sql), plain_fts_text(comments)


CORNERS = [
    "",
    "'select a from b'",
    "$q = 'SELECT * FROM t WHERE a = 1'; // SELECT x FROM y",
    '"/* hint */ ( SELECT x FROM y"',
    "'Select a file from the list'",
    "$s = <<<SQL\n  UPDATE t SET a = 1\n  SQL;\n",
    "$s = <<<'SQL'\nDELETE FROM t\nSQL;\n",
    "# comment\n  #[Attribute]\n$url = 'http://example.com/a'; //tail\n",
    "a//b http://x/y c:/* not */d /* multi\nline */ e",
    "/* never closed 'select a from b'",
    "__ _ $$ a_b fooBar HTTPServer x1y2 \u00e9_\u00e9 \u20ac ___",
    "'selection from x' 'select_x from y' 'SELECTfrom'",
    "'\n\nINSERT INTO t VALUES (1)'",
]


def _fixture_windows() -> list[str]:
    out = []
    for path in sorted(FIXTURES.rglob("*.php")):
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        for size in (7, 40):
            out += ["\n".join(lines[i : i + size]) for i in range(0, len(lines), size)]
    return out


def test_fast_tokens_equal_the_plain_definitions() -> None:
    codes = CORNERS + _fixture_windows()
    assert len(codes) > 100
    for code in codes:
        assert chunking._tokens(code) == plain_tokens(code), code[:200]
        assert fts_text(code) == plain_fts_text(code), code[:200]
    # the cases the shortcuts skip work on are there: SQL found, and none in prose
    assert plain_tokens(CORNERS[2])[1] == "SELECT FROM t WHERE a"
    assert plain_tokens(CORNERS[5])[1] != ""
    assert plain_tokens(CORNERS[4])[1] == ""


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["'", '"', "/", "*", "#", "[", "\n", " ", ":", "(", "<<<", "SQL", "x", "_", "\u00e9"]
            + ["select", "SELECT", "from", "FROM", "update", "set", "Insert", "into", "with"]
        ),
        max_size=40,
    )
)
def test_fast_tokens_equal_the_plain_definitions_on_random_text(parts: list[str]) -> None:
    code = "".join(parts)
    assert chunking._tokens(code) == plain_tokens(code)
