"""Errors stay in the hierarchy and become exit codes at the edge; an internal error keeps
its traceback (in .ragraf/logs/error.log, and on stderr with RAGRAF_DEBUG=1)."""

from __future__ import annotations

import os
from pathlib import Path

from ragraf import errors, failpoints
from tests.helpers import run_cli


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
    r = run_cli("-C", str(pilot), "index", env=env)
    assert r.returncode == 1 and r.stdout == ""
    assert "internal error: FailpointError: failpoint after-scan raised" in r.stderr
    assert "Traceback" not in r.stderr  # one line for humans by default
    log = (pilot / ".ragraf" / "logs" / "error.log").read_text()
    assert "Traceback (most recent call last)" in log and "FailpointError" in log
    assert "error.log" in r.stderr  # the message says where the traceback is
    debug = run_cli("-C", str(pilot), "index", env={**env, "RAGRAF_DEBUG": "1"})
    assert debug.returncode == 1 and "Traceback (most recent call last)" in debug.stderr


def test_usage_errors_and_help_are_not_internal_errors(pilot: Path) -> None:
    bad = run_cli("-C", str(pilot), "index", "--no-such-option")
    assert bad.returncode == 2 and "internal error" not in bad.stderr
    ok = run_cli("-C", str(pilot), "drift", "--help")
    assert ok.returncode == 0 and "Usage: ragraf drift" in ok.stdout and ok.stderr == ""
    assert not (pilot / ".ragraf" / "logs" / "error.log").exists()


def test_no_project_is_exit_3_with_the_folder_named(tmp_path: Path) -> None:
    r = run_cli(
        "status",
        cwd=tmp_path,
        env={"HOME": str(tmp_path), **{k: v for k, v in os.environ.items() if k == "PATH"}},
    )
    assert r.returncode == 3 and str(tmp_path) in r.stderr
