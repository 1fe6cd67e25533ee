"""Each operation does what its declaration says: read-only operations leave every store
and LEDGER.md exactly as they were; writers change only what they declare."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import apsw
import pytest

from ragraf import config, facade
from ragraf.drift.scan import note_entry
from ragraf.errors import RagrafError

ARGS: dict[str, dict[str, Any]] = {
    "search": {"query": "charge the invoice"},
    "symbol": {"name": "charge"},
    "references": {"fqn": "App\\Billing\\Invoice::charge"},
    "callers": {"fqn": "App\\Core\\Database::query", "depth": 2},
    "callees": {"fqn": "App\\Billing\\Invoice::charge"},
    "impact": {"fqn": "App\\Core\\Database"},
    "slice": {"fqn": "App\\Billing\\Invoice::charge"},
    "flow": {"source": "$_GET", "sink": "any"},
    "code": {"fqn": "App\\Billing\\Invoice::charge", "style": "compact"},
    "repo_map": {},
    "routes": {},
    "index_status": {},
    "schema": {},
    "table_usage": {"table": "invoices"},
    "drift_report": {},
    "drift_ack": {"entry_ids": [1], "note": "seen"},
    "calibrate": {
        "samples": [{"query": "invoice", "relevant": True}, {"query": "zz", "relevant": False}]
    },
    "live_read": {"path": "src/Billing/Invoice.php"},
}


def _db_digest(path: Path) -> str:
    """A digest of every row of every table (the logical content, not the file bytes)."""
    conn = apsw.Connection(
        path.resolve().as_uri() + "?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    )
    h = hashlib.sha256()
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    for t in tables:
        try:
            rows = conn.execute(f'SELECT * FROM "{t}"').fetchall()
        except apsw.SQLError:  # a virtual table whose module is not loaded here (vec0)
            continue
        h.update(t.encode())
        for r in sorted(repr(x) for x in rows):
            h.update(r.encode())
    conn.close()
    return h.hexdigest()


def snapshot(root: Path) -> dict[str, str]:
    layout = config.Layout(root)
    out = {
        name: _db_digest(p)
        for name, p in (
            ("graph.sqlite", layout.graph_db),
            ("lexvec.sqlite", layout.lexvec_db),
            ("control.sqlite", layout.control_db),
        )
    }
    md = layout.ledger_md
    out["LEDGER.md"] = hashlib.sha256(md.read_bytes()).hexdigest() if md.exists() else ""
    out["rev.json"] = hashlib.sha256(layout.rev_json.read_bytes()).hexdigest()
    return out


def test_every_operation_is_covered() -> None:
    assert set(ARGS) == set(facade.OPERATIONS)


@pytest.mark.parametrize("op", sorted(ARGS))
def test_operations_touch_only_what_they_declare(indexed_pilot: Path, op: str) -> None:
    note_entry(config.load(indexed_pilot), "src/Billing/Invoice.php", "reviewed by hand")
    before = snapshot(indexed_pilot)
    try:
        facade.run_op(indexed_pilot, op, ARGS[op])
    except RagrafError:
        pass  # a refusal (e.g. calibrate without vectors) must not write either
    after = snapshot(indexed_pilot)
    changed = {k for k in before if before[k] != after[k]}
    spec = facade.spec(op)
    declared = {w.split(" ")[0].rsplit("/", 1)[-1] for w in spec.writes}
    assert changed <= declared, f"{op} changed {changed - declared} without declaring it"
    if spec.read_only:
        assert not changed
    if op == "drift_ack":
        assert changed == {"control.sqlite", "LEDGER.md"}  # the declaration is not idle either
