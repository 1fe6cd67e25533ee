"""Helpers the tests import: paths, fixture copies, files, and two ways to run the CLI.

- ``invoke(...)`` runs the ``ragraf`` app in this process through typer's ``CliRunner``:
  the same parsing, the same root group turning library errors into exit codes, stdout
  and stderr captured apart. Use it for every test that checks output and exit codes.
- ``run_cli(...)`` starts a real ``python -m ragraf`` process. Use it only where the
  process matters: kills (SIGKILL at a failpoint), two processes at once, the MCP
  server, the installed entry point, a fresh interpreter.

Fixtures and hooks live in ``tests/conftest.py``; nothing imports conftest.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from typer.testing import CliRunner, Result

if TYPE_CHECKING:
    from ragraf.lang.facts import FileFacts

REPO = Path(__file__).resolve().parent.parent
PILOT = REPO / "fixtures" / "pilot"
SQLAPP = REPO / "fixtures" / "sqlapp"
#: What points at the user's home, caches and state; conftest gives every test its own values.
HOME_ENV = (
    "HOME",
    "XDG_CACHE_HOME",
    "RAGRAF_CACHE_DIR",
    "FASTEMBED_CACHE_PATH",
    "XDG_STATE_HOME",
    "RAGRAF_STATE_DIR",
)
#: What tells git which repository to use (`git rev-parse --local-env-vars`). Set while the
#: suite runs under a git hook or `git rebase --exec`, it sends a test's `git -C tmp ...`
#: to the enclosing repository; conftest removes it.
GIT_REPO_ENV = (
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_INTERNAL_SUPER_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
)


def copy_pilot(dest: Path) -> Path:
    """A copy of fixtures/pilot at ``dest`` (without any .ragraf/ of a `make example`)."""
    shutil.copytree(PILOT, dest, ignore=shutil.ignore_patterns(".ragraf"))
    return dest


def indexed_fixture(src: Path, dest: Path, project_yaml: str = "") -> Path:
    """A copy of a fixture at ``dest`` (without any .ragraf/), initialised (``project_yaml``
    replacing the default project.yaml when given) and built once."""
    from ragraf import config
    from ragraf.indexing import indexer

    root = shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".ragraf"))
    config.init_project(root)
    if project_yaml:
        (root / ".ragraf/config/project.yaml").write_text(project_yaml)
    indexer.build(config.load(root))
    return root


def write(root: Path, rel: str, text: str | bytes) -> Path:
    """Write ``root/rel`` (folders created); str as UTF-8, bytes as they are."""
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def edit_file(root: Path, rel: str, old: str, new: str) -> None:
    """Replace ``old`` (which must occur) by ``new`` in ``root/rel``, with an mtime 2 s ahead
    (so a scan sees the change even within the file system's time resolution)."""
    p = root / rel
    text = p.read_text()
    assert old in text, f"{old!r} not in {rel}"
    p.write_text(text.replace(old, new))
    t = time.time() + 2
    os.utime(p, (t, t))


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """A real ``python -m ragraf`` process (it inherits os.environ plus ``env``)."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-m", "ragraf", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"ragraf {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


def assert_lines(text: str, expected: list[str | re.Pattern[str]]) -> None:
    """``text`` is exactly these lines: a str equals its line, a compiled pattern must match
    the whole line (for the parts that vary: times, sizes)."""
    lines = text.splitlines()
    assert text.endswith("\n") or text == "", f"no final newline: {text!r}"
    mismatch = [
        (i, want, got)
        for i, (want, got) in enumerate(zip(expected, lines, strict=False))
        if not (want.fullmatch(got) if isinstance(want, re.Pattern) else want == got)
    ]
    assert not mismatch and len(lines) == len(expected), (
        f"line {mismatch[0][0] + 1}: expected {mismatch[0][1]!r}, got {mismatch[0][2]!r}"
        if mismatch
        else f"expected {len(expected)} lines, got {len(lines)}:\n{text}"
    )


@contextlib.contextmanager
def _cwd(path: Path | None) -> Iterator[None]:
    """Run in ``path``, or in an empty temporary folder: a call that forgets ``-C`` must
    not find a project above the test's working directory (the repository itself)."""
    old = Path.cwd()
    with contextlib.ExitStack() as stack:
        target = (
            path if path is not None else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        )
        os.chdir(target)
        try:
            yield
        finally:
            os.chdir(old)


def invoke(
    *args: str | Path,
    cwd: Path | None = None,
    env: Mapping[str, str | None] | None = None,
    check: bool = False,
    input_text: str | None = None,
) -> Result:
    """``ragraf ARGS`` in this process (typer's CliRunner on ``ragraf.cli.app.app``).

    Returns typer's ``Result``: ``exit_code``, ``stdout`` and ``stderr`` apart (this typer's
    runner always keeps them apart). ``env`` is applied to os.environ for the call only
    (None removes a variable); ``input_text`` is its standard input. The app keeps the ``-C`` project in module state, so it is
    reset before and after every call; pass ``-C ROOT`` or ``cwd``. Exceptions that escape
    the app (none should: the root group turns them into exit codes) propagate.
    """
    from ragraf.cli import app as cli_app

    cli_app._state["project"] = None
    try:
        with _cwd(cwd):
            res = CliRunner().invoke(
                cli_app.app,
                [str(a) for a in args],
                env=env,
                input=input_text,
                prog_name="ragraf",
                catch_exceptions=False,
            )
    finally:
        cli_app._state["project"] = None
    if check and res.exit_code != 0:
        raise AssertionError(
            f"ragraf {' '.join(map(str, args))} exited {res.exit_code}: {res.stderr}"
        )
    return res


def start_at_failpoint(root: Path, point: str, *args: str) -> subprocess.Popen[str]:
    """``ragraf -C root <args>`` in a process of its own, returned once it stands at
    failpoint ``point`` (where it waits to be killed)."""
    from ragraf import failpoints

    proc = subprocess.Popen(
        [sys.executable, "-m", "ragraf", "-C", str(root), *args],
        env={**os.environ, failpoints.ENV: point},
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    wait_failpoint(proc, point)
    return proc


def wait_failpoint(proc: subprocess.Popen[str], name: str) -> None:
    """Read a child's stderr until it says it stands at failpoint ``name``: diagnostics
    printed before it (schema notes, warnings) are skipped; the child's exit before it
    fails with everything it printed."""
    assert proc.stderr is not None
    lines: list[str] = []
    while not lines or f"failpoint {name} reached" not in lines[-1]:
        line = proc.stderr.readline()
        assert line, "".join(lines) or f"exited before failpoint {name}"
        lines.append(line)


def fixture_facts(name: str, max_lines: int = 120) -> list[FileFacts]:
    """The facts of every file of ``fixtures/<name>`` a language extracts, in path order
    (``registry.extract``, as a build's workers make them)."""
    from ragraf.lang import registry

    root = REPO / "fixtures" / name
    out: list[FileFacts] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        lang = registry.lang_of(rel)
        if not path.is_file() or lang is None or ".ragraf" in rel:
            continue
        out.append(registry.extract(rel, lang, path.read_text(encoding="utf-8"), max_lines))
    return out
