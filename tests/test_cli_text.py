"""The CLI for humans (issue 16): readable text for every operation and command, per-operation
help generated from the declarations, and every argument of the reference usable as documented."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragraf import config, facade
from ragraf.cli import ophelp
from ragraf.indexing import indexer
from tests.helpers import assert_lines, copy_pilot, edit_file, invoke

pytestmark = [pytest.mark.model, pytest.mark.slow]

REFERENCE = Path(__file__).resolve().parents[1] / "skills/ragraf-core/reference/operations.md"
SAMPLES = (
    "queries:\n"
    "  - {query: how are invoices charged, category: concept}\n"
    "  - {query: write a line to the log file, category: concept}\n"
    "  - {query: zebra giraffe savanna migration, category: nonsense}\n"
)


@pytest.fixture(scope="module")
def vec_pilot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pilot indexed with vectors (calibrate needs them), with one edit and one ledger
    entry after the revision, and a samples file for calibrate."""
    mp = pytest.MonkeyPatch()
    mp.delenv("RAGRAF_VECTORS", raising=False)
    root = copy_pilot(tmp_path_factory.mktemp("clitext") / "pilot")
    config.init_project(root)
    assert indexer.build(config.load(root)).vectors["status"] == "ready"
    mp.undo()
    (root / "samples.yaml").write_text(SAMPLES, encoding="utf-8")
    edit_file(root, "src/bootstrap.php", "function format_money", "function format_money_v2")
    invoke("-C", root, "drift", "--scan", check=True)
    return root


def test_every_operation_example_runs_and_answers_in_text(vec_pilot: Path) -> None:
    for op in facade.OPERATIONS:
        sp = facade.spec(op)
        r = invoke("query", op, *sp.example, cwd=vec_pilot)
        assert r.exit_code == 0, f"{ophelp.example_line(op)}: {r.stderr}"
        assert r.stdout and not r.stdout.lstrip().startswith(("{", "[")), (op, r.stdout[:200])
        # the footer closes every answer; the standing limits stay in --json
        assert "Joern" not in r.stdout and "§" not in r.stdout, (op, r.stdout)
        if op == "search":  # why: no Python reprs of nested values ({'rrf': 1.0}, ['a'])
            heads = [ln for ln in r.stdout.splitlines() if ln and not ln.startswith(" ")]
            assert heads and not any(re.search(r"[{\[]'", ln) for ln in heads), heads
        js = invoke("query", op, *sp.example, "--json", cwd=vec_pilot, check=True)
        assert json.loads(js.stdout)["op"] == op


@pytest.mark.parametrize(
    "args",
    [
        ("drift",),
        ("drift", "--since", "1"),
        ("status",),
        ("verify",),
        ("hook", "session-start"),
        ("drift", "--ack", "1"),
    ],
)
def test_no_command_prints_json_as_text(vec_pilot: Path, args: tuple[str, ...]) -> None:
    r = invoke("-C", vec_pilot, *args, check=True)
    assert r.stdout and not r.stdout.lstrip().startswith(("{", "[")), r.stdout[:200]


def test_drift_report_and_ack_read_as_text(vec_pilot: Path) -> None:
    r = invoke("-C", vec_pilot, "drift", check=True)
    assert_lines(
        r.stdout,
        [
            re.compile(
                r"1 ledger entries against rev-0001: 1 files, 2 symbols, \d+ edges invalidated"
                r" \(facts whose evidence changed\), 0 slice boundaries \(code moved into a new"
                r" function\); [01] not acknowledged"
            ),
            re.compile(r"  #1 modify src/bootstrap.php  \S+( \(acknowledged\))?"),
            "      added format_money_v2; removed format_money",
            re.compile(r"      \d+ edges invalidated"),
            *([re.compile(r"      acknowledged by .*")] * r.stdout.count("acknowledged by")),
            "-- from the index rev-0001 (with data flow) · changed since: 1 files, 2 symbols"
            " (1 ledger entries)",
            "!! STALE src/bootstrap.php: modify after rev-0001 (ledger entry #1)"
            " -> `ragraf live-read src/bootstrap.php`",
        ],
    )


def test_session_start_summarises_and_says_what_to_do(tmp_path: Path) -> None:
    root = copy_pilot(tmp_path / "pilot")
    config.init_project(root)
    indexer.build(config.load(root))
    r = invoke("-C", root, "hook", "session-start", check=True)
    assert r.stdout == (
        "ragraf rev-0001: the index matches the tree; no changes registered since it was sealed.\n"
    )
    edit_file(root, "src/Billing/Invoice.php", "return $ok;", "return !$ok;")
    r = invoke("-C", root, "hook", "session-start", check=True)
    assert_lines(
        r.stdout,
        [
            "ragraf rev-0001: 1 changes registered since it was sealed (1 new now),"
            " 1 not acknowledged:",
            "  #1 modify src/Billing/Invoice.php (1 symbols)",
            "Next: facts about these files come with stale warnings; read them as they are now"
            " with `ragraf live-read PATH`. Acknowledge with `ragraf drift --ack 1` once accounted for; `ragraf reindex"
            " --commit` seals a new revision.",
        ],
    )
    js = json.loads(invoke("-C", root, "hook", "session-start", "--json", check=True).stdout)
    assert js["op"] == "drift_report" and js["result"]["summary"]["unacknowledged"] == 1


def test_query_help_lists_every_operation_and_each_has_its_own_help(vec_pilot: Path) -> None:
    r = invoke("query", "--help", check=True)
    listed = re.findall(r"^  (\w+)  ", r.stdout, re.M)
    assert listed[: len(facade.OPERATIONS)] == list(facade.OPERATIONS)
    for op in facade.OPERATIONS:
        h = invoke("query", op, "--help", check=True).stdout
        assert h.startswith(f"Usage: ragraf query {op}")
        for p in facade.spec(op).params:
            assert ophelp.option(p) in h, (op, p.name)
        assert f"Example:\n  {ophelp.example_line(op)}\n" in h
    bare = invoke("query")
    assert bare.exit_code == 2 and "Operations:" in bare.stderr


def _reference_arguments() -> dict[str, list[tuple[str, str]]]:
    """operations.md as a user reads it: for each operation, its (argument, type) rows."""
    out: dict[str, list[tuple[str, str]]] = {}
    op = ""
    for line in REFERENCE.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            op = line[3:].strip()
            out[op] = []
        m = re.match(r"^\| `(\w+)` \| ([^|]+(?:\\\|[^|]+)*) \|", line)
        if m and op:
            out[op].append((m.group(1), m.group(2).strip()))
    return out


def test_every_documented_argument_works_from_the_cli(vec_pilot: Path) -> None:
    """Walk the reference: each documented argument, given alone with what the operation
    requires, is accepted from the CLI as documented (exit 0)."""
    node = json.loads(
        invoke("-C", vec_pilot, "query", "symbol", "Invoice", "--json", check=True).stdout
    )["result"]["matches"][0]["node_id"]
    chunk = json.loads(
        invoke("-C", vec_pilot, "query", "search", "invoice", "--json", check=True).stdout
    )["result"]["hits"][0]["chunk_id"]
    base = {  # a valid value of each kind of argument, on the pilot
        "fqn": "App\\Billing\\Invoice::charge",
        "name": "Invoice",
        "node_id": node,
        "path": "src/Billing/Invoice.php",
        "table": "invoices",
        "query": "invoice",
        "scope": "src/Billing",
        "since": "1",
        "entry_ids": "1",
        "samples": "samples.yaml",
    }
    ref = _reference_arguments()
    assert set(ref) == set(facade.OPERATIONS)
    for op, rows in ref.items():
        sp = facade.spec(op)
        assert [a for a, _ in rows] == [p.name for p in sp.params], op
        for arg, typ in rows:
            given = {arg}
            for group in sp.one_of:
                if arg not in group:
                    given.add(group[0])
            given.update(sp.required)
            cli: list[str] = []
            for a in sorted(given, key=lambda a: a != sp.main):
                p = sp.param(a)
                assert p is not None
                if p.type == "bool":
                    cli.append("--" + a.replace("_", "-"))
                    continue
                if p.type == "enum":
                    value = typ.split(" \\| ")[-1]
                elif p.type == "int":
                    value = str(p.maximum if a != "start" else 1)
                elif p.type == "list" and p.item == "chunk_id":
                    value = chunk
                elif p.type == "list" and p.item == "string":
                    value = "class,method"
                else:
                    value = base.get(a, "x")
                if a == sp.main and a == arg:
                    cli.append(value)
                else:
                    cli += ["--" + a.replace("_", "-"), value]
            r = invoke("query", op, *cli, cwd=vec_pilot)
            assert r.exit_code == 0, f"ragraf query {op} {' '.join(cli)}: {r.stderr}"


def test_index_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    """stderr a real pseudo-terminal: bars for parse and embed with done/total; a pipe: none."""
    import os
    import pty
    import subprocess
    import sys

    root = copy_pilot(tmp_path / "pilot")
    config.init_project(root)
    env = {k: v for k, v in os.environ.items() if k != "RAGRAF_VECTORS"}
    env["COLUMNS"] = "120"
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragraf", "-C", str(root), "index"],
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    out, _ = proc.communicate(timeout=300)
    os.close(master)
    assert proc.returncode == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode("utf-8", "replace"))
    assert "parse" in text and "embed" in text and "32/32" in text, text[-2000:]
    assert b"sealed rev-0001" in out and b"\x1b" not in out  # stdout stays data
    piped = invoke("-C", root, "index", "--force", env={"RAGRAF_VECTORS": None})
    assert "parse" not in piped.stderr and "\x1b" not in piped.stderr
