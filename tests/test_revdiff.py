"""`ragraf diff` and the archive say what really changed (issue 43, item 1): lines that only
moved are one line per file, identical edges are nothing, a SQL string whose name carries
its line moves with it, and only real additions and removals are listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragraf import config
from ragraf.drift.scan import run_scan
from ragraf.indexing import indexer
from ragraf.kinds import NodeKind
from tests.helpers import copy_pilot, edit_file, invoke

INVOICE = "src/Billing/Invoice.php"
FIVE_LINES = "<?php\n// one\n// two\n// three\n// four\n// five\n"


def _commit(root: Path) -> None:
    run_scan(config.load(root))
    indexer.build(config.load(root), commit=True)


@pytest.fixture(scope="module")
def revs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pilot in three revisions: rev-0002 has five lines inserted at the top of
    Invoice.php, rev-0003 a new method, one call removed and a file renamed."""
    root = copy_pilot(tmp_path_factory.mktemp("revdiff") / "pilot")
    config.init_project(root)
    indexer.build(config.load(root))
    edit_file(root, INVOICE, "<?php\n", FIVE_LINES)
    _commit(root)
    edit_file(
        root,
        INVOICE,
        "    public function total(): int",
        "    public function refund(int $amount): bool\n    {\n"
        "        return $this->gateway->pay(-$amount);\n    }\n\n"
        "    public function total(): int",
    )
    edit_file(root, INVOICE, '$this->log("charged $amount");', "")
    (root / "plugins/paypal.php").rename(root / "plugins/paypal_gateway.php")
    _commit(root)
    return root


def test_lines_inserted_at_the_top_only_move(revs: Path) -> None:
    r = invoke("-C", revs, "diff", "rev-0001", "rev-0002", check=True)
    assert r.stdout == (
        "rev-0001 -> rev-0002\n"
        "nodes: 0 added, 0 removed, 11 moved\n"
        "edges: 0 added, 0 removed, 42 moved\n"
        "moved: src/Billing/Invoice.php, lines +5 (11 nodes, 42 edges)\n"
    )
    d = json.loads(invoke("-C", revs, "diff", "rev-0001", "rev-0002", "--json", check=True).stdout)
    moved = d["nodes"]["moved"]
    assert {m["to_line"] - m["from_line"] for m in moved} == {5}
    # a SQL string's name carries its line: it moves with it, not removed + added
    sql = {(m["fqn"], m["from_line"]) for m in moved if m["kind"] == NodeKind.SQL_LITERAL}
    assert ("App\\Billing\\Invoice::find#sql@30", 25) in sql
    assert d["edges"]["added"] == d["edges"]["removed"] == []


def test_the_archive_confirms_edges_that_moved(revs: Path) -> None:
    text = (revs / ".ragraf/drift/archive/rev-0001_rev-0002.md").read_text()
    assert "not confirmed in" not in text
    assert (
        "Confirmed: 42 of 42 still in rev-0002, 42 of them at a moved line;"
        " not confirmed (gone or changed): 0."
    ) in text


def test_a_real_change_is_all_that_is_listed(revs: Path) -> None:
    r = invoke("-C", revs, "diff", "rev-0002", "rev-0003", check=True)
    assert r.stdout == (
        "rev-0002 -> rev-0003\n"
        "nodes: 1 added, 0 removed, 1 moved\n"
        "edges: 2 added, 1 removed, 5 moved\n"
        "moved: src/Billing/Invoice.php, lines +5 (1 node, 5 edges)\n"
        "renamed: plugins/paypal.php -> plugins/paypal_gateway.php (2 nodes, 1 edge)\n"
        "added:\n"
        "  + method App\\Billing\\Invoice::refund  src/Billing/Invoice.php:46\n"
        "  + contains App\\Billing\\Invoice -> App\\Billing\\Invoice::refund"
        "  src/Billing/Invoice.php:46\n"
        "  + calls App\\Billing\\Invoice::refund -> App\\Billing\\PaymentGateway::pay"
        "  src/Billing/Invoice.php:48\n"
        "removed:\n"
        "  - calls App\\Billing\\Invoice::charge -> App\\Core\\Loggable::log"
        "  src/Billing/Invoice.php:40\n"
    )
    archive = (revs / ".ragraf/drift/archive/rev-0002_rev-0003.md").read_text()
    assert "- 3 `calls` edges from `App\\Billing\\Invoice::charge` — 2 of 3 confirmed" in archive


def test_lists_hold_the_limit_and_say_how_many_more(revs: Path) -> None:
    r = invoke("-C", revs, "diff", "rev-0002", "rev-0003", "--limit", "1", check=True)
    assert "\n".join(r.stdout.splitlines()[5:]) == (
        "added:\n"
        "  + method App\\Billing\\Invoice::refund  src/Billing/Invoice.php:46\n"
        "  + contains App\\Billing\\Invoice -> App\\Billing\\Invoice::refund"
        "  src/Billing/Invoice.php:46\n"
        "  ... 1 more edges (--limit 2 lists them all)\n"
        "removed:\n"
        "  - calls App\\Billing\\Invoice::charge -> App\\Core\\Loggable::log"
        "  src/Billing/Invoice.php:40"
    )
