"""`ragraf report`: one self-contained static HTML page for the people who look after the index
(`.ragraf/report/index.html`): the revisions and their counts, the ledger timeline with its
acknowledgements, each archive's arithmetic, slice boundaries, coverage and the repo map.

Invariants a change must keep:
- One story per page: an entry is open only when it is against the active revision and not
  acknowledged; an entry of an earlier revision was closed by the reindex that archived it
  and reads so in the timeline, never as waiting ("Now" and the timeline count the same).
- Coverage is told in sentences with the numbers that matter (``coverage_story``); the raw
  metrics stay on the page, folded away.
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
    closed_by = {a["from_rev"]: a["to_rev"] for a in archives}
    rows = [_entry(e, acks) for e in entries]
    for r in rows:
        r["state"] = "acked" if r["acks"] else "open" if r["rev"] == st["rev_id"] else "archived"
        r["closed_by"] = closed_by.get(r["rev"]) if r["rev"] != st["rev_id"] else None
    repo_map = facade.run_op(root, "repo_map", {"budget_tokens": MAP_BUDGET_TOKENS})["result"]
    coverage = [
        {"metric": k, "value": _number(v.get("value")), "note": v.get("note")}
        for k, v in sorted(st["coverage"].items())
    ]
    active = [r for r in rows if r["rev"] == st["rev_id"]]
    return {
        "project": root.name,
        "generated_at": now_iso(),
        "status": st,
        "revisions": history,
        "entries": rows,
        "now": {
            "entries": len(active),
            "open": sum(1 for r in active if r["state"] == "open"),
            "earlier": len(rows) - len(active),
            "pending": (st.get("pending") or {}).get("files", 0),
        },
        "slices": [r for r in rows if r["kind"] == ChangeKind.SLICE_BOUNDARY],
        "archives": archives,
        "coverage": coverage,
        "coverage_story": coverage_story(st["coverage"]),
        "repo_map": repo_map,
    }


def _pct(part: float, whole: float) -> str:
    return f"{part / whole:.0%}" if whole else "0%"


def coverage_story(cov: dict[str, Any]) -> list[tuple[str, str]]:
    """The coverage metrics a person needs, as (topic, sentence): files, calls, languages,
    includes, data flow, the database schema and search's chunks; a topic whose metrics the
    revision lacks is left out."""

    def n(key: str) -> int:
        v = (cov.get(key) or {}).get("value")
        return int(v) if isinstance(v, int | float) else 0

    def note(key: str) -> str | None:
        got = (cov.get(key) or {}).get("note")
        return str(got) if got else None

    out: list[tuple[str, str]] = []
    total = n("files.total")
    if total:
        text = (
            f"{n('files.ok') + n('files.partial'):,} of {total:,} files were read and"
            f" parsed ({n('files.partial'):,} only in part), {n('files.failed'):,} failed,"
            f" {n('files.skipped'):,} skipped."
        )
        for st in ("partial", "failed", "skipped"):
            if note(f"files.{st}"):
                text += f" {st.capitalize()}: {note(f'files.{st}')}."
        if n("files.not_selected"):
            text += (
                f" {n('files.not_selected'):,} other files are not indexed:"
                f" {note('files.not_selected')}."
            )
        out.append(("Files", text))
    calls = n("calls.total")
    if calls:
        text = (
            f"{calls:,} calls in the code. {n('calls.stated'):,}"
            f" ({_pct(n('calls.stated'), calls)}) are resolved as stated: the callee's"
            f" declaration is matched exactly. {n('calls.derived'):,} are derived by a"
            " heuristic and carry a confidence. "
            f"{n('calls.external'):,} call code the project does not hold (the language's"
            f" builtins, libraries), and {n('calls.unresolved'):,} are not resolved (names"
            " built at run time, too many candidates)."
        )
        declared = (cov.get("calls.stated_share_declared") or {}).get("value")
        if isinstance(declared, int | float):
            text += f" Of the calls to the project's own code, {declared:.0%} are stated."
        out.append(("Calls", text))
    langs = sorted(k.split(".")[1] for k in cov if k.startswith("lang.") and k.endswith(".files"))
    if langs:
        parts = []
        for lang in sorted(langs, key=lambda x: -n(f"lang.{x}.files")):
            part = f"{lang} {n(f'lang.{lang}.files'):,} files"
            lt = n(f"lang.{lang}.calls.total")
            if lt:
                part += f" ({_pct(n(f'lang.{lang}.calls.stated'), lt)} of {lt:,} calls stated)"
            parts.append(part)
        out.append(("Languages", ", ".join(parts) + "."))
    if n("includes.total"):
        out.append(
            (
                "Includes",
                f"{n('includes.total'):,} include / require statements:"
                f" {n('includes.unresolved'):,} not resolved to a file,"
                f" {n('includes.dynamic'):,} build their path at run time.",
            )
        )
    if n("flow.units"):
        out.append(
            (
                "Data flow",
                f"{n('flow.units'):,} functions analysed for data flow: slice and flow answer.",
            )
        )
    source = note("schema.source")
    if source and source != "none":
        text = (
            f"The database schema comes from {source}: {n('schema.tables'):,} tables,"
            f" {n('schema.columns'):,} columns."
        )
        if note("schema.incomplete"):
            text += f" Incomplete: {note('schema.incomplete')}."
        if n("schema.unknown_tables"):
            text += (
                f" SQL in code names {n('schema.unknown_tables')} tables the schema does not"
                f" hold ({note('schema.unknown_tables')})."
            )
        out.append(("Database", text))
    if n("chunks.total"):
        out.append(
            (
                "Search",
                f"{n('chunks.total'):,} chunks of text to search"
                f" ({n('chunks.duplicate'):,} with the same content at several places).",
            )
        )
    return out


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
