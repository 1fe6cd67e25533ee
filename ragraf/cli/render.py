"""Readable text for humans (the CLI's default output). Agents use --json.

Invariants a change must keep:
- Every operation has a renderer here; text output never starts with ``{`` or ``[``
  (tests/test_cli_text.py walks every operation and command).
- Text shows what concerns this answer in plain words; the limits every answer of the
  revision carries (``DETAIL_LIMITS``) and machine details stay in ``--json``.
- Untrusted text (code lines, notes) is printed as escaped by the facade, never raw.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragraf.kinds import OrmHow, ParseStatus, Provenance, TableRole, VectorStatus

#: how an ORM class maps to its table, as ``table_usage``'s text says it
_MODEL_HOW = {OrmHow.TABLE_PROPERTY: "its $table", OrmHow.TABLE_ATTRIBUTE: "its Table mapping"}


def _size(n: int) -> str:
    f = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if f < 1024 or unit == "GiB":
            return f"{f:.0f} {unit}" if unit == "B" else f"{f:.1f} {unit}"
        f /= 1024
    return f"{n} B"


def model_label(v: dict[str, Any]) -> str:
    """The vector layer's model, and ", int8" when it computes in 8-bit integers (the
    recipe closes its model_version: ragraf.embed.quantize, not imported for a string)."""
    version = str(v.get("model_version") or "")
    int8 = version.rpartition(";")[2].startswith("int8-")
    return f"{v.get('model')}{', int8' if int8 else ''}"


def vectors_text(v: Any) -> str:
    """The vector layer in one line (``status``, ``ragraf vectors``)."""
    if not isinstance(v, dict):
        return str(v)
    skipped = f", {v['skipped']} skipped (no meaning for search)" if v.get("skipped") else ""
    if v.get("status") == VectorStatus.READY:
        return (
            f"ready: {model_label(v)} ({v.get('computed')} computed, {v.get('reused')} reused"
            f"{skipped})"
        )
    if v.get("status") in (VectorStatus.EMBEDDING, VectorStatus.INTERRUPTED):
        line = f"{v['percent']}% embedded: {v['embedded']} of {v['total']} chunks{skipped}"
        if v["status"] == VectorStatus.INTERRUPTED:
            return line + "; embedding was interrupted: `ragraf vectors --resume` finishes it"
        return line + "; still embedding"
    return f"{v.get('status')}" + (f" ({v['reason']})" if v.get("reason") else "")


def calls_line(cov: Mapping[str, Any]) -> str | None:
    """The call sites of a revision in words that say what the rest is: of the calls into
    the corpus, the shares linked as stated, derived and left unresolved; the calls of code
    outside it (PHP, libraries) apart. ``cov``: coverage metric -> value."""
    total = int(cov.get("calls.total") or 0)
    external = int(cov.get("calls.external") or 0)
    inside = total - external
    if inside <= 0:
        return None
    stated = int(cov.get("calls.stated") or 0)
    derived = int(cov.get("calls.derived") or 0)
    unresolved = int(cov.get("calls.unresolved") or 0)
    line = (
        f"calls into the corpus: {stated / inside:.1%} stated, {derived / inside:.1%} derived,"
        f" {unresolved / inside:.1%} unresolved"
    )
    if external:
        line += f" ({external:,} more call code outside it: external)"
    return line


def schema_warning(schema: Mapping[str, Any] | None, cov: Mapping[str, Any]) -> str | None:
    """ "database schema incomplete: why", when it matters: the corpus has SQL (strings in
    code, .sql files, a schema read) or the project names a database; else nothing (a
    repository without SQL has no schema to miss). ``cov``: coverage metric -> value."""
    from ragraf.store.mysql_live import NOT_CONFIGURED

    incomplete = (schema or {}).get("incomplete")
    if not incomplete:
        return None
    has_sql = (
        cov.get("sql.literals")
        or cov.get("lang.sql.files")
        or (schema or {}).get("source") not in (None, "none")
    )
    if not has_sql and NOT_CONFIGURED in str(incomplete):
        return None
    return f"database schema incomplete: {incomplete}"


def _per_language(d: dict[str, Any]) -> str:
    """What data flow covers per language: " (data flow: php; not python (12 files))"."""
    from ragraf.facade.dfcover import words

    return f" (data flow: {words(d['dataflow'])})" if d.get("dataflow") else ""


def status_text(d: dict[str, Any]) -> str:
    out = []
    active = " (active)" if d["rev_id"] == d["active_rev"] else f" (active: {d['active_rev']})"
    out.append(f"revision   {d['rev_id']}{active}  state {d['state']}")
    out.append(f"created    {d['created_at']}   sealed {d['sealed_at']}")
    out.append(f"capability {d['capability']}{_per_language(d)}: {d['capability_note']}")
    out.append(f"vectors    {vectors_text(d.get('vectors'))}")
    c = d["counts"]
    out.append(f"files      {c['files']}    chunks {c['chunks']}")
    out.append("nodes      " + ", ".join(f"{k} {v}" for k, v in c["nodes"].items()))
    out.append("edges      " + ", ".join(f"{k} {v}" for k, v in c["edges"].items()))
    cov = d["coverage"]
    files = ", ".join(
        f"{s} {int(cov[f'files.{s}']['value'])}" for s in ParseStatus if f"files.{s}" in cov
    )
    out.append(f"coverage   files: {files}")
    values = {k: v.get("value") for k, v in cov.items()}
    calls = calls_line(values)
    if calls:
        out.append(f"           {calls}")
    for st in (ParseStatus.PARTIAL, ParseStatus.FAILED, ParseStatus.SKIPPED):
        note = cov.get(f"files.{st}", {}).get("note")
        if note:
            out.append(f"           {st}: {note}")
    langs = sorted(k.split(".")[1] for k in cov if k.startswith("lang.") and k.endswith(".files"))
    parts = []
    for lang in langs:
        pre = f"lang.{lang}."
        part = f"{lang} {int(cov[pre + 'files']['value'])}"
        total = cov.get(pre + "calls.total", {}).get("value") or 0
        # outside the corpus, as calls.external counts it: methods of outside classes and
        # plain functions no file declares (builtins)
        inside = total - sum(
            cov.get(pre + k, {}).get("value") or 0
            for k in ("calls.external", "calls.unresolved_function")
        )
        if inside > 0:
            stated = cov.get(pre + "calls.stated", {}).get("value") or 0
            part += f" ({int(inside)} calls into the corpus, {stated / inside:.1%} stated)"
        parts.append(part)
    if parts:
        out.append("           files by language: " + ", ".join(parts))
    passed = cov.get("files.not_selected", {})
    if passed.get("value"):
        out.append(f"           not selected: {int(passed['value'])} files ({passed.get('note')})")
    unreadable = cov.get("files.unreadable_dirs", {}).get("note")
    if unreadable:
        out.append(f"           folders not readable: {unreadable}")
    sch = d.get("schema") or {}
    warning = schema_warning(sch, values)
    if sch.get("source") not in (None, "none") or warning:
        out.append(
            f"schema     {sch.get('source')}"
            + (f" ({sch['dialect']})" if sch.get("dialect") else "")
            + (f"; incomplete: {sch['incomplete']}" if warning else "")
        )
    for f in sch.get("files") or []:
        out.append(f"           from {f['path']}: {f['why']}")
    if sch.get("rejected_total"):
        out.append(
            f"           {sch['rejected_total']} SQL file(s) left out, e.g. "
            + "; ".join(f"{r['path']}: {r['why']}" for r in sch["rejected"][:3])
        )
    if sch.get("code_tables"):
        out.append(f"           {sch['code_tables']} table(s) known only from SQL in code")
    out.append(f"ledger     {d['ledger']['entries']} entries")
    out.extend(pending_lines(d.get("pending")))
    out.append("stores     " + ", ".join(f"{k} {_size(v)}" for k, v in d["store_bytes"].items()))
    return "\n".join(out) + "\n"


def pending_lines(p: dict[str, Any] | None) -> list[str]:
    """ "Pending changes: N modified files — run `ragraf drift --scan`" when indexed files
    changed on disk and the ledger does not hold them yet; nothing otherwise."""
    if not p or not p.get("files"):
        return []
    m, d = p["modified_total"], p["deleted_total"]
    what = [f"{m} modified file{'s' * (m != 1)}"] if m else []
    what += [f"{d} deleted file{'s' * (d != 1)}"] if d else []
    return [f"Pending changes: {', '.join(what)} — run `{p['next']}`"]


# -- facade answers ----------------------------------------------------------------
def _u(t: Any) -> str:
    if isinstance(t, dict):
        return str(t.get("untrusted", ""))
    return "" if t is None else str(t)


def _sym(s: dict[str, Any] | None) -> str:
    if not s:
        return "?"
    loc = f"{s['path']}:{s['start_line']}" if s.get("path") else "(external)"
    return f"{s['kind']} {s.get('fqn') or s.get('name')}  {loc}"


def _edge(e: dict[str, Any]) -> str:
    extra = f" via {e['via']}" if e.get("via") else ""
    return f"{e['evidence']}  {e['kind']} [{e['provenance']} {e['confidence']:.2f}{extra}]"


def envelope_text(env: dict[str, Any], explain: bool = False) -> str:
    """An answer for a human: the result in plain words, the footer, stale warnings and
    the limits that concern it; ``explain`` adds how search scored each hit."""
    r = env["result"]
    op = env["op"]
    out: list[str] = []
    if op == "search":
        _r_search(r, out, explain)
    else:
        _RENDERERS.get(op, _r_fields)(r, out)
    out.append(_footer(env))
    from ragraf.cli import ophelp

    for w in env["stale_warnings"]:
        out.append(
            f"!! STALE {w['path']}: {w['reason']} -> `{ophelp.command(w['suggest'], w['path'])}`"
        )
    from ragraf.facade.context import DETAIL_LIMITS

    for lim in env["limits"]:
        if lim not in DETAIL_LIMITS:
            out.append(f"-- {lim}")
    return "\n".join(out) + "\n"


def _footer(env: dict[str, Any]) -> str:
    """Where the answer comes from, in short words (the glossary, `ragraf --help`, says
    more): the sealed index or the files now, data flow or not, what changed since."""
    rev, d = env["index_rev"], env["drift"]
    if env["provenance"] == "live":
        foot = f"-- read from the files as they are now (the index is {rev})"
    elif env["capability"] == "dataflow":
        foot = f"-- from the index {rev} (with data flow)"
    else:
        foot = f"-- from the index {rev} (no data flow: slice and flow refuse)"
    if env.get("vectors"):
        foot += f" · search vectors {env['vectors']['percent']}% embedded"
    if d["entries"] or d["files"]:
        foot += (
            f" · changed since: {d['files']} files, {d['symbols']} symbols"
            f" ({d['entries']} ledger entries)"
        )
    return foot


def _hint(r: dict[str, Any], out: list[str]) -> None:
    if r.get("hint"):
        from ragraf.cli.ophelp import cli_words

        out.append(f"not found: {cli_words(r['hint'])}")


def _r_symbol(r: dict[str, Any], out: list[str]) -> None:
    for m in r["matches"]:
        out.append(_sym(m) + (f"-{m['end_line']}" if m.get("end_line") else ""))
        sig = m.get("props", {}).get("signature")
        if sig:
            out.append(f"    {sig}")
        if m.get("declared_in"):
            out.append(f"    in {m['declared_in']['kind']} {m['declared_in']['fqn']}")
        if m.get("inherited_by"):
            out.append(f"    inherited by {m['inherited_by']}")
    if r.get("narrow"):
        out.append(r["narrow"])
    _page(r, out)
    _hint(r, out)


#: the sections of an answer in short words (ragraf.cli.glossary says more)
_PLAIN = {
    "stated": "proven by the code",
    "derived": "inferred, with a confidence",
    "hard": "through stated facts only",
    "soft": "needs a derived fact: check it",
}
#: matched targets a text answer names (all are in --json)
_SHOWN_TARGETS = 5


def _matched(r: dict[str, Any], out: list[str]) -> bool:
    """The full name of the declaration a shorter form of its name found; for a name that
    matched several declarations, which ones (with how many callers each) and how to ask
    about one. True when the answer is only that (a partial name matched too many)."""
    if r.get("resolved"):
        out.append(r["resolved"])
    t = r.get("target")
    cands = r.get("candidates") or []
    if not (isinstance(t, list) and len(t) >= 2) and not cands:
        return False
    listed = cands or t or []
    out.append(f"{r.get('narrow') or f'{len(listed)} distinct definitions answer together'}:")
    for x in listed[:_SHOWN_TARGETS]:
        n = x.get("callers")
        out.append(f"  {_sym(x)}" + ("" if n is None else f"  ({_count(n, 'caller')})"))
    total = len(t) if isinstance(t, list) else len(cands)
    if total > _SHOWN_TARGETS:
        out.append(f"  ... {total - _SHOWN_TARGETS} more (--json)")
    return t is None


def _page(r: dict[str, Any], out: list[str]) -> None:
    """The lists an answer cut (``page``): "listed 20 of 97 symbols", and how to get the
    rest with the CLI's options."""
    from ragraf.facade.paging import rest_of

    rest = rest_of(r["page"], cli=True) if r.get("page") else None
    if rest:
        out.append(rest)


def _r_refs(r: dict[str, Any], out: list[str]) -> None:
    if _matched(r, out):
        return
    if r.get("target") and not r["sites"]:
        out.append("0 references")
    if r.get("counts"):
        out.append("counts: " + ", ".join(f"{k} {v}" for k, v in r["counts"].items()))
    for s in _ungrouped(r["sites"], "sites"):
        if "symbol" in s:
            who = s.get("symbol") or {}
            frm = who.get("fqn") or who.get("name") or "?"
        else:
            s = {"evidence": f"{s['path']}:{s['line']}", "provenance": "stated", **s}
            s.setdefault("confidence", 1.0)
            frm = s.get("from") or "?"
        out.append(f"{_edge(s)}  from {frm}")
        if s.get("text"):
            out.append(f"    {_u(s['text'])}")
    _page(r, out)
    _unresolved(r, out)
    _hint(r, out)


def _r_callers(r: dict[str, Any], out: list[str]) -> None:
    """``callers``: first a line with everything that can run the target (the items by
    kind, and the call sites that may but could not be attached), then the walk."""
    if r.get("target"):
        out.append(_callers_line(r))
    _r_walk(r, out)


def _callers_line(r: dict[str, Any]) -> str:
    """ "7 callers: 2 stated, 5 derived (3 calls, 1 by hook, 1 registered with usort);
    may also call it: 4 unresolved same-name call sites, 12 dynamic call sites"."""
    counts = r.get("counts") or {}
    total = r.get("total", 0)
    kinds: dict[str, int] = {}
    for sec in Provenance:
        for it in r.get(sec, []):
            first = _first_edge(it)
            if it.get("how"):
                how = str(it["how"])
                k = "added to hooks run outside the corpus" if how.startswith("added to") else how
            elif first.get("via") in ("hook", "dispatch"):
                k = "by hook"
            elif "template" in str(first.get("via") or ""):
                k = "from templates"
            else:
                k = "by call"
            kinds[k] = kinds.get(k, 0) + 1
    listed = sum(kinds.values())
    parts = ", ".join(f"{n} {k}" for k, n in kinds.items())
    if listed < total:
        parts += f"{', ' if parts else ''}{total - listed} not on this page"
    line = (
        f"{total} callers: {counts.get('stated', 0)} stated, {counts.get('derived', 0)} derived"
        + (f" ({parts})" if parts else "")
    )
    u = r.get("unresolved") or {}
    more = []
    if u.get("total"):
        more.append(f"{u['total']} unresolved same-name call sites")
    dyn = (u.get("dynamic") or {}).get("total", 0)
    if dyn:
        more.append(f"{dyn} dynamic call sites (name computed at run time)")
    if more:
        line += "; may also call it: " + ", ".join(more)
    return line


def _first_edge(it: dict[str, Any]) -> dict[str, Any]:
    """A ``callers`` / ``callees`` item's first evidence line with its reason (``via``,
    ``hook``), from a full item (its edges) or a brief one (its lines, the reason on it)."""
    if "symbol" in it:
        return dict(it["evidence"][0]) if it["evidence"] else {}
    first = dict(it)
    if it.get("lines"):
        first["evidence"] = f"{it.get('path')}:{it['lines'][0]}"
    elif it.get("at"):
        first["evidence"] = it["at"][0]
    else:
        first.pop("evidence", None)
    return first


def _listed_lines(it: dict[str, Any]) -> int:
    """How many evidence lines an item lists (full: its edges; brief: its lines)."""
    if "symbol" in it:
        return len(it["evidence"])
    return len(it.get("lines") or ()) + len(it.get("at") or ())


def _r_walk(r: dict[str, Any], out: list[str]) -> None:
    if _matched(r, out):
        return
    counts = r.get("counts") or {}
    for sec in Provenance:
        listed, total = len(r.get(sec, [])), counts.get(sec, len(r.get(sec, [])))
        out.append(
            f"{sec} ({_PLAIN[sec]}): {total}" + (f" ({listed} listed)" if listed < total else "")
        )
        for it in r.get(sec, []):
            first = _first_edge(it)
            ev = first.get("evidence", "")
            via = f"  via {first['via']}" if sec == Provenance.DERIVED and first.get("via") else ""
            if first.get("hook"):
                via += f" '{first['hook']}'"
            if it.get("how"):
                via = f"  {it['how']}"
            cut = it.get("evidence_total")
            more = f"  (+{cut - _listed_lines(it)} more lines)" if cut else ""
            out.append(
                f"  [{it['depth']}] {_sym(it.get('symbol') or it)}"
                f"  conf {it.get('confidence', 1.0):.2f}  at {ev}{via}{more}"
            )
    for t in r.get("templates") or []:
        out.append(
            f"renders {t['path']} ('{t['template']}') at {t['evidence']}"
            f"  [{t['provenance']} {t['confidence']:.2f}]"
        )
    _hooks(r, out)
    _page(r, out)
    _unresolved(r, out)
    _hint(r, out)


def _hooks(r: dict[str, Any], out: list[str]) -> None:
    """Where a callers target is added to a hook, and whether the corpus runs that hook;
    where it is passed as a callable."""
    for h in r.get("hooks") or []:
        runs = f"run at {h['runs']} site(s) here" if h["runs"] else "run outside the corpus"
        out.append(f"added to hook '{h['hook']}' at {h['evidence']} ({runs})")
        if h.get("text"):
            out.append(f"    {_u(h['text'])}")
    for c in r.get("callbacks") or []:
        if c.get("via") == "name_string":
            out.append(
                f"named in a string at {c['evidence']}  from {c.get('from') or '?'}"
                f"  [derived {c.get('confidence', 0):.2f}]"
            )
        else:
            out.append(f"passed as a callable at {c['evidence']}  from {c.get('from') or '?'}")
        if c.get("text"):
            out.append(f"    {_u(c['text'])}")


def _ungrouped(items: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """A list as a full answer has it: a brief answer's groups (``{path, <key>: [...]}``,
    ``ragraf/facade/brief.py``) flattened, each item with its group's path."""
    out: list[dict[str, Any]] = []
    for it in items:
        if key in it and isinstance(it[key], list) and set(it) == {"path", key}:
            out += [{"path": it["path"], **x} for x in it[key]]
        else:
            out.append(it)
    return out


#: unresolved call sites a text answer shows (all are in --json)
_SHOWN_UNRESOLVED = 5


def _unresolved(r: dict[str, Any], out: list[str]) -> None:
    """The call-site accounting (ragraf/facade/accounting.py) in a few lines."""
    u = r.get("unresolved")
    if not u:
        return
    if u["total"]:
        why = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in u["by_reason"].items())
        out.append(f"and {u['total']} unresolved same-name call sites ({why}):")
        for site in _ungrouped(u["sites"], "sites")[:_SHOWN_UNRESOLVED]:
            site.setdefault("evidence", f"{site['path']}:{site['line']}")
            detail = f" {site['detail']}" if site.get("detail") else ""
            out.append(f"  {site['evidence']}  {site['reason'].replace('_', ' ')}{detail}")
            if site.get("text"):
                out.append(f"      {_u(site['text'])}")
        if u["total"] > _SHOWN_UNRESOLVED:
            out.append(f"  ... {u['total'] - _SHOWN_UNRESOLVED} more (--json)")
    dyn = u.get("dynamic") or {}
    if dyn.get("total"):
        out.append(
            f"and {dyn['total']} call sites whose callee is computed at run time may call it:"
        )
        for site in _ungrouped(dyn["sites"], "sites")[:_SHOWN_UNRESOLVED]:
            site.setdefault("evidence", f"{site['path']}:{site['line']}")
            name = "" if site.get("name", "*") == "*" else f" {site['name']}"
            out.append(f"  {site['evidence']}  {site['form']}{name}")
            if site.get("text"):
                out.append(f"      {_u(site['text'])}")
        if dyn["total"] > min(_SHOWN_UNRESOLVED, len(_ungrouped(dyn["sites"], "sites"))):
            out.append(f"  ... {dyn['total'] - _SHOWN_UNRESOLVED} more (--json)")
    ext = u["external"]
    if ext["total"]:
        classes = ", ".join(f"{c} {n}" for c, n in ext["by_class"].items())
        out.append(
            f"not counted: {ext['total']} same-name calls on builtin or vendor classes ({classes})"
        )
    if u["elsewhere"]:
        out.append(
            f"not counted: {u['elsewhere']} same-name call lines resolved to other declarations"
        )


#: files of an impact section the text lists (all are in --json)
_SHOWN_FILES = 50


def _r_impact(r: dict[str, Any], out: list[str]) -> None:
    if _matched(r, out):
        return
    lists = (r.get("page") or {}).get("lists", {})
    for sec in ("hard", "soft"):
        s = r.get(sec) or {}
        files = s.get("files", [])

        def n(k: str, s: dict[str, Any] = s, sec: str = sec) -> int:
            return int(lists.get(f"{sec}.{k}", {}).get("total", len(s.get(k, []))))

        out.append(
            f"{sec} ({_PLAIN[sec]}): {n('files')} files, {n('symbols')} symbols,"
            f" {n('routes')} routes, {n('tables')} tables, {n('tests')} tests"
        )
        for f in files[:_SHOWN_FILES]:
            out.append(f"  file {f}")
        if len(files) > _SHOWN_FILES:
            out.append(f"  ... {len(files) - _SHOWN_FILES} more files (--json)")
        for it in _ungrouped(s.get("symbols", []), "symbols")[:50]:
            out.append(f"  [{it['depth']}] {_sym(it)}")
        for it in _ungrouped(s.get("routes", []), "routes")[:20]:
            out.append(f"  route {it.get('fqn')}")
        for it in _ungrouped(s.get("tables", []), "tables")[:50]:
            ops = it.get("write_operations")
            writes = f"  written here: {', '.join(ops)}" if ops else ""
            out.append(
                f"  [{it['depth']}] {it.get('kind')} {it.get('fqn') or it.get('name')}{writes}"
            )
    _page(r, out)
    _unresolved(r, out)
    _hint(r, out)


def _r_code(r: dict[str, Any], out: list[str]) -> None:
    if _matched(r, out):
        return
    for it in r.get("items", []):
        if "signature" in it:
            out.append(f"{it['path']}:{it['start_line']}  {it['signature']}")
        elif "kind" in it:
            out.append(f"== {_sym(it)}")
        else:  # a file's text (``--path``), no symbol
            out.append(f"== {it['path']}:{it['start_line']}-{it['end_line']}")
            out.append(_u(it.get("code")))
    for e in r.get("entries", []):
        out.append(f"== {e.get('header', e['chunk_id'])}")
        out.append(_u(e.get("code")))
    _hint(r, out)


def _r_map(r: dict[str, Any], out: list[str]) -> None:
    for m in r["modules"]:
        out.append(f"{m['module']}/")
        for f in m["files"]:
            out.append(f"  {f['path']}")
            for s in f["symbols"]:
                out.append(f"    {s['line']}: {s['text']}")
    out.append(
        f"({r['used_tokens']} of {r['budget_tokens']} tokens, {r['chosen']} of {r['candidates']} symbols)"
    )
    gone = r.get("left_out") or {}
    b, v = gone.get("built_copies") or 0, gone.get("vendored") or 0
    said = [f"{b} built cop{'ies' if b != 1 else 'y'} (dist/, build/: their source is mapped)"] * (
        b > 0
    ) + [f"{v} symbol{'s' * (v != 1)} of vendored code"] * (v > 0)
    if said:
        out.append(f"(left out: {', '.join(said)})")


def _r_routes(r: dict[str, Any], out: list[str]) -> None:
    for rt in r["routes"]:
        hs = ", ".join(h.get("fqn") or "?" for h in rt["handlers"])
        out.append(f"{rt['method']:8} {rt['route']}  -> {hs}  ({rt['evidence']})")
    for ep in r["endpoints"]:
        where = ", ".join(x["evidence"] for x in ep["read_by"][:5])
        out.append(f"param {ep['name']}: read at {where}" + (" ..." if ep["sites"] > 5 else ""))
    for f in r["entry_files"]:
        out.append(f"entry file {f['path']}")
    _page(r, out)


def _why_value(v: object) -> str:
    """One ``why`` value for a human: lists and mappings spelled out, not as Python reprs."""
    if isinstance(v, dict):
        return "(" + " ".join(f"{k} {_why_value(x)}" for k, x in v.items()) + ")"
    if isinstance(v, (list, tuple)):
        return "/".join(_why_value(x) for x in v)
    return str(v)


def _r_search(r: dict[str, Any], out: list[str], explain: bool = False) -> None:
    """Each hit: place, kind and name, why in one line; ``explain``: the score, every
    feature that moved it and its chunk id (for `code --entry-ids`)."""
    for h in r["hits"]:
        out.append(
            f"{h['evidence']}-{h['end_line']}  {h['kind']} {h.get('fqn') or ''}"
            + (f"  ({h['reason']})" if h.get("reason") else "")
        )
        if explain:
            why = ", ".join(f"{k}={_why_value(v)}" for k, v in h["why"].items())
            out.append(f"    score {h['score']}: {why}")
            out.append(f"    chunk {h['chunk_id']}")
        if h.get("text"):
            out.append(_u(h["text"]))
    if r.get("abstained"):
        out.append(f"no answer: {r.get('hint')}")


def _r_live(r: dict[str, Any], out: list[str]) -> None:
    out.append(
        f"{r['path']}: {r['status']}"
        + (f", {r['changed_lines']} lines changed" if r.get("changed_lines") else "")
    )
    for ln in r["lines"]:
        out.append(f"{ln['n']:6}{ln['mark']} {_u(ln['text'])}")
    for rm in r.get("removed", []):
        out.append(f"     - (indexed line {rm['indexed_line']}, removed) {_u(rm['text'])}")


def _r_slice(r: dict[str, Any], out: list[str]) -> None:
    if r.get("refused"):
        out.append(f"refused: {r['reason']}")
        out.append("try: " + "; ".join(r["alternatives"]))
        return
    t = r.get("target") or {}
    where = t.get("fqn") or (f"{t.get('path')}:{t.get('line')}" if t.get("path") else "?")
    var = f" ({t['variable']})" if t.get("variable") else ""
    head = f"{t.get('direction', 'back')} slice of {where}{var}, depth {t.get('depth', 1)}"
    c = r.get("counts") or {}
    listed = f"{len(r['statements'])}"
    if c.get("statements", 0) > len(r["statements"]):
        listed += f" of {c['statements']}"
    out.append(f"{head}: {listed} statements, {len(r['edges'])} edges")
    if r.get("hint"):
        out.append(f"no slice: {r['hint']}")
    if r.get("narrow"):
        out.append(r["narrow"])
    for s in r["statements"]:
        hop = f" hop {s['hops']}" if s.get("hops") else ""
        sinks = f" sink {','.join(s['sinks'])}" if s.get("sinks") else ""
        out.append(f"  {s['evidence']:<40} {s['kind']:<8}{hop}{sinks}  {_u(s.get('text'))}")
    if r["edges"]:
        out.append("edges:")
        for e in r["edges"]:
            var = f" {e['var']}" if e.get("var") else ""
            prov = f"{e['provenance']} {e['confidence']:.2f}"
            out.append(f"  {e['from']} -> {e['to']}  {e['kind']}{var} [{prov}]")
    if r.get("functions"):
        out.append(
            "functions: " + ", ".join(f"{f['fqn']} ({f['evidence']})" for f in r["functions"])
        )


def _r_flow(r: dict[str, Any], out: list[str]) -> None:
    if r.get("refused"):
        _r_slice(r, out)
        return
    src = r["source"]
    what = src.get("name") or src.get("place") or "?"
    if src.get("fqn"):
        what = f"{src['fqn']}({src['name']})"
    sink = r["sink"].get("place") or r["sink"].get("kind")
    verdict = (
        "reaches"
        if r["reaches"]
        else "may reach (the search stopped at its cap before it could tell)"
        if r.get("complete") is False
        else "does not reach (no path the data-flow layer sees)"
    )
    if src.get("key"):
        what = f"{what}['{src['key']}']"
    found = r.get("sinks_found")
    listed = f" of {found}" if found is not None and found > len(r["paths"]) else ""
    out.append(
        f"{what} {verdict} {sink}: {len(r['paths'])}{listed} paths,"
        f" {r.get('searched', 0)} statements searched"
    )
    if r.get("hint"):
        out.append(f"no flow: {r['hint']}")
    for i, p in enumerate(r["paths"], 1):
        end = p.get("sink")
        head = f"path {i}: {p['length']} steps [{p['provenance']} {p['confidence']:.2f}]"
        if end:
            head += f" -> {end['evidence']} ({', '.join(end['kinds'])})  {_u(end.get('text'))}"
        out.append(head)
        for v in (end or {}).get("via", ()):
            out.append(f"  sink through {v['fqn']}({v['param']}): reaches {v['reaches']}")
        for e in p["edges"]:
            var = f" {e['var']}" if e.get("var") else ""
            out.append(f"  {e['from']} -> {e['to']}  {e['kind']}{var}")
    if r.get("wrappers"):
        out.append("query wrappers (functions that are SQL sinks):")
        for v in r["wrappers"]:
            out.append(f"  {v['fqn']}({v['param']}): {v['why']}")


def _r_status(r: dict[str, Any], out: list[str]) -> None:
    if (r.get("detail") or {}).get("level") != "brief":
        out.append(status_text(r).rstrip("\n"))
        return
    c = r["counts"]
    out.append(
        f"revision   {r['rev_id']}  state {r['state']}  capability {r['capability']}"
        f"{_per_language(r)}"
    )
    nodes = sum(c["nodes"].values()) if isinstance(c["nodes"], dict) else c["nodes"]
    out.append(f"files      {c['files']}  nodes {nodes}  edges {c['edges']}  chunks {c['chunks']}")
    v = r.get("vectors")
    if isinstance(v, dict):
        done = f" ({v['computed']} of {v['total']} chunks)" if "computed" in v else ""
        out.append(f"vectors    {v.get('status')}{done}")
    if r["coverage"]:
        out.append("coverage   " + ", ".join(f"{k} {v:g}" for k, v in r["coverage"].items()))
    sch = r.get("schema") or {}
    if sch.get("source") not in (None, "none"):
        out.append(f"schema     {sch['source']}, {sch.get('tables', 0)} tables")
    out.append(f"ledger     {r['ledger']['entries']} entries")
    out.extend(pending_lines(r.get("pending")))
    left = r["detail"]["left_out"]
    out.append(
        f"-- brief: {left['coverage_metrics']} more coverage metrics, {left['revisions']}"
        " revisions: `--detail full` adds them"
    )


def _columns(rows: list[list[str]], indent: str = "  ") -> list[str]:
    """Rows aligned in columns (the last column is not padded)."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [
        (
            indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1]
        ).rstrip()
        for r in rows
    ]


def _r_schema(r: dict[str, Any], out: list[str]) -> None:
    src = r.get("source")
    head = f"schema from {src}" if src and src != "none" else "no schema found"
    from_code = sum(1 for t in r.get("tables", []) if t.get("source") == "code")
    if from_code and (not src or src == "none"):
        head = "no schema found; tables defined by CREATE TABLE statements in code"
    if r.get("sources"):
        head += (
            " ("
            + ", ".join(_u(x.get("path") if isinstance(x, dict) else x) for x in r["sources"])
            + ")"
        )
    out.append(head + f": {r.get('total', len(r.get('tables', [])))} tables")
    for t in r.get("tables", []):
        extra = f", {t['engine']}" if t.get("engine") else ""
        extra += f", ~{t['row_estimate']} rows" if t.get("row_estimate") is not None else ""
        out.append(f"table {t['name']}  ({t.get('evidence') or t.get('source')}{extra})")
        out.extend(
            _columns(
                [
                    [
                        c["name"],
                        str(c.get("type") or "?"),
                        "null" if c.get("nullable") else "not null",
                        str(c.get("key") or ""),
                    ]
                    for c in t.get("columns", [])
                ],
                "    ",
            )
        )
        fks = t.get("foreign_keys", [])
        if fks:
            out.append(
                "    foreign keys: "
                + ", ".join(f"{k['column']} -> {k['to_table']}.{k['to_column']}" for k in fks)
            )
        refs = t.get("referenced_by", [])
        if refs:
            out.append(
                "    referenced by: "
                + ", ".join(f"{k['from_table']}.{k['from_column']}" for k in refs)
            )
    for v in r.get("views", []):
        out.append(f"view {v.get('name')}  ({v.get('evidence')})")
    for d in r.get("divergences", []):
        col = f".{d['column']}" if d.get("column") else ""
        out.append(
            f"divergence {d['kind']}: {d['table']}{col} (live {d.get('live_type')},"
            f" migrations {d.get('migration_type')})"
        )
    for p in r.get("problems", []):
        out.append(f"problem {p['evidence']}: {_u(p['message'])}")
    files = r.get("files") or {}
    for f in files.get("used", []):
        out.append(f"read from {f['path']} [{f['dialect']}]: {f['why']}")
    left = files.get("rejected", [])
    if left:
        out.append(f"left out {len(left)} SQL file(s):")
        out.extend(f"  {x['path']}: {x['why']}" for x in left)
    if files.get("code_tables"):
        out.append(f"{files['code_tables']} table(s) known only from SQL in code")
    _page(r, out)
    _hint(r, out)


def _r_table_usage(r: dict[str, Any], out: list[str]) -> None:
    where = ", ".join(str(t.get("evidence") or t.get("fqn")) for t in r.get("target", []))
    counts = ", ".join(f"{k} {v}" for k, v in (r.get("counts") or {}).items())
    out.append(
        f"table {r.get('table')}"
        + (f"  ({where})" if where else "")
        + f": {r.get('total', 0)} statements"
        + (f" ({counts})" if counts else "")
    )
    role = r.get("role") or "any"
    skip = (
        {TableRole.WRITE: "readers", TableRole.READ: "writers"}.get(TableRole(role))
        if role != "any"
        else None
    )
    for sec in ("readers", "writers", "possible"):
        items = r.get(sec, [])
        if (sec == "possible" and not items) or sec == skip:
            continue
        out.append(
            f"{sec}: {len(items)}"
            + (
                "  (the table named at run time by a name like this one)"
                if sec == "possible"
                else ""
            )
        )
        for it in items:
            who = (it.get("symbol") or {}).get("fqn") or "(file scope)"
            cols = it.get("columns") or []
            cols = cols if isinstance(cols, str) else ", ".join(cols)  # a list or "unknown"
            flags = [it["provenance"]] + (["dynamic"] if it.get("dynamic") else [])
            out.append(
                f"  {it['evidence']}  {it.get('operation') or '?'}  {who}"
                + (f"  columns {cols}" if cols else "")
                + f"  [{' '.join(flags)} {it['confidence']:.2f}]"
            )
            if it.get("text"):
                out.append(f"      {_u(it['text'])}")
    models = r.get("models") or []
    if models:
        out.append(f"models: {len(models)}  (ORM classes: queries through the class, not SQL)")
        for m in models:
            how = _MODEL_HOW.get(m["how"], "by its name")
            orm = "" if m.get("orm", "eloquent") == "eloquent" else f"{m['orm']} entity, "
            at = f" at {m['mapping']}" if m.get("mapping") else ""
            out.append(f"  {m['fqn']}  {m['evidence']}  ({orm}{how}{at}; {m['uses']} references)")
    files = r.get("files", [])
    if files:
        out.append(f"files: {len(files)}")
        out.extend(f"  {f}" for f in files)
    for u in r.get("unlinked", []):
        out.append(f"unlinked: {_u(u.get('evidence') if isinstance(u, dict) else u)}")
    _page(r, out)
    _hint(r, out)


def _r_drift_report(r: dict[str, Any], out: list[str]) -> None:
    sm = r["summary"]
    since = f" since {r['since']}" if r.get("since") else ""
    if not sm["entries"]:
        out.append(f"no changes registered against {r['rev']}{since}")
    else:
        out.append(
            f"{sm['entries']} ledger entries against {r['rev']}{since}: {sm['files']} files,"
            f" {sm['symbols']} symbols, {sm['edges_invalidated']} edges invalidated (facts whose"
            f" evidence changed), {sm['slice_boundaries']} slice boundaries (code moved into a new"
            f" function); {sm['unacknowledged']} not acknowledged"
        )
    for e in r["entries"]:
        ack = " (acknowledged)" if e.get("acks") else ""
        out.append(f"  #{e['id']} {e['kind']} {e['path']}  {e['ts']}{ack}")
        syms = [
            f"{label} {', '.join(e[key])}"
            for key, label in (
                ("symbols_added", "added"),
                ("symbols_removed", "removed"),
                ("symbols_changed", "changed"),
            )
            if e.get(key)
        ]
        if syms:
            out.append("      " + "; ".join(syms))
        if e.get("edges_invalidated"):
            out.append(f"      {e['edges_invalidated']} edges invalidated")
        if e.get("note"):
            out.append(f"      note: {_u(e['note'])}")
        for a in e.get("acks", []):
            out.append(
                f"      acknowledged by {_u(a['by'])} at {a['ts']}"
                + (f": {_u(a['note'])}" if a.get("note") else "")
            )
    _page(r, out)
    if r.get("hint"):
        out.append(r["hint"])


#: unacknowledged entries the session-start summary lists (all are in --json)
_SHOWN_ENTRIES = 10


def session_summary(env: dict[str, Any], new: int) -> str:
    """`ragraf hook session-start`: a few lines an agent or a human reads before working."""
    r = env["result"]
    rev = env["index_rev"]
    # the entries of the answer's page; the summary counts every entry
    open_entries = [e for e in r["entries"] if not e.get("acks")]
    unacked = int(r["summary"].get("unacknowledged", len(open_entries)))
    if not r["summary"]["entries"]:
        return f"ragraf {rev}: the index matches the tree; no changes registered since it was sealed.\n"
    out = [
        f"ragraf {rev}: {r['summary']['entries']} changes registered since it was sealed"
        f" ({new} new now), {unacked} not acknowledged" + (":" if unacked else ".")
    ]
    for e in open_entries[:_SHOWN_ENTRIES]:
        n = sum(
            len(e.get(k) or []) for k in ("symbols_added", "symbols_removed", "symbols_changed")
        )
        what = f" ({n} symbols)" if n else ""
        note = f" - {_u(e['note'])}" if e.get("note") else ""
        out.append(f"  #{e['id']} {e['kind']} {e['path']}{what}{note}")
    if unacked > min(len(open_entries), _SHOWN_ENTRIES):
        out.append(f"  ... {unacked - min(len(open_entries), _SHOWN_ENTRIES)} more (ragraf drift)")
    ids = ",".join(str(e["id"]) for e in open_entries)
    out.append(
        "Next: facts about these files come with stale warnings; read them as they are now"
        " with `ragraf live-read PATH`."
        + (f" Acknowledge with `ragraf drift --ack {ids}` once accounted for;" if ids else "")
        + " `ragraf reindex --commit` seals a new revision."
    )
    return "\n".join(out) + "\n"


def _r_drift_ack(r: dict[str, Any], out: list[str]) -> None:
    if not r["acked"]:
        out.append("nothing acknowledged")
    for a in r["acked"]:
        out.append(f"acknowledged #{a['entry_id']} by {_u(a['by'])} at {a['ts']}")


def _r_calibrate(r: dict[str, Any], out: list[str]) -> None:
    params = ", ".join(f"{k} {v}" for k, v in (r.get("params") or {}).items())
    out.append(f"calibration #{r['calibration_id']} ({r['kind']}): {params}")
    out.append(
        f"{r['separated']} of {r['sample_size']} samples separated by the cosine"
        f" ({r['separated_with_coverage']} with the term coverage); relevant samples reach cosine"
        f" {r['relevant_min_cosine']:.3f} and more, not relevant ones at most"
        f" {r['not_relevant_max_cosine']:.3f}"
    )


def _r_fields(r: dict[str, Any], out: list[str]) -> None:
    """An operation without its own renderer: one 'key: value' line per field."""
    for k, v in r.items():
        if isinstance(v, dict | list):
            out.append(f"{k}: {len(v)} items (--json)")
        else:
            out.append(f"{k}: {_u(v)}")


_RENDERERS = {
    "symbol": _r_symbol,
    "references": _r_refs,
    "callers": _r_callers,
    "callees": _r_walk,
    "impact": _r_impact,
    "code": _r_code,
    "repo_map": _r_map,
    "routes": _r_routes,
    "search": _r_search,
    "live_read": _r_live,
    "slice": _r_slice,
    "flow": _r_flow,
    "index_status": _r_status,
    "schema": _r_schema,
    "table_usage": _r_table_usage,
    "drift_report": _r_drift_report,
    "drift_ack": _r_drift_ack,
    "calibrate": _r_calibrate,
}


# -- ragraf diff ------------------------------------------------------------------------
def _shifts(lines: list[int]) -> str:
    """The line shifts of a moved file: "+5", "+2, +5", or "-3 to +12" beyond three."""
    if len(lines) > 3:
        return f"{lines[0]:+d} to {lines[-1]:+d}"
    return ", ".join(f"{d:+d}" for d in lines)


def diff_text(res: dict[str, Any]) -> str:
    """`ragraf diff` for humans: the counts, one line per file whose lines moved or that was
    renamed, then only what was really added or removed."""
    n, e = res["nodes"], res["edges"]
    out = [
        f"{res['from']} -> {res['to']}",
        f"nodes: {n['added_total']} added, {n['removed_total']} removed, {n['moved_total']} moved",
        f"edges: {e['added_total']} added, {e['removed_total']} removed, {e['moved_total']} moved",
    ]
    for f in res["moved_files"]:
        out.append(
            f"moved: {f['path']}, lines {_shifts(f['lines'])}"
            f" ({_count(f['nodes'], 'node')}, {_count(f['edges'], 'edge')})"
        )
    for r in n["renamed_files"]:
        out.append(
            f"renamed: {r['from']} -> {r['to']}"
            f" ({_count(r['nodes'], 'node')}, {_count(r['edges'], 'edge')})"
        )
    _more(out, n["renamed_total"], len(n["renamed_files"]), "renamed files")
    for what, sign in (("added", "+"), ("removed", "-")):
        if not (n[f"{what}_total"] or e[f"{what}_total"]):
            continue
        out.append(f"{what}:")
        for it in n[what]:
            out.append(
                f"  {sign} {it['kind']} {it['fqn']}  {it['path'] or ''}:{it['start_line'] or ''}"
            )
        _more(out, n[f"{what}_total"], len(n[what]), "nodes")
        for it in e[what]:
            out.append(f"  {sign} {it['kind']} {it['src']} -> {it['dst']}  {it['evidence']}")
        _more(out, e[f"{what}_total"], len(e[what]), "edges")
    return "\n".join(out) + "\n"


def _count(n: int, word: str) -> str:
    """``3 edges``, ``1 edge``."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def _more(out: list[str], total: int, shown: int, what: str) -> None:
    if total > shown:
        out.append(f"  ... {total - shown} more {what} (--limit {total} lists them all)")
