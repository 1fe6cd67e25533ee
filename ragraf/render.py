"""Readable text for humans (the CLI's default output). Agents use --json."""

from __future__ import annotations

from typing import Any


def _size(n: int) -> str:
    f = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if f < 1024 or unit == "GiB":
            return f"{f:.0f} {unit}" if unit == "B" else f"{f:.1f} {unit}"
        f /= 1024
    return f"{n} B"


def status_text(d: dict[str, Any]) -> str:
    out = []
    active = " (active)" if d["rev_id"] == d["active_rev"] else f" (active: {d['active_rev']})"
    out.append(f"revision   {d['rev_id']}{active}  state {d['state']}")
    out.append(f"created    {d['created_at']}   sealed {d['sealed_at']}")
    out.append(f"capability {d['capability']}: {d['capability_note']}")
    out.append(f"vectors    {d['vectors']}")
    c = d["counts"]
    out.append(f"files      {c['files']}    chunks {c['chunks']}")
    out.append("nodes      " + ", ".join(f"{k} {v}" for k, v in c["nodes"].items()))
    out.append("edges      " + ", ".join(f"{k} {v}" for k, v in c["edges"].items()))
    cov = d["coverage"]
    files = ", ".join(f"{s} {int(cov[f'files.{s}']['value'])}" for s in ("ok", "partial", "failed", "skipped")
                      if f"files.{s}" in cov)
    out.append(f"coverage   files: {files}")
    share = cov.get("calls.stated_share", {}).get("value")
    if share is not None:
        out.append(
            f"           calls: {int(cov['calls.total']['value'])} total, {share:.1%} stated, "
            f"{int(cov['calls.derived']['value'])} derived, {int(cov['calls.unresolved']['value'])} unresolved"
        )
    for st in ("partial", "failed", "skipped"):
        note = cov.get(f"files.{st}", {}).get("note")
        if note:
            out.append(f"           {st}: {note}")
    out.append(f"ledger     {d['ledger']['entries']} entries")
    out.append("stores     " + ", ".join(f"{k} {_size(v)}" for k, v in d["store_bytes"].items()))
    return "\n".join(out) + "\n"
