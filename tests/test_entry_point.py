"""The installed command itself, as real processes: the console script and `python -m ragraf`.

Everything else about the CLI's output runs in-process (tests/helpers.py `invoke`); these
few keep the real entry points honest: exit codes leave the process, stdout and stderr are
the process's own, and the in-process runner shows the same bytes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import invoke, run_cli

CONSOLE_SCRIPT = Path(sys.executable).with_name("ragraf")


def test_console_script_help() -> None:
    assert CONSOLE_SCRIPT.is_file(), f"{CONSOLE_SCRIPT}: the venv lacks the console script"
    proc = subprocess.run(
        [str(CONSOLE_SCRIPT), "--help"], capture_output=True, text=True, timeout=60
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = [ln.strip() for ln in proc.stdout.splitlines()]
    assert "Usage: ragraf [OPTIONS] COMMAND [ARGS]..." in lines
    for command in ("init", "index", "status", "query", "drift", "reindex", "mcp"):
        assert any(ln.startswith(f"│ {command} ") for ln in lines), command


@pytest.mark.slow
def test_python_m_ragraf_indexes_and_answers_like_the_in_process_runner(pilot: Path) -> None:
    index = run_cli("-C", str(pilot), "index", "--json", check=True)
    res = json.loads(index.stdout)
    assert (res["status"], res["rev_id"]) == ("built", "rev-0001")
    assert index.stderr == ""  # no progress bar: stderr is not a terminal
    args = ("-C", str(pilot), "query", "symbol", "App\\Billing\\Invoice::charge")
    real = run_cli(*args, check=True)
    inproc = invoke(*args, check=True)
    assert (real.stdout, real.stderr) == (inproc.stdout, inproc.stderr)
    assert real.stdout.startswith(
        "method App\\Billing\\Invoice::charge  src/Billing/Invoice.php:29-39\n"
    )


@pytest.mark.slow
def test_exit_codes_leave_the_process(tmp_path: Path) -> None:
    """A library error is the process's exit status, a usage error too (not a traceback)."""
    none = run_cli("-C", str(tmp_path), "status")
    assert (none.returncode, none.stdout, none.stderr) == (
        3,
        "",
        f"ragraf: no RAGRAF project at or above {tmp_path.resolve()}; "
        "run `ragraf init` there first\n",
    )
    usage = run_cli("-C", str(tmp_path), "status", "--no-such-option")
    assert usage.returncode == 2 and usage.stdout == "" and "Traceback" not in usage.stderr
