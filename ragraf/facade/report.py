"""`ragraf report`: one self-contained static HTML page for the people who look after the index
(`.ragraf/report/index.html`): the revisions and their counts, the ledger timeline with its
acknowledgements, each archive's arithmetic, slice boundaries, coverage and the repo map.

Invariants a change must keep:
- Read-only on the stores (it reads through the status module, the facade and the control
  store, like any reader); the only file written is the page, replaced atomically.
- The page is self-contained: inline CSS, no script, no network resource (no http(s) URL in
  any src/href), so it opens from disk anywhere and leaks nothing.
- Everything from the corpus or the ledger (paths, names, notes, archive text) is escaped by
  jinja2's autoescape; nothing is marked safe.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from ragraf.clock import now_iso
from ragraf.config import Layout
from ragraf.kinds import ChangeKind

#: symbols of the repo map on the page (the map's token budget)
MAP_BUDGET_TOKENS = 1500
_ARITHMETIC = re.compile(
    r"^(Ledger changes: .*|Confirmed: .*|- \d+ `[^`]+` edges from .*|- (and )?\d+ groups .*)$",
    re.M,
)


def _entry(e: Any, acks: dict[int, list[Any]]) -> dict[str, Any]:
    def names(raw: str | None) -> list[str]:
        return list(json.loads(raw)) if raw else []

    return {
        "id": e.id,
        "rev": e.index_rev,
        "ts": e.ts,
        "path": e.path,
        "kind": e.kind,
        "added": names(e.symbols_added),
        "removed": names(e.symbols_removed),
        "changed": names(e.symbols_changed),
        "edges": len(names(e.edges_invalidated)),
        "detected_by": e.detected_by,
        "note": e.note,
        "acks": [{"by": a.by, "ts": a.ts, "note": a.note} for a in acks.get(e.id, [])],
    }


def _number(v: Any) -> Any:
    """4.0 -> 4 (counts are stored as REAL), shares keep 4 digits."""
    if isinstance(v, float):
        return int(v) if v.is_integer() else round(v, 4)
    return v


def collect(root: Path) -> dict[str, Any]:
    """Everything the page shows, as plain data (tests read it too)."""
    from ragraf import facade
    from ragraf.facade.status import status
    from ragraf.store.control import ControlStore

    layout = Layout(root)
    st = status(root)
    with ControlStore(layout.control_db, readonly=True) as control:
        history = control.history()
        entries = control.entries()
        acks: dict[int, list[Any]] = {}
        for a in control.acks():
            acks.setdefault(a.entry_id, []).append(a)
        archives = []
        for arc in control.archives():
            # report_path is relative to the root; only a file in the archive folder is read
            path = layout.archive_dir / Path(arc.report_path).name
            text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
            archives.append(
                {
                    "from_rev": arc.from_rev,
                    "to_rev": arc.to_rev,
                    "archived_at": arc.archived_at,
                    "entries": arc.entries,
                    "path": arc.report_path,
                    "arithmetic": [m.group(0) for m in _ARITHMETIC.finditer(text)],
                    "text": text,
                }
            )
    rows = [_entry(e, acks) for e in entries]
    repo_map = facade.run_op(root, "repo_map", {"budget_tokens": MAP_BUDGET_TOKENS})["result"]
    coverage = [
        {"metric": k, "value": _number(v.get("value")), "note": v.get("note")}
        for k, v in sorted(st["coverage"].items())
    ]
    return {
        "project": root.name,
        "generated_at": now_iso(),
        "status": st,
        "revisions": history,
        "entries": rows,
        "open_entries": sum(1 for r in rows if not r["acks"] and r["rev"] == st["rev_id"]),
        "slices": [r for r in rows if r["kind"] == ChangeKind.SLICE_BOUNDARY],
        "archives": archives,
        "coverage": coverage,
        "repo_map": repo_map,
    }


def write(root: Path) -> Path:
    """Render the page into .ragraf/report/index.html (atomic replace) and return its path."""
    from ragraf import resources

    data = collect(root)
    html = resources.template("report.html.j2").render(**data)
    out_dir = Layout(root).dot / "report"
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "index.html"
    fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=".index.", suffix=".html")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(html)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
