"""Property-based tests (hypothesis): random byte strings, random nesting and random file
names never crash ``index``, ``drift --scan`` or ``live_read``, and nothing outside the
project root is ever read, stored or served.

Every example is a fresh project on the real file system, indexed into real SQLite with
the real parser workers. A secret lives next to the root, and the generated tree holds
links to it (relative, absolute, through a linked folder): its text must never reach a
store or an answer. The default profile is derandomized, so CI runs the same examples on
every commit; ``RAGRAF_HYPOTHESIS=explore`` runs many more, random ones, by hand.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragraf import config, facade
from ragraf.drift.scan import run_scan
from ragraf.errors import RagrafError
from ragraf.indexing import indexer

SECRET = "SENTINEL-OUTSIDE-THE-ROOT-7f3a"

settings.register_profile(
    "ci",
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "explore",
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("RAGRAF_HYPOTHESIS", "ci"))

# -- what a hostile or careless tree holds ----------------------------------------------------
#: one path component: anything a Linux file name may hold (no "/" and no NUL), including
#: newlines, ESC, C1 controls, quotes, glob and markdown characters, non-BMP text, and
#: bytes that are no UTF-8 (as Python reads them: lone surrogates U+DC80..U+DCFF)
_not_utf8 = st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF)
_component = st.one_of(
    st.text(
        alphabet=st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)),
        min_size=1,
        max_size=24,
    ),
    st.builds(
        lambda a, b, c: a + b + c, st.text("ab._", max_size=4), _not_utf8, st.text("x.", max_size=3)
    ),
).filter(lambda s: s not in (".", "..") and len(os.fsencode(s)) <= 200)
_suffix = st.sampled_from([".php", ".php", ".md", ".sql", ".txt", ""])
_rel_path = st.builds(
    lambda folders, name, suffix: os.path.join(*folders, name + suffix),
    st.lists(st.sampled_from(["src", "db/migrations", "docs", "a b", "\n", "x"]), max_size=2),
    _component,
    _suffix,
)

_PHP_TOKENS = [
    "<?php ", "?>", "[", "]", "(", ")", "{", "}", ";", "'", '"', "/*", "*/", "//", "#",
    "\n", "<<<EOT\n", "\nEOT;\n", "function f(", "class A ", "namespace N;", "use X\\Y;",
    "$x = ", "->", "::", "new ", "fn() => ", "match(", "SELECT * FROM t WHERE ", "`",
    "include '", "require_once __DIR__ . '/", "\\", "$$", "${", "\x00", "\x1b[31m", "\u202e",
]  # fmt: skip
_nesting = st.builds(
    lambda opener, depth, tail: "<?php $a = " + opener * depth + tail,
    st.sampled_from(["[", "(", "{", "f(", "[[", "array(", "'", '"{$']),
    st.integers(0, 3000),
    st.sampled_from(["", ";", "]" * 10, ")"]),
)
_token_soup = st.lists(st.sampled_from(_PHP_TOKENS), max_size=400).map("".join)
_sql = st.lists(
    st.sampled_from(
        [
            "CREATE TABLE ", "t", "(", ")", "id INT", ",", "REFERENCES t(id)", "PRIMARY KEY",
            "ALTER TABLE t ADD ", "DROP TABLE t", ";", "\n", "`", "'", "--", "/*", "DELIMITER $$",
            "FOREIGN KEY (id) REFERENCES u(id)", "CREATE VIEW v AS SELECT 1",
        ]
    ),
    max_size=120,
).map("".join)  # fmt: skip


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


_content = st.one_of(
    st.binary(max_size=3000),
    _nesting.map(_encode),
    _token_soup.map(_encode),
    _sql.map(_encode),
    st.text(max_size=500).map(_encode),
)
#: links a tree may hold, pointing out of the root (to the secret), around, or in circles
_LINKS = ["../secret.php", "{outside}/secret.php", "{outside}", "/etc", "loop", "."]

_tree = st.lists(
    st.tuples(_rel_path, st.one_of(_content, st.sampled_from(_LINKS))),
    min_size=1,
    max_size=8,
)
#: an edit may nest deeper than any parser should follow: drift --scan parses it under the
#: same per-file budget as index (docs/RELIABILITY.md), set low here (``_BUDGET_S``)
_deep = st.integers(5_000, 60_000).map(lambda d: ("<?php $a = " + "[" * d + ";\n").encode())
_edits = st.lists(st.tuples(st.integers(0, 7), st.one_of(_content, _deep, st.none())), max_size=4)
_BUDGET_S = 2
_probe = st.one_of(
    _rel_path,
    st.text(max_size=40),
    st.sampled_from(
        [
            "../secret.php",
            "/etc/passwd",
            "src/../../secret.php",
            "link/secret.php",
            "link",
            "./src",
            "",
            "\x00",
        ]
    ),
)


# -- the project ------------------------------------------------------------------------------
def _make_tree(base: Path, tree: list[tuple[str, bytes | str]]) -> tuple[Path, list[str]]:
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.php").write_text("<?php // " + SECRET + "\n")
    (base / "secret.php").write_text("<?php // " + SECRET + "\n")
    root = base / "root"
    root.mkdir()
    made: list[str] = []
    for rel, what in tree:
        p = root / rel
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(what, bytes):
                p.write_bytes(what)
            elif what == "loop":
                os.symlink(p.name, p)  # a link to itself
            else:
                os.symlink(what.format(outside=outside), p)
        except OSError:
            continue  # a name the file system refuses (too long, a folder already, ...)
        made.append(rel)
    os.symlink(outside, root / "link")
    config.init_project(root)
    yaml = config.Layout(root).project_yaml
    yaml.write_text(
        yaml.read_text().replace("file_time_budget_s: 10 ", f"file_time_budget_s: {_BUDGET_S} ")
    )
    return root, made


def _assert_nothing_from_outside(root: Path, answer: object = None) -> None:
    if answer is not None:
        assert SECRET not in json.dumps(answer, ensure_ascii=False)
    for p in (root / ".ragraf").rglob("*"):
        if p.is_file() and not p.is_symlink():
            assert SECRET.encode() not in p.read_bytes(), f"{p} holds text from outside the root"


def _live_read(root: Path, path: str) -> None:
    try:
        env = facade.run_op(root, "live_read", {"path": path})
    except RagrafError as e:  # a refusal is an answer too; it names no outside text
        assert SECRET not in str(e)
        return
    _assert_nothing_from_outside(root, env)


@given(tree=_tree, edits=_edits, probes=st.lists(_probe, max_size=4))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_random_trees_never_crash_and_never_leave_the_root(
    tree: list[tuple[str, bytes | str]],
    edits: list[tuple[int, bytes | None]],
    probes: list[str],
) -> None:
    base = Path(tempfile.mkdtemp(prefix="ragraf-prop-"))
    try:
        root, made = _make_tree(base, tree)
        cfg = config.load(root)
        res = indexer.build(cfg)
        assert res.status == "built"
        _assert_nothing_from_outside(root)
        for i, new in edits:
            if not made:
                break
            p = root / made[i % len(made)]
            if p.is_symlink() or not p.is_file():
                continue
            if new is None:
                p.unlink()
            else:
                p.write_bytes(new)
        run_scan(cfg)
        _assert_nothing_from_outside(root)
        for rel in [*made, *probes]:
            _live_read(root, rel)
    finally:
        shutil.rmtree(base, ignore_errors=True)
