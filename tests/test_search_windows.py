"""A symbol longer than max_chunk_lines is several chunks (windows); search answers it once."""

from __future__ import annotations

from pathlib import Path

from ragraf import config, facade
from ragraf.indexing import indexer
from tests.helpers import write
from tests.schemacheck import check


def _long_method() -> str:
    # 150 lines: two windows of the default 120, each naming the ledger's reconciliation
    body = [
        f"        $total += $this->entries[{i}]->amount; // ledger line {i}" for i in range(140)
    ]
    body[10] = "        // reconcile the ledger balance against the bank statement"
    body[130] = (
        "        // the reconciled ledger balance must equal the statement's closing balance"
    )
    return "\n".join(
        [
            "<?php",
            "class Ledger",
            "{",
            "    /** Reconcile the ledger balance with the bank statement. */",
            "    public function reconcile(array $statement): bool",
            "    {",
            "        $total = 0;",
            *body,
            "        return $total === $statement['closing_balance'];",
            "    }",
            "}",
            "",
        ]
    )


def test_a_long_symbol_is_one_hit_naming_its_windows(tmp_path: Path) -> None:
    root = tmp_path / "app"
    write(root, "src/Ledger.php", _long_method())
    write(
        root,
        "src/Statement.php",
        "<?php\n/** Read a bank statement's closing balance. */\n"
        "function statement_balance(array $s): int { return $s['closing_balance']; }\n",
    )
    config.init_project(root)
    indexer.build(config.load(root))
    env = facade.run_op(
        root, "search", {"query": "reconcile ledger balance statement"}
    )  # brief: why keeps windows
    check(env)
    hits = env["result"]["hits"]
    fqns = [h["fqn"] for h in hits]
    # both windows hold the words; the method is answered once, at its best window
    assert fqns.count("Ledger::reconcile") == 1, fqns
    assert fqns[0] == "Ledger::reconcile", fqns
    first = hits[0]
    assert first["why"]["windows"] == [4, 124], first["why"]
    assert first["start_line"] in first["why"]["windows"]
    assert "Ledger::reconcile" not in fqns[1:]
    assert "statement_balance" in fqns
