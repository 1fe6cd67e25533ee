"""Revisions share the rows they have in common (issue 15, ``ragraf.store.ranges``).

After any sequence of edits, each followed by ``drift --scan`` and ``reindex --commit``,
the sealed revision shows exactly what a clean build of the same tree shows: every row
of every graph and lexvec table (not only the node, edge_uid and chunk sets), and with
vectors the same vector for every chunk_sha256. Earlier retained revisions keep their
view unchanged while later ones are written and pruned.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragraf import config
from ragraf.drift.scan import run_scan
from ragraf.indexing import indexer
from ragraf.store.graph import GraphStore
from ragraf.store.lexvec import LexStore
from ragraf.store.ranges import rev_no
from tests.helpers import copy_pilot, edit_file, write

Edit = Callable[[Path], None]

#: each a change an agent makes; together they touch every kind of row: bodies, new and
#: removed files and declarations, a renamed class other files refer to, SQL strings, the
#: schema (a column in the middle of a table), docs, and an edit undone
EDITS: list[tuple[str, Edit]] = [
    (
        "a body",
        lambda r: edit_file(r, "src/Billing/Invoice.php", '$this->log("charged $amount");', ""),
    ),
    (
        "a new file calling old code",
        lambda r: write(
            r,
            "src/Extra.php",
            "<?php\nnamespace App\\Billing;\n\nfunction extra_total(Invoice $i): int\n{\n"
            "    return $i->charge(3);\n}\n",
        ),
    ),
    ("a removed file", lambda r: (r / "plugins/paypal.php").unlink()),
    (
        "a renamed class others use",
        lambda r: edit_file(
            r, "src/Core/Logger.php", "final class FileLogger", "final class DiskLogger"
        ),
    ),
    (
        "a column in the middle of a table",
        lambda r: edit_file(
            r,
            "db/migrations/001_invoices.sql",
            "  amount INT NOT NULL,\n  status",
            "  amount INT NOT NULL,\n  currency CHAR(3),\n  status",
        ),
    ),
    (
        "docs",
        lambda r: write(
            r,
            "README.md",
            (r / "README.md").read_text() + "\n## Refunds\n\nRefunds reverse a charge.\n",
        ),
    ),
    ("the first edit undone", lambda r: _restore(r, "src/Billing/Invoice.php")),
]


#: edits a scoped resolution (``ragraf.indexing.resolve.link_memo``) must see reach files they do
#: not touch: each changes one file, and the files whose references resolve differently
#: because of it are others, unchanged (name -> edit, the least number of files resolved)
SCOPED_EDITS: list[tuple[str, Edit, int]] = [
    (
        "files of several languages that use each other",  # each new file resolved
        lambda r: (
            write(r, "web/a.js", "export function total(x) {\n  return x + 1;\n}\n"),
            write(
                r,
                "web/b.js",
                "import { total } from './a.js';\n\nexport function show() {\n"
                "  return total(2);\n}\n",
            ),
            write(r, "tools/a.py", "def helper():\n    return 1\n"),
            write(
                r, "tools/b.py", "from tools.a import helper\n\n\ndef run():\n    return helper()\n"
            ),
            write(r, "src/prefix.php", "<?php\n$table_prefix = 'pl_';\n"),
            write(r, "lib/app.rb", "require_relative 'helper'\n\ndef run\n  helper\nend\n"),
            write(
                r,
                "src/Refunds.php",
                "<?php\nnamespace App\\Billing;\n\nfunction refund_all($items)\n{\n"
                "    foreach ($items as $it) {\n        $it->refund();\n    }\n"
                "    global $db;\n    $db->query('SELECT id FROM invoices');\n"
                '    $db->query("SELECT id FROM {$table_prefix}refunds");\n'
                '    return "SELECT id FROM {$table_prefix}invoices";\n}\n',
            ),
        ),
        7,
    ),
    (
        "a method added that untyped receivers elsewhere call",
        lambda r: edit_file(
            r,
            "src/Billing/Invoice.php",
            "    public function charge(",
            "    public function refund(): void\n    {\n    }\n\n    public function charge(",
        ),
        2,
    ),
    (
        "a global variable assigned another class",
        lambda r: edit_file(
            r,
            "src/bootstrap.php",
            "$db = Database::connect('mysql://localhost/pilot');",
            "$db = new \\App\\Core\\FileLogger();",
        ),
        2,
    ),
    (
        "a CREATE TABLE in code",
        lambda r: write(
            r,
            "src/Setup.php",
            '<?php\nfunction setup($db)\n{\n    $db->query("CREATE TABLE pl_refunds (id INT)");\n}\n',
        ),
        1,  # known now, but the name Refunds.php builds resolved to it already
    ),
    (
        "a table prefix changed",
        lambda r: edit_file(r, "src/prefix.php", "'pl_'", "'pilot_'"),
        2,
    ),
    (
        "a function declared twice",
        lambda r: write(
            r,
            "plugins/money.php",
            "<?php\nfunction format_money(int $c): string\n{\n    return (string) $c;\n}\n",
        ),
        2,
    ),
    (
        "an include that brings the second declaration",
        lambda r: edit_file(
            r,
            "src/bootstrap.php",
            "require_once __DIR__ . '/Core/Logger.php';",
            "require_once __DIR__ . '/Core/Logger.php';\nrequire_once __DIR__ . '/../plugins/money.php';",
        ),
        2,
    ),
    (
        "a JavaScript function renamed",
        lambda r: edit_file(r, "web/a.js", "function total(", "function sum("),
        2,
    ),
    (
        "a Python function renamed",
        lambda r: edit_file(r, "tools/a.py", "def helper(", "def helper2("),
        2,
    ),
    (
        "a parent class renamed",
        lambda r: edit_file(
            r, "src/Billing/Model.php", "abstract class Model", "abstract class Base"
        ),
        2,
    ),
    ("a declaration's file removed", lambda r: (r / "plugins/money.php").unlink(), 2),
    (
        "a file a tags-level import names appears",
        lambda r: write(r, "lib/helper.rb", "def helper\n  1\nend\n"),
        2,
    ),
    (
        "a hook run in one file, a callback added to it in another",
        lambda r: (
            write(
                r,
                "plugins/hook_run.php",
                "<?php\nfunction invoice_saved($id)\n{\n    do_action('invoice_saved', $id);\n}\n",
            ),
            write(
                r,
                "plugins/hook_add.php",
                "<?php\nadd_action('invoice_saved', 'notify_saved');\nadd_action('init', 'notify_saved');\n"
                "function notify_saved($id)\n{\n}\n",
            ),
        ),
        2,
    ),
    (
        "the hook a callback is added to renamed (the file running it is linked again)",
        lambda r: edit_file(
            r, "plugins/hook_add.php", "add_action('invoice_saved',", "add_action('invoice_sent',"
        ),
        2,
    ),
    ("a body", EDITS[0][1], 1),
    # a schema input resolves every file (0: the whole path), the files a prepare hook
    # rewrites (JavaScript, Python, Ruby) among them, whole and prepared with their peers
    ("a schema migration edited", EDITS[4][1], 0),
]


#: a corpus without a schema file (the WordPress way): its tables are known only from the
#: SQL strings of its code ("code tables", ``ragraf.indexing.schema.add_code_tables``)
CODE_TABLES_APP: dict[str, str] = {
    # a table named before any string whose name is built at run time: it is not "known"
    # to the table-name conventions (only the schema's and CREATE TABLE ones are), whichever
    # file the linker happens to read first
    "a/comments.php": '<?php\nfunction comments($db)\n{\n    return $db->query("SELECT id FROM wp_comments");\n}\n',
    "config.php": "<?php\n$table_prefix = 'wp_';\n",
    "install/schema.php": (
        "<?php\nfunction install_tables()\n{\n    global $wpdb;\n"
        '    $wpdb->query("CREATE TABLE $wpdb->options (option_name VARCHAR(191) NOT NULL,'
        ' option_value LONGTEXT NOT NULL)");\n'
        '    $wpdb->query("CREATE TABLE logs (id INT NOT NULL, msg TEXT)");\n}\n'
    ),
    "src/Options.php": (
        "<?php\nfunction get_option($name)\n{\n    global $wpdb;\n"
        '    return $wpdb->get_var("SELECT option_value FROM $wpdb->options'
        " WHERE option_name = '$name'\");\n}\n\n"
        "function add_post($title)\n{\n    global $wpdb;\n"
        "    $wpdb->insert($wpdb->prefix . 'posts', array('post_title' => $title));\n"
        '    return $wpdb->get_var("SELECT COUNT(*) FROM {$wpdb->prefix}posts");\n}\n'
    ),
    "src/Logs.php": (
        "<?php\nfunction log_it($db, $m)\n{\n    $db->query(\"INSERT INTO logs (msg) VALUES ('x')\");\n"
        '    return $db->query("SELECT id FROM audit");\n}\n'
    ),
    "src/Links.php": (
        "<?php\nfunction all_links()\n{\n    global $wpdb;\n"
        '    return $wpdb->get_results("SELECT link_url FROM $wpdb->links");\n}\n\n'
        "function all_comments()\n{\n    global $wpdb;\n"
        '    return $wpdb->get_results("SELECT id FROM $wpdb->comments");\n}\n'
    ),
    "src/Util.php": (
        "<?php\nfunction esc($s)\n{\n    return htmlspecialchars($s);\n}\n\n"
        "function esc_all($xs)\n{\n    return array_map('esc', $xs);\n}\n"
    ),
    "src/Render.php": "<?php\nfunction render($t)\n{\n    echo esc($t) . get_option('x');\n}\n",
}

#: edits of CODE_TABLES_APP: (name, edit, files resolved at most); each must keep the rows
#: of the other files (a scoped build, no fallback to the whole path) and equal a clean build
CODE_TABLE_EDITS: list[tuple[str, Edit, int]] = [
    (
        "a new file naming a table earlier in path order",  # audit's node moves to it
        lambda r: write(
            r,
            "a/first.php",
            '<?php\nfunction first($db)\n{\n    $db->query("DELETE FROM audit");\n}\n',
        ),
        1,
    ),
    (
        "a CREATE TABLE string edited",  # a column in the middle of a table from code
        lambda r: edit_file(
            r, "install/schema.php", "id INT NOT NULL, msg", "id INT NOT NULL, lvl INT, msg"
        ),
        1,
    ),
    (
        "a CREATE TABLE that makes a table property resolve elsewhere",
        lambda r: edit_file(
            r,
            "install/schema.php",
            '    $wpdb->query("CREATE TABLE logs',
            '    $wpdb->query("CREATE TABLE $wpdb->links (link_url VARCHAR(255))");\n'
            '    $wpdb->query("CREATE TABLE logs',
        ),
        2,  # src/Links.php asked what $wpdb->links is: the answer changed
    ),
    (
        "a table's other user removed",  # audit: named by a/first.php only now
        lambda r: edit_file(
            r, "src/Logs.php", '    return $db->query("SELECT id FROM audit");\n', ""
        ),
        1,
    ),
    ("a table's last user removed", lambda r: (r / "a/first.php").unlink(), 0),
    (
        "a file unrelated to SQL edited",
        lambda r: edit_file(
            r, "src/Util.php", "htmlspecialchars($s)", "htmlspecialchars((string) $s)"
        ),
        1,
    ),
    (
        "a body of a file whose SQL names tables through code",
        lambda r: edit_file(
            r, "src/Links.php", "function all_comments()", "function every_comment()"
        ),
        1,
    ),
    (
        "a table named by a second file",
        lambda r: edit_file(
            r,
            "src/Render.php",
            "    echo",
            '    $GLOBALS["db"]->query("SELECT id FROM logs");\n    echo',
        ),
        1,
    ),
]


def _restore(root: Path, rel: str) -> None:
    from tests.helpers import PILOT

    shutil.copy(PILOT / rel, root / rel)


def _rows(root: Path, rev: str) -> dict[str, Any]:
    layout = config.Layout(root)
    with (
        GraphStore(layout.graph_db, readonly=True) as g,
        LexStore(layout.lexvec_db, readonly=True) as lx,
    ):
        out: dict[str, Any] = {
            **g.rev_rows(rev),
            **{f"lex.{t}": r for t, r in lx.rev_rows(rev).items()},
        }
    # the files' mtimes are those of the copies; everything else must be equal
    out["file"] = [r[:-1] for r in out["file"]]
    return out


def _clean_build(tree: Path, into: Path) -> tuple[Path, str]:
    clean = into / "clean"
    if clean.exists():
        shutil.rmtree(clean)
    shutil.copytree(tree, clean, ignore=shutil.ignore_patterns(".ragraf"))
    config.init_project(clean)
    (clean / ".ragraf/config/project.yaml").write_text(
        (tree / ".ragraf/config/project.yaml").read_text()
    )
    res = indexer.build(config.load(clean))
    return clean, res.rev_id


def _diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for table in sorted(set(a) | set(b)):
        x, y = a.get(table, []), b.get(table, [])
        if x != y:
            out[table] = {
                "only_incremental": [r for r in x if r not in y][:3],
                "only_clean": [r for r in y if r not in x][:3],
            }
    return out


def _equals_clean(root: Path, rev: str, tmp_path: Path, what: str = "") -> dict[str, Any]:
    """The rows of ``rev``, asserted equal to a clean build of the same tree."""
    got = _rows(root, rev)
    clean, clean_rev = _clean_build(root, tmp_path)
    assert _diff(got, _rows(clean, clean_rev)) == {}, what
    return got


def _reindex(cfg: config.Config, what: str = "") -> indexer.IndexResult:
    """``drift --scan`` and ``reindex --commit``, as an agent runs them after an edit."""
    run_scan(cfg)
    res = indexer.build(cfg, commit=True)
    assert res.status == "built", what
    return res


@pytest.mark.slow
@pytest.mark.parametrize("scoped", [False, True])
def test_every_reindex_equals_a_clean_build_row_for_row(tmp_path: Path, scoped: bool) -> None:
    root = copy_pilot(tmp_path / "repo")
    config.init_project(root)
    # scoped: the files a change cannot affect keep their rows (ragraf.indexing.scoped_write); not:
    # every revision is built whole
    write(root, ".ragraf/config/project.yaml", f"resolve:\n  scoped: {str(scoped).lower()}\n")
    cfg = config.load(root)
    first = indexer.build(cfg)
    views: dict[str, dict[str, Any]] = {first.rev_id: _rows(root, first.rev_id)}
    for what, edit in EDITS:
        edit(root)
        res = _reindex(cfg, what)
        got = _equals_clean(root, res.rev_id, tmp_path, what)
        # only what changed was written: most rows are shared with the parent
        assert res.counts["rows_kept"] > 4 * res.counts["rows_added"], (what, res.counts)
        views[res.rev_id] = got
        # the retained revisions' views did not move (retain_revs: 3)
        retained = [
            r for r, s in GraphStore(cfg.layout.graph_db, readonly=True).revs() if s == "ready"
        ]
        assert len(retained) <= 3
        for rev in retained:
            assert _rows(root, rev) == views[rev], (what, rev)


@pytest.mark.slow
def test_scoped_resolution_equals_a_clean_build(tmp_path: Path) -> None:
    """``resolve.scoped``: each reindex resolves again only the files a change can affect
    (the changed one and those whose lookups answer differently now) and reuses the
    others' outputs; the revision equals a clean build row for row all the same."""
    root = copy_pilot(tmp_path / "repo")
    config.init_project(root)
    write(root, ".ragraf/config/project.yaml", "resolve:\n  scoped: true\n")
    cfg = config.load(root)
    first = indexer.build(cfg)
    files = first.counts["resolve_files_resolved"]
    assert first.counts["resolve_files_reused"] == 0
    for what, edit, at_least in SCOPED_EDITS:
        edit(root)
        res = _reindex(cfg, what)
        _equals_clean(root, res.rev_id, tmp_path, what)
        resolved, reused = res.counts["resolve_files_resolved"], res.counts["resolve_files_reused"]
        if at_least:
            assert at_least <= resolved < resolved + reused, (what, res.counts)
        else:
            assert reused == 0 and resolved > 10, (what, res.counts)
        files = resolved + reused
    assert files > 10


@pytest.mark.slow
def test_scoped_resolution_without_a_schema_file_equals_a_clean_build(tmp_path: Path) -> None:
    """Without a schema file (code tables: the tables are nodes of the first file naming
    them, with the columns of CREATE TABLE strings) a reindex still resolves only the files
    a change can affect: the tables' rows are made again from every file's share and
    written whole; the revision equals a clean build row for row."""
    root = tmp_path / "repo"
    for rel, text in CODE_TABLES_APP.items():
        write(root, rel, text)
    config.init_project(root)
    cfg = config.load(root)
    first = indexer.build(cfg)
    assert first.schema and first.schema["source"] == "none"
    files = first.counts["resolve_files_resolved"]  # a scoped build records its memo
    assert files == len(CODE_TABLES_APP)
    for what, edit, at_most in CODE_TABLE_EDITS:
        edit(root)
        res = _reindex(cfg, what)
        got = _equals_clean(root, res.rev_id, tmp_path, what)
        # the scoped path: the other files kept their rows
        resolved, reused = res.counts["resolve_files_resolved"], res.counts["resolve_files_reused"]
        assert resolved <= at_most and reused > 0, (what, res.counts)
    tables = {r[1]: r for r in got["db_table"]}
    assert {"wp_options", "wp_links", "logs"} <= set(tables), tables
    logs = sorted(c[1:3] for c in got["db_column"] if c[0] == tables["logs"][0])
    assert [name for _ord, name in logs] == ["id", "lvl", "msg"], got["db_column"]
    # a SQL file is schema input: that change is resolved whole (and equal all the same)
    write(root, "db/dump.sql", "INSERT INTO logs (msg) VALUES ('x');\n")
    res = _reindex(cfg)
    _equals_clean(root, res.rev_id, tmp_path)
    assert res.counts["resolve_files_reused"] == 0, res.counts


def test_the_schema_of_ddl_in_code_is_cached_until_the_ddl_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a schema file, the columns of the tables known from code come from the
    CREATE TABLE strings, parsed with sqlglot once: a reindex whose DDL is the same reads
    them from ``code-schema-cache.json.z`` (no sqlglot), a damaged cache is parsed again,
    and an edited CREATE string gives its new columns."""
    from ragraf.indexing import schema as schema_build
    from ragraf.sql import dbschema

    root = tmp_path / "repo"
    for rel, text in CODE_TABLES_APP.items():
        write(root, rel, text)
    config.init_project(root)
    cfg = config.load(root)
    indexer.build(cfg)
    cache = cfg.layout.index_dir / schema_build.CODE_SCHEMA_CACHE
    assert cache.is_file()

    def no_parse(*a: Any, **k: Any) -> Any:
        raise AssertionError("the DDL in code was parsed again")

    edit_file(root, "src/Logs.php", "VALUES ('x')", "VALUES ('y')")  # not DDL
    with monkeypatch.context() as m:
        m.setattr(dbschema, "schema_from_migrations", no_parse)
        res = _reindex(cfg, "an edit outside the DDL")
    got = _equals_clean(root, res.rev_id, tmp_path, "an edit outside the DDL")
    cache.write_bytes(b"not zlib")
    edit_file(root, "src/Logs.php", "VALUES ('y')", "VALUES ('z')")
    res = _reindex(cfg, "a damaged cache")
    assert (
        _equals_clean(root, res.rev_id, tmp_path, "a damaged cache")["db_column"]
        == (got["db_column"])
    )
    edit_file(root, "install/schema.php", "(id INT NOT NULL, msg TEXT)", "(id INT, lvl INT)")
    res = _reindex(cfg, "an edited CREATE TABLE string")
    got = _equals_clean(root, res.rev_id, tmp_path, "an edited CREATE TABLE string")
    logs = next(r for r in got["db_table"] if r[1] == "logs")
    assert sorted(c[1:3] for c in got["db_column"] if c[0] == logs[0]) == [(0, "id"), (1, "lvl")]


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.parametrize("scoped", [False, True])
def test_vectors_follow_their_chunks_across_revisions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scoped: bool
) -> None:
    monkeypatch.delenv("RAGRAF_VECTORS", raising=False)
    root = copy_pilot(tmp_path / "repo")
    config.init_project(root)
    write(root, ".ragraf/config/project.yaml", f"resolve:\n  scoped: {str(scoped).lower()}\n")
    cfg = config.load(root)
    indexer.build(cfg, wait_vectors=True)
    for _what, edit in EDITS[:2]:
        edit(root)
        run_scan(cfg)
        res = indexer.build(cfg, commit=True, wait_vectors=True)
    assert res.vectors and res.vectors["status"] == "ready"
    assert 0 < res.vectors["computed"] < res.vectors["total"]  # the rest reused by chunk id
    layout = config.Layout(root)
    clean, clean_rev = _clean_build(root, tmp_path)
    got, want = _vectors(layout, res.rev_id), _vectors(config.Layout(clean), clean_rev)
    assert sorted(got) == sorted(want) and len(got) == res.vectors["total"]
    import numpy as np

    for sha, blob in got.items():  # batches differ (reused vs embedded now): float noise only
        a, b = (np.frombuffer(x, dtype=np.float32) for x in (blob, want[sha]))
        assert float(a @ b) > 0.999, sha


def _vectors(layout: config.Layout, rev: str) -> dict[str, bytes]:
    """chunk_sha256 -> the stored vector, for every chunk of ``rev`` with one."""
    from ragraf.store.vec import _load_extension

    with LexStore(layout.lexvec_db, readonly=True) as lex:
        _load_extension(lex.db)
        return {
            r[0]: bytes(r[1])
            for r in lex.db.query(
                "SELECT x.chunk_sha256, v.embedding FROM chunk_map m JOIN vec_meta x"
                " ON x.chunk_id = m.chunk_id JOIN vec_chunk v ON v.chunk_id = m.chunk_id"
                " WHERE m.rev_from <= ?1 AND m.rev_to > ?1",
                (rev_no(rev),),
            )
        }


def test_full_copies_of_an_older_version_migrate_in_place(tmp_path: Path) -> None:
    """A graph.sqlite written before revision ranges (a full copy per revision): a reader
    refuses it with what upgrades it; the next writer converts it, every revision's view
    intact."""
    import apsw

    from ragraf.errors import StoreError
    from ragraf.resources import schemas_dir

    path = tmp_path / "graph.sqlite"
    old = sorted((schemas_dir() / "sql" / "graph").glob("*.sql"))[:4]  # 0001-0004
    conn = apsw.Connection(str(path))
    conn.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for f in old:
        conn.execute(f.read_text())
        conn.execute("INSERT INTO _migrations VALUES (?, 'then')", (f.stem,))
    for rev, state in (("rev-0001", "ready"), ("rev-0002", "ready")):
        conn.execute("INSERT INTO rev VALUES (?, 'then', 'c', 'k', '{}', ?)", (rev, state))
        for node in ("shared", f"only-{rev}"):
            conn.execute(
                "INSERT INTO node(rev_id, node_id, kind, layer) VALUES (?, ?, 'function', 'structural')",
                (rev, node),
            )
    conn.execute("INSERT INTO db_column VALUES ('rev-0002', 't', 'b', 'INT', 1, NULL)")
    conn.execute("INSERT INTO db_column VALUES ('rev-0002', 't', 'a', 'INT', 1, NULL)")
    conn.close()
    with pytest.raises(StoreError, match="older ragraf.*0005_rev_ranges.*ragraf index"):
        GraphStore(path, readonly=True)
    GraphStore(path).close()  # a writer migrates
    with GraphStore(path, readonly=True) as g:
        assert g.node_ids("rev-0001") == {"shared", "only-rev-0001"}
        assert g.node_ids("rev-0002") == {"shared", "only-rev-0002"}
        assert [c.column_name for c in g.db_columns("rev-0002", ["t"])] == ["b", "a"]


def test_reindex_says_what_it_shared_and_wrote(tmp_path: Path) -> None:
    from tests.helpers import invoke

    root = copy_pilot(tmp_path / "repo")
    config.init_project(root)
    indexer.build(config.load(root))
    EDITS[0][1](root)
    invoke("-C", root, "drift", "--scan", check=True)
    out = invoke("-C", root, "reindex", "--commit", check=True).stdout
    shared = [ln for ln in out.splitlines() if ln.startswith("shared ")]
    assert len(shared) == 1, out
    kept, wrote = (int(w.replace(",", "")) for w in re.findall(r"[\d,]+", shared[0])[:2])
    assert kept > 10 * wrote > 0, shared[0]
    # a line above a method index.php calls: the edited file alone is linked again
    edit_file(
        root,
        "src/Billing/Invoice.php",
        "    public function charge(",
        "    // charges\n    public function charge(",
    )
    out = invoke("-C", root, "reindex", "--commit", check=True).stdout
    linked = [ln for ln in out.splitlines() if ln.startswith("linked ")]
    assert len(linked) == 1, out
    m = re.fullmatch(
        r"linked 1 files again, kept the links of (\d+) \((\d+) with the new ids of"
        r" declarations that moved\)",
        linked[0],
    )
    assert m is not None and int(m.group(1)) > int(m.group(2)) >= 1, linked[0]


def _hooked_tree(tmp_path: Path) -> tuple[Path, config.Config]:
    """The pilot with JavaScript and Python files that import each other (languages whose
    ``prepare`` hook rewrites their facts) and no tags-level language."""
    root = copy_pilot(tmp_path / "repo")
    config.init_project(root)
    write(root, "web/a.js", "export function total(x) {\n  return x + 1;\n}\n")
    write(
        root,
        "web/b.js",
        "import { total } from './a.js';\n\nexport function show() {\n  return total(2);\n}\n",
    )
    write(root, "tools/a.py", "def helper():\n    return 1\n")
    write(root, "tools/b.py", "from tools.a import helper\n\n\ndef run():\n    return helper()\n")
    cfg = config.load(root)
    indexer.build(cfg)
    return root, cfg


def test_unchanged_hooked_files_are_not_prepared_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reindex that changes no file of a language with a ``prepare`` hook reads those
    files' prepared interfaces and runs no hook (``ragraf.indexing.extract.Facts``); the
    revision equals a clean build all the same, before and after a hooked file changes."""
    from ragraf.lang import registry

    root, cfg = _hooked_tree(tmp_path)

    def no_hook(files: Any) -> Any:
        raise AssertionError("a prepare hook ran although no hooked file changed")

    for what, edit in EDITS[:2]:  # PHP edits only
        edit(root)
        run_scan(cfg)
        with monkeypatch.context() as m:
            m.setattr(registry, "prepare", no_hook)
            res = indexer.build(cfg, commit=True)
        _equals_clean(root, res.rev_id, tmp_path, what)
    edit_file(root, "web/a.js", "function total(", "function sum(")  # the hooks run again
    _equals_clean(root, _reindex(cfg).rev_id, tmp_path)


def test_a_hooked_file_wanted_whole_is_prepared_with_all_its_peers(tmp_path: Path) -> None:
    """When the hooks were skipped and resolution needs a hooked file whole after all,
    ``Facts.full`` reads every hooked file whole and runs the hooks: the file's facts are
    what preparing the whole corpus gives."""
    from ragraf import corpus
    from ragraf.indexing.extract import Extraction, Facts
    from ragraf.kinds import ParseStatus
    from ragraf.lang import registry

    root, cfg = _hooked_tree(tmp_path)
    EDITS[0][1](root)
    run_scan(cfg)
    indexer.build(cfg, commit=True)  # stores the prepared interfaces
    files = [f for f in corpus.scan(cfg).files if f.status == ParseStatus.OK]
    how = Extraction(cfg.chunking.max_chunk_lines, cfg.index.time_budget)
    with GraphStore(cfg.layout.graph_db) as g:
        loader = Facts(files, g, how)
        assert loader.skipped_hooks
        got = {f.path: f for f in loader.full({"web/b.js", "tools/b.py"})}
        from ragraf.indexing.extract import facts_of

        whole, _n = facts_of(files, g, how)
    want = {f.path: f for f in registry.prepare(whole)}
    for path in ("web/b.js", "tools/b.py", "web/a.js"):
        assert got[path] == want[path], path


def test_prepared_interfaces_are_one_row_per_file(tmp_path: Path) -> None:
    """A hooked file's prepared interface is replaced, not added, when what the hooks saw
    changes: reindexes that change JavaScript do not grow the extraction cache."""
    from ragraf.indexing.extract import PREPARED

    root, cfg = _hooked_tree(tmp_path)

    def prepared_rows() -> int:
        with GraphStore(cfg.layout.graph_db, readonly=True) as g:
            rows = g.db.query("SELECT extractor FROM file_facts")
            return sum(1 for (k,) in rows if k.endswith(PREPARED))

    EDITS[0][1](root)
    run_scan(cfg)
    indexer.build(cfg, commit=True)
    first = prepared_rows()
    assert first == 4  # web/a.js, web/b.js, tools/a.py, tools/b.py
    for name in ("sum", "add", "plus"):
        write(root, "web/c.js", f"export function {name}(x) {{\n  return x;\n}}\n")
        run_scan(cfg)
        indexer.build(cfg, commit=True)
    # the four files' rows were replaced; c.js has one per version a retained revision holds
    assert prepared_rows() <= first + 3


@pytest.mark.slow
def test_an_edit_the_tables_do_not_see_asks_no_question_again(tmp_path: Path) -> None:
    """An edit that leaves a file's interface as it was (what the corpus-wide tables read of
    it: the same declarations at the same lines, the same functions called) cannot change
    an answer another file's resolution recorded: the reindex resolves that file alone and
    asks no recorded question again. An edit the tables do see asks them all again. Both
    revisions equal clean builds."""
    root = copy_pilot(tmp_path / "repo")
    config.init_project(root)
    write(root, ".ragraf/config/project.yaml", "resolve:\n  scoped: true\n")
    cfg = config.load(root)
    indexer.build(cfg)
    rel = "src/Billing/Invoice.php"
    edit_file(root, rel, '$this->log("charged $amount");', '$this->log("billed $amount");')
    res = _reindex(cfg, "a string inside a body")
    _equals_clean(root, res.rev_id, tmp_path, "a string inside a body")
    assert res.counts["resolve_questions_checked"] == 0, res.counts
    assert res.counts["resolve_files_resolved"] == 1, res.counts
    # the same line calls another function now: the include graph reads which functions a
    # file calls, so the recorded questions are asked again
    edit_file(root, rel, '$this->log("billed $amount");', "format_money($amount);")
    res = _reindex(cfg, "another function called")
    _equals_clean(root, res.rev_id, tmp_path, "another function called")
    assert res.counts["resolve_questions_checked"] > 0, res.counts


@pytest.mark.slow
def test_callers_of_moved_declarations_keep_their_links_renamed(tmp_path: Path) -> None:
    """A line inserted above a method another file calls moves the method's node id (ids
    carry lines, §5.3): the caller's links change, its content does not. Its questions,
    asked again with the moved ids renamed, answer the old answers renamed, so it is not
    linked again: its links are the old ones with the new ids (and edge_uids); its texts,
    chunks and flow units keep the rows they had. The revision equals a clean build row
    for row, and the next reindex finds the renamed answers in the memo."""
    import apsw

    root = copy_pilot(tmp_path / "repo")
    config.init_project(root)
    write(root, ".ragraf/config/project.yaml", "resolve:\n  scoped: true\n")
    cfg = config.load(root)
    first = indexer.build(cfg)
    caller = "index.php"  # calls $invoice->charge(100)
    edit_file(
        root,
        "src/Billing/Invoice.php",
        "    public function charge(",
        "    // charges the invoice\n    public function charge(",
    )
    from ragraf.indexing.resolve import link_memo

    memo = link_memo.load(cfg.layout.index_dir / link_memo.MEMO_FILE)
    assert memo is not None and len(memo.queries) > 20
    res = _reindex(cfg, "a line above a method")
    _equals_clean(root, res.rev_id, tmp_path, "a line above a method")
    assert res.counts["resolve_files_renamed"] >= 1, res.counts
    assert res.counts["resolve_files_relinked"] == 0, res.counts
    assert res.counts["resolve_files_resolved"] == 1, res.counts  # the edited file alone
    # the tables read the same of the file but for the moved ids: only the questions that
    # name one are asked again (``Plan.same_shape``)
    assert 0 < res.counts["resolve_questions_checked"] < len(memo.queries) / 4, res.counts
    n = rev_no(res.rev_id)
    layout = config.Layout(root)

    def written_now(db: Path, table: str, where: str) -> tuple[int, int]:
        conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            rows = conn.execute(
                f"SELECT rev_from FROM {table} WHERE {where} AND rev_from <= ? AND rev_to > ?",
                (caller, n, n),
            ).fetchall()
        finally:
            conn.close()
        return sum(1 for (r,) in rows if r == n), len(rows)

    # the caller's links to the moved method are new; its content rows are the first build's
    new_edges, edges = written_now(layout.graph_db, "edge", "evidence_path = ?")
    assert 0 < new_edges <= edges
    for db, table in (
        (layout.graph_db, "text_chunk"),
        (layout.graph_db, "flow_unit"),
        (layout.lexvec_db, "chunk_map"),
        (layout.lexvec_db, "chunk_text"),
    ):
        now, there = written_now(db, table, "path = ?")
        assert there > 0 and now == 0, (table, now, there)
    assert first.rev_id != res.rev_id
    # the memo holds the renamed answers: a second move is renamed again the same way
    edit_file(root, "src/Billing/Invoice.php", "    // charges the invoice\n", "\n\n")
    again = _reindex(cfg, "two more lines above the method")
    _equals_clean(root, again.rev_id, tmp_path, "two more lines above the method")
    assert again.counts["resolve_files_renamed"] >= 1, again.counts
    assert again.counts["resolve_files_relinked"] == 0, again.counts
