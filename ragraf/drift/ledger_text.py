"""The Markdown of the drift ledger (LEDGER.md's header, entries and acks) and of the
archive ``reindex --commit`` writes (architecture §8.4), rendered in code.

They are on the path of every edit cycle (``drift --scan`` appends entries, ``reindex
--commit`` writes the archive, ``verify`` renders every entry again), where importing a
template engine is paid by each process. The human documents (the HTML report,
the skill file) stay jinja2 templates.

Invariants a change must keep:
- An entry and an ack render byte for byte as every earlier version did: ``verify``
  renders each row again and compares it with LEDGER.md, so a changed format would make
  an intact ledger look edited. tests/test_ledger_markdown.py checks the rendering
  against the format's reference templates (tests/fixtures/ledger-format/).
- Every repository-made name (a path, a symbol, an edge's source, a note) is shown through
  ``esc``: control characters visible, backticks escaped, so no name forges a line, a
  heading or a code span. A slice boundary's note in the archive is ours, with code spans
  around the names in it: only its control characters are made visible (no forged line).
  Hashes, revision ids and counts are ours and shown as they are.
"""

from __future__ import annotations

from typing import Any

from ragraf.escape import escape
from ragraf.model import LedgerAck, LedgerEntry

HEADER = (
    "# RAGRAF drift ledger\n"
    "\n"
    "Append-only journal of changes registered against the sealed index revisions of this"
    " project.\n"
    "Each entry ends with `chain:` — the hash-chain head after it (`ragraf verify` checks the"
    " database\n"
    "against these lines). Entries are never rewritten; a correction is a new entry or an"
    " ack.\n"
    "\n"
)


def esc(v: object) -> str:
    """A repository-made value as Markdown shows it."""
    return escape(str(v)).replace("`", "\\`")


def _names(names: list[str]) -> str:
    return ", ".join(esc(n) for n in names)


def entry(e: LedgerEntry) -> str:
    """One entry's block of LEDGER.md (ends with its ``chain:`` line and a blank line)."""
    out = [
        f"## #{e.id} {esc(e.kind)} `{esc(e.path)}` · {esc(e.ts)} · against {esc(e.index_rev)}\n"
        f"- detected by: {esc(e.detected_by)}"
        + (f" (commit {esc(e.commit_sha[:12])})" if e.commit_sha else "")
    ]
    if e.old_hash or e.new_hash:
        out.append(
            f"- content: {esc((e.old_hash or 'none')[:12])} → {esc((e.new_hash or 'none')[:12])}"
        )
    for label, column in (
        ("added", "symbols_added"),
        ("removed", "symbols_removed"),
        ("changed", "symbols_changed"),
    ):
        names = e.names(column)
        if names:
            out.append(f"- symbols {label}: {_names(names)}")
    edges = len(e.invalidated)
    if edges:
        out.append(f"- edges invalidated: {edges}")
    if e.note:
        out.append(f"- note: {esc(e.note)}")
    out.append(f"- chain: {e.entry_hash}\n\n")
    return "\n".join(out)


def ack(a: LedgerAck) -> str:
    """One ack's block of LEDGER.md."""
    out = [f"## ack of #{a.entry_id} by {esc(a.by)} · {esc(a.ts)}"]
    if a.note:
        out.append(f"- note: {esc(a.note)}")
    out.append(f"- ack chain: {a.ack_hash}\n\n")
    return "\n".join(out)


def archive(d: dict[str, Any]) -> str:
    """The archive report of one reindex (the keys ``ragraf.drift.archive.render`` fills)."""
    from_rev, to_rev = d["from_rev"], d["to_rev"]
    files, stale_total = d["files"], d["stale_total"]
    out = [
        f"# Reindexing {from_rev} → {to_rev} · {d['archived_at']}\n",
        f"\nLedger changes: {len(d['entries'])} · files: {len(files)} · symbols affected:"
        f" {d['symbols_affected']} · stale edges: {stale_total}\n",
        "\n## What appeared/changed\n",
    ]
    for f in files:
        line = f"- `{esc(f['path'])}` ({', '.join(esc(k) for k in f['kinds'])})"
        if f["added"]:
            line += f": added {_names(f['added'])}"
        if f["removed"]:
            line += f"{';' if f['added'] else ':'} removed {_names(f['removed'])}"
        if f["changed"]:
            line += f"{';' if f['added'] or f['removed'] else ':'} changed {_names(f['changed'])}"
        out.append(line + "\n")
    if not files:
        out.append("- nothing\n")
    out.append("\n## What went stale in the knowledge between revisions\n")
    out.append(
        "Stale edges: facts whose evidence lies in a changed file; each is looked for again in"
        f" {to_rev}.\n"
    )
    for g in d["stale_groups"]:
        out.append(
            f"- {g['count']} `{esc(g['kind'])}` edges from `{esc(g['src'])}` — {g['verdict']}\n"
        )
    if d["confirmed_groups"]:
        out.append(
            f"- {'and ' if d['stale_groups'] else ''}{d['confirmed_groups']} groups"
            f" ({d['confirmed_whole']} edges) rechecked and confirmed in {to_rev}\n"
        )
    if not stale_total:
        out.append("- no edge went stale\n")
    out.append(
        f"\nConfirmed: {d['confirmed']} of {stale_total} still in {to_rev}, {d['moved']} of them"
        f" at a moved line; not confirmed (gone or changed): {stale_total - d['confirmed']}.\n"
    )
    out.append("\n## Slice boundaries\n")
    for s in d["slices"]:
        # the note is ours, with code spans around the names in it: controls made visible
        out.append(f"- `slice_boundary`: {escape(str(s['note']))}\n")
    if not d["slices"]:
        out.append("- none\n")
    out.append(
        f"\n## Ledger\nEntries #{d['first_id']}–#{d['last_id']} of {from_rev}; chain head:"
        f" {d['chain_head']}\n"
    )
    if d["acks"]:
        out.append(f"Acknowledged: {d['acks']} entries.\n")
    out.append("\n")
    return "".join(out)
