"""Brief answers: the items of ``callers``, ``callees``, ``references`` and ``impact`` sized
for an agent's context, what is common to them said once (`detail: brief`, the default).

An operation builds its full items first (every edge with its uid, provenance and
confidence, every node with its id: ``detail: full``); the functions here only reshape
them, so both details rest on the same facts, touch the same files and record the same
edges for the stale-edge check.

Invariants a change must keep:
- Nothing is dropped that an agent can use: every listed symbol keeps its kind, name,
  file and span (its evidence, FT-7: ``path`` + ``start_line``), every call or use line
  its own path:line (``path`` said once for the lines in it, ``at`` for any elsewhere).
- Stated and derived stay apart (P3): the sections say the provenance; an item whose
  confidence is below 1 carries it, and a derived edge's reason (``via``, ``hook``...)
  stays on its item.
- Counts, totals, ``page`` and the call-site accounting (``unresolved``) are the full
  answer's: a brief answer lists the same items, only shorter.
- Internal ids (``node_id``, ``edge_uid``) are in ``detail: full`` only; the targets keep
  theirs (a follow-up question names one by ``node_id``).
"""

from __future__ import annotations

from typing import Any

from ragraf.facade.context import SHOWN_EDGE_PROPS
from ragraf.kinds import Provenance

#: dynamic call sites a brief answer lists (all are counted; ``detail: full`` lists
#: ``accounting.LISTED``)
DYNAMIC_LISTED = 5
#: node fields a brief symbol keeps besides kind, name, file and span
_NODE_FLAGS = ("external", "partial_parse", "write_operations", "signature")


def is_brief(args: dict[str, Any]) -> bool:
    """Whether the answer is brief (``detail``'s default)."""
    return bool(args.get("detail", "brief") != "full")


def dynamic_listed(args: dict[str, Any]) -> int:
    """The most dynamic call sites the answer lists."""
    from ragraf.facade.accounting import LISTED

    return DYNAMIC_LISTED if is_brief(args) else LISTED


def symbol(node: dict[str, Any]) -> dict[str, Any]:
    """A node without its id and its evidence string (``path`` and ``start_line`` say it):
    kind, fqn (its name when it has none), path, span and the flags it carries."""
    out: dict[str, Any] = {"kind": node["kind"]}
    if node.get("fqn"):
        out["fqn"] = node["fqn"]
    else:
        out["name"] = node.get("name")
    if node.get("path"):
        out["path"] = node["path"]
        out["start_line"] = node.get("start_line")
        if node.get("end_line") not in (None, node.get("start_line")):
            out["end_line"] = node["end_line"]
    for k in _NODE_FLAGS:
        if node.get(k):
            out[k] = node[k]
    return out


def walk_item(item: dict[str, Any]) -> dict[str, Any]:
    """A ``callers`` / ``callees`` item: the symbol (``symbol``), its depth, its confidence
    when below 1, its call lines in its own file (``lines``) and elsewhere (``at``,
    path:line), the reason of its first derived edge (``via``, ``hook``...), ``how`` and
    ``evidence_total`` as the full item has them."""
    out = symbol(item["symbol"])
    out["depth"] = item["depth"]
    if item["confidence"] < 1:
        out["confidence"] = item["confidence"]
    _lines(out, item["evidence"])
    first = item["evidence"][0] if item["evidence"] else {}
    for k in SHOWN_EDGE_PROPS:
        if k in first and k not in out:
            out[k] = first[k]
    for k in ("how", "evidence_total"):
        if k in item:
            out[k] = item[k]
    return out


def _lines(out: dict[str, Any], edges: list[dict[str, Any]]) -> None:
    """The edges' lines in the item's own file as ``lines`` (sorted, each once), the rest
    as path:line strings in ``at``."""
    here = out.get("path")
    lines = sorted({e["line"] for e in edges if e.get("path") == here and e.get("line")})
    at = sorted({e["evidence"] for e in edges if e.get("path") != here and e.get("evidence")})
    out["lines"] = lines
    if at:
        out["at"] = at


def site(edge: dict[str, Any]) -> dict[str, Any]:
    """A ``references`` site: its line, kind, the symbol it is in (``from``), provenance and
    confidence when derived or below 1, the reason, the line's text."""
    out: dict[str, Any] = {"line": edge["line"], "kind": edge["kind"]}
    if edge["provenance"] != Provenance.STATED:
        out["provenance"] = edge["provenance"]
    if edge["confidence"] < 1:
        out["confidence"] = edge["confidence"]
    for k in SHOWN_EDGE_PROPS:
        if k in edge:
            out[k] = edge[k]
    who = edge.get("symbol") or {}
    out["from"] = who.get("fqn") or who.get("name")
    if edge.get("text") is not None:
        out["text"] = edge["text"]
    return out


def by_file(items: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """Items that each carry a ``path`` grouped by it, in the order their files first
    appear: ``[{path, <key>: [items without path]}]`` (an item without a path is a group
    of its own with path null)."""
    groups: dict[str | None, list[dict[str, Any]]] = {}
    for it in items:
        rest = {k: v for k, v in it.items() if k != "path"}
        groups.setdefault(it.get("path"), []).append(rest)
    return [{"path": p, key: xs} for p, xs in groups.items()]


def sites(edges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``references`` sites grouped by file (path once, each site's line in it)."""
    return by_file([{"path": e.get("path"), **site(e)} for e in edges], "sites")


def impact_item(node: dict[str, Any]) -> dict[str, Any]:
    """An ``impact`` symbol, route, table, doc or test: the brief symbol and its depth."""
    return {**symbol(node), "depth": node["depth"]}


def impact_list(nodes: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """An ``impact`` list grouped by file; ``tests`` by their names only (each test is
    also a symbol, route or doc of the section: its span and depth are there)."""
    if key == "tests":
        named = [{"path": n.get("path"), "name": n.get("fqn") or n.get("name")} for n in nodes]
        return [{"path": g["path"], key: [t["name"] for t in g[key]]} for g in by_file(named, key)]
    return by_file([impact_item(n) for n in nodes], key)


def _account_site(s: dict[str, Any], dynamic: bool) -> dict[str, Any]:
    """An unresolved or dynamic call site without its evidence string (path and line say
    it); a dynamic one without its reason (always a computed name), its name when unknown
    (``*``) and the symbol it is in (its line's text says what it calls)."""
    out: dict[str, Any] = {"path": s["path"], "line": s["line"]}
    if not (dynamic and s.get("name") == "*"):
        out["name"] = s.get("name")
    out["form"] = s.get("form")
    if not dynamic:
        out["reason"] = s.get("reason")
    for k in ("detail", "from", "text"):
        if s.get(k) is not None and not (dynamic and k == "from"):
            out[k] = s[k]
    return out


def unresolved(acc: dict[str, Any]) -> dict[str, Any]:
    """The call-site accounting with its counts as they are and its listed sites grouped
    by file (``[{path, sites: [{line, ...}]}]``)."""
    out = dict(acc)
    out["sites"] = by_file([_account_site(s, False) for s in acc["sites"]], "sites")
    dyn = dict(acc["dynamic"])
    dyn["sites"] = by_file([_account_site(s, True) for s in dyn["sites"]], "sites")
    out["dynamic"] = dyn
    return out
