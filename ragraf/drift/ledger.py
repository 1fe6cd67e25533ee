"""The drift ledger: append-only, hash-chained, mirrored in LEDGER.md (architecture §8).

Invariants a change must keep:
- I2: entries, acks and stale edges are only ever appended (triggers in
  control.sqlite refuse UPDATE and DELETE). A correction is a new entry.
- Every entry carries ``entry_hash = sha256(prev_hash + canonical(row))`` where
  canonical() is sorted-key compact JSON of the row including its sequence
  number; acks have their own chain. LEDGER.md gets one block per new entry
  (never rewritten) ending with the chain head, so a chain recomputed inside
  the database alone does not match the file: ``verify`` finds it.
- Appends are serialised across processes by a file lock held over
  "insert, commit, append to LEDGER.md": entry order in the file is id order.
- dedupe_key (path, old_hash, new_hash, kind) is unique: re-registering the
  same change adds nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragraf import resources
from ragraf.clock import now_iso
from ragraf.config import Layout
from ragraf.locks import file_lock
from ragraf.model import LedgerAck, LedgerEntry
from ragraf.store.control import GENESIS, ControlStore

HASHED = (
    "id",
    "index_rev",
    "ts",
    "path",
    "kind",
    "old_hash",
    "new_hash",
    "symbols_added",
    "symbols_removed",
    "symbols_changed",
    "edges_invalidated",
    "detected_by",
    "commit_sha",
    "note",
    "dedupe_key",
)
ACK_HASHED = ("id", "entry_id", "by", "ts", "note")


def canonical(row: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    return json.dumps(
        {k: row.get(k) for k in keys}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


def chain_hash(
    prev: str, row: LedgerEntry | LedgerAck | Mapping[str, Any], keys: tuple[str, ...] = HASHED
) -> str:
    """sha256(prev + newline + canonical(row)) over ``keys`` of the row."""
    fields = row._asdict() if isinstance(row, LedgerEntry | LedgerAck) else row
    return hashlib.sha256((prev + "\n" + canonical(fields, keys)).encode("utf-8")).hexdigest()


def dedupe_key(path: str, old: str | None, new: str | None, kind: str) -> str:
    return json.dumps([path, old, new, kind], separators=(",", ":"))


def ledger_lock(layout: Layout) -> contextlib.AbstractContextManager[None]:
    """Serialises ledger writes across processes ("insert, commit, append to LEDGER.md");
    ``reindex --commit`` holds it while it seals and archives, so no entry lands in a
    ledger that is being archived."""

    def busy(pid: str) -> Exception:  # pragma: no cover - wait=True never reports busy
        return RuntimeError(pid)

    return file_lock(layout.drift_dir / ".ledger.lock", wait=True, busy=busy)


def _append_md(layout: Layout, text: str) -> None:
    path = layout.ledger_md
    new = not path.exists()
    with open(path, "a", encoding="utf-8") as fh:
        if new:
            fh.write(resources.template("ledger_header.md.j2").render())
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


@dataclass
class NewEntry:
    path: str
    kind: str
    detected_by: str
    old_hash: str | None = None
    new_hash: str | None = None
    symbols_added: list[str] | None = None
    symbols_removed: list[str] | None = None
    symbols_changed: list[str] | None = None
    edges: list[tuple[str, str]] | None = None  # (edge_uid, reason)
    commit_sha: str | None = None
    note: str | None = None


def append(
    layout: Layout, control: ControlStore, rev_id: str, items: list[NewEntry]
) -> list[LedgerEntry]:
    """Append the entries not yet in the ledger; returns the rows written (in id order)."""
    written: list[LedgerEntry] = []
    if not items:
        return written
    with ledger_lock(layout):
        with control.db.write():
            last_id, head = control.ledger_head()
            for it in items:
                key = dedupe_key(it.path, it.old_hash, it.new_hash, it.kind)
                if control.has_dedupe_key(key):
                    continue
                last_id += 1
                row = LedgerEntry(
                    id=last_id,
                    index_rev=rev_id,
                    ts=now_iso(),
                    path=it.path,
                    kind=it.kind,
                    old_hash=it.old_hash,
                    new_hash=it.new_hash,
                    symbols_added=json.dumps(sorted(it.symbols_added or [])),
                    symbols_removed=json.dumps(sorted(it.symbols_removed or [])),
                    symbols_changed=json.dumps(sorted(it.symbols_changed or [])),
                    edges_invalidated=json.dumps(sorted({u for u, _r in it.edges or []})),
                    detected_by=it.detected_by,
                    commit_sha=it.commit_sha,
                    note=it.note,
                    dedupe_key=key,
                    prev_hash=head,
                    entry_hash=None,
                )
                row = row._replace(entry_hash=chain_hash(head, row))
                head = row.entry_hash or GENESIS
                control.insert_entry(row)
                if it.edges:
                    control.insert_stale_edges(rev_id, last_id, sorted(set(it.edges)))
                written.append(row)
        if written:
            tpl = resources.template("ledger_entry.md.j2")
            _append_md(
                layout,
                "".join(
                    tpl.render(
                        e=row,
                        added=row.names("symbols_added"),
                        removed=row.names("symbols_removed"),
                        changed=row.names("symbols_changed"),
                        edges=len(row.invalidated),
                    )
                    for row in written
                ),
            )
    return written


def ack(
    layout: Layout, control: ControlStore, entry_ids: list[int], by: str, note: str | None
) -> list[LedgerAck]:
    from ragraf.errors import InvalidArgument

    known = control.entry_ids(entry_ids)
    missing = sorted(set(entry_ids) - known)
    if missing:
        raise InvalidArgument(
            f"drift_ack: no ledger entry {', '.join('#' + str(m) for m in missing)}"
        )
    rows: list[LedgerAck] = []
    with ledger_lock(layout):
        with control.db.write():
            last, head = control.ack_head()
            for eid in sorted(set(entry_ids)):
                last += 1
                row = LedgerAck(last, eid, by, now_iso(), note, head, "")
                row = row._replace(ack_hash=chain_hash(head, row, ACK_HASHED))
                head = row.ack_hash
                control.insert_ack(row)
                rows.append(row)
        tpl = resources.template("ledger_ack.md.j2")
        _append_md(layout, "".join(tpl.render(a=r) for r in rows))
    return rows


_CHAIN_LINE = re.compile(
    r"^## #(\d+) .*?$|^- chain: ([0-9a-f]{64})$|^- ack chain: ([0-9a-f]{64})$", re.MULTILINE
)


def verify(layout: Layout, control: ControlStore) -> dict[str, Any]:
    """Walk both chains; compare them with LEDGER.md and the archive reports."""
    problems: list[str] = []
    head = GENESIS
    entries = control.entries()
    by_id: dict[int, str] = {}
    for e in entries:
        if e.prev_hash != head:
            problems.append(
                f"entry #{e.id}: previous hash does not match entry #{e.id - 1} (link broken)"
            )
            break
        if chain_hash(head, e) != e.entry_hash:
            problems.append(
                f"entry #{e.id}: its content does not match its hash (the row was altered)"
            )
            break
        head = e.entry_hash
        by_id[e.id] = head
    ack_head = GENESIS
    for a in control.acks():
        if a.prev_hash != ack_head or chain_hash(ack_head, a, ACK_HASHED) != a.ack_hash:
            problems.append(f"ack #{a.id} (of entry #{a.entry_id}): broken link or altered row")
            break
        ack_head = a.ack_hash
    md_heads: dict[int, str] = {}
    md_ack_head = GENESIS
    if layout.ledger_md.exists():
        current = None
        for m in _CHAIN_LINE.finditer(layout.ledger_md.read_text(encoding="utf-8")):
            if m.group(1):
                current = int(m.group(1))
            elif m.group(2) and current is not None:
                md_heads[current] = m.group(2)
            elif m.group(3):
                md_ack_head = m.group(3)
    if not problems:
        for eid, h in by_id.items():
            if md_heads.get(eid) != h:
                problems.append(
                    f"entry #{eid}: LEDGER.md records chain {md_heads.get(eid, 'nothing')[:16]}…, the "
                    f"database gives {h[:16]}… (mismatched head)"
                )
                break
        extra = sorted(set(md_heads) - set(by_id))
        if extra and not problems:
            problems.append(f"LEDGER.md lists entry #{extra[0]} that the database does not have")
        if not problems and md_ack_head != ack_head:
            problems.append("LEDGER.md's last ack chain head does not match the database")
    for arch in control.archives():
        p = layout.root / arch.report_path
        found = (
            re.search(r"chain head: ([0-9a-f]{64})", p.read_text(encoding="utf-8"))
            if p.exists()
            else None
        )
        if found is None:
            problems.append(f"archive {arch.report_path}: missing or without a chain head")
            continue
        if found.group(1) not in set(by_id.values()) | {GENESIS}:
            problems.append(
                f"archive {arch.report_path}: chain head {found.group(1)[:16]}… is not in the ledger"
            )
    return {
        "ok": not problems,
        "entries": len(entries),
        "acks": len(control.acks()),
        "head": head,
        "ack_head": ack_head,
        "problems": problems,
    }
