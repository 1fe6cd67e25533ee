"""What git knows about the project's work tree, asked of the ``git`` executable.

Used by ``reindex`` (the commit a revision was built from) and ``drift --scan`` (which
changed paths git knows about). A library for three read-only questions cost more than it
gave: importing GitPython took 0.03-0.13 s of every scan and reindex, and it runs the
same git commands underneath.

Invariants a change must keep:
- Read-only: nothing here writes to the repository, its index or its config.
- Never raises for a missing git, a folder outside any work tree, a repository without a
  commit, or a git that fails or hangs (``TIMEOUT_S``): the answer is then None or empty,
  and the caller compares content alone.
- Paths come back relative to the project root, "/"-separated, exactly as git wrote them
  (``-z``: no quoting of unusual names); paths outside the project root are left out.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

#: a git that does not answer in this long is treated as absent
TIMEOUT_S = 30


def _git(root: Path, *args: str) -> str | None:
    """git's stdout for ``args`` run in ``root`` (None when it fails or cannot run)."""
    try:
        got = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            timeout=TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError):  # no git on PATH, or it hangs
        return None
    if got.returncode != 0:
        return None
    return got.stdout.decode("utf-8", "surrogateescape")


def in_work_tree(root: Path) -> bool:
    """A ``.git`` in the root or a parent (cheap: no process for a plain folder)."""
    here = root.resolve()
    return any((d / ".git").exists() for d in (here, *here.parents))


def head(root: Path) -> str | None:
    """The commit HEAD names (None outside a work tree or before the first commit)."""
    if not in_work_tree(root):
        return None
    out = _git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    sha = (out or "").strip()
    return sha if len(sha) >= 40 else None


class WorkTree:
    """The work tree holding ``root``: paths git reports, relative to ``root``."""

    def __init__(self, root: Path, prefix: str) -> None:
        self.root = root
        self.prefix = prefix  # the project root inside the work tree ("" at its top)

    @classmethod
    def of(cls, root: Path) -> WorkTree | None:
        if not in_work_tree(root):
            return None
        prefix = _git(root, "rev-parse", "--show-prefix")
        if prefix is None:
            return None
        return cls(root, prefix.strip().rstrip("/"))

    def _rel(self, path: str) -> str | None:
        if not self.prefix:
            return path
        return path[len(self.prefix) + 1 :] if path.startswith(self.prefix + "/") else None

    def _paths(self, names: list[str]) -> set[str]:
        return {r for r in (self._rel(n) for n in names if n) if r}

    def changed_between(self, old: str, new: str) -> set[str]:
        """Paths that differ between two commits (both sides of a rename); empty when
        either commit is unknown (a rebase dropped it)."""
        out = _git(self.root, "diff", "--name-status", "-z", "-M", old, new, "--")
        return self._paths(_record_paths(out, inline=False)) if out else set()

    def uncommitted(self) -> set[str]:
        """Paths with changes not committed: staged, unstaged or untracked (both sides of
        a rename)."""
        out = _git(self.root, "status", "--porcelain", "-z", "--untracked-files=all")
        return self._paths(_record_paths(out, inline=True)) if out else set()


def _record_paths(out: str, *, inline: bool) -> list[str]:
    """The paths of git's ``-z`` records: a status, then a path, or two for a rename or a
    copy. ``inline``: the first path is in the status field (``XY path``: ``status
    --porcelain``), else the field after it (``R100``, ``M``: ``diff --name-status``)."""
    names: list[str] = []
    fields = out.split("\0")
    i = 0
    while i < len(fields):
        head = fields[i]
        i += 1
        if not head or (inline and len(head) < 4):
            continue
        count = 2 if any(c in "RC" for c in head[:2]) else 1
        if inline:
            names.append(head[3:])
            count -= 1
        names.extend(fields[i : i + count])
        i += count
    return names
