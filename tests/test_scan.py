from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from ragraf import config
from ragraf.corpus import scan
from ragraf.indexing import indexer
from tests.helpers import write

SECRET = "s3cr3t-value-7f1d"


def _project(tmp_path: Path, extra_yaml: str = "") -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    config.init_project(tmp_path)
    if extra_yaml:
        config.Layout(tmp_path).project_yaml.write_text(extra_yaml)
    return tmp_path


def _store_bytes(root: Path) -> bytes:
    data = b""
    for p in (root / ".ragraf").rglob("*"):
        if p.is_file():
            data += p.read_bytes()
    return data


def test_secrets_are_never_opened_and_never_stored(tmp_path: Path) -> None:
    root = _project(tmp_path)
    write(root, "src/a.php", "<?php function a() { return 1; }\n")
    write(root, "config/app.local.php", f"<?php $password = '{SECRET}';\n")
    # a FIFO blocks whoever opens it: if the scanner opened it, this test would hang
    os.mkfifo(root / ".env")
    write(root, "deploy.key", SECRET)
    cfg = config.load(root)
    cfg = replace(cfg, corpus=replace(cfg.corpus, include=("**/*.php", "**/.env", "**/*.key")))
    res = indexer.build(cfg)
    assert res.status == "built"
    blob = _store_bytes(root)
    assert SECRET.encode() not in blob
    assert b"app.local.php" not in blob and b"deploy.key" not in blob
    assert res.coverage["files.secret_excluded"] == 3


def test_bad_files_are_recorded_not_dropped(tmp_path: Path) -> None:
    root = _project(tmp_path, "max_file_bytes: 1000\n")
    write(root, "ok.php", "<?php echo 1;\n")
    write(root, "bin.php", b"<?php \x00\x01\x02")
    write(root, "big.php", "<?php\n" + "// padding\n" * 200)
    write(root, "latin.php", "<?php echo 'caf\xe9';\n".encode("latin-1"))
    outside = tmp_path.parent / f"{tmp_path.name}-outside.php"
    outside.write_text("<?php echo 'outside';\n")
    os.symlink(outside, root / "link.php")
    res = scan(config.load(root))
    by = {f.path: (f.status, f.note) for f in res.files}
    assert by["ok.php"] == ("ok", None)
    assert by["bin.php"] == ("skipped", "binary (NUL byte)")
    assert by["big.php"][0] == "skipped" and "max_file_bytes" in by["big.php"][1]
    assert by["latin.php"][0] == "failed" and "invalid UTF-8" in by["latin.php"][1]
    assert by["link.php"] == ("skipped", "symlink out of the root (not followed)")
    indexer.build(config.load(root))
    from ragraf.store.graph import GraphStore

    g = GraphStore(config.Layout(root).graph_db, readonly=True)
    rows = {r[0]: r[4] for r in g.files("rev-0001")}
    assert rows == {
        "ok.php": "ok",
        "bin.php": "skipped",
        "big.php": "skipped",
        "latin.php": "failed",
        "link.php": "skipped",
    }
    assert b"outside" not in _store_bytes(root).replace(b"symlink out of the root", b"")


def test_symlinked_folders_are_not_entered(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    other = tmp_path / "other"
    write(other, "x.php", "<?php function leaked() {}\n")
    os.symlink(other, root / "linked")
    write(root, "a.php", "<?php function a() {}\n")
    res = scan(config.load(root))
    assert [f.path for f in res.files] == ["a.php"]
    assert res.symlinked_dirs == 1


@pytest.mark.slow
def test_unreadable_file_is_failed_with_a_note(tmp_path: Path) -> None:
    """The real CLI in a child process; as root it runs without the capability to
    bypass file permissions (setpriv), so a mode-000 file is really unreadable."""
    root = _project(tmp_path / "p")
    write(root, "a.php", "<?php function a() {}\n")
    write(root, "locked.php", "<?php function locked() {}\n").chmod(0)
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, (
            "setpriv (util-linux) is needed to drop CAP_DAC_OVERRIDE when tests run as root"
        )
        prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]
    cmd = [*prefix, sys.executable, "-m", "ragraf", "-C", str(root)]
    proc = subprocess.run([*cmd, "index", "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["coverage"]["files.failed"] == 1
    st = subprocess.run([*cmd, "status", "--json"], capture_output=True, text=True, timeout=60)
    cov = json.loads(st.stdout)["coverage"]
    assert cov["files.failed"]["note"] == "locked.php"


def test_case_insensitive_globs(tmp_path: Path) -> None:
    root = _project(tmp_path, "exclude: ['**/cache/**']\n")
    write(root, "src/Cache/a.php", "<?php\n")
    write(root, "src/b.php", "<?php\n")
    assert [f.path for f in scan(config.load(root)).files] == ["src/Cache/a.php", "src/b.php"]
    config.Layout(root).project_yaml.write_text(
        "exclude: ['**/cache/**']\ncase_insensitive_globs: true\n"
    )
    assert [f.path for f in scan(config.load(root)).files] == ["src/b.php"]


def test_corpus_hash_depends_on_content_only(tmp_path: Path) -> None:
    root = _project(tmp_path)
    write(root, "a.php", "<?php echo 1;\n")
    h1 = scan(config.load(root)).corpus_hash
    os.utime(root / "a.php", (1, 1))
    assert scan(config.load(root)).corpus_hash == h1
    write(root, "a.php", "<?php echo 2;\n")
    assert scan(config.load(root)).corpus_hash != h1


def test_the_files_are_listed_with_their_languages_before_any_is_read(tmp_path: Path) -> None:
    """A build forks its parser workers in ``on_listed``: no text may be read before."""
    root = _project(tmp_path)
    write(root, "src/a.php", "<?php function a() { return 1; }\n")
    write(root, "web/b.js", "function b() { return 2; }\n")
    seen: list[set[str | None]] = []

    def listed(langs: set[str | None]) -> None:
        seen.append(langs)
        write(root, "src/a.php", "<?php function changed() {}\n")  # read after this

    res = scan(config.load(root), on_listed=listed)
    assert seen == [{"php", "javascript"}]
    got = {f.path: f.text for f in res.files}
    assert got["src/a.php"] == "<?php function changed() {}\n"
