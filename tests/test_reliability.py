"""Faults and hostile inputs (docs/RELIABILITY.md): each is survived, refused or detected,
with a real file, a real process, a real kill. Nothing is read outside the root, nothing hangs,
nothing already stored is lost."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragraf import config, facade
from ragraf.errors import InvalidArgument
from ragraf.indexing import indexer
from tests.helpers import copy_pilot, invoke, run_cli, start_at_failpoint, wait_failpoint, write

TIMEOUT = 60  # a hang fails the test instead of the suite


def unprivileged(cmd: list[str]) -> list[str]:
    """Run ``cmd`` as an ordinary user: permission bits mean nothing to root."""
    if os.geteuid() != 0:
        return cmd
    return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *cmd]


def ragraf(
    *args: str, root: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_cli("-C", str(root), *args, env=env, timeout=TIMEOUT)


# -- 1. live_read never leaves the root, never serves a secret -----------------------------
@pytest.fixture
def hostile(indexed_pilot: Path) -> Path:
    root = indexed_pilot
    write(root, ".env", "DB_PASSWORD=hunter2\n")
    write(root, "keys/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
    write(root, "certs/server.pem", "-----BEGIN CERTIFICATE-----\n")
    (root / ".git").mkdir(exist_ok=True)
    write(root, ".git/config", "[remote]\n")
    (root / "bad").mkdir()
    os.symlink("/etc/passwd", root / "bad" / "passwd.php")
    os.symlink("/etc", root / "bad" / "etc")
    os.symlink("../.env", root / "bad" / "x.php")
    os.symlink("../keys/id_rsa", root / "bad" / "key.php")
    os.symlink("../src/Billing/Invoice.php", root / "bad" / "inside.php")
    return root


REFUSED = {
    "bad/passwd.php": "leads out of the project root",
    "bad/etc/shadow": "leads out of the project root",
    "bad/etc/passwd": "leads out of the project root",
    "bad/x.php": "(a link to '.env') matches secrets_exclude",
    "bad/key.php": "(a link to 'keys/id_rsa') matches secrets_exclude",
    ".env": "matches secrets_exclude",
    "keys/id_rsa": "matches secrets_exclude",
    "certs/server.pem": "matches secrets_exclude",
    ".git/config": "matches secrets_exclude",
    ".ragraf/config/project.yaml": "never part of the corpus",
    "README.txt": "is not selected by the include globs",
}


@pytest.mark.parametrize("path", sorted(REFUSED))
def test_live_read_refuses_what_is_not_a_corpus_file(hostile: Path, path: str) -> None:
    with pytest.raises(InvalidArgument) as info:
        facade.run_op(hostile, "live_read", {"path": path})
    assert REFUSED[path] in str(info.value)
    assert "hunter2" not in str(info.value) and "root:" not in str(info.value)


def test_live_read_follows_a_link_that_stays_inside(hostile: Path) -> None:
    r = facade.run_op(hostile, "live_read", {"path": "bad/inside.php"})["result"]
    assert r["status"] == "unindexed" and any(
        "class Invoice" in ln["text"]["untrusted"] for ln in r["lines"]
    )


@pytest.mark.slow
def test_live_read_refusals_reach_the_cli_and_mcp(hostile: Path) -> None:
    r = invoke("-C", hostile, "live-read", "bad/passwd.php")
    assert (r.exit_code, r.stdout, r.stderr) == (
        2,
        "",
        "ragraf: live_read: 'bad/passwd.php' leads out of the project root; it is not read\n",
    )
    import anyio

    from tests.test_mcp import _drive

    _tools, [res] = anyio.run(_drive, hostile, [("ragraf_live_read", {"path": "bad/x.php"})])
    assert (
        res.is_error
        and "secrets_exclude" in res.content[0].text
        and "hunter2" not in res.content[0].text
    )


# -- 2. special files never hang or flood a reader --------------------------------------------
@pytest.mark.slow
def test_fifos_and_devices_are_skipped_and_never_block(pilot: Path) -> None:
    os.mkfifo(pilot / "src" / "pipe.php")
    os.symlink("/dev/zero", pilot / "src" / "zero.php")
    r = ragraf("index", "--json", root=pilot)
    assert r.returncode == 0, r.stderr
    st = json.loads(ragraf("status", "--json", root=pilot).stdout)
    skipped = st["coverage"]["files.skipped"]["note"]
    assert "src/pipe.php" in skipped and "src/zero.php" in skipped
    g = ragraf("query", "symbol", "charge", "--json", root=pilot)
    assert g.returncode == 0
    for args in (
        ("drift", "--scan"),
        ("hook", "session-start"),
        ("live-read", "src/pipe.php"),
        ("live-read", "src/zero.php"),
    ):
        res = ragraf(*args, root=pilot)  # the timeout fails the test on a hang
        assert res.returncode in (0, 2), (args, res.stderr)
    assert "not a regular file (FIFO)" in ragraf("live-read", "src/pipe.php", root=pilot).stderr


@pytest.mark.slow
def test_an_indexed_file_replaced_by_a_fifo_reads_as_changed(indexed_pilot: Path) -> None:
    target = indexed_pilot / "src" / "Billing" / "Invoice.php"
    target.unlink()
    os.mkfifo(target)
    env = facade.run_op(indexed_pilot, "symbol", {"fqn": "App\\Billing\\Invoice::charge"})
    [w] = [w for w in env["stale_warnings"] if w["path"] == "src/Billing/Invoice.php"]
    assert w["reason"].startswith("modify after rev-0001")
    rep = ragraf("drift", "--scan", "--json", root=indexed_pilot)
    assert rep.returncode == 0, rep.stderr
    kinds = {(e["path"], e["kind"]) for e in json.loads(rep.stdout)["new_entries"]}
    assert ("src/Billing/Invoice.php", "modify") in kinds


@pytest.mark.slow
def test_mcp_server_survives_a_fifo_and_exits_when_stdin_closes(pilot: Path) -> None:
    indexer.build(config.load(pilot))
    os.mkfifo(pilot / "src" / "pipe.php")
    import anyio

    from tests.test_mcp import _drive

    _tools, [res] = anyio.run(_drive, pilot, [("ragraf_live_read", {"path": "src/pipe.php"})])
    assert res.is_error and "FIFO" in res.content[0].text
    proc = subprocess.run(
        [sys.executable, "-m", "ragraf", "-C", str(pilot), "mcp"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0


def test_a_file_larger_than_max_file_bytes_is_read_only_to_the_limit(indexed_pilot: Path) -> None:
    big = "<?php\n" + ("// padding line of a generated file\n" * 80_000)
    write(indexed_pilot, "src/Big.php", big)
    (indexed_pilot / ".ragraf/config/project.yaml").write_text("max_file_bytes: 100000\n")
    env = facade.run_op(indexed_pilot, "live_read", {"path": "src/Big.php", "end": 3})
    assert any("larger than max_file_bytes" in lim for lim in env["limits"])
    assert env["result"]["total_lines"] < 3000  # only the first 100 KB were read


# -- 4. symlink loops are skipped, never fatal --------------------------------------------------
@pytest.mark.slow
def test_symlink_loops_are_skipped(pilot: Path) -> None:
    (pilot / "loop").mkdir()
    os.symlink("b.php", pilot / "loop" / "a.php")
    os.symlink("a.php", pilot / "loop" / "b.php")
    os.symlink("dir2", pilot / "loop" / "dir1")
    os.symlink("dir1", pilot / "loop" / "dir2")
    r = ragraf("index", root=pilot)
    assert r.returncode == 0, r.stderr
    st = json.loads(ragraf("status", "--json", root=pilot).stdout)
    assert "loop/a.php" in st["coverage"]["files.skipped"]["note"]
    for args in (("drift", "--scan"), ("hook", "session-start")):
        res = ragraf(*args, root=pilot)
        assert res.returncode == 0 and "internal error" not in res.stderr, (args, res.stderr)
    res = ragraf("live-read", "loop/a.php", root=pilot)
    assert res.returncode == 2 and "internal error" not in res.stderr


@pytest.fixture
def public_pilot():  # type: ignore[no-untyped-def]
    """The pilot in a folder an ordinary user can reach and write (pytest's tmp folders
    are private to root), for tests of permission bits, which mean nothing to root."""
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="ragraf-perm-"))
    root = copy_pilot(base / "pilot")
    config.init_project(root)

    def share() -> None:
        for p in [base, *base.rglob("*")]:
            if not p.is_symlink():
                os.chmod(p, 0o777 if p.is_dir() else 0o666)

    try:
        yield root, share
    finally:
        for p in base.rglob("*"):
            if p.is_dir() and not p.is_symlink():
                os.chmod(p, 0o755)
        shutil.rmtree(base, ignore_errors=True)


def as_nobody(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = unprivileged([sys.executable, "-m", "ragraf", "-C", str(root), *args])
    env = {**os.environ, "HOME": str(root.parent)}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=env)


@pytest.mark.slow
def test_unreadable_folders_are_in_coverage(public_pilot) -> None:  # type: ignore[no-untyped-def]
    root, share = public_pilot
    write(root, "private/hidden.php", "<?php function hidden() {}\n")
    share()
    os.chmod(root / "private", 0o000)
    r = as_nobody(root, "index", "--json")
    assert r.returncode == 0, r.stderr
    cov = json.loads(r.stdout)["coverage"]
    assert cov["files.unreadable_dirs"] == 1.0
    st = json.loads(ragraf("status", "--json", root=root).stdout)
    assert "private (Permission denied)" in st["coverage"]["files.unreadable_dirs"]["note"]


@pytest.mark.slow
def test_an_unreadable_file_is_a_clean_refusal_of_live_read(public_pilot) -> None:  # type: ignore[no-untyped-def]
    root, share = public_pilot
    assert ragraf("index", root=root).returncode == 0
    share()
    os.chmod(root / "src/Billing/Invoice.php", 0o000)
    r = as_nobody(root, "live-read", "src/Billing/Invoice.php")
    assert r.returncode == 2 and "internal error" not in r.stderr, r.stderr
    assert "src/Billing/Invoice.php" in r.stderr and "Permission denied" in r.stderr


@pytest.mark.slow
def test_drift_scan_keeps_the_same_per_file_budget(pilot: Path) -> None:
    """``drift --scan`` (and ``hook session-start``) parse what changed under the build's
    budget: 100,000 nested brackets took 652 s in a scan before; now the scan ends at the
    budget, and the entry says the symbols were not compared (every indexed one counts as
    changed, so its facts are stale, none is reported removed)."""
    (pilot / ".ragraf/config/project.yaml").write_text("index:\n  file_time_budget_s: 1\n")
    assert ragraf("index", root=pilot).returncode == 0
    write(pilot, "src/Core/Logger.php", "<?php $a = " + "[" * 100_000 + ";\n")
    scan = ragraf("drift", "--scan", "--json", root=pilot)  # a hang fails at TIMEOUT
    assert scan.returncode == 0, scan.stderr
    report = json.loads(ragraf("drift", "--json", root=pilot).stdout)["result"]
    entry = next(e for e in report["entries"] if e["path"] == "src/Core/Logger.php")
    assert "symbols not compared" in (entry["note"] or "") and "1 s" in entry["note"]
    assert entry["symbols_removed"] == [] and entry["symbols_changed"], entry
    hook = ragraf("hook", "session-start", root=pilot)
    assert hook.returncode == 0, hook.stderr


# -- 9. orphaned parser workers never keep the build lock ----------------------------------


# -- 12. configuration that would exhaust memory ------------------------------------------
def test_a_yaml_alias_bomb_is_refused_before_it_expands(pilot: Path) -> None:
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join(f"*{prev}" for _ in range(9)) + "]")
    (pilot / ".ragraf/config/project.yaml").write_text("\n".join(lines) + "\n")
    r = ragraf("index", root=pilot)
    assert r.returncode == 2
    assert "project.yaml" in r.stderr and "aliases (*name) are not allowed" in r.stderr


def test_a_huge_config_is_refused_unread(pilot: Path) -> None:
    (pilot / ".ragraf/config/project.yaml").write_text("# padding\n" * 200_000)  # 2 MB
    r = ragraf("index", root=pilot)
    assert r.returncode == 2 and "project.yaml: larger than 1048576 bytes" in r.stderr, r.stderr


# -- 8. superlinear parse time: a per-file budget -----------------------------------------
def _pathological(root: Path) -> None:
    write(root, "src/brackets.php", "<?php $a = " + "[" * 100_000 + ";\n")


@pytest.mark.slow
def test_a_file_over_the_time_budget_fails_and_the_build_goes_on(pilot: Path) -> None:
    _pathological(pilot)
    (pilot / ".ragraf/config/project.yaml").write_text("index:\n  file_time_budget_s: 1\n")
    r = ragraf("index", "--json", root=pilot)
    assert r.returncode == 0, r.stderr
    st = json.loads(ragraf("status", "--json", root=pilot).stdout)
    assert "src/brackets.php" in st["coverage"]["files.failed"]["note"]
    assert st["counts"]["nodes"]["method"] == 18  # everything else is indexed
    from ragraf.store.graph import GraphStore

    with GraphStore(config.Layout(pilot).graph_db, readonly=True) as g:
        row = g.file_row("rev-0001", "src/brackets.php")
    assert row is not None and row.parse_status == "failed"
    assert row.parse_note is not None and "longer than the 1 s budget" in row.parse_note


# -- 9. orphaned parser workers never keep the build lock ----------------------------------
@pytest.mark.slow
def test_a_killed_builder_leaves_no_lock_behind(pilot: Path) -> None:
    import signal

    _pathological(pilot)  # keeps a worker busy for seconds
    proc = start_at_failpoint(pilot, "workers-started", "index")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    (pilot / "src/brackets.php").unlink()
    r = ragraf("index", root=pilot)  # at once: the orphaned workers hold no lock
    assert r.returncode == 0 and "another ragraf build" not in r.stderr, r.stderr
    # and they do not linger: each exits once its job is done or at once if idle
    deadline = time.monotonic() + 120  # the busy one finishes its pathological job first
    while _processes_mentioning(str(pilot)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _processes_mentioning(str(pilot)) == []


def test_the_parser_workers_fork_before_the_scan_reads_the_files(pilot: Path) -> None:
    """Forked after the scan, each worker would map every text the builder read (issue 18:
    MediaWiki's tree peak RSS); at the scan's end they are already there, forked from a
    builder that held none of the corpus."""

    proc = start_at_failpoint(pilot, "after-scan", "index", "--no-vectors")
    try:
        kids = [
            int(pid)
            for task in Path(f"/proc/{proc.pid}/task").iterdir()
            for pid in (task / "children").read_text().split()
        ]
        assert kids, "no parser worker was forked before the scan"
    finally:
        proc.kill()
        proc.wait()


def _processes_mentioning(text: str) -> list[int]:
    """Pids of live processes whose command line holds ``text`` (read from /proc)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (d / "stat").read_text().split(") ", 1)[1][0]
        except OSError:
            continue
        if text in cmd and state != "Z":
            out.append(int(d.name))
    return out


# -- 10. code execution from the repository ------------------------------------------------
def test_init_keeps_the_store_out_of_git(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("vendor/")
    root = tmp_path.resolve()
    r = invoke("init", tmp_path)
    assert (r.exit_code, r.stdout, r.stderr) == (
        0,
        "",
        f"ragraf: wrote {root}/.ragraf/config/project.yaml\n"
        f"ragraf: wrote {root}/.ragraf/config/confidence.yaml\n"
        f"ragraf: wrote {root}/.gitignore\n",
    )
    ignore = ["vendor/", "# the RAGRAF index (local, rebuilt by `ragraf index`)", ".ragraf/"]
    assert (tmp_path / ".gitignore").read_text().splitlines() == ignore
    again = invoke("init", tmp_path)  # twice: added once
    assert (
        again.stderr == f"ragraf: {root}/.ragraf/config already holds a configuration; kept as is\n"
    )
    assert (tmp_path / ".gitignore").read_text().splitlines() == ignore
    st = subprocess.run(
        ["git", "-C", str(tmp_path), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ".ragraf" not in st


# -- 5. a commit killed after its commit point is completed, never half-finished -------------
def _edit_and_scan(root: Path, marker: str) -> None:
    p = root / "src" / "Billing" / "Invoice.php"
    p.write_text(p.read_text().replace("<?php", f"<?php // {marker}", 1))
    r = ragraf("drift", "--scan", root=root)
    assert r.returncode == 0, r.stderr


@pytest.mark.slow
def test_a_commit_killed_before_its_archive_is_completed_by_the_next_run(
    indexed_pilot: Path,
) -> None:
    import signal

    from ragraf.store import open_stores

    root = indexed_pilot
    (root / ".ragraf/config/project.yaml").write_text("index:\n  retain_revs: 2\n")
    _edit_and_scan(root, "one")
    assert ragraf("reindex", "--commit", root=root).returncode == 0  # rev-0002, archive 1->2
    _edit_and_scan(root, "two")
    proc = start_at_failpoint(root, "commit-before-archive", "reindex", "--commit")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    layout = config.Layout(root)
    assert not (layout.archive_dir / "rev-0002_rev-0003.md").exists()  # the step that was lost
    r = ragraf("reindex", "--commit", root=root)
    assert r.returncode == 0, r.stderr
    assert (layout.archive_dir / "rev-0002_rev-0003.md").exists()
    with open_stores(layout) as st:
        assert [(a.from_rev, a.to_rev) for a in st.control.archives()] == [
            ("rev-0001", "rev-0002"),
            ("rev-0002", "rev-0003"),
        ]
        assert [r for r, s in st.graph.revs() if s == "ready"] == ["rev-0002", "rev-0003"]
        states = {h["rev_id"]: h["state"] for h in st.control.history()}
    assert states == {"rev-0001": "archived", "rev-0002": "ready", "rev-0003": "ready"}
    assert ragraf("verify", root=root).returncode == 0


# -- 3. a crash between the ledger's rows and LEDGER.md is completed, not "tampering" --------
def _scan_killed_after_db(root: Path) -> None:
    import signal

    proc = start_at_failpoint(root, "ledger-after-db", "drift", "--scan")
    proc.send_signal(signal.SIGKILL)
    proc.wait()


@pytest.mark.slow
def test_a_kill_between_the_rows_and_ledger_md_is_completed_by_verify(indexed_pilot: Path) -> None:
    root = indexed_pilot
    _edit_and_scan(root, "first")  # a complete entry first
    p = root / "src" / "Core" / "Logger.php"
    p.write_text(p.read_text() + "\n// changed\n")
    _scan_killed_after_db(root)
    md = (root / ".ragraf/drift/LEDGER.md").read_text()
    assert "## #1 " in md and "## #2 " not in md  # the row is committed, its block is not
    r = ragraf("verify", root=root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "completed an interrupted write: blocks of entries #2-#2 appended" in r.stderr
    assert "## #2 modify `src/Core/Logger.php`" in (root / ".ragraf/drift/LEDGER.md").read_text()
    assert ragraf("verify", root=root).returncode == 0


@pytest.mark.slow
def test_the_next_scan_completes_an_interrupted_write_too(indexed_pilot: Path) -> None:
    root = indexed_pilot
    p = root / "src" / "Core" / "Logger.php"
    p.write_text(p.read_text() + "\n// changed\n")
    _scan_killed_after_db(root)
    assert ragraf("drift", "--scan", root=root).returncode == 0  # nothing new, but it repairs
    assert "## #1 " in (root / ".ragraf/drift/LEDGER.md").read_text()
    assert ragraf("verify", root=root).returncode == 0


# -- 7. tampering that used to go unnoticed ------------------------------------------------
def _two_entries(root: Path) -> None:
    _edit_and_scan(root, "one")
    p = root / "src" / "Core" / "Logger.php"
    p.write_text(p.read_text() + "\n// changed\n")
    assert ragraf("drift", "--scan", root=root).returncode == 0
    assert ragraf("drift", "--ack", "1", root=root).returncode == 0
    assert ragraf("verify", root=root).returncode == 0


def _sql(root: Path, *statements: str) -> None:
    import apsw

    conn = apsw.Connection(str(config.Layout(root).control_db))
    for st in statements:
        conn.execute(st)
    conn.close()


def _drop_block(root: Path, header: str) -> None:
    md = root / ".ragraf/drift/LEDGER.md"
    text = md.read_text()
    start = text.index(header)
    nxt = text.find("\n## ", start + 1)
    md.write_text(text[:start] + (text[nxt + 1 :] if nxt >= 0 else ""))


TAMPERING = {
    "last entry and its block": "records entry #2 as the head; the ledger does not hold it",
    "last ack and its block": "records ack #1 as the head; the ledger does not hold it",
    "stale edges": "its stale edges do not match what the entry lists",
    "stale edges moved to another revision": "its stale edges do not match what the entry lists",
    "triggers": "append-only triggers are missing",
    "an entry's text in LEDGER.md": "entry #1 does not say what its database row says",
    "a forged block": "entry #7 has no row in the database (a forged block)",
}


@pytest.mark.slow
@pytest.mark.parametrize("what", sorted(TAMPERING))
def test_tampering_is_detected(indexed_pilot: Path, what: str) -> None:
    root = indexed_pilot
    _two_entries(root)
    md = root / ".ragraf/drift/LEDGER.md"
    if what == "last entry and its block":
        _sql(
            root,
            "DROP TRIGGER drift_entry_no_delete",
            "DROP TRIGGER stale_edge_no_delete",
            "DELETE FROM stale_edge WHERE drift_entry_id=2",
            "DELETE FROM drift_entry WHERE id=2",
            "CREATE TRIGGER drift_entry_no_delete BEFORE DELETE ON drift_entry BEGIN SELECT RAISE(ABORT, 'x'); END",
            "CREATE TRIGGER stale_edge_no_delete BEFORE DELETE ON stale_edge BEGIN SELECT RAISE(ABORT, 'x'); END",
        )
        _drop_block(root, "## #2 ")
    elif what == "last ack and its block":
        _sql(
            root,
            "DROP TRIGGER drift_ack_no_delete",
            "DELETE FROM drift_ack",
            "CREATE TRIGGER drift_ack_no_delete BEFORE DELETE ON drift_ack BEGIN SELECT RAISE(ABORT, 'x'); END",
        )
        _drop_block(root, "## ack of #1")
    elif what == "stale edges":
        _sql(
            root,
            "DROP TRIGGER stale_edge_no_delete",
            "DELETE FROM stale_edge WHERE drift_entry_id=1",
            "CREATE TRIGGER stale_edge_no_delete BEFORE DELETE ON stale_edge BEGIN SELECT RAISE(ABORT, 'x'); END",
        )
    elif what == "stale edges moved to another revision":
        _sql(
            root,
            "DROP TRIGGER stale_edge_no_update",
            "UPDATE stale_edge SET index_rev = 'rev-0000' WHERE drift_entry_id = 1",
            "CREATE TRIGGER stale_edge_no_update BEFORE UPDATE ON stale_edge BEGIN SELECT RAISE(ABORT, 'x'); END",
        )
    elif what == "triggers":
        _sql(root, "DROP TRIGGER drift_entry_no_update")
    elif what == "an entry's text in LEDGER.md":
        md.write_text(md.read_text().replace("- detected by: ", "- detected by: nobody, ", 1))
    elif what == "a forged block":
        md.write_text(
            md.read_text() + "## #7 delete `src/Billing/Invoice.php` · t · against rev-0001\n"
            "- chain: " + "0" * 64 + "\n\n"
        )
    r = ragraf("verify", root=root)
    assert r.returncode == 6, r.stdout + r.stderr
    assert TAMPERING[what] in r.stdout, r.stdout


ARCHIVE_TAMPERING = {
    "a report's text": "its text was edited after it was written",
    "the first archive row": "broken link or altered row",
    "the last archive row": "records archive #2 as the head; drift_archive does not hold it",
    "a row's report path": "broken link or altered row",
}


@pytest.mark.slow
@pytest.mark.parametrize("what", sorted(ARCHIVE_TAMPERING))
def test_archive_tampering_is_detected(indexed_pilot: Path, what: str) -> None:
    """The archives are chained like the ledger: a report's edited body, a deleted row
    (first or last) or a rewritten one is found by ``verify``."""
    root = indexed_pilot
    for marker in ("one", "two"):
        _edit_and_scan(root, marker)
        assert ragraf("reindex", "--commit", root=root).returncode == 0
    assert ragraf("verify", root=root).returncode == 0
    reports = sorted((root / ".ragraf/drift/archive").glob("*.md"))
    assert len(reports) == 2
    drop = "DROP TRIGGER drift_archive_no_{0}"
    back = "CREATE TRIGGER drift_archive_no_{0} BEFORE {1} ON drift_archive BEGIN SELECT RAISE(ABORT, 'x'); END"
    if what == "a report's text":
        reports[0].write_text(
            reports[0].read_text().replace("Ledger changes", "Ledger  changes", 1)
        )
    elif what == "the first archive row":
        _sql(
            root,
            drop.format("delete"),
            "DELETE FROM drift_archive WHERE id = 1",
            back.format("delete", "DELETE"),
        )
    elif what == "the last archive row":
        _sql(
            root,
            drop.format("delete"),
            "DELETE FROM drift_archive WHERE id = 2",
            back.format("delete", "DELETE"),
        )
    else:
        _sql(
            root,
            drop.format("update"),
            "UPDATE drift_archive SET report_path = report_path || '.x' WHERE id = 1",
            back.format("update", "UPDATE"),
        )
    r = ragraf("verify", root=root)
    assert r.returncode == 6, r.stdout + r.stderr
    assert ARCHIVE_TAMPERING[what] in r.stdout, r.stdout


# -- 6. hostile file names -------------------------------------------------------------------
@pytest.mark.slow
def test_hostile_file_names_are_escaped_everywhere(pilot: Path) -> None:
    nasty = "src/x\n## #999 fake header\n\x1b[31m.php"
    write(pilot, nasty, "<?php function nasty_name() { return 1; }\n")
    assert ragraf("index", root=pilot).returncode == 0
    (pilot / nasty).write_text("<?php function nasty_name() { return 2; }\n")
    scan = ragraf("drift", "--scan", root=pilot)
    assert scan.returncode == 0 and "\x1b" not in scan.stdout and "\n## #999" not in scan.stdout
    (pilot / nasty).write_text("<?php function nasty_name() { return 3; }\n")
    scan = ragraf("drift", "--scan", "--json", root=pilot)
    [entry] = json.loads(scan.stdout)["new_entries"]
    assert entry["path"] == "src/x\\x0a## #999 fake header\\x0a\\x1b[31m.php"
    md = (pilot / ".ragraf/drift/LEDGER.md").read_text()
    assert "\x1b" not in md and "\n## #999" not in md and "\\x0a## #999 fake header\\x0a\\x1b" in md
    assert ragraf("verify", root=pilot).returncode == 0  # an untouched ledger is intact
    for out in (
        ragraf("query", "symbol", "nasty_name", root=pilot).stdout,
        ragraf("query", "symbol", "nasty_name", "--json", root=pilot).stdout,
        ragraf("status", root=pilot).stdout,
        ragraf("drift", root=pilot).stdout,
    ):
        assert "\x1b" not in out and "\n## #999" not in out
    env = facade.run_op(pilot, "symbol", {"name": "nasty_name"})
    [m] = env["result"]["matches"]
    assert m["path"] == "src/x\\x0a## #999 fake header\\x0a\\x1b[31m.php"
    back = facade.run_op(pilot, "live_read", {"path": m["path"]})  # the shown path works
    assert back["result"]["status"] == "modified"


def test_c1_controls_are_stripped_from_untrusted_text(indexed_pilot: Path) -> None:
    write(indexed_pilot, "src/c1.php", "<?php\n// \x9b31m red \x85 next\nfunction c1() {}\n")
    r = facade.run_op(indexed_pilot, "live_read", {"path": "src/c1.php"})["result"]
    text = "".join(ln["text"]["untrusted"] for ln in r["lines"])
    assert "\x9b" not in text and "\x85" not in text and "red" in text


@pytest.mark.slow
def test_a_scan_waits_for_a_running_commit(indexed_pilot: Path) -> None:
    """drift --scan during reindex --commit never appends to a ledger being archived: it
    waits, then compares against the revision the commit sealed."""
    from ragraf import failpoints

    p = indexed_pilot / "src" / "Core" / "Logger.php"
    p.write_text(p.read_text() + "\n// edited before the commit\n")
    assert ragraf("drift", "--scan", root=indexed_pilot).returncode == 0
    commit = subprocess.Popen(
        [sys.executable, "-m", "ragraf", "-C", str(indexed_pilot), "reindex", "--commit"],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, failpoints.ENV: "after-parse:pause=4"},
    )
    wait_failpoint(commit, "after-parse")
    p.write_text(p.read_text() + "// edited during the commit\n")
    scan = ragraf("drift", "--scan", "--json", root=indexed_pilot)
    assert commit.wait(timeout=TIMEOUT) == 0
    assert scan.returncode == 0, scan.stderr
    [entry] = json.loads(scan.stdout)["new_entries"]
    assert entry["path"] == "src/Core/Logger.php" and entry["index_rev"] == "rev-0002", entry
    assert ragraf("verify", root=indexed_pilot).returncode == 0


# -- 11. schema input never fails a build --------------------------------------------------
def test_a_foreign_key_declared_twice_is_one_relationship(pilot: Path) -> None:
    write(
        pilot,
        "db/migrations/001_twice.sql",
        "CREATE TABLE users (id INT PRIMARY KEY);\n"
        "CREATE TABLE orders (id INT PRIMARY KEY, user_id INT REFERENCES users(id),\n"
        "  FOREIGN KEY (user_id) REFERENCES users(id));\n",
    )
    r = ragraf("index", root=pilot)
    assert r.returncode == 0, r.stderr
    fks = facade.run_op(pilot, "schema", {"table": "orders"})["result"]["tables"][0]["foreign_keys"]
    assert fks == [{"column": "user_id", "to_table": "users", "to_column": "id"}]


# -- 12. the rest -----------------------------------------------------------------------------
def test_long_arguments_are_not_echoed_whole(indexed_pilot: Path) -> None:
    huge = "x" * 100_000  # one argv string may not exceed 128 KiB (MAX_ARG_STRLEN)
    r = ragraf("query", "live_read", "../" + huge, root=indexed_pilot)
    assert r.returncode == 2 and len(r.stderr) < 1000 and "path" in r.stderr
    with pytest.raises(InvalidArgument) as info:
        facade.run_op(indexed_pilot, "symbol", {huge: 1})
    assert len(str(info.value)) < 1000


def test_an_unreachable_database_is_said_by_index_and_status(pilot: Path) -> None:
    (pilot / ".ragraf/config/project.yaml").write_text(
        "db:\n  dsn: mysql://nobody@127.0.0.1:1/nowhere\n  connect_timeout: 1\n"
    )
    r = ragraf("index", root=pilot)
    assert r.returncode == 0 and "database schema incomplete: live schema not read" in r.stderr
    st = ragraf("status", root=pilot).stdout
    assert "incomplete: live schema not read (cannot connect to 127.0.0.1:1" in st


def test_a_small_index_is_not_refused_for_a_fixed_margin() -> None:
    assert indexer.required_bytes(200_000) < 8 * 2**20  # a 200 KB corpus needs a few MiB, not 64


@pytest.fixture
def small_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A real 24 MiB filesystem (tmpfs; mounting needs root, which CI has)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small filesystem needs root (CI runs as root)")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _fill(mnt: Path, leave: int) -> Path:
    st = os.statvfs(mnt)
    free = st.f_bavail * st.f_frsize
    filler = mnt / "filler"
    with open(filler, "wb") as fh:
        fh.write(b"\0" * max(0, free - leave))
    return filler


@pytest.mark.slow
def test_a_full_disk_is_a_clean_refusal_and_nothing_is_lost(small_disk: Path) -> None:
    from tests.helpers import copy_pilot

    root = copy_pilot(small_disk / "pilot")
    config.init_project(root)
    assert ragraf("index", root=root).returncode == 0
    before = (root / ".ragraf/index/rev.json").read_text()
    filler = _fill(small_disk, 64 * 1024)
    p = root / "src" / "Core" / "Logger.php"
    p.write_text(p.read_text() + "\n// changed on a full disk\n")
    r = ragraf("index", "--force", root=root)
    assert r.returncode == 5 and "internal error" not in r.stderr, r.stderr
    assert "disk" in r.stderr
    scan = ragraf("drift", "--scan", root=root)
    assert scan.returncode in (0, 5) and "internal error" not in scan.stderr, scan.stderr
    assert "Traceback" not in r.stderr + scan.stderr  # a log that cannot be written is quiet
    assert (root / ".ragraf/index/rev.json").read_text() == before
    filler.unlink()
    assert ragraf("drift", "--scan", root=root).returncode == 0
    assert ragraf("verify", root=root).returncode == 0
    st = json.loads(ragraf("status", "--json", root=root).stdout)
    assert st["rev_id"] == "rev-0001"


@pytest.mark.slow
def test_a_disk_full_to_the_last_byte_is_exit_5_naming_the_disk(small_disk: Path) -> None:
    """Not a byte left: every command that must write stops with exit 5 and a message
    naming the disk (the lock file, SQLite, LEDGER.md), never "internal error"; a reader
    answers or is refused the same way; nothing stored is lost."""
    from tests.helpers import copy_pilot

    root = copy_pilot(small_disk / "pilot")
    config.init_project(root)
    assert ragraf("index", root=root).returncode == 0
    p = root / "src" / "Core" / "Logger.php"
    p.write_text(p.read_text() + "\n// changed before the disk filled\n")
    filler = small_disk / "filler"
    with open(filler, "wb", buffering=0) as fh:  # to the last byte (ENOSPC)
        for size in (1 << 20, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    fh.write(b"\0" * size)
    for args in (("drift", "--scan"), ("drift", "--note", "src/x.php", "--text", "why")):
        r = ragraf(*args, root=root)
        assert r.returncode == 5, (args, r.stderr)
        assert "disk" in r.stderr and "internal error" not in r.stderr, r.stderr
    for args in (("verify",), ("status",), ("query", "symbol", "Logger")):
        # a reader may need a -shm file SQLite cannot grow: then it is refused the same way
        r = ragraf(*args, root=root)
        assert r.returncode == 0 or (r.returncode == 5 and "disk" in r.stderr), (args, r.stderr)
    filler.unlink()
    assert ragraf("drift", "--scan", root=root).returncode == 0
    assert ragraf("verify", root=root).returncode == 0


def test_a_refused_first_build_leaves_no_store_files(small_disk: Path) -> None:
    from tests.helpers import copy_pilot

    root = copy_pilot(small_disk / "pilot")
    config.init_project(root)
    _fill(small_disk, 256 * 1024)
    r = ragraf("index", root=root)
    assert r.returncode == 5 and "not enough disk space" in r.stderr
    assert not (root / ".ragraf/index/graph/graph.sqlite").exists()
    assert not (root / ".ragraf/control.sqlite").exists()


# -- names that are no UTF-8, paths swapped for links while they are read ------------------------
@pytest.mark.slow
def test_a_file_name_that_is_no_utf8_is_indexed_scanned_and_queryable(pilot: Path) -> None:
    """``src/bad\\xff.php`` (a byte that is no UTF-8) stopped ``index`` and ``drift --scan``.
    Its one form everywhere is the corpus name ``src/bad\\u{dcff}.php``: stored, shown, and
    taken as input, as typed raw (bytes in argv) or copied from an answer."""
    raw = os.fsencode(pilot / "src") + b"/bad\xff.php"
    with open(raw, "wb") as fh:
        fh.write(b"<?php function bad_name() { return 1; }\n")
    shown = "src/bad\\u{dcff}.php"
    r = ragraf("index", root=pilot)
    assert r.returncode == 0, r.stderr
    sym = json.loads(ragraf("query", "symbol", "bad_name", "--json", root=pilot).stdout)
    assert sym["result"]["matches"][0]["path"] == shown
    for typed in (shown, os.fsdecode(b"src/bad\xff.php")):
        got = json.loads(ragraf("query", "live_read", typed, "--json", root=pilot).stdout)
        assert got["result"]["path"] == shown and got["result"]["status"] == "unchanged"
    with open(raw, "ab") as fh:
        fh.write(b"function more() {}\n")
    os.utime(raw, (time.time() + 2, time.time() + 2))
    scan = ragraf("drift", "--scan", root=pilot)
    assert scan.returncode == 0 and f"modify {shown}" in scan.stdout, scan.stderr
    hook = ragraf("hook", "session-start", root=pilot)
    assert hook.returncode == 0 and shown in hook.stdout, hook.stderr
    assert shown in (pilot / ".ragraf/drift/LEDGER.md").read_text()
    assert ragraf("verify", root=pilot).returncode == 0
    assert ragraf("reindex", "--commit", root=pilot).returncode == 0
    assert "more" in ragraf("query", "symbol", "more", root=pilot).stdout


def _exchange(a: Path, b: Path) -> bool:
    """renameat2(RENAME_EXCHANGE): swap two names atomically (False when not supported)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    return fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


@pytest.mark.slow
def test_a_folder_swapped_for_a_link_is_never_read_through(tmp_path: Path) -> None:
    """A real race, bounded: a process exchanges ``src/Core`` with a symlink to a folder
    outside the root (``renameat2(RENAME_EXCHANGE)``, in a loop) while ``live_read`` reads
    ``src/Core/Logger.php`` 2,000 times and ``index`` scans the corpus. Every path is opened
    one component at a time relative to the root's descriptor, never through a link, so
    the outside file's text is never served nor sealed."""
    root = copy_pilot(tmp_path / "pilot")
    config.init_project(root)
    indexer.build(config.load(root))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "Logger.php").write_text("<?php // OUTSIDE-SECRET\nfunction leaked() {}\n")
    link = root / "src" / "swap"
    os.symlink(outside, link)
    real = root / "src" / "Core"
    if not _exchange(real, link) or not _exchange(real, link):
        pytest.skip("renameat2(RENAME_EXCHANGE) is not supported here")
    swapper = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import ctypes, os, sys\n"
            "libc = ctypes.CDLL(None)\n"
            "a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])\n"
            "while True:\n"
            "    libc.renameat2(-100, a, -100, b, 2)\n",
            str(real),
            str(link),
        ],
    )
    from ragraf.facade.context import Session

    session = Session(root)  # one session, as the MCP server holds
    try:
        served = refused = 0
        for _ in range(2000):
            try:
                got = facade.run(session, "live_read", {"path": "src/Core/Logger.php"})
            except InvalidArgument:
                refused += 1
                continue
            text = json.dumps(got["result"])
            assert "OUTSIDE-SECRET" not in text, "a file outside the root was served"
            served += 1
        assert served + refused == 2000
        res = ragraf("index", "--force", root=root)
    finally:
        session.close()
        swapper.kill()
        swapper.wait()
    if (root / "src" / "Core").is_symlink():
        _exchange(real, link)
    assert res.returncode == 0, res.stderr
    hit = json.loads(ragraf("query", "symbol", "leaked", "--json", root=root).stdout)
    assert not hit["result"].get("matches"), "a file outside the root was sealed"
    blob = run_cli("-C", str(root), "query", "search", "OUTSIDE-SECRET", "--json").stdout
    assert json.loads(blob)["result"]["hits"] == []


# -- clean errors: each names the file, argument or disk, never "internal error" -------------------
def test_code_of_a_file_in_compact_text_names_the_file(indexed_pilot: Path) -> None:
    r = invoke(
        "-C", indexed_pilot, "query", "code", "--path", "src/Core/Logger.php", "--style", "compact"
    )
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("== src/Core/Logger.php:1-")


def test_an_argument_that_is_no_utf8_is_taken_not_an_internal_error(indexed_pilot: Path) -> None:
    for args in (
        ("query", "symbol", os.fsdecode(b"\xff\xfe")),
        ("query", "live_read", os.fsdecode(b"src/none\xff.php")),
        ("query", "search", os.fsdecode(b"caf\xe9 invoice")),
    ):
        r = ragraf(*args, root=indexed_pilot)
        assert r.returncode == 0 and "internal error" not in r.stderr, (args, r.stderr)
    missing = ragraf("query", "live_read", os.fsdecode(b"src/none\xff.php"), root=indexed_pilot)
    assert "src/none\\u{dcff}.php: missing" in missing.stdout


@pytest.mark.parametrize(
    ("yaml_line", "said"),
    [
        ('include: ["[z-a]"]', "key 'include': bad glob: '[z-a]': bad character class"),
        ("max_file_bytes: 100000000000000000000000000000000000000000", "key 'max_file_bytes'"),
        ("max_file_bytes: 1.0e41", "key 'max_file_bytes'"),
        ("drift:\n  slice_similarity: .nan", "key 'drift.slice_similarity': not a finite number"),
    ],
)
def test_a_bad_config_value_is_a_config_error_naming_file_and_key(
    pilot: Path, yaml_line: str, said: str
) -> None:
    (pilot / ".ragraf/config/project.yaml").write_text(yaml_line + "\n")
    r = invoke("-C", pilot, "index")
    assert r.exit_code == 2, r.stderr
    assert str(pilot / ".ragraf/config/project.yaml") in r.stderr and said in r.stderr, r.stderr


def test_a_note_too_long_is_refused_and_nothing_is_stored(indexed_pilot: Path) -> None:
    r = invoke("-C", indexed_pilot, "drift", "--note", "src/x.php", "--text", "n" * 100_000)
    assert r.exit_code == 2 and "--text" in r.stderr and len(r.stderr) < 300, r.stderr
    assert (
        json.loads(invoke("-C", indexed_pilot, "drift", "--json").stdout)["drift"]["entries"] == 0
    )


@pytest.mark.parametrize(
    ("rel", "command"),
    [
        (".gitignore", ("init",)),
        ("AGENTS.md", ("init", "--agents")),
        (".ragraf/logs/index.log", ("index",)),
        (".ragraf/drift/LEDGER.md", ("drift", "--scan")),
        (".ragraf/config/project.yaml", ("index",)),
    ],
)
def test_a_committed_symlink_is_never_written_through(
    tmp_path: Path, rel: str, command: tuple[str, ...]
) -> None:
    """A cloned repository may hold ``.gitignore``, ``AGENTS.md`` or a file of ``.ragraf/``
    as a link to a file elsewhere; the command is refused naming the link, and the
    target is left as it was."""
    root = copy_pilot(tmp_path / "pilot")
    if command[0] != "init":
        config.init_project(root)
        indexer.build(config.load(root))
        write(root, "src/new.php", "<?php function fresh() {}\n")
    target = tmp_path / "victim.txt"
    target.write_text("keep me\n")
    link = root / rel
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.exists():
        link.unlink()
    os.symlink(target, link)
    if command[0] == "init":
        r = invoke("init", root, *command[1:])
    else:
        r = invoke("-C", root, *command)
    assert r.exit_code == 5, (r.stdout, r.stderr)
    assert f"{link} is a symlink" in r.stderr and "never writes through a link" in r.stderr
    assert target.read_text() == "keep me\n"


def _outside_address() -> str | None:
    """An address of this machine that is not loopback (a host "outside" by name)."""
    out = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        addr = line.split()[3].split("/")[0]
        if not addr.startswith("127."):
            return addr
    return None


def test_a_repository_dsn_to_another_host_sends_nothing_until_allowed(pilot: Path) -> None:
    """A committed ``db.dsn: mysql://root@<host>:<port>/app`` with RAGRAF_DB_PASSWORD set:
    a listener on that host sees no connection (not even the user name) until the user
    names the host in RAGRAF_DB_ALLOW_HOSTS; then the build connects."""
    import socket
    import threading

    host = _outside_address()
    if host is None:
        pytest.skip("this machine has no address besides loopback")
    seen: list[bytes] = []
    server = socket.socket()
    server.bind((host, 0))
    server.listen(4)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            seen.append(b"connected")
            conn.close()

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        (pilot / ".ragraf/config/project.yaml").write_text(
            f"db:\n  dsn: mysql://root@{host}:{port}/app\n  connect_timeout: 1\n"
        )
        env = {"RAGRAF_DB_PASSWORD": "hunter22"}
        r = ragraf("index", root=pilot, env=env)
        assert r.returncode == 0, r.stderr
        assert f"RAGRAF_DB_ALLOW_HOSTS={host}" in r.stderr and seen == []
        assert "hunter22" not in r.stderr
        r = ragraf("index", "--force", root=pilot, env={**env, "RAGRAF_DB_ALLOW_HOSTS": host})
        assert r.returncode == 0, r.stderr
        assert seen, "with the host allowed, the build connects"
    finally:
        stop.set()
        t.join()
        server.close()


@pytest.mark.slow
def test_a_configured_regex_runs_in_linear_time(pilot: Path) -> None:
    """``db.query_builders.receivers: ["(a+)+$"]`` kept ``index`` busy for minutes on a long
    receiver (Python's re backtracks); the patterns of a configuration are RE2's, linear in
    the text, and one RE2 refuses is a config error naming the key."""
    receiver = "$" + "a" * 40 + "b"
    write(
        pilot,
        "src/builder.php",
        f"<?php\nfunction q() {{ return {receiver}->from('invoices'); }}\n",
    )
    yaml = pilot / ".ragraf/config/project.yaml"
    yaml.write_text('db:\n  query_builders:\n    receivers: ["(a+)+$"]\n')
    r = ragraf("index", root=pilot)  # a hang fails at TIMEOUT
    assert r.returncode == 0, r.stderr
    yaml.write_text('db:\n  query_builders:\n    receivers: ["ok", "(?<=x)db"]\n')
    r = ragraf("index", "--force", root=pilot)
    assert r.returncode == 2, r.stderr
    assert f"{yaml}: key 'db.query_builders.receivers[1]'" in r.stderr and "RE2" in r.stderr
