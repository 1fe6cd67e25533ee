"""The drift ledger and the revision cycle on a real git repository made from the pilot."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import apsw
import pytest

from ragraf import config, facade, failpoints
from ragraf.drift import anchor, ledger
from ragraf.drift.scan import run_scan
from ragraf.errors import RefusedError
from ragraf.indexing import indexer
from ragraf.model import LedgerEntry
from ragraf.store import manifest
from ragraf.store.control import ControlStore
from ragraf.store.graph import GraphStore
from ragraf.store.lexvec import LexStore
from tests.helpers import assert_lines, copy_pilot, edit_file, invoke, write
from tests.schemacheck import check

REPORT_MONTHLY_EXTRACTED = """<?php
namespace App\\Billing;

class Report
{
    public function monthly(string $month): string
    {
        global $db;
        $rows = $db->query($this->buildSql(), [$month]);
        $formatter = 'format_money';
        $out = call_user_func([Report::class, 'header'], $month);
        foreach ($rows as $row) {
            $out .= $formatter($row['total']);
        }
        return $out;
    }

    private function buildSql(): string
    {
        $sql = <<<SQL
            SELECT date_format(created_at, '%Y-%m') AS month, sum(amount) AS total
            FROM invoices
            WHERE date_format(created_at, '%Y-%m') = ?
            GROUP BY month
            SQL;
        return $sql;
    }

    public static function header(string $month): string
    {
        return "Report for $month\\n";
    }
}
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args],
        check=True,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@x",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@x",
        },
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = copy_pilot(tmp_path / "repo")
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text(".ragraf/\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "pilot")
    config.init_project(root)
    indexer.build(config.load(root))
    return root


edit = edit_file


def entries(root: Path, rev: str = "rev-0001") -> list[LedgerEntry]:
    c = ControlStore(config.Layout(root).control_db, readonly=True)
    try:
        return c.entries(rev)
    finally:
        c.close()


def test_scan_registers_every_kind_of_change(repo: Path) -> None:
    cfg = config.load(repo)
    assert (
        manifest.require(cfg.layout.rev_json)["git_commit"]
        == git(repo, "rev-parse", "HEAD").strip()
    )
    assert run_scan(cfg).written == []  # nothing changed, nothing registered
    edit(repo, "src/Billing/Invoice.php", "return $ok;", "return $ok && $amount > 0;")
    write(
        repo,
        "src/Billing/Refund.php",
        "<?php\nnamespace App\\Billing;\nclass Refund { public function run(): void {} }\n",
    )
    (repo / "plugins/stripe.php").unlink()
    git(repo, "mv", "plugins/paypal.php", "plugins/pp.php")
    rep = run_scan(cfg)
    got = {(e.kind, e.path) for e in rep.written}
    assert got == {
        ("modify", "src/Billing/Invoice.php"),
        ("add", "src/Billing/Refund.php"),
        ("delete", "plugins/stripe.php"),
        ("rename", "plugins/pp.php"),
    }
    by = {e.path: e for e in rep.written}
    inv = by["src/Billing/Invoice.php"]
    assert json.loads(inv.symbols_changed) == ["App\\Billing\\Invoice::charge"]
    assert (
        json.loads(inv.symbols_added) == []
        and inv.detected_by == "git-diff"
        and inv.commit_sha is None
    )
    assert inv.old_hash and inv.new_hash and inv.old_hash != inv.new_hash
    assert len(json.loads(inv.edges_invalidated)) > 5
    assert json.loads(by["src/Billing/Refund.php"].symbols_added) == [
        "App\\Billing\\Refund",
        "App\\Billing\\Refund::run",
    ]
    assert json.loads(by["plugins/stripe.php"].symbols_removed) == ["stripe_register"]
    assert by["plugins/pp.php"].note == "renamed from plugins/paypal.php"
    assert by["plugins/pp.php"].old_hash == by["plugins/pp.php"].new_hash
    # a rescan adds nothing; a further edit adds a new entry, history stays
    assert run_scan(cfg).written == []
    edit(repo, "src/Billing/Invoice.php", "$amount > 0", "$amount > 1")
    git(repo, "commit", "-qam", "tighten")
    again = run_scan(cfg).written
    assert [(e.kind, e.path, e.detected_by) for e in again] == [
        ("modify", "src/Billing/Invoice.php", "git-diff")
    ]
    assert again[0].commit_sha == git(repo, "rev-parse", "HEAD").strip()
    # LEDGER.md got one block per entry, each with the chain head
    md = cfg.layout.ledger_md.read_text()
    assert md.count("\n## #") == 5 and md.count("- chain: ") == 5
    assert f"- chain: {again[0].entry_hash}" in md
    assert ledger.verify(cfg.layout, ControlStore(cfg.layout.control_db, readonly=True))["ok"]


def test_extract_method_and_inline_are_slice_boundaries(repo: Path) -> None:
    cfg = config.load(repo)
    (repo / "src/Billing/Report.php").write_text(REPORT_MONTHLY_EXTRACTED)
    rep = run_scan(cfg)
    kinds = sorted((e.kind, e.path) for e in rep.written)
    assert kinds == [
        ("modify", "src/Billing/Report.php"),
        ("slice_boundary", "src/Billing/Report.php"),
    ]
    sb = next(e for e in rep.written if e.kind == "slice_boundary")
    assert json.loads(sb.symbols_changed) == [
        "App\\Billing\\Report::buildSql",
        "App\\Billing\\Report::monthly",
    ]
    assert (
        "extracted from `App\\Billing\\Report::monthly` into `App\\Billing\\Report::buildSql`"
        in sb.note
    )
    # the def-use graph of the indexed monthly(): the SQL string's value now crosses out
    assert "its def-use edges across the new boundary, flowing out: $sql" in sb.note
    # inline it back: buildSql disappears, monthly grows again
    git(repo, "checkout", "src/Billing/Report.php")
    indexer.build(cfg, commit=True)
    (repo / "src/Billing/Report.php").write_text(REPORT_MONTHLY_EXTRACTED)
    indexer.build(cfg, commit=True)  # rev-0003 knows buildSql
    git(repo, "checkout", "src/Billing/Report.php")
    os.utime(repo / "src/Billing/Report.php", (time.time() + 3, time.time() + 3))
    inl = run_scan(cfg).written
    sb2 = next(e for e in inl if e.kind == "slice_boundary")
    assert (
        "`App\\Billing\\Report::buildSql` inlined into `App\\Billing\\Report::monthly`" in sb2.note
    )
    # a plain modify is not a slice boundary
    edit(repo, "src/Core/Database.php", "return [];", "return ['x'];")
    assert [e.kind for e in run_scan(cfg).written] == ["modify"]


def test_ledger_rows_cannot_be_updated_or_deleted(repo: Path) -> None:
    cfg = config.load(repo)
    edit(repo, "src/Core/Database.php", "return [];", "return [1];")
    [e] = run_scan(cfg).written
    conn = apsw.Connection(str(cfg.layout.control_db))
    for sql in (
        "UPDATE drift_entry SET note='x'",
        "DELETE FROM drift_entry",
        "DELETE FROM stale_edge",
        "UPDATE stale_edge SET acked_at='now'",
    ):
        with pytest.raises(apsw.ConstraintError, match="append-only"):
            conn.execute(sql)
    env = facade.run_op(
        repo, "drift_ack", {"entry_ids": [e.id], "note": "reviewed", "by": "tester"}
    )
    check(env)
    assert env["result"]["acked"][0]["entry_id"] == e.id
    with pytest.raises(apsw.ConstraintError, match="append-only"):
        conn.execute("DELETE FROM drift_ack")
    rep = facade.run_op(repo, "drift_report", {})
    check(rep)
    [item] = rep["result"]["entries"]
    assert (
        item["acks"][0]["by"] == "tester" and item["note"] is None
    )  # the entry itself is unchanged
    assert entries(repo)[0].entry_hash == e.entry_hash
    with pytest.raises(Exception, match="no ledger entry #99"):
        facade.run_op(repo, "drift_ack", {"entry_ids": [99]})


def test_verify_finds_a_rewritten_ledger(repo: Path) -> None:
    cfg = config.load(repo)
    edit(repo, "src/Core/Database.php", "return [];", "return [1];")
    edit(repo, "src/Core/Logger.php", "FILE_APPEND", "FILE_APPEND | LOCK_EX")
    run_scan(cfg)
    recorded = [e.entry_hash for e in entries(repo)]
    ok = invoke("-C", repo, "verify", check=True)
    assert (ok.stdout, ok.stderr) == (
        f"ledger intact: 2 entries, 0 acks, head {recorded[1][:16]}\n",
        "",
    )
    conn = apsw.Connection(str(cfg.layout.control_db))
    conn.execute("DROP TRIGGER drift_entry_no_update")
    conn.execute("UPDATE drift_entry SET note='nothing to see' WHERE id=1")
    broken = "ragraf: the ledger is broken: 3 problem(s) found\n"
    no_trigger = (
        "BROKEN: append-only triggers are missing: drift_entry_no_update"
        " (the ledger tables can be rewritten)\n"
    )
    r = invoke("-C", repo, "verify")
    assert (r.exit_code, r.stdout, r.stderr) == (
        6,
        "BROKEN: entry #1: its content does not match its hash (the row was altered)\n"
        "BROKEN: LEDGER.md: entry #1 does not say what its database row says (edited)\n"
        + no_trigger,  # an edited block is reported once, not as missing too
        broken,
    )
    # recompute the whole chain inside the database: LEDGER.md still tells
    head = "0" * 64
    cols = [r[1] for r in conn.execute("PRAGMA table_info(drift_entry)").fetchall()]
    for row in conn.execute("SELECT * FROM drift_entry ORDER BY id").fetchall():
        e = dict(zip(cols, row, strict=True))
        new = ledger.chain_hash(head, e)
        conn.execute(
            "UPDATE drift_entry SET prev_hash=?, entry_hash=? WHERE id=?", (head, new, e["id"])
        )
        head = new
    r = invoke("-C", repo, "verify")
    assert (r.exit_code, r.stdout, r.stderr) == (
        6,
        "BROKEN: LEDGER.md: entry #1 does not say what its database row says (edited)\n"
        "BROKEN: LEDGER.md: entry #2 does not say what its database row says (edited)\n"
        + no_trigger
        + f"BROKEN: the anchor {anchor.path_for(repo)} records entry #2 as the head;"
        " the ledger does not hold it (its tail was deleted or rewritten)\n",
        broken.replace("3 problem", "4 problem"),
    )


def test_every_answer_resting_on_a_changed_fact_warns(repo: Path) -> None:
    """Contract: every operation x every kind of change -> a stale_warning, never silence."""
    cfg = config.load(repo)
    edit(repo, "src/Billing/Invoice.php", "return $ok;", "return !$ok;")  # modify
    (repo / "plugins/stripe.php").unlink()  # delete
    git(repo, "mv", "src/Core/Logger.php", "src/Core/Log.php")  # rename
    (repo / "src/Billing/Report.php").write_text(REPORT_MONTHLY_EXTRACTED)  # slice boundary
    write(
        repo, "src/Billing/Refund.php", "<?php\nnamespace App\\Billing;\nclass Refund {}\n"
    )  # add
    run_scan(cfg)
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("symbol", {"fqn": "App\\Billing\\Invoice::charge"}, "src/Billing/Invoice.php"),
        ("references", {"fqn": "App\\Billing\\PaymentGateway::pay"}, "src/Billing/Invoice.php"),
        ("callers", {"fqn": "App\\Core\\Database::query"}, "src/Billing/Report.php"),
        ("callees", {"fqn": "App\\Billing\\Invoice::charge"}, "src/Billing/Invoice.php"),
        ("impact", {"fqn": "App\\Billing\\PaymentGateway"}, "src/Billing/Invoice.php"),
        (
            "code",
            {"fqn": "App\\Billing\\Report::monthly", "style": "compact"},
            "src/Billing/Report.php",
        ),
        ("repo_map", {"scope": "src/Core"}, "src/Core/Logger.php"),
        ("search", {"query": "stripe_register"}, "plugins/stripe.php"),
        ("routes", {}, "src/Billing/Invoice.php")
        if False
        else ("symbol", {"name": "stripe_register"}, "plugins/stripe.php"),
        ("symbol", {"name": "Refund"}, "src/Billing/Refund.php"),
        ("references", {"fqn": "App\\Core\\Loggable"}, "src/Core/Logger.php"),
        ("impact", {"path": "src/Billing/Report.php"}, "src/Billing/Report.php"),
        ("drift_report", {}, "src/Billing/Invoice.php"),
    ]
    for op, args, path in cases:
        env = facade.run_op(repo, op, args)
        check(env)
        hits = [w for w in env["stale_warnings"] if w["path"] == path]
        assert hits, f"{op}({args}) used a fact of {path} silently: {env['stale_warnings']}"
        assert all(w["suggest"] == "live_read" and w["since"] for w in hits)
        assert env["drift"]["entries"] >= 6 and env["drift"]["files"] >= 5
    slice_env = facade.run_op(repo, "code", {"fqn": "App\\Billing\\Report::monthly"})
    assert any(
        w["reason"].startswith("slice_boundary after rev-0001") for w in slice_env["stale_warnings"]
    )
    # an edge whose evidence is elsewhere but whose target changed is flagged too
    calls = facade.run_op(repo, "callers", {"fqn": "App\\Billing\\Invoice::charge"})
    assert any(
        w["path"] == "index.php" and "edge invalidated by ledger entry" in w["reason"]
        for w in calls["stale_warnings"]
    )


def test_p1_reindex_commit_archive_and_identity_with_a_clean_build(
    repo: Path, tmp_path: Path
) -> None:
    cfg = config.load(repo)
    edit(repo, "src/Billing/Invoice.php", '$this->log("charged $amount");', "")
    (repo / "src/Billing/Report.php").write_text(REPORT_MONTHLY_EXTRACTED)
    run_scan(cfg)
    with pytest.raises(RefusedError, match="reindex --commit"):
        indexer.build(cfg)
    cli = invoke("-C", repo, "index", "--force")
    assert (cli.exit_code, cli.stdout, cli.stderr) == (
        5,
        "",
        "ragraf: the ledger of rev-0001 has 3 entries: the change effort is not finished."
        " Run `ragraf reindex --commit` to seal the next revision and archive the ledger"
        " (P1: no new revision appears silently in the middle of a change effort)\n",
    )
    out = invoke("-C", repo, "reindex", "--commit", "--json", check=True)
    res = json.loads(out.stdout)
    # every file's facts come from the cache: the 2 edited files' were extracted and cached
    # by drift --scan (the symbol diff needs them), the others' by the index
    assert res["rev_id"] == "rev-0002" and res["reused_files"] == res["counts"]["files"]
    report = (repo / res["archive"]).read_text()
    assert report.startswith("# Reindexing rev-0001 → rev-0002")
    assert "Ledger changes: 3 · files: 2" in report
    assert "`src/Billing/Invoice.php` (modify): changed App\\Billing\\Invoice::charge" in report
    assert (
        "extracted from `App\\Billing\\Report::monthly` into `App\\Billing\\Report::buildSql`"
        in report
    )
    partial = (
        "- 3 `calls` edges from `App\\Billing\\Invoice::charge` — 2 of 3 confirmed in rev-0002"
    )
    # not confirmed first; the groups confirmed whole only counted, after them
    whole = re.search(
        r"^- and \d+ groups \(\d+ edges\) rechecked and confirmed in rev-0002$", report, re.M
    )
    assert whole and report.index(partial) < whole.start()
    assert "chain head: " + entries(repo)[-1].entry_hash in report
    # the new revision's ledger starts empty; the old entries stay forever
    assert entries(repo, "rev-0002") == [] and len(entries(repo)) == 3
    env = facade.run_op(repo, "symbol", {"fqn": "App\\Billing\\Report::buildSql"})
    assert (
        env["index_rev"] == "rev-0002"
        and env["stale_warnings"] == []
        and env["drift"]["entries"] == 0
    )
    assert ledger.verify(cfg.layout, ControlStore(cfg.layout.control_db, readonly=True))["ok"]
    # identical to a clean build of the same tree
    clean = copy_pilot(tmp_path / "clean")
    for rel in ("src/Billing/Invoice.php", "src/Billing/Report.php"):
        (clean / rel).write_text((repo / rel).read_text())
    (clean / ".gitignore").write_text(".ragraf/\n")
    config.init_project(clean)
    indexer.build(config.load(clean))
    for store in ("graph", "lex"):
        a = _ids(repo, "rev-0002", store)
        b = _ids(clean, "rev-0001", store)
        assert a == b
    # diff between the revisions
    d = invoke("-C", repo, "diff", "rev-0001", "rev-0002", "--json", check=True)
    diff = json.loads(d.stdout)
    assert any(n["fqn"] == "App\\Billing\\Report::buildSql" for n in diff["nodes"]["added"])
    assert diff["edges"]["added_total"] > 0 and diff["edges"]["removed_total"] > 0


def _ids(root: Path, rev: str, store: str) -> tuple[set[str], ...]:
    layout = config.Layout(root)
    if store == "graph":
        g = GraphStore(layout.graph_db, readonly=True)
        return g.node_ids(rev), g.edge_uids(rev)
    return (LexStore(layout.lexvec_db, readonly=True).chunk_ids(rev),)


@pytest.mark.slow
def test_two_scans_at_once_neither_duplicate_nor_fail(repo: Path) -> None:
    for i in range(6):
        write(repo, f"src/Gen{i}.php", f"<?php\nfunction gen{i}() {{ return {i}; }}\n")
    edit(repo, "src/Core/Database.php", "return [];", "return [2];")
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "ragraf", "-C", str(repo), "drift", "--scan", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    written = [len(json.loads(o)["new_entries"]) for o, _e in outs]
    assert sorted(written) == [0, 7] or sum(written) == 7
    es = entries(repo)
    assert len(es) == 7 and len({e.dedupe_key for e in es}) == 7
    assert [e.id for e in es] == list(range(1, 8))
    assert ledger.verify(
        config.Layout(repo), ControlStore(config.Layout(repo).control_db, readonly=True)
    )["ok"]


@pytest.mark.slow
def test_sigkill_during_reindex_commit_keeps_ledger_and_old_revision(repo: Path) -> None:
    cfg = config.load(repo)
    edit(repo, "src/Core/Database.php", "return [];", "return [3];")
    run_scan(cfg)
    before = entries(repo)
    for point in ("after-graph", "after-lexvec"):
        env = {**os.environ, failpoints.ENV: point}
        p = subprocess.Popen(
            [sys.executable, "-m", "ragraf", "-C", str(repo), "reindex", "--commit"],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert p.stderr is not None and "failpoint" in p.stderr.readline()
        p.send_signal(signal.SIGKILL)
        p.wait()
        assert manifest.require(cfg.layout.rev_json)["rev_id"] == "rev-0001"
        assert entries(repo) == before
        assert facade.run_op(repo, "symbol", {"name": "query"})["drift"]["entries"] == 1
    res = indexer.build(cfg, commit=True)
    assert res.status == "built" and res.archive and res.recovered
    assert manifest.require(cfg.layout.rev_json)["rev_id"] == res.rev_id
    assert entries(repo) == before


def test_notes_hook_and_cli_report(repo: Path) -> None:
    note = ("drift", "--note", "src/Core/Database.php", "--text", "connection pooling planned")
    r = invoke("-C", repo, *note, check=True)
    assert (r.stdout, r.stderr) == ("#1 note src/Core/Database.php\n", "")
    again = invoke("-C", repo, *note, check=True)
    assert again.stdout == "the same note is already in the ledger\n"
    edit(repo, "src/Core/Database.php", "return [];", "return [4];")
    hook = invoke("-C", repo, "hook", "session-start", "--json", check=True)
    [e] = [x for x in entries(repo) if x.kind == "modify"]
    assert e.detected_by == "hook:session-start"
    env = json.loads(hook.stdout)
    report = env["result"]
    assert report == facade.run_op(repo, "drift_report", {})["result"]
    assert [(x["id"], x["kind"], x["path"]) for x in report["entries"]] == [
        (1, "note", "src/Core/Database.php"),
        (2, "modify", "src/Core/Database.php"),
    ]
    assert [(w["path"], w["reason"]) for w in env["stale_warnings"]] == [
        ("src/Core/Database.php", "modify after rev-0001 (ledger entry #2)"),
        (
            "src/Core/Database.php",
            "note after rev-0001 (ledger entry #1): connection pooling planned",
        ),
    ]
    text = invoke("-C", repo, "drift", check=True).stdout.splitlines()
    footer = [ln for ln in text if ln.startswith(("-- ", "!! "))]
    assert footer == [
        "-- from the index rev-0001 (with data flow) · changed since: 1 files, 1 symbols"
        " (2 ledger entries)",
        "!! STALE src/Core/Database.php: modify after rev-0001 (ledger entry #2)"
        " -> `ragraf live-read src/Core/Database.php`",
        "!! STALE src/Core/Database.php: note after rev-0001 (ledger entry #1):"
        " connection pooling planned -> `ragraf live-read src/Core/Database.php`",
    ]
    assert text[: text.index(footer[0])][0].startswith("2 ledger entries against rev-0001")
    env = facade.run_op(repo, "symbol", {"fqn": "App\\Core\\Database"})
    assert any(w["reason"].startswith("note after rev-0001") for w in env["stale_warnings"])
    rep = json.loads(invoke("-C", repo, "drift", "--json", check=True).stdout)
    check(rep)
    assert rep["result"]["summary"]["entries"] == 2
    ack = invoke("-C", repo, "drift", "--ack", "1,2", env={"RAGRAF_ACTOR": "tester"}, check=True)
    assert_lines(
        ack.stdout,
        [
            re.compile(r"acknowledged #1 by tester at \S+"),
            re.compile(r"acknowledged #2 by tester at \S+"),
            footer[0],  # an ack rests on no file
        ],
    )
    assert (
        json.loads(invoke("-C", repo, "drift", "--json", check=True).stdout)["result"]["summary"][
            "unacknowledged"
        ]
        == 0
    )


def test_revert_to_the_indexed_content_clears_the_warning(repo: Path) -> None:
    cfg = config.load(repo)
    original = (repo / "src/Core/Database.php").read_text()
    edit(repo, "src/Core/Database.php", "return [];", "return [5];")
    run_scan(cfg)
    assert facade.run_op(repo, "symbol", {"fqn": "App\\Core\\Database::query"})["stale_warnings"]
    (repo / "src/Core/Database.php").write_text(original)
    [e] = run_scan(cfg).written
    assert e.kind == "modify" and e.note == "back to the indexed content"
    assert (
        facade.run_op(repo, "symbol", {"fqn": "App\\Core\\Database::query"})["stale_warnings"] == []
    )


def test_diff_shows_moved_symbols_and_renamed_files(repo: Path) -> None:
    cfg = config.load(repo)
    edit(
        repo, "src/Billing/Invoice.php", "use App\\Core\\Database;", "\n\nuse App\\Core\\Database;"
    )
    os.rename(repo / "plugins/paypal.php", repo / "plugins/paypal_gateway.php")
    run_scan(cfg)
    indexer.build(cfg, commit=True)
    d = json.loads(invoke("-C", repo, "diff", "rev-0001", "rev-0002", "--json", check=True).stdout)
    n = d["nodes"]
    assert n["renamed_files"] == [
        {"from": "plugins/paypal.php", "to": "plugins/paypal_gateway.php", "nodes": 2, "edges": 1}
    ]
    moved = {(m["fqn"], m["to_line"] - m["from_line"]) for m in n["moved"]}
    assert ("App\\Billing\\Invoice::charge", 2) in moved and ("App\\Billing\\Invoice", 2) in moved
    listed = {x["fqn"] for x in n["added"] + n["removed"]}
    assert "paypal_register" not in listed and "App\\Billing\\Invoice::charge" not in listed
    assert n["added_total"] == len(n["added"]) and n["removed_total"] == len(n["removed"])
    text = invoke("-C", repo, "diff", "rev-0001", "rev-0002", check=True).stdout.splitlines()
    # what only moved or was renamed is one line per file, not listed
    assert "renamed: plugins/paypal.php -> plugins/paypal_gateway.php (2 nodes, 1 edge)" in text
    assert [ln for ln in text if ln.startswith("moved:")] == [
        "moved: src/Billing/Invoice.php, lines +2 (10 nodes, 41 edges)"
    ]


def test_a_rescan_reads_the_facts_it_made_from_the_cache(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent scans after each edit: a file changed earlier in the same effort is read
    from the extraction cache (its facts were stored by the first scan), only the newly
    changed file is parsed; the ledger says the same as a scan that parsed both."""
    from ragraf.lang import registry

    log = repo.parent / "parsed.log"  # the scan parses in forked workers: they write here
    real = registry.extract

    def counting(path: str, *args: object, **kw: object) -> object:
        with open(log, "a") as fh:
            fh.write(path + "\n")
        return real(path, *args, **kw)  # type: ignore[arg-type]

    def parsed() -> list[str]:
        return log.read_text().splitlines() if log.exists() else []

    monkeypatch.setattr(registry, "extract", counting)
    cfg = config.load(repo)
    edit(repo, "src/Billing/Invoice.php", "return $ok;", "return $ok && $amount > 0;")
    first = run_scan(cfg).written
    assert parsed() == ["src/Billing/Invoice.php"]
    edit(repo, "src/Core/Logger.php", "final class FileLogger", "final class DiskLogger")
    log.unlink()
    second = run_scan(cfg).written
    assert parsed() == ["src/Core/Logger.php"], parsed()
    assert [(e.kind, e.path) for e in first] == [("modify", "src/Billing/Invoice.php")]
    assert [(e.kind, e.path) for e in second] == [("modify", "src/Core/Logger.php")]
    assert "App\\Core\\DiskLogger" in json.loads(second[0].symbols_added)


def test_a_change_made_again_after_a_revert_is_registered_again(repo: Path) -> None:
    """The ledger says what happened: edit, revert, the same edit again is three entries
    (a scan repeated without an edit adds none), and the same edit in a later revision is
    registered there too (it was skipped: the dedupe key was global)."""
    cfg = config.load(repo)
    p = repo / "src/Billing/Invoice.php"
    original = p.read_text()

    def scan_after(text: str) -> list[str]:
        p.write_text(text)
        t = time.time() + 2
        os.utime(p, (t, t))
        return [f"{e.kind} {e.note or ''}".strip() for e in run_scan(cfg).written]

    edited = original.replace("return $ok;", "return $ok && $amount > 0;")
    assert scan_after(edited) == ["modify"]
    assert scan_after(edited) == []  # nothing new: nothing registered
    assert scan_after(original) == ["modify back to the indexed content"]
    assert scan_after(edited) == ["modify"]  # the same edit again is news
    assert invoke("-C", repo, "reindex", "--commit").exit_code == 0
    assert scan_after(original) == ["modify"]  # against rev-0002, whose text is the edit
    assert scan_after(edited) == ["modify back to the indexed content"]
    assert scan_after(original) == ["modify"]
    assert invoke("-C", repo, "verify").exit_code == 0
