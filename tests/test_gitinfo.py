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
