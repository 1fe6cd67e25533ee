"""Errors stay in the hierarchy and become exit codes at the edge; an internal error keeps
its traceback (in .ragraf/logs/error.log, and on stderr with RAGRAF_DEBUG=1)."""

from __future__ import annotations

import os
from pathlib import Path

from ragraf import errors, failpoints
from tests.helpers import invoke


def test_exit_codes_are_declared_once() -> None:
    codes = {
        c.__name__: c.exit_code
        for c in vars(errors).values()
        if isinstance(c, type) and issubclass(c, errors.RagrafError)
    }
    assert codes["ConfigError"] == codes["InvalidArgument"] == 2
    assert (
        codes["NoIndexError"],
        codes["BusyError"],
        codes["RefusedError"],
        codes["LedgerBroken"],
    ) == (3, 4, 5, 6)


def test_internal_error_keeps_its_traceback(pilot: Path) -> None:
    env = {failpoints.ENV: "after-scan:raise"}
    log = pilot.resolve() / ".ragraf" / "logs" / "error.log"
    line = f"ragraf: internal error: FailpointError: failpoint after-scan raised (traceback in {log})\n"
    r = invoke("-C", pilot, "index", env=env)
    # one line for humans by default, saying where the traceback is
    assert (r.exit_code, r.stdout, r.stderr) == (1, "", line)
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "FailpointError" in text
    assert text.splitlines()[0].endswith(" ERROR index FailpointError")  # the command, not -C
    debug = invoke("-C", pilot, "index", env={**env, "RAGRAF_DEBUG": "1"})
    assert debug.exit_code == 1 and debug.stdout == ""
    assert debug.stderr.startswith("Traceback (most recent call last)")
    assert debug.stderr.endswith("FailpointError: failpoint after-scan raised\n" + line)


def test_usage_errors_and_help_are_not_internal_errors(pilot: Path) -> None:
    bad = invoke("-C", pilot, "index", "--no-such-option")
    assert bad.exit_code == 2 and bad.stdout == ""
    lines = bad.stderr.splitlines()
    assert lines[:2] == ["Usage: ragraf index [OPTIONS]", "Try 'ragraf index --help' for help."]
    assert "No such option: --no-such-option" in [ln.strip("│ ") for ln in lines]
    assert "internal error" not in bad.stderr
    ok = invoke("-C", pilot, "drift", "--help")
    assert ok.exit_code == 0 and ok.stderr == ""
    assert "Usage: ragraf drift [OPTIONS]" in [ln.strip() for ln in ok.stdout.splitlines()]
    assert not (pilot / ".ragraf" / "logs" / "error.log").exists()


def test_no_project_is_exit_3_with_the_folder_named(tmp_path: Path) -> None:
    """In a bare environment (PATH and HOME only) and without -C: found upward from the
    current folder, and nothing is there."""
    bare = {k: None for k in os.environ if k != "PATH"} | {"HOME": str(tmp_path)}
    r = invoke("status", cwd=tmp_path, env=bare)
    assert (r.exit_code, r.stdout, r.stderr) == (
        3,
        "",
        f"ragraf: no RAGRAF project at or above {tmp_path.resolve()}; "
        "run `ragraf init` there first\n",
    )
