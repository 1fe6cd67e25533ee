"""Revisions: the commit point, determinism, retention, one build at a time, crashes."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from ragraf import config, facade
from ragraf.errors import BusyError
from ragraf.indexing import indexer
from ragraf.store import manifest
from ragraf.store.control import ControlStore
from ragraf.store.graph import GraphStore
from ragraf.store.lexvec import LexStore
from tests.helpers import assert_lines, copy_pilot, edit_file, invoke, start_at_failpoint, write


def _snapshot(root: Path, rev: str) -> dict[str, object]:
    layout = config.Layout(root)
    g = GraphStore(layout.graph_db, readonly=True)
    lx = LexStore(layout.lexvec_db, readonly=True)
    try:
        return {
            "nodes": g.node_ids(rev),
            "edges": g.edge_uids(rev),
            "chunks": lx.chunk_ids(rev),
            "files": [r[:6] for r in g.files(rev)],
            "corpus_hash": g.rev_row(rev)["corpus_hash"],
            # every row the revision has, in every table (rows are shared across revisions)
            "rows": g.rev_rows(rev),
            "lex_rows": lx.rev_rows(rev),
        }
    finally:
        g.close()
        lx.close()


def test_layout_is_the_spec_tree(indexed_pilot: Path) -> None:
    dot = indexed_pilot / ".ragraf"
    for rel in (
        "index/rev.json",
        "index/graph/graph.sqlite",
        "index/lex/lexvec.sqlite",
        "control.sqlite",
        "drift",
        "drift/archive",
        "config/project.yaml",
        "config/confidence.yaml",
        "logs",
    ):
        assert (dot / rel).exists(), rel
    assert "sealed rev-0001 parent=None" in (dot / "logs/index.log").read_text()
    man = json.loads((dot / "index/rev.json").read_text())
    assert man["rev_id"] == "rev-0001" and man["state"] == "ready" and man["joern_used"] == 0


def test_migrations_are_recorded(indexed_pilot: Path) -> None:
    layout = config.Layout(indexed_pilot)
    from ragraf import resources

    for store in (
        GraphStore(layout.graph_db, readonly=True),
        LexStore(layout.lexvec_db, readonly=True),
        ControlStore(layout.control_db, readonly=True),
    ):
        files = sorted(
            p.stem for p in (resources.schemas_dir() / "sql" / store.db.store).glob("*.sql")
        )
        assert store.db.applied_migrations() == files and files[0] == "0001_init"
        assert store.db.scalar("PRAGMA journal_mode") == "wal"


def test_same_tree_twice_is_identical(tmp_path: Path) -> None:
    """§9.3: two builds of the same tree (in two places) agree on every identifier."""
    a = copy_pilot(tmp_path / "a")
    b = copy_pilot(tmp_path / "b")
    for root in (a, b):
        config.init_project(root)
        indexer.build(config.load(root))
    indexer.build(config.load(a), force=True)
    s1, s2, s3 = _snapshot(a, "rev-0001"), _snapshot(b, "rev-0001"), _snapshot(a, "rev-0002")
    assert s1 == s2 == s3
    assert len(s1["edges"]) > 50  # type: ignore[arg-type]


def test_parallel_and_serial_extraction_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_pilot(tmp_path / "p")
    for i in range(30):  # enough files for the process pool
        write(
            root,
            f"gen/f{i}.php",
            f"<?php\nnamespace Gen;\nfunction f{i}() {{ return f{(i + 1) % 30}(); }}\n",
        )
    config.init_project(root)
    cfg = config.load(root)
    indexer.build(replace(cfg, index=replace(cfg.index, workers=2)))
    indexer.build(replace(cfg, index=replace(cfg.index, workers=1)), force=True)
    assert _snapshot(root, "rev-0001") == _snapshot(root, "rev-0002")


def test_unchanged_tree_is_current_unless_forced(indexed_pilot: Path) -> None:
    cfg = config.load(indexed_pilot)
    res = indexer.build(cfg)
    assert (res.status, res.rev_id) == ("current", "rev-0001")
    assert indexer.build(cfg, force=True).rev_id == "rev-0002"
    write(indexed_pilot, "src/new.php", "<?php function brand_new() {}\n")
    assert indexer.build(cfg).rev_id == "rev-0003"
    config.Layout(indexed_pilot).confidence_yaml.write_text("magic: 0.25\n")
    assert indexer.build(config.load(indexed_pilot)).rev_id == "rev-0004"


def test_retention_prunes_rows_but_keeps_history(indexed_pilot: Path) -> None:
    """Revisions share the rows they have in common (ragraf.store.ranges): pruning deletes
    the rows only pruned revisions had, and leaves every retained revision whole."""
    layout = config.Layout(indexed_pilot)
    with GraphStore(layout.graph_db, readonly=True) as g:
        original = g.node_ids("rev-0001")
    layout.project_yaml.write_text("index: {retain_revs: 2}\n")
    cfg = config.load(indexed_pilot)
    write(indexed_pilot, "src/passing.php", "<?php function only_for_a_while() {}\n")
    assert indexer.build(cfg).rev_id == "rev-0002"
    with GraphStore(layout.graph_db, readonly=True) as g:
        passing = g.node_ids("rev-0002") - original
    assert passing  # the file node and its function
    (indexed_pilot / "src/passing.php").unlink()
    res = indexer.build(cfg)
    assert res.rev_id == "rev-0003" and res.pruned == ["rev-0001"]
    res = indexer.build(cfg, force=True)
    assert res.rev_id == "rev-0004" and res.pruned == ["rev-0002"]
    assert res.counts["rows_added"] == 0 and res.counts["rows_closed"] <= 2  # coverage only
    g = GraphStore(layout.graph_db, readonly=True)
    assert [r for r, _s in g.revs()] == ["rev-0003", "rev-0004"]
    assert g.node_ids("rev-0003") == g.node_ids("rev-0004") == original
    # what only rev-0002 had is gone; what is left of it is what rev-0003 shares
    assert not passing & g.node_ids("rev-0002") and g.node_ids("rev-0002") <= original
    lex = LexStore(layout.lexvec_db, readonly=True)
    assert lex.chunk_ids("rev-0002") <= lex.chunk_ids("rev-0003")
    hist = {h["rev_id"]: h for h in ControlStore(layout.control_db, readonly=True).history()}
    assert hist["rev-0001"]["state"] == "archived" and hist["rev-0001"]["nodes"] > 0
    assert hist["rev-0002"]["state"] == "archived"
    assert hist["rev-0004"]["state"] == "ready" and hist["rev-0004"]["parent_rev"] == "rev-0003"


@pytest.mark.slow
def test_second_build_is_refused_while_one_runs(indexed_pilot: Path) -> None:
    proc = start_at_failpoint(indexed_pilot, "after-parse", "index", "--force")
    try:
        with pytest.raises(BusyError, match="another ragraf build is running"):
            indexer.build(config.load(indexed_pilot), force=True)
        cli = invoke("-C", indexed_pilot, "index", "--force")
        assert (cli.exit_code, cli.stdout, cli.stderr) == (
            4,
            "",
            f"ragraf: another ragraf build is running on {indexed_pilot.resolve()} "
            f"(pid {proc.pid}); wait for it to finish, this build was not started\n",
        )
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.slow
@pytest.mark.parametrize(
    "point",
    ["after-scan", "after-parse", "delta-closed", "renamed-closed", "after-graph", "after-lexvec"],
)
def test_sigkill_leaves_previous_revision_intact(indexed_pilot: Path, point: str) -> None:
    before = _snapshot(indexed_pilot, "rev-0001")
    if point == "renamed-closed":  # a method others call moves: their links are renamed
        edit_file(
            indexed_pilot,
            "src/Billing/Invoice.php",
            "    public function charge(",
            "    // charges\n    public function charge(",
        )
    else:
        write(
            indexed_pilot, "src/extra.php", "<?php function extra() { return format_money(1); }\n"
        )
    proc = start_at_failpoint(indexed_pilot, point, "index")
    try:
        # while the build stands there (rows it closed may be committed: after-graph), a
        # reader still sees rev-0001 whole
        assert _snapshot(indexed_pilot, "rev-0001") == before
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    layout = config.Layout(indexed_pilot)
    assert manifest.require(layout.rev_json)["rev_id"] == "rev-0001"
    assert _snapshot(indexed_pilot, "rev-0001") == before
    st = invoke("-C", indexed_pilot, "status", "--json", check=True)
    assert json.loads(st.stdout)["rev_id"] == "rev-0001"
    res = indexer.build(config.load(indexed_pilot))
    assert res.status == "built"
    g = GraphStore(layout.graph_db, readonly=True)
    assert [s for _r, s in g.revs()] == ["ready", "ready"]
    assert _snapshot(indexed_pilot, "rev-0001") == before
    if point != "renamed-closed":  # its text (written with the contents, before the seal)
        assert g.file_text(res.rev_id, "src/extra.php") == (
            "<?php function extra() { return format_money(1); }\n"
        )
    hist = {h["rev_id"]: h for h in ControlStore(layout.control_db, readonly=True).history()}
    if point == "after-scan":
        assert res.rev_id == "rev-0002" and not res.recovered
    else:
        assert res.recovered == ["rev-0002"] and res.rev_id == "rev-0003"
        assert hist["rev-0002"]["state"] == "failed" and "interrupted" in hist["rev-0002"]["note"]


@pytest.mark.slow
def test_sigkill_after_the_commit_point_keeps_the_new_revision(indexed_pilot: Path) -> None:
    write(indexed_pilot, "src/extra.php", "<?php function extra() {}\n")
    proc = start_at_failpoint(indexed_pilot, "after-manifest", "index")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    layout = config.Layout(indexed_pilot)
    assert manifest.require(layout.rev_json)["rev_id"] == "rev-0002"
    res = indexer.build(config.load(indexed_pilot))
    assert (res.status, res.rev_id) == ("current", "rev-0002")
    g = GraphStore(layout.graph_db, readonly=True)
    assert dict(g.revs()) == {"rev-0001": "ready", "rev-0002": "ready"}
    hist = {
        h["rev_id"]: h["state"] for h in ControlStore(layout.control_db, readonly=True).history()
    }
    assert hist == {"rev-0001": "ready", "rev-0002": "ready"}


def test_failed_build_keeps_previous_and_records_reason(
    indexed_pilot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ragraf.indexing.resolve

    def boom(*a: object, **k: object) -> None:
        raise RuntimeError("resolver exploded")

    monkeypatch.setattr(ragraf.indexing.resolve, "resolve", boom)
    from ragraf.errors import IndexBuildError

    with pytest.raises(IndexBuildError, match="rev-0001 stays active"):
        indexer.build(config.load(indexed_pilot), force=True)
    layout = config.Layout(indexed_pilot)
    assert manifest.require(layout.rev_json)["rev_id"] == "rev-0001"
    hist = {h["rev_id"]: h for h in ControlStore(layout.control_db, readonly=True).history()}
    assert hist["rev-0002"]["state"] == "failed" and "resolver exploded" in hist["rev-0002"]["note"]


def test_cli_index_and_status(pilot: Path) -> None:
    out = invoke("-C", pilot, "index", check=True)
    assert_lines(
        out.stdout,
        [
            re.compile(
                r"sealed rev-0001: 12 files, 74 nodes, 140 edges, 38 chunks in \d+\.\d\d s;"
                r" calls into the corpus: 81\.0% stated, 19\.0% derived, 0\.0% unresolved"
                r" \(3 more call code outside it: external\)"
            )
        ],
    )
    assert out.stderr == (
        "ragraf: database schema incomplete: live schema not read (no database configured"
        " (db.dsn or RAGRAF_DB_HOST)); tables from migrations only\n"
        "ragraf: vectors disabled: skipped; search stays lexical\n"
    )
    again = invoke("-C", pilot, "index", check=True)
    assert again.stdout == (
        "the index is current: rev-0001 matches the corpus and the configuration"
        " (use --force to rebuild)\n"
    )
    st = invoke("-C", pilot, "status", check=True)
    assert st.stderr == ""
    iso = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00"
    assert_lines(
        st.stdout,
        [
            "revision   rev-0001 (active)  state ready",
            re.compile(f"created    {iso}   sealed {iso}"),
            "capability dataflow (data flow: php): data-flow layer from the syntax tree for"
            " php (def-use per function, calls across functions): slice and flow answer"
            " there; calls come from parsing and name resolution",
            "vectors    disabled",
            "files      12    chunks 38",
            "nodes      class 6, constant 1, db_column 7, db_table 2, doc 1, doc_section 3,"
            " file 11, function 3, http_endpoint 3, interface 2, method 18, namespace 6,"
            " property 6, sql_literal 4, trait 1",
            "edges      calls 17, calls_heuristic 4, contains 57, defines 9, documented_by 1,"
            " extends 1, flows_to 3, implements 2, imports 12, instantiates 5, mentions 3,"
            " overrides 3, queries 4, references 14, references_table 4, uses_trait 1",
            "coverage   files: ok 12, partial 0, failed 0, skipped 0",
            "           calls into the corpus: 81.0% stated, 19.0% derived, 0.0% unresolved"
            " (3 more call code outside it: external)",
            "           files by language: markdown 1, php 10 (21 calls into the corpus, 81.0%"
            " stated), sql 1",
            "           not selected: 1 files (no include glob selects them, by suffix: .gitignore 1)",
            "schema     migration (mysql); incomplete: live schema not read (no database"
            " configured (db.dsn or RAGRAF_DB_HOST)); tables from migrations only",
            "           from db/migrations/001_invoices.sql: numbered migration: 2 DDL of 2"
            " statements, applied in version order",
            "ledger     0 entries",
            re.compile(r"stores     graph \d+\.\d KiB, lexvec \d+\.\d KiB, control \d+\.\d KiB"),
        ],
    )
    data = json.loads(invoke("-C", pilot, "status", "--json", check=True).stdout)
    assert data["counts"]["nodes"]["method"] == 18
    assert data["coverage"]["calls.stated_share"]["value"] > 0.5
    assert data["revisions"][0]["rev_id"] == "rev-0001"


def test_cli_errors_have_exit_codes(tmp_path: Path) -> None:
    root = tmp_path.resolve()

    def fails(command: str, code: int, message: str) -> None:
        r = invoke("-C", tmp_path, command)
        assert (r.exit_code, r.stdout, r.stderr) == (code, "", f"ragraf: {message}\n"), command

    fails("status", 3, f"no RAGRAF project at or above {root}; run `ragraf init` there first")
    config.init_project(tmp_path)
    layout = config.Layout(root)
    fails("status", 3, f"no sealed revision yet ({layout.rev_json} missing); run `ragraf index`")
    layout.project_yaml.write_text("bogus: 1\n")
    fails("index", 2, f"{layout.project_yaml}: unknown key 'bogus'")
    r = invoke("index", "--bogus-flag", cwd=tmp_path)
    assert r.exit_code == 2 and r.stdout == "" and "No such option: --bogus-flag" in r.stderr


def test_help_is_light() -> None:
    """``--help`` imports none of the heavy modules (its time is bench/query.py's)."""
    code = (
        "import sys, ragraf.cli; "
        "heavy=[m for m in ('tree_sitter','fastembed','mcp','apsw','jsonschema','sqlglot') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_status_loads_neither_the_build_nor_the_sql_parser(indexed_pilot: Path) -> None:
    """``ragraf status`` reads the schema's coverage notes (ragraf.sql.schema_notes) without
    importing the build or sqlglot: it runs on every agent's first call."""
    code = (
        "import sys; from ragraf.cli.app import app; sys.argv = ['ragraf', '-C', sys.argv[1],"
        " 'status', '--json']\n"
        "try:\n    app(prog_name='ragraf')\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('sqlglot', 'ragraf.indexing.schema', 'ragraf.indexing.resolve',"
        " 'tree_sitter') if m in sys.modules]\n"
        "print('HEAVY=' + ','.join(heavy), file=sys.stderr)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(indexed_pilot)], capture_output=True, text=True
    )
    assert json.loads(out.stdout)["rev_id"] == "rev-0001"
    assert "HEAVY=\n" in out.stderr, out.stderr


def test_disk_shortage_is_refused_with_the_required_volume(indexed_pilot: Path) -> None:
    from ragraf.corpus import scan
    from ragraf.errors import RefusedError

    cfg = config.load(indexed_pilot)
    sc = scan(cfg)
    need = indexer.required_bytes(sum(f.size for f in sc.files if f.status == "ok"))
    indexer.check_disk(cfg.layout, sc)  # this machine has room
    with pytest.raises(
        RefusedError, match=r"needs about \d+ MiB, \d+ MiB are free; nothing was written"
    ):
        indexer.check_disk(cfg.layout, sc, free=need - 1)


def test_each_project_logs_only_its_own_builds(tmp_path: Path) -> None:
    """Two projects built in one process (a library user, the in-process CLI): each
    index.log holds its own sealing line and no other project's."""
    a, b = copy_pilot(tmp_path / "a"), copy_pilot(tmp_path / "b")
    write(b, "src/only_b.php", "<?php function only_b() {}\n")
    for root in (a, b):
        config.init_project(root)
        indexer.build(config.load(root))
    logs = {r.name: (r / ".ragraf/logs/index.log").read_text().splitlines() for r in (a, b)}
    assert [len(lines) for lines in logs.values()] == [1, 1], logs
    assert "files=12 " in logs["a"][0] and "files=13 " in logs["b"][0]


@pytest.mark.parametrize("enabled", [True, False])
def test_a_build_leaves_the_collector_as_it_found_it(pilot: Path, enabled: bool) -> None:
    """The build pauses and freezes the cyclic collector for its long-lived heap; a
    long-lived caller (the MCP server) gets its collector back unchanged."""
    import gc

    (gc.enable if enabled else gc.disable)()
    try:
        assert indexer.build(config.load(pilot)).status == "built"
        assert gc.isenabled() is enabled
        assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_an_extractor_that_raises_on_a_file_fails_that_file_not_the_build(pilot: Path) -> None:
    """A bug of ragraf's on one file (here a failpoint raising in the PHP extractor of the
    real worker processes): the file is indexed as failed with the error in its note, and
    every other file is indexed."""
    env = {"RAGRAF_FAILPOINT": "extract@src/Billing/Report.php:raise"}
    out = invoke("-C", pilot, "index", "--no-vectors", env=env, check=True)
    assert out.stdout.startswith("sealed rev-0001: 12 files")
    assert (
        "ragraf: 1 file(s) not indexed because ragraf's extractor failed on them"
        " (src/Billing/Report.php: not indexed: the php extractor failed (FailpointError:"
    ) in out.stderr
    st = invoke("-C", pilot, "status", "--json", check=True)
    cov = json.loads(st.stdout)["coverage"]
    assert cov["files.failed"]["value"] == 1
    assert cov["files.failed"]["note"] == "src/Billing/Report.php"
    from ragraf.store.graph import GraphStore

    with GraphStore(config.Layout(pilot).graph_db, readonly=True) as g:
        rows = {r.path: (r.parse_status, r.parse_note) for r in g.files("rev-0001")}
    assert rows["src/Billing/Report.php"] == (
        "failed",
        "not indexed: the php extractor failed (FailpointError: failpoint"
        " extract@src/Billing/Report.php raised)",
    )
    assert {s for s, _n in rows.values()} == {"ok", "failed"}
    found = facade.run_op(pilot, "symbol", {"fqn": "App\\Billing\\Invoice::charge"})["result"]
    assert found["matches"]
