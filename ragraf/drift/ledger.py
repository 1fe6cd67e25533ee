"""The drift ledger: append-only, hash-chained, mirrored in LEDGER.md (architecture §8).

Invariants a change must keep:
- I2: entries, acks and stale edges are only ever appended (triggers in
  control.sqlite refuse UPDATE and DELETE). A correction is a new entry.
- Every entry carries ``entry_hash = sha256(prev_hash + canonical(row))`` where
  canonical() is sorted-key compact JSON of the row including its sequence
  number; acks have their own chain.
- LEDGER.md is a rendering of the rows: one block per entry and per ack, made
  by ``render_entry`` / ``render_ack`` from the row alone, with every
  repository-made name escaped (no name can forge a line). ``verify`` renders
  every row again and compares block by block, so an edited block, a deleted
  one or a forged one is found.
- A write is "insert and commit, then append the blocks", under one file lock.
  A crash (or a full disk) between the two leaves the file behind the
  database: the next ledger write, or ``verify``, completes it (``repair``),
  and only when everything already in the file matches the rows, so a
  crash never looks like tampering and tampering is never repaired away.
- After each write the head is also recorded outside ``.ragraf/``
  (``ragraf.drift.anchor``) and, at each commit, in rev.json and the archive,
  so deleting the tail of the ledger together with its blocks is detected.
- Re-registering what the ledger already says adds nothing: a content change (and the
  slice boundaries it brings) whose path's last content entry in this revision is the same
  change, a note or schema change said already in this revision. A change made again
  after a revert, or in a later revision, is a new entry. ``dedupe_key`` (unique) is the
  change (path, old_hash, new_hash, kind), its revision and how many entries of this
  revision said it before.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragraf.clock import now_iso
from ragraf.config import Layout
from ragraf.drift import ledger_text
from ragraf.failpoints import failpoint
from ragraf.kinds import FILE_CHANGES, ChangeKind, LedgerBlock
from ragraf.locks import file_lock
from ragraf.model import ArchiveRow, LedgerAck, LedgerEntry
from ragraf.store.control import GENESIS, ControlStore
from ragraf.store.db import disk_full

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
#: an archive row's hashed fields (its id is given by the database after: the links order)
ARCHIVE_HASHED = ("from_rev", "to_rev", "archived_at", "entries", "report_path", "report_sha256")


def canonical(row: Mapping[str, Any], keys: tuple[str, ...]) -> str:
    return json.dumps(
        {k: row.get(k) for k in keys}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


def chain_hash(
    prev: str,
    row: LedgerEntry | LedgerAck | ArchiveRow | Mapping[str, Any],
    keys: tuple[str, ...] = HASHED,
) -> str:
    """sha256(prev + newline + canonical(row)) over ``keys`` of the row."""
    fields = row._asdict() if isinstance(row, LedgerEntry | LedgerAck | ArchiveRow) else row
    return hashlib.sha256((prev + "\n" + canonical(fields, keys)).encode("utf-8")).hexdigest()


def archive_hash(prev: str, row: ArchiveRow) -> str:
    return chain_hash(prev, row, ARCHIVE_HASHED)


def dedupe_key(
    path: str, old: str | None, new: str | None, kind: str, rev_id: str = "", seen: int = 0
) -> str:
    """The change, the revision it is against and how many entries of it came before."""
    return json.dumps([path, old, new, kind, rev_id, seen], separators=(",", ":"))


#: the kinds whose last entry per path is that path's state in the ledger
_STATEFUL = (*FILE_CHANGES, ChangeKind.SCHEMA_CHANGE)


class _Seen:
    """What this revision's ledger says already: per path its state (the last content or
    schema entry), and how many entries said each change."""

    def __init__(self, entries: list[LedgerEntry]) -> None:
        self.state: dict[str, tuple[str | None, str | None, str]] = {}
        self.said: Counter[tuple[str, str | None, str | None, str]] = Counter()
        for e in entries:
            self.add(e)

    def add(self, e: LedgerEntry) -> None:
        if e.kind in _STATEFUL:
            self.state[e.path] = (e.old_hash, e.new_hash, e.kind)
        self.said[(e.path, e.old_hash, e.new_hash, e.kind)] += 1

    def says(self, it: NewEntry, repeated: set[str]) -> bool:
        """Whether the ledger says ``it`` already (``repeated``: the paths whose content
        change of this batch was said already, so its slice boundaries were too)."""
        if it.kind in _STATEFUL:
            if self.state.get(it.path) == (it.old_hash, it.new_hash, it.kind):
                repeated.add(it.path)
                return True
            return False
        if it.kind == ChangeKind.SLICE_BOUNDARY:
            return it.path in repeated
        return self.said[(it.path, it.old_hash, it.new_hash, it.kind)] > 0


def ledger_lock(layout: Layout) -> contextlib.AbstractContextManager[None]:
    """Serialises ledger writes across processes ("insert, commit, append to LEDGER.md");
    ``reindex --commit`` holds it while it seals and archives, so no entry lands in a
    ledger that is being archived."""

    def busy(pid: str) -> Exception:  # pragma: no cover - wait=True never reports busy
        return RuntimeError(pid)

    return file_lock(layout.drift_dir / ".ledger.lock", wait=True, busy=busy)


def header() -> str:
    return ledger_text.HEADER


def render_entry(e: LedgerEntry) -> str:
    return ledger_text.entry(e)


def render_ack(a: LedgerAck) -> str:
    return ledger_text.ack(a)


def _append_md(layout: Layout, text: str) -> None:
    path = layout.ledger_md
    new = not path.exists()
    try:
        with open(path, "a", encoding="utf-8") as fh:
            if new:
                fh.write(header())
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as e:
        if e.errno == errno.ENOSPC:
            # the rows are committed; the next ledger write or `verify` completes the file
            raise disk_full(path) from None
        raise


def record_heads(layout: Layout, control: ControlStore) -> None:
    """The heads of the three chains (entries, acks, archives), kept outside .ragraf/."""
    from ragraf.drift import anchor

    anchor.write(layout.root, control.ledger_head(), control.ack_head(), control.archive_head())


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
        repair(layout, control)  # an interrupted earlier write is completed first
        with control.db.write():
            last_id, head = control.ledger_head()
            seen = _Seen(control.entries(rev_id))
            repeated: set[str] = set()
            for it in items:
                if seen.says(it, repeated):
                    continue
                change = (it.path, it.old_hash, it.new_hash, it.kind)
                key = dedupe_key(*change, rev_id, seen.said[change])
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
                seen.add(row)
                if it.edges:
                    control.insert_stale_edges(rev_id, last_id, sorted(set(it.edges)))
                written.append(row)
        if written:
            failpoint("ledger-after-db")
            _append_md(layout, "".join(render_entry(row) for row in written))
            record_heads(layout, control)
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
        repair(layout, control)
        with control.db.write():
            last, head = control.ack_head()
            for eid in sorted(set(entry_ids)):
                last += 1
                row = LedgerAck(last, eid, by, now_iso(), note, head, "")
                row = row._replace(ack_hash=chain_hash(head, row, ACK_HASHED))
                head = row.ack_hash
                control.insert_ack(row)
                rows.append(row)
        failpoint("ledger-after-db")
        _append_md(layout, "".join(render_ack(r) for r in rows))
        record_heads(layout, control)
    return rows


# -- LEDGER.md against the rows ----------------------------------------------------------
_ENTRY_HEAD = re.compile(r"^## #(\d+) ")
_ACK_HEAD = "## ack of #"
_ACK_CHAIN = re.compile(r"^- ack chain: ([0-9a-f]{64})$", re.MULTILINE)
#: the triggers migration 0002 creates: without them the tables are not append-only
TRIGGERS = frozenset(
    f"{table}_no_{op}"
    for table in ("drift_entry", "drift_ack", "stale_edge", "drift_archive")
    for op in ("update", "delete")
)


@dataclass
class _Block:
    kind: LedgerBlock
    key: str  # entry id, or ack chain hash
    text: str
    start: int  # offset in the file


def _blocks(text: str) -> tuple[str, list[_Block]]:
    """(text before the first block, the blocks) of LEDGER.md."""
    starts: list[tuple[int, LedgerBlock]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        if _ENTRY_HEAD.match(line):
            starts.append((pos, LedgerBlock.ENTRY))
        elif line.startswith(_ACK_HEAD):
            starts.append((pos, LedgerBlock.ACK))
        pos += len(line)
    if not starts:
        return text, []
    out = []
    for i, (at, kind) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        body = text[at:end]
        if kind == LedgerBlock.ENTRY:
            m = _ENTRY_HEAD.match(body)
            key = m.group(1) if m else ""
        else:
            m2 = _ACK_CHAIN.search(body)
            key = m2.group(1) if m2 else ""
        out.append(_Block(kind, key, body, at))
    return text[: starts[0][0]], out


@dataclass
class _Comparison:
    problems: list[str]
    missing_entries: list[LedgerEntry]  # a suffix of the rows with no block yet
    missing_acks: list[LedgerAck]
    torn_at: int | None  # where a partial last block starts (an interrupted write)


def _compare(md: str, entries: list[LedgerEntry], acks: list[LedgerAck]) -> _Comparison:
    problems: list[str] = []
    pre, blocks = _blocks(md)
    torn_at = None
    if md and pre != header():
        problems.append("LEDGER.md: its header was changed")
    by_id = {str(e.id): e for e in entries}
    by_hash = {a.ack_hash: a for a in acks}
    seen_e: list[int] = []
    seen_a: list[int] = []
    edited_e: set[int] = set()  # blocks that are there but altered: reported once, as edited
    for i, b in enumerate(blocks):
        last = i == len(blocks) - 1
        want: str | None = None
        row_id = 0
        if b.kind == LedgerBlock.ENTRY:
            entry = by_id.get(b.key)
            if entry is not None:
                want, row_id = render_entry(entry), entry.id
        else:
            ack = by_hash.get(b.key)
            if ack is not None:
                want, row_id = render_ack(ack), ack.id
        if want is not None and b.text == want:
            (seen_e if b.kind == LedgerBlock.ENTRY else seen_a).append(row_id)
            continue
        if last and want is not None and want.startswith(b.text):
            torn_at = b.start  # the last block was cut short: an interrupted write
            continue
        what = f"entry #{b.key}" if b.kind == LedgerBlock.ENTRY else "an ack"
        if want is None:
            problems.append(f"LEDGER.md: {what} has no row in the database (a forged block)")
        else:
            problems.append(f"LEDGER.md: {what} does not say what its database row says (edited)")
            if b.kind == LedgerBlock.ENTRY:
                edited_e.add(row_id)
    if seen_e != sorted(seen_e) or len(set(seen_e)) != len(seen_e):
        problems.append("LEDGER.md: entry blocks are out of order or repeated")
    ids = [e.id for e in entries]
    n = len(seen_e)
    missing_e: list[LedgerEntry] = []
    if seen_e != ids[:n]:
        gone = sorted(set(ids) - set(seen_e) - edited_e)
        if gone and gone[0] < (seen_e[-1] if seen_e else 0):
            problems.append(f"LEDGER.md: the block of entry #{gone[0]} is missing")
    else:
        missing_e = entries[n:]
    ack_ids = [a.id for a in acks]
    k = len(seen_a)
    missing_a: list[LedgerAck] = []
    if seen_a != ack_ids[:k]:
        problems.append("LEDGER.md: ack blocks are missing, out of order or repeated")
    else:
        missing_a = acks[k:]
    return _Comparison(problems, missing_e, missing_a, torn_at)


def repair(layout: Layout, control: ControlStore) -> list[str]:
    """Complete LEDGER.md after an interrupted write (the rows committed, their blocks not
    or not entirely written); the caller holds the ledger lock. Changes nothing unless
    every block already in the file says what its row says. Returns what it did."""
    path = layout.ledger_md
    entries, acks = control.entries(), control.acks()
    md = path.read_text(encoding="utf-8") if path.exists() else ""
    cmp = _compare(md, entries, acks)
    if cmp.problems or not (cmp.missing_entries or cmp.missing_acks or cmp.torn_at is not None):
        return []
    done = []
    if cmp.torn_at is not None:
        with open(path, "r+", encoding="utf-8") as fh:
            fh.truncate(len(md[: cmp.torn_at].encode("utf-8")))
        done.append("a partly written block removed")
    text = "".join(render_entry(e) for e in cmp.missing_entries) + "".join(
        render_ack(a) for a in cmp.missing_acks
    )
    if text:
        _append_md(layout, text)
        if cmp.missing_entries:
            first, last = cmp.missing_entries[0].id, cmp.missing_entries[-1].id
            done.append(f"blocks of entries #{first}-#{last} appended")
        if cmp.missing_acks:
            done.append(f"{len(cmp.missing_acks)} ack block(s) appended")
    record_heads(layout, control)
    return done


def verify(layout: Layout, control: ControlStore) -> dict[str, Any]:
    """Check the ledger: both hash chains, every LEDGER.md block against its row, the
    stale edges against what each entry lists, the append-only triggers, the head
    recorded outside .ragraf/ and in rev.json, and the archive reports. An interrupted
    write is completed first (and said so), never reported as tampering."""
    from ragraf.drift import anchor
    from ragraf.store import manifest

    with ledger_lock(layout):
        repaired = repair(layout, control)
    problems: list[str] = []
    notes: list[str] = [f"completed an interrupted write: {r}" for r in repaired]
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
    acks = control.acks()
    for a in acks:
        if a.prev_hash != ack_head or chain_hash(ack_head, a, ACK_HASHED) != a.ack_hash:
            problems.append(f"ack #{a.id} (of entry #{a.entry_id}): broken link or altered row")
            break
        ack_head = a.ack_hash
    md = layout.ledger_md.read_text(encoding="utf-8") if layout.ledger_md.exists() else ""
    cmp = _compare(md, entries, acks)
    problems += cmp.problems
    if not problems and (cmp.missing_entries or cmp.missing_acks):
        problems.append("LEDGER.md is behind the database and could not be completed")
    missing_triggers = sorted(TRIGGERS - control.triggers())
    if missing_triggers:
        problems.append(
            "append-only triggers are missing: "
            + ", ".join(missing_triggers)
            + " (the ledger tables can be rewritten)"
        )
    stale = control.stale_by_entry()
    for e in entries:
        # each edge the entry lists, stale in the revision the entry is against (a row
        # moved to another revision would drop a stale warning as surely as a deleted one)
        listed = {(uid, e.index_rev) for uid in e.invalidated}
        if stale.get(e.id, set()) != listed:
            lost = len(listed - stale.get(e.id, set()))
            problems.append(
                f"entry #{e.id}: its stale edges do not match what the entry lists "
                f"({lost} missing, {len(stale.get(e.id, set()) - listed)} extra)"
            )
    known = {e.id: e.entry_hash for e in entries}
    known_acks = {a.id: a.ack_hash for a in acks}

    archives = control.archives()
    problems += _archive_problems(layout, archives, set(by_id.values()) | {GENESIS}, notes)
    known_archives = {a.id: a.archive_hash for a in archives}

    def check_head(where: str, entry: Any, ack: Any, archive: Any = None) -> None:
        if isinstance(entry, list) and len(entry) == 2 and entry[0]:
            if known.get(int(entry[0])) != entry[1]:
                problems.append(
                    f"{where} records entry #{entry[0]} as the head; the ledger does not hold it"
                    " (its tail was deleted or rewritten)"
                )
        if isinstance(ack, list) and len(ack) == 2 and ack[0]:
            if known_acks.get(int(ack[0])) != ack[1]:
                problems.append(
                    f"{where} records ack #{ack[0]} as the head; the ledger does not hold it"
                )
        if isinstance(archive, list) and len(archive) == 2 and archive[0]:
            if known_archives.get(int(archive[0])) != archive[1]:
                problems.append(
                    f"{where} records archive #{archive[0]} as the head; drift_archive does"
                    " not hold it (a row was deleted or rewritten)"
                )

    rec = anchor.read(layout.root)
    if rec is None:
        notes.append(
            f"no head recorded outside .ragraf/ for this checkout ({anchor.path_for(layout.root)}):"
            " a deleted tail of the ledger could not be detected here"
        )
    else:
        check_head(
            f"the anchor {anchor.path_for(layout.root)}",
            rec.get("entry"),
            rec.get("ack"),
            rec.get("archive"),
        )
    man = manifest.read(layout.rev_json)
    if man is not None and man.get("ledger_head"):
        lh = man["ledger_head"]
        check_head("rev.json", lh.get("entry"), lh.get("ack"))
    return {
        "ok": not problems,
        "entries": len(entries),
        "acks": len(acks),
        "head": head,
        "ack_head": ack_head,
        "problems": problems,
        "notes": notes,
    }


def _archive_problems(
    layout: Layout, archives: list[ArchiveRow], heads: set[str], notes: list[str]
) -> list[str]:
    """The archive chain: each chained row's link and hash, its report's text against its
    sha256; every report names a ledger chain head that the ledger holds."""
    problems: list[str] = []
    prev, unchained = GENESIS, 0
    for arch in archives:
        p = layout.root / arch.report_path
        text = p.read_text(encoding="utf-8") if p.exists() else None
        found = re.search(r"chain head: ([0-9a-f]{64})", text) if text is not None else None
        if found is None:
            problems.append(f"archive {arch.report_path}: missing or without a chain head")
        elif found.group(1) not in heads:
            problems.append(
                f"archive {arch.report_path}: chain head {found.group(1)[:16]}… is not in the ledger"
            )
        if arch.archive_hash is None:
            unchained += 1
            continue
        if arch.prev_hash != prev or archive_hash(prev, arch) != arch.archive_hash:
            problems.append(
                f"archive #{arch.id} ({arch.report_path}): broken link or altered row"
                " (an archive row was deleted or rewritten)"
            )
            break
        prev = arch.archive_hash
        if (
            text is not None
            and hashlib.sha256(text.encode("utf-8")).hexdigest() != arch.report_sha256
        ):
            problems.append(f"archive {arch.report_path}: its text was edited after it was written")
    if unchained:
        notes.append(
            f"{unchained} archive(s) from before the archive chain: their reports are checked"
            " for the ledger's chain head only"
        )
    return problems
