"""What git knows about the project's work tree, asked of the ``git`` executable.

Used by ``reindex`` (the commit a revision was built from) and ``drift --scan`` (which
changed paths git knows about). A library for three read-only questions cost more than it
gave: its import is paid by every scan and reindex, and it runs the same git commands
underneath.

Invariants a change must keep:
- Read-only: nothing here writes to the repository, its index or its config.
- Never raises for a missing git, a folder outside any work tree, a repository without a
  commit, or a git that fails or hangs (``TIMEOUT_S``): the answer is then None or empty,
  and the caller compares content alone.
- Paths come back relative to the project root, "/"-separated, exactly as git wrote them
  (``-z``: no quoting of unusual names); paths outside the project root are left out.
- A repository is input, not a program: every git process runs with what a repository's
  own config could make git execute switched off (``NEUTRAL``: the fsmonitor hook, hooks,
  external diff and textconv drivers, the pager, submodule recursion; the clean / smudge
  / process commands of every filter driver the config names, read first with ``git
  config``, which runs nothing), without the system config (``GIT_CONFIG_NOSYSTEM``) and
  without a ``GIT_DIR`` / ``GIT_WORK_TREE`` / ``GIT_INDEX_FILE`` inherited from a caller.
  ``git status`` would otherwise run ``core.fsmonitor`` from a cloned ``.git/config``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

#: a git that does not answer in this long is treated as absent
TIMEOUT_S = 30

#: settings a repository's own config could use to make a read-only git command run a
#: program; each is overridden on the command line, which wins over every config file
NEUTRAL = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.untrackedCache=false",
    "diff.external=",
    "status.submoduleSummary=false",
    "submodule.recurse=false",
    "protocol.allow=never",
)
#: the environment variables that would point git at another repository or config
_DROPPED_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXTERNAL_DIFF",
    "GIT_PAGER",
    "GIT_EXEC_PATH",
    "GIT_SSH_COMMAND",
    "GIT_CEILING_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_COMMON_DIR",
)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",  # status never writes the index (read-only)
        GIT_PAGER="cat",
    )
    return env


def _run(root: Path, args: list[str]) -> str | None:
    try:
        got = subprocess.run(
            ["git", *args],
            capture_output=True,
            timeout=TIMEOUT_S,
            cwd=root,
            env=_env(),
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):  # no git on PATH, or it hangs
        return None
    if got.returncode != 0:
        return None
    return got.stdout.decode("utf-8", "surrogateescape")


def _filter_overrides(root: Path) -> list[str]:
    """``-c filter.<driver>.<command>=`` for every filter command the configs name: an
    empty command is no command, so no filter program runs."""
    out = _run(
        root,
        [
            *_neutral(),
            "config",
            "-z",
            "--name-only",
            "--get-regexp",
            r"^filter\..*\.(clean|smudge|process)$",
        ],
    )
    keys = {k for k in (out or "").split("\0") if k}
    return [x for k in sorted(keys) for x in ("-c", f"{k}=")]


def _neutral() -> list[str]:
    return [x for s in NEUTRAL for x in ("-c", s)]


def _git(root: Path, *args: str) -> str | None:
    """git's stdout for ``args`` run in ``root`` with the repository's executable settings
    neutralised (None when it fails or cannot run)."""
    return _run(root, [*_neutral(), *_filter_overrides(root), *args])


def ignores(path: Path) -> bool:
    """True when git ignores ``path`` (a rule of any .gitignore above it)."""
    return _git(path.parent, "check-ignore", "-q", "--", path.name) is not None


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
        out = _git(
            self.root,
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "--name-status",
            "-z",
            "-M",
            old,
            new,
            "--",
        )
        return self._paths(_record_paths(out, inline=False)) if out else set()

    def uncommitted(self) -> set[str]:
        """Paths with changes not committed: staged, unstaged or untracked (both sides of
        a rename)."""
        out = _git(
            self.root,
            "status",
            "--porcelain",
            "-z",
            "--untracked-files=all",
            "--ignore-submodules=all",
        )
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
