"""ragraf.gitinfo against real git repositories: HEAD, paths relative to a project in a
subfolder, renames, untracked files, names git would quote, and the answers outside a work
tree or before the first commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ragraf import gitinfo


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "app" / "src").mkdir(parents=True)
    (repo / "outside.txt").write_text("x\n")
    (repo / "app" / "src" / "a.php").write_text("<?php\n")
    (repo / "app" / "src" / "old.php").write_text("<?php // old\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "one")
    return repo


def test_outside_a_work_tree_and_before_the_first_commit(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert gitinfo.head(plain) is None
    assert gitinfo.WorkTree.of(plain) is None
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    _git(fresh, "init", "-q")
    assert gitinfo.head(fresh) is None  # no commit yet
    tree = gitinfo.WorkTree.of(fresh)
    assert tree is not None and tree.prefix == ""


def test_head_and_paths_relative_to_a_project_in_a_subfolder(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    project = repo / "app"
    first = gitinfo.head(project)
    assert first == _git(repo, "rev-parse", "HEAD") and len(first) == 40
    tree = gitinfo.WorkTree.of(project)
    assert tree is not None and tree.prefix == "app"
    assert tree.uncommitted() == set()

    (project / "src" / "a.php").write_text("<?php echo 1;\n")  # unstaged
    (project / "src" / "new file ü.php").write_text("<?php\n")  # untracked, quoted by git
    (repo / "outside.txt").write_text("y\n")  # outside the project: left out
    _git(repo, "mv", "app/src/old.php", "app/src/renamed.php")  # staged rename
    assert tree.uncommitted() == {
        "src/a.php",
        "src/new file ü.php",
        "src/old.php",
        "src/renamed.php",
    }

    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "two")
    second = gitinfo.head(project)
    assert second is not None and second != first
    assert tree.uncommitted() == set()
    assert tree.changed_between(first, second) == {
        "src/a.php",
        "src/new file ü.php",
        "src/old.php",
        "src/renamed.php",
    }
    # a commit that is gone (a rebase dropped it): nothing known, no error
    assert tree.changed_between("0" * 40, second) == set()


def _plant(repo: Path, marker: Path) -> None:
    """A cloned repository's config naming programs git would run on a read: an fsmonitor
    hook and a filter driver's clean command, each leaving ``marker`` behind."""
    hook = repo / "evil.sh"
    hook.write_text(f"#!/bin/sh\necho ran >> '{marker}'\ncat\n")
    hook.chmod(0o755)
    _git(repo, "config", "core.fsmonitor", str(hook))
    _git(repo, "config", "filter.evil.clean", str(hook))
    _git(repo, "config", "filter.evil.process", str(hook))
    _git(repo, "config", "diff.external", str(hook))
    (repo / ".gitattributes").write_text("*.php filter=evil diff=evil\n")
    _git(repo, "config", "diff.evil.textconv", str(hook))


def test_a_planted_fsmonitor_or_filter_never_runs(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    marker = tmp_path / "ran"
    _plant(repo, marker)
    (repo / "app" / "src" / "a.php").write_text("<?php echo 2;\n")
    # the control: plain git runs the planted programs on a status
    subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True)
    assert marker.exists(), "the planted hook must run under plain git (the test's premise)"
    marker.unlink()

    tree = gitinfo.WorkTree.of(repo / "app")
    assert tree is not None
    assert "src/a.php" in tree.uncommitted()
    assert gitinfo.head(repo) and gitinfo.ignores(repo / "app" / "nothing") is False
    assert not marker.exists(), "git ran a program the repository's config named"
    first = gitinfo.head(repo)
    safe = ("-c", "core.fsmonitor=false", "-c", "filter.evil.clean=", "-c", "filter.evil.process=")
    _git(repo, *safe, "add", "-A")
    _git(repo, *safe, "commit", "-qm", "2")
    assert not marker.exists()
    assert tree.changed_between(first or "", gitinfo.head(repo) or "") == {"src/a.php"}
    assert not marker.exists(), "git ran a program the repository's config named"


def test_drift_scan_runs_nothing_a_cloned_repository_names(tmp_path: Path) -> None:
    """Through the CLI: init, index, an edit, ``drift --scan``: the planted programs never run."""
    from tests.helpers import invoke

    repo = _repo(tmp_path)
    marker = tmp_path / "ran"
    _plant(repo, marker)
    project = repo / "app"
    invoke("init", project, check=True)
    invoke("-C", project, "index", "--no-vectors", check=True)
    (project / "src" / "a.php").write_text("<?php function g() {}\n")
    out = invoke("-C", project, "drift", "--scan", "--json", check=True)
    assert "git-diff" in out.stdout  # git was asked, and answered
    invoke("-C", project, "hook", "session-start", check=True)
    assert not marker.exists(), "git ran a program the repository's config named"
