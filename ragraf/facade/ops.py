"""The facade operations (architecture §7). One function per operation; its
docstring is the MCP tool description and the reference text.

Invariants a change must keep:
- No query language, no writes, no fact without evidence (FT-4, FT-7, FT-9):
  every node carries ``evidence`` (path:line), every edge its own.
- Stated and derived facts are never mixed silently: callers / callees /
  impact put them in separate sections; each derived item has its confidence.
- Not found is an answer: an empty result with a hint (nearest names, live_read).
- Bodies of code only through ``code`` (explicit request) and ``live_read``.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from ragraf.errors import InvalidArgument
from ragraf.facade import orm, sanitize, schemaops
from ragraf.facade.accounting import call_accounting
from ragraf.facade.context import (
    EVIDENCE_PER_ITEM,
    LIMIT_SLICE_REFUSED,
    MAX_ITEMS,
    Ctx,
    split_lines,
)
from ragraf.kinds import (
    CALL_EDGES,
    CALLABLE,
    CLASS_LIKE,
    DB,
    DB_OBJECT,
    DOCS,
    IMPACT_EDGES,
    INHERIT_EDGES,
    USE_EDGES,
    ChangeKind,
    EdgeKind,
    NodeKind,
    Provenance,
)
from ragraf.lang.php import hooks
from ragraf.limits import HIERARCHY_DEPTH
from ragraf.model import SCHEMA_PATH, EdgeRow, LedgerEntry, NodeRow, props_of

#: the most nodes an impact walk visits before it stops (it says so in limits)
IMPACT_REACH_LIMIT = 20_000
#: difflib ratio above which a symbol name is offered as "nearest" for a name not found
NEAREST_NAME_CUTOFF = 0.7
#: symbols whose code one `code` call returns (a short name can match many)
CODE_TARGETS = 10


# -- helpers -------------------------------------------------------------------
def _hint_not_found(ctx: Ctx, what: str) -> dict[str, Any]:
    short = re.split(r"[\\:$/]+", what)[-1] or what
    # the ledger may know it: a symbol added (or a file created) after the revision
    added_in = []
    low, short_low = what.lower().lstrip("\\"), short.lower()
    for e in ctx.ledger():
        names = e.names("symbols_added")
        if e.path.lower() == low or any(
            n.lower() == low or re.split(r"[\\:$]+", n)[-1].lower() == short_low for n in names
        ):
            ctx.touch(e.path)
            added_in.append(e.path)
    if added_in:
        return {
            "nearest": [],
            "hint": f"'{what}' is not in {ctx.rev}, but the ledger records it in "
            f"{', '.join(sorted(set(added_in)))} after the revision: read it with live_read.",
        }
    nearest: list[str] = []
    if len(short) >= 3:
        by_short: dict[str, list[str]] = defaultdict(list)
        for name, fqn in ctx.graph.symbol_names(ctx.rev):
            by_short[name.lstrip("$").lower()].append(fqn)
        for s in difflib.get_close_matches(
            short.lstrip("$").lower(), list(by_short), n=5, cutoff=NEAREST_NAME_CUTOFF
        ):
            nearest.extend(sorted(by_short[s])[:3])
        nearest = nearest[:8]
    return {
        "nearest": nearest,
        "hint": f"'{what}' is not in {ctx.rev}. "
        + (f"Nearest names: {', '.join(nearest)}. " if nearest else "")
        + "If it was added after the index, read the file with live_read or search the tree (rg).",
    }


def _targets(ctx: Ctx, args: dict[str, Any]) -> list[NodeRow]:
    """Nodes named by node_id or fqn (fqn: exact, case-insensitive; then by a trailing name)."""
    if args.get("node_id"):
        row = ctx.graph.node(ctx.rev, args["node_id"])
        return [row] if row else []
    fqn = args["fqn"].strip().lstrip("\\")
    rows = ctx.graph.nodes_by_fqn(ctx.rev, fqn)
    if not rows and "\\" not in fqn:
        rows = ctx.graph.nodes_by_fqn_suffix(ctx.rev, fqn)
    if args.get("path"):
        rows = [r for r in rows if r.path == args["path"]]
    return rows


def _container(ctx: Ctx, node_id: str) -> dict[str, Any] | None:
    for e in ctx.graph.edges_to(ctx.rev, [node_id], (EdgeKind.CONTAINS,)):
        row = ctx.graph.node(ctx.rev, e.src)
        if row is not None and row.kind != NodeKind.NAMESPACE:
            return {"kind": row.kind, "fqn": row.fqn, "node_id": row.node_id}
    return None


# -- operations ------------------------------------------------------------------
def symbol(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Find a declaration by name or fully qualified name (`App\\Billing\\Invoice::charge`,
    `charge`, `Invoice`): kind, file, lines, signature, visibility, parameters and the
    declaring container. Optional `path` narrows to one file, `kind` to one node kind."""
    raw = (args.get("fqn") or args.get("name") or "").strip()
    what = raw.lstrip("\\")
    rows: list[NodeRow] = []
    if "fqn" in args or "\\" in what or "::" in what:
        rows = ctx.graph.nodes_by_fqn(ctx.rev, what)
        if not rows:
            rows = ctx.graph.nodes_by_fqn_suffix(ctx.rev, what)
    if not rows and "fqn" not in args:
        rows = ctx.graph.nodes_by_name(ctx.rev, what)
        if not rows and not what.startswith("$"):
            rows = ctx.graph.nodes_by_name(ctx.rev, "$" + what)
    if args.get("path"):
        rows = [r for r in rows if r.path == args["path"]]
    if args.get("kind"):
        rows = [r for r in rows if r.kind == args["kind"]]
    inherited = None
    if not rows and "::" in what:
        inherited = _inherited_member(ctx, what)
        if inherited:
            rows = [inherited[1]]
    matches = []
    for r in rows[:50]:
        m = ctx.node(r, full=True)
        m["declared_in"] = _container(ctx, r.node_id)
        if inherited:
            m["inherited_by"] = inherited[0]
        matches.append(m)
    out: dict[str, Any] = {"query": sanitize.clean(raw), "matches": matches, "total": len(rows)}
    if not matches:
        out.update(_hint_not_found(ctx, what))
    return out


def _inherited_member(ctx: Ctx, fqn: str) -> tuple[str, NodeRow] | None:
    cls, _, member = fqn.partition("::")
    frontier = [r.node_id for r in ctx.graph.nodes_by_fqn(ctx.rev, cls)]
    seen = set(frontier)
    for _depth in range(HIERARCHY_DEPTH):
        nxt = []
        for e in ctx.graph.edges_from(ctx.rev, frontier, INHERIT_EDGES, stated_only=True):
            if e.dst in seen:
                continue
            seen.add(e.dst)
            parent = ctx.graph.node(ctx.rev, e.dst)
            if parent is None:
                continue
            hits = ctx.graph.nodes_by_fqn(ctx.rev, f"{parent.fqn}::{member}")
            if hits:
                return cls, hits[0]
            nxt.append(e.dst)
        frontier = nxt
        if not frontier:
            break
    return None


def references(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Every usage site of a symbol (by `node_id` or `fqn`): calls, references, `new`,
    extends / implements / trait use, imports, overrides, doc mentions; each with its
    path:line, the text of that line, provenance and confidence."""
    targets = _targets(ctx, args)
    if not targets:
        return {
            "target": None,
            "sites": [],
            "total": 0,
            "counts": {},
            **_hint_not_found(ctx, args.get("fqn") or args.get("node_id", "")),
        }
    ids = [t.node_id for t in targets]
    edges = ctx.graph.edges_to(ctx.rev, ids, USE_EDGES)
    srcs = ctx.graph.nodes_by_ids(ctx.rev, [e.src for e in edges])
    counts: dict[str, int] = defaultdict(int)
    sites: list[dict[str, Any]] = []
    for e in edges:
        counts[e.kind] += 1
        if len(sites) < MAX_ITEMS:
            src = srcs.get(e.src)
            sites.append(ctx.edge(e, ctx.node(src) if src else None))
    if len(edges) > MAX_ITEMS:
        ctx.limits.append(f"references: {len(edges)} sites, the first {MAX_ITEMS} are listed")
    out: dict[str, Any] = {
        "target": [ctx.node(t, full=True) for t in targets],
        "sites": sites,
        "total": len(edges),
        "counts": dict(sorted(counts.items())),
    }
    acc = call_accounting(ctx, targets, _lines(e for e in edges if e.kind in CALL_EDGES))
    if acc is not None:
        out["unresolved"] = acc
    return out


def _walk(ctx: Ctx, args: dict[str, Any], direction: str) -> dict[str, Any]:
    targets = _targets(ctx, args)
    if not targets:
        return {
            "target": None,
            "stated": [],
            "derived": [],
            "total": 0,
            **_hint_not_found(ctx, args.get("fqn") or args.get("node_id", "")),
        }
    depth = args["depth"]
    hard = args["hard_only"]
    best: dict[tuple[str, str], dict[str, Any]] = {}
    frontier: dict[str, tuple[float, str]] = {t.node_id: (1.0, Provenance.STATED) for t in targets}
    seen = set(frontier)
    hops: list[tuple[str, EdgeRow, float, str, int]] = []
    for d in range(1, depth + 1):
        if direction == "in":
            rows = ctx.graph.edges_to(ctx.rev, list(frontier), CALL_EDGES, stated_only=hard)
        else:
            rows = ctx.graph.edges_from(ctx.rev, list(frontier), CALL_EDGES, stated_only=hard)
        nxt: dict[str, tuple[float, str]] = {}
        for e in rows:
            here, there = (e.dst, e.src) if direction == "in" else (e.src, e.dst)
            conf0, prov0 = frontier[here]
            conf = round(conf0 * e.confidence, 4)
            derived = prov0 == Provenance.DERIVED or e.provenance == Provenance.DERIVED
            prov: str = Provenance.DERIVED if derived else Provenance.STATED
            hops.append((there, e, conf, prov, d))
            if there not in seen:
                old = nxt.get(there)
                if (
                    old is None
                    or (old[1] == Provenance.DERIVED and prov == Provenance.STATED)
                    or conf > old[0]
                ):
                    nxt[there] = (conf, prov)
        seen.update(nxt)
        frontier = nxt
        if not frontier:
            break
    if direction == "in" and not hard:
        # possible dynamic dispatch: callers of the declarations this method overrides
        dispatch = ctx.s.config().conf("override_dispatch")
        for t in targets:
            for ov in ctx.graph.edges_from(ctx.rev, [t.node_id], (EdgeKind.OVERRIDES,)):
                for e in ctx.graph.edges_to(ctx.rev, [ov.dst], CALL_EDGES):
                    hops.append(
                        (e.src, e, round(dispatch * e.confidence, 4), Provenance.DERIVED, 1)
                    )
            if _is_abstract(ctx, t):
                # an interface or abstract method runs as its implementations: their
                # callers (on receivers typed by the concrete class) call it too
                impls = [
                    e.src for e in ctx.graph.edges_to(ctx.rev, [t.node_id], (EdgeKind.OVERRIDES,))
                ]
                for e in ctx.graph.edges_to(ctx.rev, impls, CALL_EDGES):
                    hops.append(
                        (e.src, e, round(dispatch * e.confidence, 4), Provenance.DERIVED, 1)
                    )
    nodes = ctx.graph.nodes_by_ids(ctx.rev, [h[0] for h in hops])
    for there, e, conf, prov, d in hops:
        n = nodes.get(there)
        if n is None:
            continue
        key = (there, prov)
        item = best.get(key)
        ev = ctx.edge(e, None, with_text=False)  # line texts: `references`
        if item is None:
            item = {
                "symbol": ctx.node(n),
                "depth": d,
                "confidence": conf,
                "provenance": prov,
                "evidence": [],
            }
            best[key] = item
        if d < item["depth"]:
            item["depth"] = d
        item["confidence"] = max(item["confidence"], conf)
        if len(item["evidence"]) < EVIDENCE_PER_ITEM:
            item["evidence"].append(ev)
    stated = sorted(
        (v for v in best.values() if v["provenance"] == "stated"),
        key=lambda v: (v["depth"], v["symbol"]["fqn"] or "", v["symbol"]["path"] or ""),
    )
    stated_ids = {v["symbol"]["node_id"] for v in stated}
    derived_items = sorted(
        (
            v
            for v in best.values()
            if v["provenance"] == "derived" and v["symbol"]["node_id"] not in stated_ids
        ),
        key=lambda v: (v["depth"], -v["confidence"], v["symbol"]["fqn"] or ""),
    )
    total = len(stated) + len(derived_items)
    if total > MAX_ITEMS:
        ctx.limits.append(f"{ctx.op}: {total} symbols, the first {MAX_ITEMS} are listed")
    out: dict[str, Any] = {
        "target": [ctx.node(t) for t in targets],
        "depth": depth,
        "hard_only": hard,
        "stated": stated[:MAX_ITEMS],
        "derived": derived_items[: max(0, MAX_ITEMS - len(stated))],
        "total": total,
    }
    if direction == "out":
        rendered = _rendered(ctx, targets)
        if rendered:
            out["templates"] = rendered
    if direction == "in":
        # the call lines attached to the targets (shown or not: hard_only hides derived
        # ones) and those the answer shows at depth 1 through overrides
        direct = _lines(h[1] for h in hops if h[4] == 1)
        if hard:
            ids = [t.node_id for t in targets]
            direct |= _lines(ctx.graph.edges_to(ctx.rev, ids, CALL_EDGES))
        acc = call_accounting(ctx, targets, direct)
        if acc is not None:
            out["unresolved"] = acc
        out.update(_registrations(ctx, targets, total == 0))
        if total == 0:
            _drupal_hook_note(ctx, targets)
        outside = _outside_parents(ctx, targets)
        if outside:
            out["outside_parents"] = outside
        _magic_note(ctx, targets)
    return out


def _rendered(ctx: Ctx, targets: list[NodeRow]) -> list[dict[str, Any]]:
    """The template files the targets render (``renders`` edges), by call line."""
    rows = ctx.graph.edges_from(ctx.rev, [t.node_id for t in targets], (EdgeKind.RENDERS,))
    files = ctx.graph.nodes_by_ids(ctx.rev, {e.dst for e in rows})
    out = []
    for e in sorted(rows, key=lambda e: (e.evidence_path, e.evidence_line, e.dst)):
        f = files.get(e.dst)
        if f is None or f.path is None:
            continue
        ctx.touch(f.path)
        out.append(
            {
                "path": f.path,
                "template": props_of(e.props).get("template"),
                "confidence": e.confidence,
                "provenance": e.provenance,
                "evidence": f"{e.evidence_path}:{e.evidence_line}",
            }
        )
    return out


#: PHP's magic methods the engine calls without a call in the code, and when
PHP_IMPLICIT = {
    "__tostring": "when the object is used as a string (echo, concatenation, casts)",
    "__destruct": "when the object is destroyed",
    "__clone": "on `clone $obj`",
    "__get": "when an inaccessible property is read",
    "__set": "when an inaccessible property is written",
    "__isset": "on isset() or empty() of an inaccessible property",
    "__unset": "on unset() of an inaccessible property",
    "__sleep": "on serialize()",
    "__wakeup": "on unserialize()",
    "__serialize": "on serialize()",
    "__unserialize": "on unserialize()",
    "__set_state": "on var_export()",
    "__debuginfo": "on var_dump()",
}


def _magic_note(ctx: Ctx, targets: list[NodeRow]) -> None:
    """A magic method PHP calls implicitly: the limits say when, since no call line of the
    code names it (``__call`` and ``__invoke`` calls are linked as calls)."""
    for t in targets:
        when = PHP_IMPLICIT.get((t.name or "").lower()) if t.kind == NodeKind.METHOD else None
        if when:
            ctx.limits.append(
                f"{ctx.op}: PHP calls {t.name} itself {when}; those places are not call lines"
                " and are not listed"
            )
            return


def _outside_parents(ctx: Ctx, targets: list[NodeRow]) -> list[str]:
    """The classes and interfaces outside the corpus (a framework, a vendor library, PHP's
    own ``Iterator``) that a target method's class extends or implements, up its corpus
    ancestors (``HIERARCHY_DEPTH`` levels): a method it overrides there is called by code
    there, which no edge of the corpus shows. The limits say so. Constructors and private
    methods aside (nothing outside calls them through a parent)."""
    methods = [
        t
        for t in targets
        if t.kind == NodeKind.METHOD
        and (t.name or "").lower() != "__construct"
        and props_of(t.props).get("visibility") != "private"
    ]
    if not methods:
        return []
    classes = [
        e.src
        for e in ctx.graph.edges_to(ctx.rev, [m.node_id for m in methods], (EdgeKind.CONTAINS,))
    ]
    seen, frontier, outside = set(classes), list(classes), set()
    for _ in range(HIERARCHY_DEPTH):
        if not frontier:
            break
        ups = ctx.graph.edges_from(ctx.rev, frontier, (EdgeKind.EXTENDS, EdgeKind.IMPLEMENTS))
        frontier = []
        nodes = ctx.graph.nodes_by_ids(ctx.rev, {e.dst for e in ups})
        for e in ups:
            n = nodes.get(e.dst)
            if n is None or e.dst in seen:
                continue
            seen.add(e.dst)
            if n.path is None:
                outside.add(n.fqn or n.name or "")
            else:
                frontier.append(e.dst)
    names = sorted(x for x in outside if x)
    if names:
        shown = ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
        method = methods[0].name
        ctx.limits.append(
            f"{ctx.op}: its class extends or implements {shown}, declared outside the corpus"
            f" (result.outside_parents): if {method} overrides a method there, code there"
            " calls it, which no edge here shows"
        )
    return names


def _drupal_hook_note(ctx: Ctx, targets: list[NodeRow]) -> None:
    """A function named ``<module>_<hook>`` in a Drupal module's file implements
    ``hook_<hook>``: with no caller in the corpus, the limits say Drupal calls it."""
    for t in targets:
        module = hooks.drupal_module(t.path or "") if t.kind == NodeKind.FUNCTION else None
        if module and (t.name or "").lower().startswith(module.lower() + "_"):
            hook = (t.name or "")[len(module) + 1 :]
            ctx.limits.append(
                f"{ctx.op}: {t.name} implements hook_{hook} of Drupal's module {module} by its"
                f" name: Drupal calls it where the hook runs, which nothing in the corpus does"
            )


def _registrations(ctx: Ctx, targets: list[NodeRow], no_callers: bool) -> dict[str, Any]:
    """Where the targets are handed over to be called later, from their ``references``
    edges marked ``callable``: ``hooks``, where they are added to a hook (WordPress's
    ``add_action`` / ``add_filter``: a ``hook`` prop) with how many runs of that hook the
    corpus has linked to them (``calls_heuristic`` via ``hook``); ``callbacks``, where they
    are passed as a callable (``usort($a, 'cmp')``, ``add_menu_page(..., 'render')``,
    ``[$this, 'm']``). A hook nothing in the corpus runs gets a limit (the code around the
    corpus runs it), and so do callbacks when nothing calls the targets directly: "no
    callers" is not "never called"."""
    ids = [t.node_id for t in targets]
    regs: list[tuple[EdgeRow, dict[str, Any]]] = []
    for e in ctx.graph.edges_to(ctx.rev, ids, (EdgeKind.REFERENCES,)):
        p = props_of(e.props) if e.props else {}
        if p.get("callable") or p.get("hook"):
            regs.append((e, p))
    if not regs:
        return {}
    runs: dict[tuple[str, str], set[tuple[str | None, int | None]]] = defaultdict(set)
    if any(p.get("hook") for _e, p in regs):
        for e in ctx.graph.edges_to(ctx.rev, ids, (EdgeKind.CALLS_HEURISTIC,)):
            p = props_of(e.props) if e.props else {}
            if p.get("via") in ("hook", "dispatch"):
                runs[(e.dst, str(p.get("hook")))].add((e.evidence_path, e.evidence_line))
    owners = ctx.graph.nodes_by_ids(ctx.rev, [e.src for e, _p in regs])
    added: list[dict[str, Any]] = []
    callbacks: list[dict[str, Any]] = []
    for e, p in sorted(regs, key=lambda ep: (ep[0].evidence_path or "", ep[0].evidence_line or 0)):
        ctx.touch(e.evidence_path)
        owner = owners.get(e.src)
        site: dict[str, Any] = {
            "evidence": f"{e.evidence_path}:{e.evidence_line}",
            "path": e.evidence_path,
            "line": e.evidence_line,
            "from": sanitize.name(owner.fqn or owner.name) if owner else None,
            "text": ctx.line_text(e.evidence_path, e.evidence_line) if e.evidence_path else None,
        }
        if p.get("hook"):
            hook = str(p["hook"])
            added.append(
                {
                    "hook": sanitize.name(hook),
                    "call": p.get("hook_call"),
                    **site,
                    "runs": len(runs.get((e.dst, hook), ())),
                }
            )
        else:
            if p.get("via") == "name_string":  # a string with its name, outside a call
                site["via"], site["confidence"] = "name_string", e.confidence
            callbacks.append(site)
    idle = sorted({h["hook"] for h in added if not h["runs"]})
    if idle:
        names = ", ".join(f"'{h}'" for h in idle[:5]) + (" ..." if len(idle) > 5 else "")
        ctx.limits.append(
            f"{ctx.op}: added to {len(idle)} hook(s) nothing in the corpus runs ({names};"
            " result.hooks): the code that runs them (the framework, another plugin or extension)"
            " calls it"
        )
    if callbacks and no_callers:
        named = sum(1 for c in callbacks if c.get("via") == "name_string")
        how = (
            "passed as a callable"
            if not named
            else "named in a string"
            if named == len(callbacks)
            else "passed as a callable or named in a string"
        )
        ctx.limits.append(
            f"{ctx.op}: {how} at {len(callbacks)} site(s) (result.callbacks"
            + ("; a string with its name may also only share it (derived)" if named else "")
            + "): whatever calls that callable calls it"
        )
    out: dict[str, Any] = {}
    if added:
        out["hooks"] = added
    if callbacks:
        out["callbacks"] = callbacks[:MAX_ITEMS]
        if len(callbacks) > MAX_ITEMS:
            ctx.limits.append(
                f"{ctx.op}: {len(callbacks)} callable sites, the first {MAX_ITEMS} are listed"
            )
    return out


def _is_abstract(ctx: Ctx, t: NodeRow) -> bool:
    """A method without a body of its own: declared abstract or in an interface."""
    if t.kind != NodeKind.METHOD:
        return False
    if props_of(t.props).get("abstract"):
        return True
    owner = _container(ctx, t.node_id)
    return owner is not None and owner["kind"] == NodeKind.INTERFACE


def _lines(edges: Iterable[EdgeRow]) -> set[tuple[str, int]]:
    """The (path, line) evidence of these edges."""
    return {
        (e.evidence_path, e.evidence_line)
        for e in edges
        if e.evidence_path is not None and e.evidence_line is not None
    }


def callers(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Who calls this function or method (`fqn` or `node_id`), up to `depth` 1..3 levels.
    Stated callers (proven by declaration match) and derived ones (heuristics, with
    confidence and a `via` reason) come in separate sections; `hard_only` keeps stated
    edges only. Derived also lists callers of the declarations this method overrides
    (dynamic dispatch) and the runs of a hook it is added to (WordPress's `do_action` /
    `apply_filters` for an `add_action` / `add_filter`, via `hook`); `hooks` lists where
    it is added to a hook and how many runs of it the corpus has (0: the code around the
    corpus runs it, which the limits say); `callbacks`, where it is passed as a callable
    (`usort($a, 'cmp')`, WordPress's `add_menu_page(..., 'render')`, `'render_callback' =>
    'render'`) or named in a string outside a call (`'apply' => 'render'`, `return
    'render'`: `via: name_string`, derived). Laravel's events
    and jobs, Symfony's subscribers and Drupal's hooks are linked the same way (derived,
    via `dispatch`); `hooks` also lists a listener's registration in Laravel's `$listen`
    map or Symfony's `getSubscribedEvents()` (the hook is `class:<event class>`) and a
    MediaWiki handler's in extension.json (`mediawiki:<hook>`, run by
    `HookContainer::run`). `outside_parents` names the classes and interfaces outside the
    corpus a method's class extends or implements: code there may call it; for a magic
    method PHP calls itself (`__toString`, `__get`, `__destruct`...) the limits say when."""
    return _walk(ctx, args, "in")


def callees(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """What this function or method calls, up to `depth` 1..3 levels, stated and derived
    in separate sections with confidence and evidence; `hard_only` keeps stated edges.
    `templates` lists the template files it renders (matched by name: derived)."""
    return _walk(ctx, args, "out")


def impact(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """What a change to a symbol (`node_id` / `fqn`), a file (`path`) or a table (`table`)
    can affect: files, symbols, tables, routes, tests and docs that depend on it, through
    calls, references, `new`, inheritance, trait use, includes, templates rendered or
    included (soft: a template is matched by its name) and route bindings up to `depth`
    levels. Split by provability: `hard` (a path of stated edges only) and `soft`
    (needs a derived edge); `mode: hard` walks stated edges only. For a symbol or a file,
    `tables` also lists the tables the changed code itself writes (`write_operations`: the
    operations), whose readers see what the change does; for a table, its Eloquent models
    and what depends on them are soft (the mapping is Laravel's convention)."""
    seeds: list[str] = []
    models: list[str] = []  # the Eloquent models of a table (``ragraf.facade.orm``)
    target: Any
    if args.get("path"):
        rows = ctx.graph.nodes_in_file(ctx.rev, args["path"])
        if not rows:
            return {
                "target": None,
                "hard": _empty_impact(),
                "soft": _empty_impact(),
                "total": 0,
                **_hint_not_found(ctx, args["path"]),
            }
        seeds = [r.node_id for r in rows]
        target = {"path": args["path"], "symbols": len(rows)}
        ctx.touch(args["path"])
    elif args.get("table"):
        ctx.touch(SCHEMA_PATH)  # a schema_change in the ledger warns this answer
        rows = [r for r in ctx.graph.nodes_by_name(ctx.rev, args["table"]) if r.kind in DB_OBJECT]
        if not rows:
            return {
                "target": None,
                "hard": _empty_impact(),
                "soft": _empty_impact(),
                "total": 0,
                "hint": f"table '{args['table']}' is not in {ctx.rev}; check `schema`",
            }
        schemaops.table_limits(ctx, rows)
        maybe = schemaops.named_at_run_time_count(ctx, args["table"])
        if maybe:
            ctx.limits.append(
                f"impact: {maybe} SQL statement(s) name their table at run time by a name like"
                f" '{sanitize.clean(args['table'])}'; their code is not in this answer"
                " (table_usage lists them as `possible`)"
            )
        seeds = [r.node_id for r in rows]
        # a table changes with its columns: foreign keys run column -> column
        seeds += [m.dst for m in ctx.graph.edges_from(ctx.rev, seeds, (EdgeKind.CONTAINS,))]
        target = [ctx.node(r) for r in rows]
        models = [m["node_id"] for m in orm.models_of(ctx, args["table"])]
    else:
        rows = _targets(ctx, args)
        if not rows:
            return {
                "target": None,
                "hard": _empty_impact(),
                "soft": _empty_impact(),
                "total": 0,
                **_hint_not_found(ctx, args.get("fqn") or args.get("node_id", "")),
            }
        seeds = [r.node_id for r in rows]
        # a class is changed with its members
        if any(r.kind in CLASS_LIKE for r in rows):
            seeds += [m.dst for m in ctx.graph.edges_from(ctx.rev, seeds, (EdgeKind.CONTAINS,))]
        target = [ctx.node(r) for r in rows]
    hard_mode = args["mode"] == "hard"
    reach = ctx.graph.reach_upstream(
        ctx.rev, seeds, IMPACT_EDGES, args["depth"], hard_mode, IMPACT_REACH_LIMIT
    )
    if len(reach) >= IMPACT_REACH_LIMIT:
        ctx.limits.append(f"impact: the walk stopped after {IMPACT_REACH_LIMIT} nodes")
    seed_set = set(seeds)
    affected = []
    for r in reach:
        if r.node_id in seed_set:
            continue
        affected.append((r.node_id, r.depth, r.soft))
        if r.edge_uid:
            # the edge this answer rests on (stale-edge check)
            ctx.edge_uids[r.edge_uid] = r.evidence_path or ""
    if models:
        _through_models(ctx, args, models, seed_set, affected)

    nodes = ctx.graph.nodes_by_ids(ctx.rev, [a[0] for a in affected])
    sections = {"hard": _empty_impact(), "soft": _empty_impact()}
    files: dict[str, set[str]] = {"hard": set(), "soft": set()}
    for nid, d, soft in affected:
        n = nodes.get(nid)
        if n is None:
            continue
        sec = "soft" if soft else "hard"
        kind, path = n.kind, n.path
        item = {**ctx.node(n), "depth": d}
        if kind == NodeKind.WEB_ROUTE:
            sections[sec]["routes"].append(item)
        elif kind in DB:
            sections[sec]["tables"].append(item)
        elif kind == NodeKind.SQL_LITERAL:
            pass  # the symbol holding the SQL is listed through its `queries` edge
        elif kind in DOCS:
            sections[sec]["docs"].append(item)
        elif kind != NodeKind.FILE:
            sections[sec]["symbols"].append(item)
        if path:
            files[sec].add(path)
            if _is_test(path, n.fqn):
                sections[sec]["tests"].append(item)
    if not args.get("table"):
        _written_tables(ctx, seeds, sections, files)
    files["soft"] -= files["hard"]
    for sec in sections:
        sections[sec]["files"] = sorted(files[sec])
        for k in ("symbols", "routes", "tables", "docs", "tests"):
            lst = sections[sec][k]
            lst.sort(key=lambda x: (x["depth"], x.get("fqn") or "", x.get("path") or ""))
            if len(lst) > MAX_ITEMS:
                ctx.limits.append(f"impact: {len(lst)} {sec} {k}, the first {MAX_ITEMS} are listed")
                del lst[MAX_ITEMS:]
    total = sum(
        len(sections[s]["symbols"]) + len(sections[s]["routes"]) + len(sections[s]["tables"])
        for s in sections
    )
    out: dict[str, Any] = {
        "target": target,
        "mode": args["mode"],
        "depth": args["depth"],
        **sections,
        "total": total,
    }
    callables = [r for r in rows if r.kind in CALLABLE] if not args.get("path") else []
    if callables:
        ids = [r.node_id for r in callables]
        direct = _lines(ctx.graph.edges_to(ctx.rev, ids, CALL_EDGES))
        acc = call_accounting(ctx, callables, direct)
        if acc is not None:
            out["unresolved"] = acc
    return out


def _through_models(
    ctx: Ctx,
    args: dict[str, Any],
    models: list[str],
    seed_set: set[str],
    affected: list[tuple[str, int, bool]],
) -> None:
    """A table's Eloquent models (depth 1) and their dependents (one level deeper than
    from the model), all soft: the mapping is Laravel's convention or a `$table` value,
    not a stated edge. In `hard` mode they are left out, and the limits say so."""
    if args["mode"] == "hard":
        ctx.limits.append(
            f"impact: {len(models)} Eloquent model(s) map to this table; `mode: hard` leaves"
            " them and their dependents out (the mapping is derived)"
        )
        return
    seen = seed_set | {a[0] for a in affected}
    for mid in models:
        if mid not in seen:
            seen.add(mid)
            affected.append((mid, 1, True))
    if args["depth"] > 1:
        for r in ctx.graph.reach_upstream(
            ctx.rev, models, IMPACT_EDGES, args["depth"] - 1, False, IMPACT_REACH_LIMIT
        ):
            if r.node_id in seen:
                continue
            seen.add(r.node_id)
            affected.append((r.node_id, r.depth + 1, True))
            if r.edge_uid:
                ctx.edge_uids[r.edge_uid] = r.evidence_path or ""
    ctx.limits.append(
        f"impact: {len(models)} Eloquent model(s) map to this table: they and what depends on"
        " them are listed as soft"
    )


def _written_tables(
    ctx: Ctx,
    seeds: list[str],
    sections: dict[str, dict[str, Any]],
    files: dict[str, set[str]],
) -> None:
    """The tables the changed code itself writes (its `queries` edges whose roles hold
    "write"): a change to it can change what they hold, so every reader of them is
    affected too (`table_usage`, `impact --table`). Listed at depth 1 with the operations
    (`write_operations`); hard when a stated edge says so. Tables written by the code that calls it
    are not followed (every caller's writes would be listed)."""
    found: dict[str, tuple[set[str], bool]] = {}
    for e in ctx.graph.edges_from(ctx.rev, seeds, (EdgeKind.QUERIES,)):
        p = props_of(e.props) if e.props else {}
        if "write" not in (p.get("roles") or ()):
            continue
        ctx.edge_uids[e.edge_uid] = e.evidence_path or ""
        ops, hard = found.get(e.dst, (set(), False))
        ops.add(str(p.get("operation") or "write"))
        found[e.dst] = (ops, hard or e.provenance == Provenance.STATED)
    if not found:
        return
    nodes = ctx.graph.nodes_by_ids(ctx.rev, list(found))
    for nid, (ops, hard) in sorted(found.items()):
        n = nodes.get(nid)
        if n is None or n.kind not in DB:
            continue
        sec = "hard" if hard else "soft"
        other = "soft" if hard else "hard"
        sections[other]["tables"] = [t for t in sections[other]["tables"] if t["node_id"] != nid]
        item = next((t for t in sections[sec]["tables"] if t["node_id"] == nid), None)
        if item is None:
            item = {**ctx.node(n), "depth": 1}
            sections[sec]["tables"].append(item)
        item["write_operations"] = sorted(ops)
        if n.path:
            files[sec].add(n.path)


def _empty_impact() -> dict[str, Any]:
    return {"files": [], "symbols": [], "tables": [], "routes": [], "tests": [], "docs": []}


def _is_test(path: str, fqn: str | None) -> bool:
    p = path.lower()
    return (
        p.startswith(("test/", "tests/"))
        or "/tests/" in p
        or "/test/" in p
        or p.endswith("test.php")
        or bool(fqn and fqn.endswith("Test"))
    )


def code(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Code on explicit request. For a symbol (`node_id` / `fqn`) or a file (`path`):
    `style: signatures` lists the declarations (no bodies); `style: compact` returns the
    body as indexed, blank lines dropped. `entry_ids` resolves chunk ids from `search`
    hits without touching the disk."""
    if args.get("entry_ids"):
        entries = []
        for cid in args["entry_ids"]:
            row = ctx.lex.chunk(ctx.rev, cid)
            if row is None:
                entries.append({"chunk_id": cid, "found": False})
                continue
            ctx.touch(row.path)
            header, _, body = row.text.partition("\n")
            entries.append(
                {
                    "chunk_id": cid,
                    "found": True,
                    "path": row.path,
                    "start_line": row.start_line,
                    "end_line": row.end_line,
                    "source_kind": row.source_kind,
                    "node_id": row.node_id,
                    "header": sanitize.clean(header),
                    "code": sanitize.untrusted(body),
                }
            )
        return {"entries": entries}
    style = args["style"]
    if args.get("path"):
        rows = ctx.graph.nodes_in_file(ctx.rev, args["path"])
        if not rows:
            return {"items": [], **_hint_not_found(ctx, args["path"])}
        ctx.touch(args["path"])
        if style == "signatures":
            return {"path": args["path"], "items": _signatures(ctx, rows)}
        lines = ctx.indexed_lines(args["path"]) or []
        return {
            "path": args["path"],
            "items": [
                {
                    "path": args["path"],
                    "start_line": 1,
                    "end_line": len(lines),
                    "code": sanitize.untrusted(_compact(lines)),
                }
            ],
        }
    rows = _targets(ctx, args)
    if not rows:
        return {"items": [], **_hint_not_found(ctx, args.get("fqn") or args.get("node_id", ""))}
    items = []
    for r in rows[:CODE_TARGETS]:
        if style == "signatures":
            members = [
                m.dst for m in ctx.graph.edges_from(ctx.rev, [r.node_id], (EdgeKind.CONTAINS,))
            ]
            mem_rows = sorted(
                ctx.graph.nodes_by_ids(ctx.rev, members).values(), key=lambda x: x.start_line or 0
            )
            items.extend(_signatures(ctx, [r, *mem_rows]))
        else:
            code_lines = ctx.indexed_lines(r.path) if r.path else None
            body = (
                _compact(code_lines[r.start_line - 1 : r.end_line])
                if code_lines and r.start_line
                else ""
            )
            items.append({**ctx.node(r), "code": sanitize.untrusted(body)})
    if len(rows) > CODE_TARGETS:
        ctx.limits.append(f"code: {len(rows)} symbols match, the first {CODE_TARGETS} are shown")
    return {"items": items}


def _compact(lines: list[str]) -> str:
    return "\n".join(ln.rstrip() for ln in lines if ln.strip())


def _signatures(ctx: Ctx, rows: list[NodeRow]) -> list[dict[str, Any]]:
    out = []
    for r in rows:
        if r.kind in (NodeKind.FILE, NodeKind.NAMESPACE):
            continue
        n = ctx.node(r, full=True)
        props = n.pop("props", {})
        sig = props.get("signature") or (
            f"{r.kind} {r.fqn}" + (f": {props['type']}" if props.get("type") else "")
        )
        out.append({**n, "signature": sig})
    return out


def repo_map(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """A map of the repository within `budget_tokens`: modules -> files -> key symbols,
    ranked by personalized PageRank over weighted code links with a k-core boost and
    packed by a 0-1 knapsack. `scope` narrows to a path prefix or namespace prefix;
    `detail: signatures` shows declarations instead of names."""
    from ragraf.facade.repomap import build_map

    return build_map(ctx, args)


def routes(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Entry points: router registrations (method, route, handler, evidence), the request
    parameters read from superglobals ($_GET / $_POST / $_REQUEST / $_COOKIE / $_FILES)
    with where they are read, and PHP files with top-level code that no other file
    includes. `path` filters by route prefix or file path."""
    flt = args.get("path")

    def in_filter(path: str | None) -> bool:
        return not flt or path == flt or bool(path and path.startswith(flt.rstrip("/") + "/"))

    out_routes = []
    for rt in ctx.graph.routes(ctx.rev):
        if flt and not (rt.route.startswith("/" + flt.lstrip("/")) or rt.evidence_path == flt):
            continue
        handlers = []
        for e in ctx.graph.edges_from(ctx.rev, [rt.node_id], (EdgeKind.HANDLES,)):
            h = ctx.graph.node(ctx.rev, e.dst)
            if h is not None:
                handlers.append(
                    {**ctx.node(h), "confidence": e.confidence, "provenance": e.provenance}
                )
        ctx.touch(rt.evidence_path)
        out_routes.append(
            {
                "route": rt.route,
                "method": rt.method,
                "evidence": f"{rt.evidence_path}:{rt.evidence_line}",
                "handlers": handlers,
            }
        )
        if len(out_routes) >= MAX_ITEMS:
            break
    endpoints = []
    for ep in ctx.graph.nodes_of_kind(ctx.rev, NodeKind.HTTP_ENDPOINT):
        reads = [
            e
            for e in ctx.graph.edges_from(ctx.rev, [ep.node_id], (EdgeKind.FLOWS_TO,))
            if in_filter(e.evidence_path)
        ]
        if not reads:
            continue
        readers = ctx.graph.nodes_by_ids(ctx.rev, [e.dst for e in reads])
        endpoints.append(
            {
                "name": sanitize.clean(ep.fqn or ""),
                "read_by": [
                    ctx.edge(
                        e, ctx.node(readers[e.dst]) if e.dst in readers else None, with_text=False
                    )
                    for e in reads[:EVIDENCE_PER_ITEM]
                ],
                "sites": len(reads),
            }
        )
        if len(endpoints) >= MAX_ITEMS:
            break
    entry_files = []
    included = {dst for _src, dst in ctx.graph.edge_ends(ctx.rev, EdgeKind.IMPORTS) if dst}
    for f in ctx.graph.top_level_files(ctx.rev):
        if f.node_id not in included and in_filter(f.path):
            entry_files.append(ctx.node(f))
    return {"routes": out_routes, "endpoints": endpoints, "entry_files": entry_files[:MAX_ITEMS]}


def index_status(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """The revision, its state and times, capability (dataflow with the data-flow layer,
    else degraded), counts of nodes and edges by kind, coverage (parsed / partial / failed
    files, calls resolved), ledger size and store sizes. Call it first in every session."""
    from ragraf.facade.status import status_of

    return status_of(ctx.s.root, ctx.rev, ctx.graph, ctx.lex, ctx.control, ctx.man)


def live_read(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Read a file as it is now on disk (lines `start`..`end`), with every line marked
    against the indexed version: ' ' same, '+' added or changed since the index;
    removed indexed lines are listed separately. Use it when an answer carries a
    stale_warning or the index answered not found. Reads only corpus files (those the
    project's include / exclude globs select, never a secret), regular files inside the
    project root, at most max_file_bytes."""
    from ragraf.corpus import NotRegular, Selector, open_regular, resolve_inside

    path = args["path"]
    cfg = ctx.s.config()
    sel = Selector(cfg)
    fr = ctx.file_row(path)
    # what the path points at once symlinks are resolved must stay inside the root, and both
    # the path asked for and the file it reaches must be corpus paths (never a secret)
    real = resolve_inside(ctx.root, path)
    if real is None:
        raise InvalidArgument(f"live_read: '{path}' leads out of the project root; it is not read")
    for p in dict.fromkeys((path, real)):
        why = sel.why_not(p)
        if why is None:
            continue
        if p == path and fr is not None and not sel.is_secret(p) and not sel.never(p):
            continue  # the revision indexed it (the configuration changed since)
        shown = f"'{path}'" if p == path else f"'{path}' (a link to '{real}')"
        raise InvalidArgument(f"live_read: {shown} {why}")
    ctx.provenance = "live"
    indexed = ctx.indexed_lines(path)
    limit = int(cfg.project["max_file_bytes"])
    try:
        got = open_regular(ctx.root, real, limit)
    except FileNotFoundError:
        return {
            "path": path,
            "status": "deleted" if fr else "missing",
            "lines": [],
            "removed": [],
            "indexed_sha256": fr.sha256 if fr else None,
            "current_sha256": None,
        }
    except NotRegular as e:
        raise InvalidArgument(
            f"live_read: '{path}' is {e.strerror}; only regular files are read"
        ) from None
    except OSError as e:
        raise InvalidArgument(f"live_read: '{path}' cannot be read ({e.strerror or e})") from None
    data, sha = got.data, got.sha256
    if not got.complete:
        ctx.limits.append(
            f"live_read: '{path}' is larger than max_file_bytes ({got.st.st_size} > {limit}); "
            "only its beginning was read"
        )
    if b"\0" in data[:8192]:
        raise InvalidArgument(f"live_read: '{path}' is a binary file")
    cur = split_lines(data.decode("utf-8", "replace"))
    status = "unindexed" if fr is None else ("unchanged" if fr.sha256 == sha else "modified")
    marks = [" "] * len(cur)
    removed: list[dict[str, Any]] = []
    if indexed is not None and status == "modified":
        sm = difflib.SequenceMatcher(a=indexed, b=cur, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag in ("replace", "insert"):
                for j in range(j1, j2):
                    marks[j] = "+"
            if tag in ("replace", "delete"):
                for i in range(i1, min(i2, i1 + 50)):
                    removed.append(
                        {
                            "after_line": j1,
                            "indexed_line": i + 1,
                            "text": sanitize.untrusted(indexed[i], sanitize.LINE_CAP),
                        }
                    )
    elif indexed is None:
        marks = ["+"] * len(cur)
    start = args.get("start", 1)
    end = min(args.get("end", len(cur)), len(cur), start + 1999)
    if start > len(cur):
        raise InvalidArgument(
            f"live_read: start {start} is past the end of '{path}' ({len(cur)} lines)"
        )
    lines = [
        {"n": i, "mark": marks[i - 1], "text": sanitize.untrusted(cur[i - 1], sanitize.LINE_CAP)}
        for i in range(start, end + 1)
    ]
    if end - start + 1 >= 2000:
        ctx.limits.append("live_read: at most 2000 lines per call; use start/end")
    return {
        "path": path,
        "status": status,
        "indexed_sha256": fr.sha256 if fr else None,
        "current_sha256": sha,
        "total_lines": len(cur),
        "changed_lines": sum(1 for m in marks if m == "+"),
        "lines": lines,
        "removed": removed[:200],
    }


def search(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Find code, SQL and docs by names, words or meaning: exact symbol names first, then
    lexical matches (FTS5 bm25 over symbol, code, SQL and comment tokens; camelCase and
    snake_case split) fused by reciprocal rank with embedding neighbours, then re-ranked
    (implementations above interfaces, the project's code above bundled libraries). Every
    hit has chunk_id, path:line, score and `why` (fts terms, lexical / vector rank, cosine,
    exact symbol, rerank features). When nothing is near, it abstains with a hint instead
    of returning noise.
    Similarity is never a structural fact: use callers / impact for links. Pass hit chunk
    ids to `code` with `entry_ids` to read them; `with_text` inlines the text."""
    from ragraf.facade.searchop import run_search

    return run_search(ctx, args)


def slice_(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Which statements feed a place (`direction: back`) or are fed by it (`forward`): a
    data-flow slice of `path` + `line` (optionally one `variable`; otherwise every
    variable the line uses, or for forward every one it defines), or of a function or
    method (`fqn` / `node_id`: back from its returns, forward from its parameters).
    Lists the statements (path:line, kind, first line), the def-use, control, argument ->
    parameter and return -> call edges with evidence and provenance, and the functions
    crossed; `depth` 1..5 counts inter-procedural hops along resolved calls (a derived
    call gives derived steps). `mode: nodes` leaves the text out. Never whole bodies:
    read them with `code`. Built from the syntax tree (reaching definitions per
    function); a revision without the layer answers with a refusal and alternatives."""
    if ctx.capability == "dataflow":
        from ragraf.facade.flowops import slice_op

        return slice_op(ctx, args)
    ctx.limits.append(LIMIT_SLICE_REFUSED)
    return {
        "refused": True,
        "reason": f"slice needs data-flow analysis (which statements feed which), and {ctx.rev} "
        "holds declarations and the call graph only (reindex to build the data-flow layer)."
        " Use the alternatives below.",
        "alternatives": [
            "callers / callees (call graph with evidence)",
            "impact (what depends on it)",
            "code (the body, on request)",
            "live_read (the current text)",
        ],
    }


def flow(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Whether data from a `source` (a superglobal such as $_GET or $_POST['id'],
    php://input, a place path:line, or a parameter Class::method($param)) reaches a `sink`
    (sql: an SQL execution call; sql_string: an SQL string assembled from it; output, include,
    shell; any; or a place path:line), and the shortest evidence path to each sink found:
    def-use, argument -> parameter and return -> call edges with provenance and confidence,
    up to `depth` call hops. A place as sink is searched from both ends at once
    (bidirectional breadth-first search). Sinks and sources come from the `dataflow`
    section of the configuration. Built from the syntax tree: `reaches: false` means no
    path the layer sees, not proof that none exists."""
    if ctx.capability == "dataflow":
        from ragraf.facade.flowops import flow_op

        return flow_op(ctx, args)
    ctx.limits.append(LIMIT_SLICE_REFUSED)
    return {
        "refused": True,
        "reason": f"flow needs data-flow analysis, and {ctx.rev} has no data-flow layer"
        " (reindex to build it). Use the alternatives below.",
        "alternatives": [
            "routes (entry points and the superglobals they read)",
            "table_usage (who reads and writes a table)",
            "callers / callees (call graph with evidence)",
        ],
    }


def entry_view(e: LedgerEntry, acks: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One ledger entry as an agent reads it (drift_report, ``drift --scan --json``): decoded
    lists, a count of invalidated edges, no chain hashes. Not yet escaped: the caller's
    answer goes through ``sanitize.escape_tree`` whole."""
    return {
        "id": e.id,
        "index_rev": e.index_rev,
        "ts": e.ts,
        "path": e.path,
        "kind": e.kind,
        "old_hash": e.old_hash,
        "new_hash": e.new_hash,
        "symbols_added": e.names("symbols_added"),
        "symbols_removed": e.names("symbols_removed"),
        "symbols_changed": e.names("symbols_changed"),
        "edges_invalidated": len(e.invalidated),
        "detected_by": e.detected_by,
        "commit_sha": e.commit_sha,
        "note": sanitize.clean(e.note) if e.note else None,
        "acks": acks or [],
    }


def drift_report(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """The drift ledger of the revision: every registered change since it was sealed (add,
    modify, delete, rename, slice_boundary, schema_change, notes) with symbols added /
    removed / changed, the number of invalidated edges, who detected it and its acks.
    `since` is an entry id or an ISO time. Read it at session start, before concluding."""
    since = args.get("since")
    since_id, since_ts = 0, None
    if since is not None:
        if since.isdigit():
            since_id = int(since)
        elif re.match(r"^\d{4}-\d{2}-\d{2}", since):
            since_ts = since
        else:
            raise InvalidArgument(
                "drift_report: argument 'since' must be an entry id or an ISO date/time"
            )
    entries = [
        e for e in ctx.ledger() if e.id > since_id and (since_ts is None or e.ts >= since_ts)
    ]
    acks: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for a in ctx.control.acks([e.id for e in entries]):
        acks[a.entry_id].append(
            {"by": sanitize.clean(a.by), "ts": a.ts, "note": sanitize.clean(a.note or "")}
        )
    out = []
    symbols: set[str] = set()
    edges = 0
    for e in entries:
        view = entry_view(e, acks.get(e.id, []))
        symbols.update(view["symbols_added"] + view["symbols_removed"] + view["symbols_changed"])
        edges += view["edges_invalidated"]
        if e.kind != ChangeKind.NOTE:
            ctx.touch(e.path)
        out.append(view)
    summary = {
        "entries": len(out),
        "files": len({e["path"] for e in out if e["kind"] != ChangeKind.NOTE}),
        "symbols": len(symbols),
        "edges_invalidated": edges,
        "slice_boundaries": sum(1 for e in out if e["kind"] == ChangeKind.SLICE_BOUNDARY),
        "unacknowledged": sum(1 for e in out if not e["acks"]),
    }
    hint = None
    if not out:
        hint = (
            f"the ledger of {ctx.rev} is empty"
            + (" since " + str(since) if since else "")
            + "; run `ragraf drift --scan` after edits to register them"
        )
    return {"rev": ctx.rev, "since": since, "entries": out, "summary": summary, "hint": hint}


def drift_ack(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Acknowledge ledger entries as accounted for: appends an ack row (who, when, note) to the
    ledger; the entries themselves are never rewritten or removed. Writes only the ledger,
    never the index."""
    from ragraf.drift import ledger
    from ragraf.store.control import ControlStore

    by = args.get("by") or _default_actor()
    with ControlStore(ctx.s.layout.control_db) as control:
        rows = ledger.ack(ctx.s.layout, control, args["entry_ids"], by, args.get("note"))
    ctx.forget_ledger()
    return {
        "acked": [
            {"entry_id": r.entry_id, "by": r.by, "ts": r.ts, "ack_hash": r.ack_hash} for r in rows
        ]
    }


def _default_actor() -> str:
    import getpass
    import os

    return os.environ.get("RAGRAF_ACTOR") or getpass.getuser() or "unknown"


def calibrate(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Recompute search's abstention thresholds from labelled samples and record them in the
    calibration table (the index is not touched). `kind: threshold` takes search queries
    labelled relevant (the corpus answers them) or not (nonsense, near misses) and sets the
    cosine below which search abstains to the value that separates them best, then the share
    of the query's words that must meet in one chunk or symbol (`min_term_coverage`, checked
    below `coverage_cosine`) to the value that separates them best together with it, then the
    share of the query's content words that must meet in one place near in meaning
    (`min_near_meet`, checked below `near_cosine`) to the value that separates best the
    samples the first two let through; later searches use all three."""
    from ragraf.clock import now_iso
    from ragraf.facade.searchop import signals
    from ragraf.store.control import ControlStore

    samples = args["samples"]
    scored = []
    for smp in samples:
        cos, _cover, meet, near = signals(ctx, smp["query"])
        if cos is None:
            raise InvalidArgument(
                "calibrate: this revision has no vectors; threshold calibration needs them"
            )
        scored.append((cos, meet, near, smp["relevant"]))
    pos = sorted(c for c, _v, _n, r in scored if r)
    neg = sorted(c for c, _v, _n, r in scored if not r)
    if not pos or not neg:
        raise InvalidArgument("calibrate: give both relevant and not relevant samples")
    t, best_ok = _best_split([(c, r) for c, _v, _n, r in scored])
    # below coverage_cosine, a query whose words occur apart is a near miss: the share of the
    # words that must meet in one chunk or symbol, fitted on the samples in that band
    cfg = ctx.s.config().project["search"]
    cover_cos = max(float(cfg["coverage_cosine"]), t)
    grey = [(v, r) for c, v, _n, r in scored if t <= c < cover_cos and v is not None]
    m = float(cfg["min_term_coverage"])
    if grey:
        m, _ok = _best_split(grey, lo=0.0, hi=1.0)

    def passes(c: float, v: float | None) -> bool:
        return c >= cover_cos or (c >= t and (v is None or v >= m))

    # below near_cosine, the content words must meet in one place near in meaning: the share,
    # fitted on the samples the two thresholds above let through
    near_cos = float(cfg["near_cosine"])
    grey_near = [(n, r) for c, v, n, r in scored if passes(c, v) and c < near_cos and n is not None]
    mn = float(cfg["min_near_meet"])
    if grey_near:
        mn, _ok = _best_split(grey_near, lo=0.0, hi=1.0)

    def answered(c: float, v: float | None, n: float | None) -> bool:
        return passes(c, v) and (c >= near_cos or n is None or n >= mn)

    ok_all = sum(1 for c, v, n, r in scored if answered(c, v, n) == r)
    params = {
        "abstain_cosine": round(t, 4),
        "min_term_coverage": round(m, 4),
        "min_near_meet": round(mn, 4),
    }
    with ControlStore(ctx.s.layout.control_db) as control:
        cid = control.record_calibration(
            now_iso(),
            "threshold",
            params,
            len(samples),
            f"{best_ok} of {len(samples)} samples separated by the cosine,"
            f" {ok_all} with the term coverage",
        )
    return {
        "kind": "threshold",
        "calibration_id": cid,
        "params": params,
        "sample_size": len(samples),
        "separated": best_ok,
        "separated_with_coverage": ok_all,
        "relevant_min_cosine": pos[0],
        "not_relevant_max_cosine": neg[-1],
    }


def _best_split(
    scored: list[tuple[float, bool]], lo: float | None = None, hi: float | None = None
) -> tuple[float, int]:
    """The threshold t (a midpoint between sample values) for which ``value >= t`` agrees with
    the label most often; on a tie the lowest such t (fewer relevant answers lost)."""
    cands = sorted({c for c, _r in scored})
    best_t, best_ok = 0.0, -1
    for i in range(len(cands) + 1):
        a = cands[i - 1] if i > 0 else cands[0] - 0.05
        b = cands[i] if i < len(cands) else cands[-1] + 0.05
        t = (a + b) / 2
        if lo is not None:
            t = max(lo, t)
        if hi is not None:
            t = min(hi, t)
        ok = sum(1 for c, r in scored if (c >= t) == r)
        if ok > best_ok:
            best_t, best_ok = t, ok
    return best_t, best_ok
