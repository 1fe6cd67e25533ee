"""Faults and hostile inputs (docs/RELIABILITY.md): each is survived, refused or detected,
with a real file, a real process, a real kill. Nothing is read outside the root, nothing hangs,
nothing already stored is lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragraf import config, facade
from ragraf.build import indexer
from ragraf.errors import InvalidArgument
from tests.conftest import run_cli, write

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


def test_live_read_refusals_reach_the_cli_and_mcp(hostile: Path) -> None:
    r = ragraf("live-read", "bad/passwd.php", root=hostile)
    assert (
        r.returncode == 2
        and "leads out of the project root" in r.stderr
        and "root:" not in r.stdout
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


def test_unreadable_folders_are_in_coverage(tmp_path: Path) -> None:
    import shutil
    import tempfile

    from tests.conftest import copy_pilot

    # a project an ordinary user can reach (pytest's tmp folders are private to root)
    base = Path(tempfile.mkdtemp(prefix="ragraf-perm-"))
    try:
        root = copy_pilot(base / "pilot")
        config.init_project(root)
        write(root, "private/hidden.php", "<?php function hidden() {}\n")
        for p in [base, *base.rglob("*")]:
            os.chmod(p, 0o777 if p.is_dir() else 0o666)
        os.chmod(root / "private", 0o000)
        cmd = unprivileged([sys.executable, "-m", "ragraf", "-C", str(root), "index", "--json"])
        r = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env={**os.environ, "HOME": str(base)},
        )
        assert r.returncode == 0, r.stderr
        cov = json.loads(r.stdout)["coverage"]
        assert cov["files.unreadable_dirs"] == 1.0
        st = json.loads(ragraf("status", "--json", root=root).stdout)
        assert "private (Permission denied)" in st["coverage"]["files.unreadable_dirs"]["note"]
    finally:
        os.chmod(base / "pilot" / "private", 0o755)
        shutil.rmtree(base, ignore_errors=True)


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


# -- 8. superlinear parse time: a per-file budget -----------------------------------------
def _pathological(root: Path) -> None:
    write(root, "src/brackets.php", "<?php $a = " + "[" * 100_000 + ";\n")


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
def test_a_killed_builder_leaves_no_lock_behind(pilot: Path) -> None:
    import signal

    from ragraf import failpoints

    _pathological(pilot)  # keeps a worker busy for seconds
    env = {**os.environ, failpoints.ENV: "workers-started"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragraf", "-C", str(pilot), "index"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert "failpoint workers-started reached" in line, line
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    (pilot / "src/brackets.php").unlink()
    r = ragraf("index", root=pilot)  # at once: the orphaned workers hold no lock
    assert r.returncode == 0 and "another ragraf build" not in r.stderr, r.stderr


# -- 10. code execution from the repository ------------------------------------------------
def test_init_keeps_the_store_out_of_git(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("vendor/")
    r = run_cli("init", str(tmp_path), timeout=TIMEOUT)
    assert r.returncode == 0
    assert (tmp_path / ".gitignore").read_text().splitlines()[-1] == ".ragraf/"
    run_cli("init", str(tmp_path), timeout=TIMEOUT)  # twice: added once
    assert (tmp_path / ".gitignore").read_text().count(".ragraf/") == 1
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


def test_a_commit_killed_before_its_archive_is_completed_by_the_next_run(
    indexed_pilot: Path,
) -> None:
    import signal

    from ragraf import failpoints
    from ragraf.store import open_stores

    root = indexed_pilot
    (root / ".ragraf/config/project.yaml").write_text("index:\n  retain_revs: 2\n")
    _edit_and_scan(root, "one")
    assert ragraf("reindex", "--commit", root=root).returncode == 0  # rev-0002, archive 1->2
    _edit_and_scan(root, "two")
    env = {**os.environ, failpoints.ENV: "commit-before-archive"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragraf", "-C", str(root), "reindex", "--commit"],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    assert "failpoint commit-before-archive reached" in proc.stderr.readline()
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
