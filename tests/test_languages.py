"""Scan per language (issue 14): default include globs per enabled language, `languages:
auto`, files no glob selects counted by suffix, and the warning of a corpus without code."""

from __future__ import annotations

import json
from pathlib import Path

from ragraf import config
from ragraf.corpus import scan
from ragraf.indexing import indexer
from tests.helpers import invoke, write


def _tree(root: Path) -> Path:
    write(root, "app/a.php", "<?php function a() { return 1; }\n")
    write(root, "pkg/__init__.py", "")
    write(root, "pkg/m.py", "def f():\n    return 1\n")
    write(root, "README.md", "# readme\n")
    write(root, "db/migrations/001.sql", "CREATE TABLE t (id INT);\n")
    write(root, "notes.txt", "x\n")
    write(root, "Makefile", "all:\n")
    write(root, "data/a.csv", "1\n")
    write(root, "data/b.csv", "2\n")
    write(root, "pkg/__pycache__/m.cpython-311.pyc", b"\x00")
    write(root, ".venv/lib/x.py", "x = 1\n")
    config.init_project(root)
    return root


def test_auto_selects_every_known_language_and_counts_the_rest(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    cfg = config.load(root)
    assert cfg.corpus.languages is None and cfg.corpus.include is None
    res = scan(cfg)
    assert [(f.path, f.lang) for f in res.files] == [
        ("README.md", "markdown"),
        ("app/a.php", "php"),
        ("db/migrations/001.sql", "sql"),
        ("pkg/__init__.py", "python"),
        ("pkg/m.py", "python"),
    ]
    # excluded folders (.venv, __pycache__) are not counted; .gitignore comes from init
    assert res.not_selected == {".csv": 2, "(none)": 1, ".gitignore": 1, ".txt": 1}


def test_an_explicit_language_list_selects_only_its_globs(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    config.Layout(root).project_yaml.write_text("languages: [php, markdown]\n")
    res = scan(config.load(root))
    assert [f.path for f in res.files] == ["README.md", "app/a.php"]
    assert res.not_selected == {
        ".csv": 2,
        ".py": 2,
        "(none)": 1,
        ".gitignore": 1,
        ".sql": 1,
        ".txt": 1,
    }
    # an explicit include list still replaces the language globs
    config.Layout(root).project_yaml.write_text("languages: [php]\ninclude: ['**/*.txt']\n")
    assert [f.path for f in scan(config.load(root)).files] == ["notes.txt"]


def test_status_lists_what_was_not_selected_by_kind(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    assert invoke("index", "--no-vectors", cwd=root).exit_code == 0
    cov = json.loads(invoke("status", "--json", cwd=root).stdout)["coverage"]
    assert cov["files.not_selected"] == {
        "value": 5.0,
        "note": "no include glob selects them, by suffix: .csv 2, (none) 1, .gitignore 1, .txt 1",
    }
    assert {k: v["value"] for k, v in cov.items() if k.endswith(".files")} == {
        "lang.markdown.files": 1.0,
        "lang.php.files": 1.0,
        "lang.python.files": 2.0,
        "lang.sql.files": 1.0,
    }


def test_a_corpus_without_code_says_so_and_exits_0(tmp_path: Path) -> None:
    write(tmp_path, "main.zig", "pub fn main() void {}\n")  # a language ragraf does not parse
    write(tmp_path, "lib.zig", "pub fn f() void {}\n")
    config.init_project(tmp_path)
    res = invoke("index", "--no-vectors", cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    line = next(ln for ln in res.stderr.splitlines() if "files selected" in ln)
    assert line.startswith(
        "ragraf: 0 files selected — languages found: .zig (2 files), .gitignore (1 files). Hint:"
    )
    assert "`languages`" in line and "`include`" in line
    # only text selected (markdown): still no code, said so
    write(tmp_path, "README.md", "# r\n")
    res = invoke("index", "--no-vectors", cwd=tmp_path)
    assert res.exit_code == 0
    assert "0 code files selected (1 text files) — languages found: .zig (2 files)" in res.stderr


def test_calls_by_name_stay_within_their_language(tmp_path: Path) -> None:
    """An untyped ``$s->push()`` in PHP may be any PHP method push, never a JavaScript one,
    and ``q.push()`` in JavaScript never a PHP one (on MediaWiki, 484 JavaScript functions
    were listed as callers of a PHP method push)."""
    from ragraf import facade

    root = tmp_path / "mixed"
    root.mkdir()
    (root / "stack.php").write_text(
        "<?php\nclass Stack { public function push($v) {} }\nfunction fill($s) { $s->push(1); }\n"
    )
    (root / "queue.js").write_text(
        "class Queue { push(v) {} }\nfunction feed(q) { q.push(1); }\nmodule.exports = { feed };\n"
    )
    config.init_project(root)
    indexer.build(config.load(root))

    def callers(fqn: str) -> set[str]:
        r = facade.run_op(root, "callers", {"detail": "full", "fqn": fqn})["result"]
        return {c["symbol"]["path"] for c in r["stated"] + r["derived"]}

    assert callers("Stack::push") == {"stack.php"}
    js_push = next(
        n["fqn"]
        for n in facade.run_op(root, "symbol", {"name": "push"})["result"]["matches"]
        if n["path"] == "queue.js"
    )
    assert callers(js_push) == {"queue.js"}
