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
    v = d.get("vectors")
    if isinstance(v, dict):
        v = (
            f"{v['status']}: {v.get('model')} ({v.get('computed')} computed, {v.get('reused')} reused)"
            if v.get("status") == "ready"
            else f"{v.get('status')}" + (f" ({v['reason']})" if v.get("reason") else "")
        )
    out.append(f"vectors    {v}")
    c = d["counts"]
    out.append(f"files      {c['files']}    chunks {c['chunks']}")
    out.append("nodes      " + ", ".join(f"{k} {v}" for k, v in c["nodes"].items()))
    out.append("edges      " + ", ".join(f"{k} {v}" for k, v in c["edges"].items()))
    cov = d["coverage"]
    files = ", ".join(
        f"{s} {int(cov[f'files.{s}']['value'])}"
        for s in ("ok", "partial", "failed", "skipped")
        if f"files.{s}" in cov
    )
    out.append(f"coverage   files: {files}")
    share = cov.get("calls.stated_share", {}).get("value")
    if share is not None:
        out.append(
            f"           calls: {int(cov['calls.total']['value'])} total, {share:.1%} stated, "
            f"{int(cov['calls.derived']['value'])} derived, "
            f"{int(cov.get('calls.external', {}).get('value') or 0)} external, "
            f"{int(cov['calls.unresolved']['value'])} unresolved"
        )
    for st in ("partial", "failed", "skipped"):
        note = cov.get(f"files.{st}", {}).get("note")
        if note:
            out.append(f"           {st}: {note}")
    unreadable = cov.get("files.unreadable_dirs", {}).get("note")
    if unreadable:
        out.append(f"           folders not readable: {unreadable}")
    sch = d.get("schema") or {}
    if sch.get("source") not in (None, "none") or sch.get("incomplete"):
        out.append(
            f"schema     {sch.get('source')}"
            + (f" ({sch['dialect']})" if sch.get("dialect") else "")
            + (f"; incomplete: {sch['incomplete']}" if sch.get("incomplete") else "")
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
    out.append("stores     " + ", ".join(f"{k} {_size(v)}" for k, v in d["store_bytes"].items()))
    return "\n".join(out) + "\n"


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


def envelope_text(env: dict[str, Any]) -> str:
    r = env["result"]
    op = env["op"]
    out: list[str] = []
    render = _RENDERERS.get(op)
    if render is not None:
        render(r, out)
    else:
        import json

        out.append(json.dumps(r, indent=2))
    d = env["drift"]
    foot = f"-- {env['index_rev']} · {env['capability']} · provenance {env['provenance']}"
    if d["entries"] or d["files"]:
        foot += (
            f" · drift: {d['files']} files, {d['symbols']} symbols, {d['entries']} ledger entries"
        )
    out.append(foot)
    for w in env["stale_warnings"]:
        out.append(f"!! STALE {w['path']}: {w['reason']} -> {w['suggest']}")
    for lim in env["limits"][1:]:
        out.append(f"-- {lim}")
    return "\n".join(out) + "\n"


def _hint(r: dict[str, Any], out: list[str]) -> None:
    if r.get("hint"):
        out.append(f"not found: {r['hint']}")


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
    _hint(r, out)


def _r_refs(r: dict[str, Any], out: list[str]) -> None:
    if r.get("counts"):
        out.append("counts: " + ", ".join(f"{k} {v}" for k, v in r["counts"].items()))
    for s in r["sites"]:
        who = s.get("symbol") or {}
        out.append(f"{_edge(s)}  from {who.get('fqn') or who.get('name') or '?'}")
        if s.get("text"):
            out.append(f"    {_u(s['text'])}")
    _unresolved(r, out)
    _hint(r, out)


def _r_walk(r: dict[str, Any], out: list[str]) -> None:
    for sec in ("stated", "derived"):
        out.append(f"{sec}: {len(r.get(sec, []))}")
        for it in r.get(sec, []):
            ev = it["evidence"][0]["evidence"] if it["evidence"] else ""
            out.append(
                f"  [{it['depth']}] {_sym(it['symbol'])}  conf {it['confidence']:.2f}  at {ev}"
            )
    _unresolved(r, out)
    _hint(r, out)


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
        for site in u["sites"][:_SHOWN_UNRESOLVED]:
            detail = f" {site['detail']}" if site.get("detail") else ""
            out.append(f"  {site['evidence']}  {site['reason'].replace('_', ' ')}{detail}")
            if site.get("text"):
                out.append(f"      {_u(site['text'])}")
        if u["total"] > _SHOWN_UNRESOLVED:
            out.append(f"  ... {u['total'] - _SHOWN_UNRESOLVED} more (--json)")
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


def _r_impact(r: dict[str, Any], out: list[str]) -> None:
    for sec in ("hard", "soft"):
        s = r.get(sec) or {}
        out.append(
            f"{sec}: {len(s.get('files', []))} files, {len(s.get('symbols', []))} symbols, "
            f"{len(s.get('routes', []))} routes, {len(s.get('tables', []))} tables, {len(s.get('tests', []))} tests"
        )
        for it in s.get("symbols", [])[:50]:
            out.append(f"  [{it['depth']}] {_sym(it)}")
        for it in s.get("routes", [])[:20]:
            out.append(f"  route {it.get('fqn')}")
    _unresolved(r, out)
    _hint(r, out)


def _r_code(r: dict[str, Any], out: list[str]) -> None:
    for it in r.get("items", []):
        if "signature" in it:
            out.append(f"{it['path']}:{it['start_line']}  {it['signature']}")
        else:
            out.append(f"== {_sym(it)}")
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


def _r_routes(r: dict[str, Any], out: list[str]) -> None:
    for rt in r["routes"]:
        hs = ", ".join(h.get("fqn") or "?" for h in rt["handlers"])
        out.append(f"{rt['method']:8} {rt['route']}  -> {hs}  ({rt['evidence']})")
    for ep in r["endpoints"]:
        where = ", ".join(x["evidence"] for x in ep["read_by"][:5])
        out.append(f"param {ep['name']}: read at {where}" + (" ..." if ep["sites"] > 5 else ""))
    for f in r["entry_files"]:
        out.append(f"entry file {f['path']}")


def _r_search(r: dict[str, Any], out: list[str]) -> None:
    for h in r["hits"]:
        why = ", ".join(f"{k}={v}" for k, v in h["why"].items())
        out.append(
            f"{h['evidence']}-{h['end_line']}  {h['kind']} {h.get('fqn') or ''}  score {h['score']}  ({why})"
        )
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
    out.append(f"refused: {r['reason']}")
    out.append("try: " + "; ".join(r["alternatives"]))


def _r_status(r: dict[str, Any], out: list[str]) -> None:
    out.append(status_text(r).rstrip("\n"))


_RENDERERS = {
    "symbol": _r_symbol,
    "references": _r_refs,
    "callers": _r_walk,
    "callees": _r_walk,
    "impact": _r_impact,
    "code": _r_code,
    "repo_map": _r_map,
    "routes": _r_routes,
    "search": _r_search,
    "live_read": _r_live,
    "slice": _r_slice,
    "index_status": _r_status,
}
