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


#: a backtick that opens or closes a code span (``ledger_text.esc`` writes a backtick of
#: the repository's own with a backslash before it)
_CODE_MARK = re.compile(r"(?<!\\)`")


def _spans(line: str) -> list[dict[str, Any]]:
    """A line of the archive's Markdown as text and code spans (what was between backticks),
    so the page shows code in <code> and no backtick."""
    parts = _CODE_MARK.split(line)
    return [{"text": t.replace("\\`", "`"), "code": i % 2 == 1} for i, t in enumerate(parts) if t]


def _blocks(text: str) -> list[dict[str, Any]]:
    """The archive's Markdown (``ragraf.drift.ledger_text.archive``: headings, list items,
    lines) as blocks of spans for the page: {tag: h3 | h4 | ul | p, spans | items}."""
    out: list[dict[str, Any]] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line:
            continue
        if line.startswith("- "):
            if not out or out[-1]["tag"] != "ul":
                out.append({"tag": "ul", "items": []})
            out[-1]["items"].append(_spans(line[2:]))
        elif line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append({"tag": "h3" if level == 1 else "h4", "spans": _spans(line.lstrip("# "))})
        else:
            out.append({"tag": "p", "spans": _spans(line)})
    return out


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
                    "arithmetic": [
                        _spans(m.group(0).removeprefix("- ")) for m in _ARITHMETIC.finditer(text)
                    ],
                    "blocks": _blocks(text),
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
