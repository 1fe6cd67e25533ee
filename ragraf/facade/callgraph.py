"""The call graph operations: ``references``, ``callers`` and ``callees`` (architecture §7).

``callers`` / ``callees`` walk call edges breadth-first from the targets (``_call_hops``),
add the callers by possible dynamic dispatch (``_dispatch_hops``), keep one item per symbol
and provenance (``_ranked``); ``callers`` then says what else bears on "who calls it"
(``_caller_context``: call-site accounting, registrations as hook or callback, parents
outside the corpus, calls PHP or a framework makes itself).

Invariants a change must keep:
- No fact without evidence (FT-4, FT-9): every item carries the edges it rests on
  (path:line), and every file an answer rests on is touched.
- Stated and derived facts are never mixed silently: they come in separate sections,
  each derived item with its confidence (the product along its path); a symbol reached
  both ways is listed as stated only.
- Not found is an answer: an empty result with a hint (``lookup.not_found_hint``).
- "No callers" is not "never called": what the corpus cannot show (hooks nothing runs,
  callables handed over, parents outside the corpus, magic methods) goes to ``limits``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, NamedTuple

from ragraf.facade import brief, lookup, sanitize
from ragraf.facade.accounting import call_accounting
from ragraf.facade.context import EVIDENCE_PER_ITEM, Ctx
from ragraf.facade.paging import Pager
from ragraf.kinds import CALL_EDGES, CALLABLE, USE_EDGES, EdgeKind, NodeKind, Provenance
from ragraf.lang.php import hooks
from ragraf.limits import HIERARCHY_DEPTH
from ragraf.model import EdgeRow, NodeRow, props_of

#: the order of ``callers`` / ``callees`` items (``page.order``)
ORDER_SYMBOLS = "stated first, then derived by confidence; each by depth, then by path and line"
#: the order of ``references`` sites
ORDER_SITES = "stated first, then by path and line"


def references(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Every usage site of a symbol (by `node_id` or `fqn`): calls, references, `new`,
    extends / implements / trait use, imports, overrides, doc mentions; each with its
    path:line, the text of that line, provenance and confidence."""
    found = lookup.named(ctx, args)
    targets = found.rows
    stop = lookup.unanswered(ctx, args, found, targets)
    if stop is not None:
        return {"target": None, "sites": [], "total": 0, "counts": {}, **stop}
    ids = [t.node_id for t in targets]
    edges = ctx.graph.edges_to(ctx.rev, ids, USE_EDGES)
    counts: dict[str, int] = defaultdict(int)
    for e in edges:
        counts[e.kind] += 1
    pager = Pager(args, ORDER_SITES)
    # stated first, then by place (the store gives them by place)
    shown = pager.cut("sites", sorted(edges, key=lambda e: e.provenance != Provenance.STATED))
    srcs = ctx.graph.nodes_by_ids(ctx.rev, [e.src for e in shown])
    sites = []
    for e in shown:
        src = srcs.get(e.src)
        sites.append(ctx.edge(e, ctx.node(src) if src else None))
    out: dict[str, Any] = {
        "target": [ctx.node(t, full=True) for t in targets],
        "sites": sites,
        "total": len(edges),
        "counts": dict(sorted(counts.items())),
        "page": pager.page(),
        **lookup.narrow(ctx, targets, "references"),
        **lookup.resolved(args, found, targets),
    }
    acc = call_accounting(
        ctx,
        targets,
        lookup.evidence_lines(e for e in edges if e.kind in CALL_EDGES),
        brief.dynamic_listed(args),
    )
    if acc is not None:
        out["unresolved"] = acc
    if brief.is_brief(args):
        out["sites"] = brief.sites(sites)
        if acc is not None:
            out["unresolved"] = brief.unresolved(acc)
    return out


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
    method PHP calls itself (`__toString`, `__get`, `__destruct`...) the limits say when.
    `total` counts everything that can run the target: callers by call and by hook, and
    its registrations as items with `how` (`registered with set_error_handler`, `added to
    hook 'init' (run outside the corpus)`); `unresolved.dynamic` lists the call sites
    whose callee is computed at run time and may reach it; an item whose evidence is cut
    to 20 lines has `evidence_total`."""
    return _walk(ctx, args, "in")


def callees(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """What this function or method calls, up to `depth` 1..3 levels, stated and derived
    in separate sections with confidence and evidence; `hard_only` keeps stated edges.
    `templates` lists the template files it renders (matched by name: derived)."""
    return _walk(ctx, args, "out")


class _Hop(NamedTuple):
    """One call edge the walk met, seen from the end it leads to."""

    there: str  # the caller (``in``) or the callee (``out``) the edge reaches
    edge: EdgeRow
    confidence: float  # the product of the confidences along the path from a target
    provenance: str  # derived once one edge of the path is
    depth: int
    how: str = ""  # a registration (not a call): how it hands the target over


def _walk(ctx: Ctx, args: dict[str, Any], direction: str) -> dict[str, Any]:
    """``callers`` (``direction`` ``in``) and ``callees`` (``out``) of the targets: the
    functions and methods a name matches, when it matches any (a class or a namespace of
    the same name has no call edges of its own)."""
    found = lookup.named(ctx, args)
    targets = [t for t in found.rows if t.kind in CALLABLE] or found.rows
    stop = lookup.unanswered(ctx, args, found, targets)
    if stop is not None:
        return {"target": None, "stated": [], "derived": [], "total": 0, **stop}
    depth = args["depth"]
    hard = args["hard_only"]
    hops = _call_hops(ctx, targets, direction, depth, hard)
    regs: list[_Reg] = []
    if direction == "in":
        if not hard:
            hops += _dispatch_hops(ctx, targets)
        regs = _registration_edges(ctx, targets)
        hops += _registration_hops(ctx, targets, regs, hard)
    stated, derived_items = _ranked(hops)
    total = len(stated) + len(derived_items)
    pager = Pager(args, ORDER_SYMBOLS)
    shown = pager.cut(ctx.op, stated + derived_items)
    nodes = ctx.graph.nodes_by_ids(ctx.rev, [it.there for it in shown])
    items = [_item(ctx, it, nodes[it.there]) for it in shown if it.there in nodes]
    out: dict[str, Any] = {
        "target": [ctx.node(t) for t in targets],
        "depth": depth,
        "hard_only": hard,
        "stated": [it for it in items if it["provenance"] == Provenance.STATED],
        "derived": [it for it in items if it["provenance"] == Provenance.DERIVED],
        "total": total,
        "counts": {"stated": len(stated), "derived": len(derived_items)},
        **lookup.narrow(ctx, targets, ctx.op),
        **lookup.resolved(args, found, targets),
    }
    if direction == "out":
        rendered = _rendered(ctx, targets)
        if rendered:
            out["templates"] = rendered
    if direction == "in":
        calls = [h for h in hops if not h.how]
        more = _caller_context(ctx, targets, calls, args, regs)
        for k in ("hooks", "callbacks"):
            if k in more:
                more[k] = pager.cut(k, more[k])
        out.update(more)
    out["page"] = pager.page()
    _evidence_cut(ctx, items)
    if brief.is_brief(args):
        for sec in (Provenance.STATED, Provenance.DERIVED):
            out[sec] = [brief.walk_item(it) for it in out[sec]]
        if "unresolved" in out:
            out["unresolved"] = brief.unresolved(out["unresolved"])
    return out


def _evidence_cut(ctx: Ctx, items: list[dict[str, Any]]) -> None:
    """The limits say how many items list only ``EVIDENCE_PER_ITEM`` of their evidence
    (each such item has ``evidence_total``)."""
    cut = [it for it in items if it.get("evidence_total", 0) > len(it["evidence"])]
    if cut:
        more = sum(it["evidence_total"] - len(it["evidence"]) for it in cut)
        ctx.limits.append(
            f"{ctx.op}: {len(cut)} item(s) list {EVIDENCE_PER_ITEM} of their evidence lines;"
            f" {more} more are not listed (item.evidence_total counts them all)"
        )


def _call_hops(
    ctx: Ctx, targets: list[NodeRow], direction: str, depth: int, hard: bool
) -> list[_Hop]:
    """Every call edge met breadth-first from the targets, ``depth`` levels along
    ``direction`` (``hard``: stated edges only). A node is walked on from once, from the
    first level that reaches it, with the best path met there (a stated path replaces a
    derived one, a higher confidence replaces either)."""
    frontier: dict[str, tuple[float, str]] = {t.node_id: (1.0, Provenance.STATED) for t in targets}
    seen = set(frontier)
    hops: list[_Hop] = []
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
            hops.append(_Hop(there, e, conf, prov, d))
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
    return hops


def _dispatch_hops(ctx: Ctx, targets: list[NodeRow]) -> list[_Hop]:
    """Callers by possible dynamic dispatch, at depth 1, derived (their confidence scaled
    by ``override_dispatch``): those of the declarations a target overrides and, for an
    interface or abstract method, those of its implementations."""
    dispatch = ctx.s.config().conf("override_dispatch")
    hops: list[_Hop] = []
    for t in targets:
        for ov in ctx.graph.edges_from(ctx.rev, [t.node_id], (EdgeKind.OVERRIDES,)):
            for e in ctx.graph.edges_to(ctx.rev, [ov.dst], CALL_EDGES):
                if _explicit_static(ctx, e, t.name or ""):
                    continue  # parent::m(), Base::m(): that declaration, never an override
                hops.append(
                    _Hop(e.src, e, round(dispatch * e.confidence, 4), Provenance.DERIVED, 1)
                )
        if _is_abstract(ctx, t):
            # an interface or abstract method runs as its implementations: their
            # callers (on receivers typed by the concrete class) call it too
            impls = [e.src for e in ctx.graph.edges_to(ctx.rev, [t.node_id], (EdgeKind.OVERRIDES,))]
            for e in ctx.graph.edges_to(ctx.rev, impls, CALL_EDGES):
                hops.append(
                    _Hop(e.src, e, round(dispatch * e.confidence, 4), Provenance.DERIVED, 1)
                )
    return hops


def _explicit_static(ctx: Ctx, e: EdgeRow, name: str) -> bool:
    """Whether a call edge's line calls ``name`` only through a named class
    (``parent::m()``, ``self::m()``, ``Base::m()``; ``static::m()`` dispatches)."""
    if not name or e.evidence_path is None or e.evidence_line is None:
        return False
    text = ctx.line_text(e.evidence_path, e.evidence_line)
    line = str((text or {}).get("untrusted") or "")
    low, n = line.lower(), re.escape(name.lower())
    if re.search(rf"->\s*{n}\s*\(", low) or re.search(rf"\bstatic\s*::\s*{n}\s*\(", low):
        return False
    return re.search(rf"[\w\\]\s*::\s*{n}\s*\(", low) is not None


class _Reached(NamedTuple):
    """A symbol the walk reached, with one provenance: its least depth, its best
    confidence, and the hops that reach it (their edges are its evidence)."""

    there: str
    provenance: str
    depth: int
    confidence: float
    place: tuple[str, int]  # the first evidence (path, line): the order by place
    hops: list[_Hop]


def _ranked(hops: list[_Hop]) -> tuple[list[_Reached], list[_Reached]]:
    """The symbols the hops reach, one per symbol and provenance: the stated ones by depth
    and place (their first call line), then the derived ones not also stated, by depth,
    descending confidence and place."""
    by: dict[tuple[str, str], list[_Hop]] = defaultdict(list)
    for h in hops:
        by[(h.there, h.provenance)].append(h)
    reached = []
    for (there, prov), hs in by.items():
        first = min(hs, key=lambda h: (h.edge.evidence_path or "", h.edge.evidence_line or 0))
        reached.append(
            _Reached(
                there,
                prov,
                min(h.depth for h in hs),
                max(h.confidence for h in hs),
                (first.edge.evidence_path or "", first.edge.evidence_line or 0),
                hs,
            )
        )
    stated = sorted(
        (r for r in reached if r.provenance == Provenance.STATED),
        key=lambda r: (r.depth, r.place, r.there),
    )
    stated_ids = {r.there for r in stated}
    derived_items = sorted(
        (r for r in reached if r.provenance == Provenance.DERIVED and r.there not in stated_ids),
        key=lambda r: (r.depth, -r.confidence, r.place, r.there),
    )
    return stated, derived_items


def _item(ctx: Ctx, r: _Reached, n: NodeRow) -> dict[str, Any]:
    """A listed symbol with up to ``EVIDENCE_PER_ITEM`` of its edges (their line texts:
    `references`)."""
    out: dict[str, Any] = {
        "symbol": ctx.node(n),
        "depth": r.depth,
        "confidence": r.confidence,
        "provenance": r.provenance,
        "evidence": [ctx.edge(h.edge, None, with_text=False) for h in r.hops[:EVIDENCE_PER_ITEM]],
    }
    how = next((h.how for h in r.hops if h.how), None)
    if how:
        out["how"] = how
    if len(r.hops) > EVIDENCE_PER_ITEM:
        out["evidence_total"] = len(r.hops)
    return out


def _caller_context(
    ctx: Ctx, targets: list[NodeRow], hops: list[_Hop], args: dict[str, Any], regs: list[_Reg]
) -> dict[str, Any]:
    """What a ``callers`` answer adds to the walk: the call-site accounting
    (``unresolved``), where the targets are registered to be called later (``hooks``,
    ``callbacks``) and the parents outside the corpus (``outside_parents``); the limits
    say when Drupal or PHP calls a target itself."""
    out: dict[str, Any] = {}
    hard = args["hard_only"]
    # the call lines attached to the targets (shown or not: hard_only hides derived
    # ones) and those the answer shows at depth 1 through overrides
    direct = lookup.evidence_lines(h.edge for h in hops if h.depth == 1)
    if hard:
        ids = [t.node_id for t in targets]
        direct |= lookup.evidence_lines(ctx.graph.edges_to(ctx.rev, ids, CALL_EDGES))
    acc = call_accounting(ctx, targets, direct, brief.dynamic_listed(args))
    if acc is not None:
        out["unresolved"] = acc
    out.update(_registrations(ctx, targets, regs, not hops))
    if not hops and not regs:
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


class _Reg(NamedTuple):
    """Where a target is handed over to be called later: a ``references`` edge marked
    ``callable`` or with a ``hook``, and how many runs of that hook the corpus has linked
    to the target (0 for a callback)."""

    edge: EdgeRow
    props: dict[str, Any]
    runs: int


def _registration_edges(ctx: Ctx, targets: list[NodeRow]) -> list[_Reg]:
    """The targets' registrations (``_Reg``), by place: as a hook's callback
    (``add_action``: a ``hook`` prop) with the runs of that hook linked to them
    (``calls_heuristic`` via ``hook`` / ``dispatch``), as a callable handed to a call or
    named in a string."""
    ids = [t.node_id for t in targets]
    found: list[tuple[EdgeRow, dict[str, Any]]] = []
    for e in ctx.graph.edges_to(ctx.rev, ids, (EdgeKind.REFERENCES,)):
        p = props_of(e.props) if e.props else {}
        if p.get("callable") or p.get("hook"):
            found.append((e, p))
    if not found:
        return []
    runs: dict[tuple[str, str], set[tuple[str | None, int | None]]] = defaultdict(set)
    if any(p.get("hook") for _e, p in found):
        for e in ctx.graph.edges_to(ctx.rev, ids, (EdgeKind.CALLS_HEURISTIC,)):
            p = props_of(e.props) if e.props else {}
            if p.get("via") in ("hook", "dispatch"):
                runs[(e.dst, str(p.get("hook")))].add((e.evidence_path, e.evidence_line))
    found.sort(key=lambda ep: (ep[0].evidence_path or "", ep[0].evidence_line or 0))
    return [
        _Reg(e, p, len(runs.get((e.dst, str(p["hook"])), ())) if p.get("hook") else 0)
        for e, p in found
    ]


#: a name right before ``(``: a call (or ``array(``, which is no call)
_CALL_NAME = re.compile(r"([A-Za-z_]\w*)\s*$")
#: words before ``(`` that are no call a callable is handed to
_NOT_CALLS = frozenset({"array", "list", "function", "fn", "isset", "empty"})


def _handed_to(line: str, name: str) -> str | None:
    """The call a callable on this line is handed to: the innermost call still open
    where the string literal naming it starts (the one holding ``name``, else the line's
    last one: ``usort($a, 'cmp')``: ``usort``; ``add_filter('x', [$this, 'm'])``:
    ``add_filter``)."""
    stack: list[str] = []
    found: str | None = None
    named: str | None = None
    i, n = 0, len(line)
    low = name.lower()
    while i < n:
        c = line[i]
        if c in "'\"":
            calls = [x for x in stack if x]
            found = calls[-1] if calls else None
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            if low and named is None and line[i + 1 : j].lower().endswith(low):
                named = found or ""
            i = j + 1
            continue
        if c == "(":
            m = _CALL_NAME.search(line[:i])
            name = m.group(1) if m else ""
            stack.append("" if name.lower() in _NOT_CALLS else name)
        elif c == ")" and stack:
            stack.pop()
        i += 1
    return (named or None) if named is not None else found


def _registration_hops(
    ctx: Ctx, targets: list[NodeRow], regs: list[_Reg], hard: bool
) -> list[_Hop]:
    """The registrations that run the target from outside the corpus's call edges, as
    hops with ``how``: a callable handed to a call (``registered with usort``) or named in
    a string, and a hook callback when nothing in the corpus runs the hook (a run that is
    here is a call of its own). ``hard``: stated ones only."""
    hops: list[_Hop] = []
    names = {t.node_id: t.name or "" for t in targets}
    for r in regs:
        e, p = r.edge, r.props
        if hard and e.provenance != Provenance.STATED:
            continue
        if p.get("hook"):
            if r.runs:
                continue
            how = f"added to hook '{sanitize.name(str(p['hook']))}' (run outside the corpus)"
        elif p.get("via") == "name_string":
            how = "named in a string"
        else:
            text = ctx.line_text(e.evidence_path, e.evidence_line) if e.evidence_path else None
            call = _handed_to(str((text or {}).get("untrusted") or ""), names.get(e.dst, ""))
            how = f"registered with {call}" if call else "passed as a callable"
        hops.append(_Hop(e.src, e, e.confidence, e.provenance, 1, how))
    return hops


def _registrations(
    ctx: Ctx, targets: list[NodeRow], regs: list[_Reg], no_callers: bool
) -> dict[str, Any]:
    """Where the targets are handed over to be called later (``_registration_edges``):
    ``hooks``, where they are added to a hook with how many runs of that hook the corpus
    has linked to them; ``callbacks``, where they are passed as a callable
    (``usort($a, 'cmp')``, ``add_menu_page(..., 'render')``, ``[$this, 'm']``). A hook
    nothing in the corpus runs gets a limit (the code around the corpus runs it), and so
    do callbacks when nothing calls the targets directly: "no callers" is not "never
    called". The same registrations are items of the answer (``how``)."""
    if not regs:
        return {}
    owners = ctx.graph.nodes_by_ids(ctx.rev, [r.edge.src for r in regs])
    added: list[dict[str, Any]] = []
    callbacks: list[dict[str, Any]] = []
    for e, p, nruns in regs:
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
                    "runs": nruns,
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
        out["callbacks"] = callbacks
    return out


def _is_abstract(ctx: Ctx, t: NodeRow) -> bool:
    """A method without a body of its own: declared abstract or in an interface."""
    if t.kind != NodeKind.METHOD:
        return False
    if props_of(t.props).get("abstract"):
        return True
    owner = lookup.container(ctx, t.node_id)
    return owner is not None and owner["kind"] == NodeKind.INTERFACE
