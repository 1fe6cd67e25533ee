"""Flows from a source to sinks over the data-flow layer (issue 13, issue 42): ``flow``
walks forward from a source (a superglobal, optionally one key of it, a place, a
parameter) with the walk of ``ragraf.facade.flowops`` and reports the sinks it reaches,
each with its shortest evidence path.

Invariants a change must keep:
- Data only (``Walk(control=False)``): a source that decides whether a sink runs does not
  reach it.
- A source is a name some language's walk reads as a use (``UnitBuilder.SOURCES``) and
  the ``dataflow`` configuration lists (PHP's at its top level, the others' under
  ``languages``). A keyed source (``$_POST['id']``, ``request.args['id']``,
  ``request.args.get('id')``) starts only at the statements reading that key: PHP's by the
  ``flows_to`` edges of its ``http_endpoint`` node, the others' by the use of the keyed
  name (``request.args['id']``) their walk adds; a source no statement reads says so.
- A sink is a call the ``dataflow`` rules of the statement's language name (``Rules``),
  a statement's own sink (echo, include, backticks), a SQL string, or a call of a
  function one of whose parameters
  reaches a SQL sink inside it (a *summary*, ``Summaries``: the project's own query
  wrappers), said with the wrapper, its parameter and the sink it reaches.
- The search runs to its end or its statement cap (said), then ranks: the first path of
  each distinct (source function, sink function) pair, shortest first, then the others
  by length; ``limit`` cuts after the ranking.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ragraf import ids
from ragraf.config import FlowRules
from ragraf.errors import InvalidArgument
from ragraf.facade import dfcover, lookup, sanitize
from ragraf.facade.context import Ctx
from ragraf.facade.flowops import NONE, FlowGraph, Node, Params, Walk, _statement, _var, bind
from ragraf.kinds import EdgeKind, FlowCallHow, NodeKind, Provenance, SinkKind
from ragraf.lang.registry import call_family
from ragraf.model import EdgeRow

#: sink kinds `flow` knows (``any``: each of them)
SINK_KINDS = (
    SinkKind.SQL,
    SinkKind.SQL_STRING,
    SinkKind.OUTPUT,
    SinkKind.INCLUDE,
    SinkKind.SHELL,
    SinkKind.CODE,
)
#: statements one `flow` search expands before it gives up (and says so)
MAX_FLOW_STATEMENTS = 5000
#: wrappers one summary looks through (queryAsControlUser -> tryQuery is one)
MAX_SUMMARY_DEPTH = 3
#: statements one summary of a function expands
MAX_SUMMARY_STATEMENTS = 400
ORDER_PATHS = (
    "the first path of each distinct (source function, sink function) pair, shortest"
    " first; then the other paths by length"
)


#: the language whose keyed reads of a source are ``http_endpoint`` nodes (PHP's
#: superglobals, ``ragraf.lang.php.link.requests``); the others' walks write a keyed read
#: as a use of its own (``keyed``)
ENDPOINT_LANG = "php"


@dataclass
class Source:
    """Where a flow starts: the statements, the variables whose edges they follow, what
    arrived at them, and the source as the answer names it."""

    starts: list[Node]
    only: frozenset[str] | None
    arrived: frozenset[str]
    desc: dict[str, Any]
    hint: str | None = None


@dataclass
class Via:
    """Why a call is a SQL sink: the wrapper's parameter reaches a SQL sink inside it."""

    fqn: str
    param: str
    sink: str  # path:line of the sink it reaches
    call: str  # the configured SQL call there, or the inner wrapper's fqn
    provenance: str = Provenance.STATED
    through: list[str] = field(default_factory=list)

    def view(self) -> dict[str, Any]:
        return {
            "fqn": sanitize.name(self.fqn),
            "param": sanitize.name(self.param),
            "reaches": self.sink,
            "call": sanitize.name(self.call),
            "provenance": self.provenance,
        }


class Summaries:
    """Which parameters of a function reach a SQL sink inside it, found on first use by a
    walk of that function alone (data only), looking through the wrappers it calls up to
    ``MAX_SUMMARY_DEPTH`` deep; a function being summarised counts as no sink (a cycle)."""

    def __init__(self, g: FlowGraph, rules: Rules) -> None:
        self.g = g
        self.rules = rules
        self.memo: dict[str, dict[str, Via]] = {}
        self._fqn: dict[str, str] = {}

    def fqn(self, func: str) -> str:
        if func not in self._fqn:
            row = self.g.ctx.graph.node(self.g.ctx.rev, func)
            self._fqn[func] = row.fqn if row is not None and row.fqn else func
        return self._fqn[func]

    def params(self, func: str) -> Params:
        units = self.g.entry_units(func)
        return self.g.params(units[0]) if units else Params([])

    def of(self, func: str, level: int = 0) -> dict[str, Via]:
        """Parameter -> why it reaches a SQL sink."""
        if func in self.memo:
            return self.memo[func]
        self.memo[func] = {}  # being summarised: no sink through itself
        if level >= MAX_SUMMARY_DEPTH:
            del self.memo[func]
            return {}
        out: dict[str, Via] = {}
        for cu in self.g.entry_units(func)[:1]:
            for p in self.g.params(cu).names:
                via = self._reaches(func, (cu.row.unit_id, 0), p, level)
                if via is not None:
                    out[p] = via
        self.memo[func] = out
        return out

    def _reaches(self, func: str, entry: Node, param: str, level: int) -> Via | None:
        """Breadth first along the def-use edges of the function's own unit from its
        parameter (no edges recorded: a summary is a yes or no and why)."""
        u = self.g.unit(entry[0])
        arrived: dict[int, set[str]] = {}
        todo: list[tuple[int, frozenset[str] | None]] = [(entry[1], frozenset({param}))]
        seen = {entry[1]}
        while todo and len(seen) <= MAX_SUMMARY_STATEMENTS:
            i, only = todo.pop(0)
            for (uid, j), var, _kind in u.dout.get(i, ()):
                if uid != entry[0] or (only is not None and var not in only):
                    continue
                arrived.setdefault(j, set()).add(var)
                if j not in seen:
                    seen.add(j)
                    via = self._sink_at(func, (uid, j), param, arrived[j], level)
                    if via is not None:
                        return via
                    todo.append((j, None))
        return None

    def _sink_at(self, func: str, m: Node, param: str, tainted: set[str], level: int) -> Via | None:
        g = self.g
        s = g.unit(m[0]).stmts[m[1]]
        if not tainted.intersection(s[5]):
            return None
        path = g.unit(m[0]).row.path
        place = f"{path}:{s[0]}"
        for c in s[6]:
            kind, said = self.rules.kind(path, c[0], c[1])
            if kind == SinkKind.SQL and any(tainted.intersection(a) for a in _args(c)):
                return Via(self.fqn(func), param, place, said)
        for e, call in g.calls_at(m):
            if self.rules.kind(path, g.name_of(e.dst), FlowCallHow.METHOD)[0] == SinkKind.SQL:
                continue
            inner = self.of(e.dst, level + 1)
            for p, a in bind(call, self.params(e.dst)).items():
                if p in inner and tainted.intersection(a):
                    v = inner[p]
                    prov = Provenance.DERIVED if e.provenance != Provenance.STATED else v.provenance
                    return Via(self.fqn(func), param, place, v.fqn, prov, [v.fqn, *v.through])
        return None


class Rules:
    """The sink calls of each language (``dataflow`` of the configuration, ``FlowRules``),
    compiled once per language a walk meets: a configured name matches a call whose last
    dotted part it is (``execute``: ``cursor.execute``) or, dotted itself, whose written
    name ends with it (``subprocess.run``); an undotted shell or code name matches a plain
    function call only (PHP's ``exec(...)``, not ``$pdo->exec(...)``)."""

    ORDER = (
        (SinkKind.SHELL, "shell_calls"),
        (SinkKind.CODE, "code_calls"),
        (SinkKind.SQL, "sql_calls"),
        (SinkKind.OUTPUT, "output_calls"),
    )
    FUNCTION_ONLY = frozenset({SinkKind.SHELL, SinkKind.CODE})

    def __init__(self, g: FlowGraph) -> None:
        self.g = g
        self.config = g.ctx.s.config().dataflow
        self._by_lang: dict[str, list[tuple[str, dict[str, str], dict[str, str]]]] = {}

    def compiled(self, lang: str) -> list[tuple[str, dict[str, str], dict[str, str]]]:
        got = self._by_lang.get(lang)
        if got is None:
            r: FlowRules = self.config.rules(lang, call_family(lang))
            got = []
            for kind, attr in self.ORDER:
                names: tuple[str, ...] = getattr(r, attr)
                plain = {c.lower(): c for c in names if "." not in c}
                dotted = {c.lower(): c for c in names if "." in c}
                got.append((kind, plain, dotted))
            self._by_lang[lang] = got
        return got

    def kind(self, path: str, name: str, how: str) -> tuple[str | None, str]:
        """The sink kind of a call ``name`` made ``how`` in ``path`` and the configured
        name it matched (None, "": no sink)."""
        if not name:
            return None, ""
        low = name.lower()
        last = low.rsplit(".", 1)[-1]
        for kind, plain, dotted in self.compiled(self.g.naming(path).lang):
            if kind in self.FUNCTION_ONLY and how != FlowCallHow.FUNCTION:
                hit = None
            else:
                hit = plain.get(last) if kind not in self.FUNCTION_ONLY or low == last else None
            if hit is None and "." in low:
                hit = next(
                    (c for d, c in dotted.items() if low == d or low.endswith("." + d)), None
                )
            if hit is not None:
                return kind, hit
        return None, ""


class Sinks:
    """Which statements are sinks, from the ``dataflow`` section of the configuration and
    the summaries of the functions a statement calls."""

    def __init__(self, ctx: Ctx, g: FlowGraph, kinds: tuple[str, ...]) -> None:
        self.ctx = ctx
        self.g = g
        self.kinds = kinds
        self.rules = Rules(g)
        self.include = ctx.s.config().dataflow.include
        self._sql_lines: dict[str, set[int]] = {}
        self.summaries = Summaries(g, self.rules)
        #: statement -> the wrappers that make it a SQL sink
        self.via: dict[Node, list[Via]] = {}

    def sql_lines(self, path: str) -> set[int]:
        if path not in self._sql_lines:
            rows = self.ctx.graph.nodes_in_file(self.ctx.rev, path)
            self._sql_lines[path] = {
                r.start_line
                for r in rows
                if r.kind == NodeKind.SQL_LITERAL and r.start_line is not None
            }
        return self._sql_lines[path]

    def of(self, n: Node, tainted: set[str]) -> list[str]:
        """The sink kinds statement ``n`` is for the variables ``tainted`` that reached it."""
        if not tainted:
            return []
        g = self.g
        u = g.unit(n[0])
        s = u.stmts[n[1]]
        out: list[str] = []
        if not tainted.intersection(s[5]):
            return []
        for c in s[6]:
            if not any(tainted.intersection(a) for a in _args(c)):
                continue
            kind, _said = self.rules.kind(u.row.path, c[0], c[1])
            if kind is not None:
                out.append(kind)
        if SinkKind.SQL in self.kinds and SinkKind.SQL not in out:
            vias = self.wrappers(n, tainted)
            if vias:
                self.via[n] = vias
                out.append(SinkKind.SQL)
        if SinkKind.OUTPUT in s[7]:
            out.append(SinkKind.OUTPUT)
        if SinkKind.SHELL in s[7]:
            out.append(SinkKind.SHELL)
        if SinkKind.CODE in s[7]:
            out.append(SinkKind.CODE)
        if SinkKind.INCLUDE in s[7] and self.include:
            out.append(SinkKind.INCLUDE)
        if s[0] in self.sql_lines(u.row.path):
            out.append(SinkKind.SQL_STRING)
        return [k for k in dict.fromkeys(out) if k in self.kinds]

    def wrappers(self, n: Node, tainted: set[str]) -> list[Via]:
        """The calls of ``n`` passing tainted data to a parameter that reaches a SQL sink
        inside the callee (its summary)."""
        out: list[Via] = []
        for e, call in self.g.calls_at(n):
            summary = self.summaries.of(e.dst)
            for p, a in bind(call, self.summaries.params(e.dst)).items():
                v = summary.get(p)
                if v is not None and tainted.intersection(a):
                    if e.provenance != Provenance.STATED:
                        v = Via(v.fqn, v.param, v.sink, v.call, Provenance.DERIVED, v.through)
                    out.append(v)
        return out


def _args(call: list[Any]) -> list[list[str]]:
    """The variables of each argument of a call, keyword arguments too."""
    return [*call[2], *call[3].values()] if len(call) > 3 else list(call[2])


def _parse_place(text: str) -> tuple[str, int] | None:
    path, sep, line = text.rpartition(":")
    if sep and path and line.isdigit():
        return path, int(line)
    return None


def _unquote(key: str) -> str:
    key = key.strip()
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "'\"":
        key = key[1:-1]
    return key


def split_source(source: str) -> tuple[str, str | None]:
    """A request source and its key: ``$_POST['id']`` (``[id]`` too),
    ``request.args['id']`` and ``request.args.get('id', default)`` are (name, ``id``);
    ``os.environ`` is (``os.environ``, None)."""
    source = source.strip()
    base, sep, rest = source.partition("[")
    if sep and base:
        return base, _unquote(rest.rsplit("]", 1)[0]) or None
    head, sep, rest = source.partition(".get(")
    if sep and head and rest.endswith(")"):
        return head, _unquote(rest[:-1].split(",", 1)[0]) or None
    return source, None


def keyed(name: str, key: str) -> str:
    """How a walk writes the use of one key of a source (``request.args['id']``)."""
    return f"{name}['{key}']"


def _request_source(ctx: Ctx, g: FlowGraph, source: str) -> Source:
    """A request source (a superglobal, php://input, a configured source of another
    language), optionally one key of it: the statements reading it."""
    name, key = split_source(source)
    allowed = list(ctx.s.config().dataflow.all_sources())
    if allowed and name not in allowed:
        raise InvalidArgument(
            f"flow: '{name}' is not a configured source (dataflow.sources and"
            f" dataflow.languages.*.sources: {', '.join(allowed)})"
        )
    if name.startswith("php://"):
        key = None
    reads: dict[str, set[int]] | None = None
    if key is not None:
        reads = _key_reads(ctx, keyed(name, key))
    starts: list[Node] = []
    every = 0  # units (not statements) reading it otherwise, for the hint
    by_endpoint = name in ctx.s.config().dataflow.rules(ENDPOINT_LANG).sources
    for row in ctx.graph.flow_units_reading(ctx.rev, name):
        lines = reads.get(row.path, set()) if reads is not None else set()
        if by_endpoint and reads is not None:
            if not any(row.start_line <= x <= row.end_line for x in lines):
                every += 1  # a unit reading other keys (counted, not parsed)
                continue
        u = g.parse(row)
        hits = [i for i, s in enumerate(u.stmts) if name in s[5]]
        if key is not None:
            own = keyed(name, key)
            hits = sorted(
                set(_innermost(u.stmts, hits, lines)) | {i for i in hits if own in u.stmts[i][5]}
            )
        every += 0 if hits else 1
        starts += [(row.unit_id, i) for i in hits]
    desc: dict[str, Any] = {"kind": "request", "name": name}
    hint = None
    if key is not None:
        desc["key"] = sanitize.name(key)
        if not starts:
            hint = (
                f"no statement reads {sanitize.name(name)}['{sanitize.name(key)}'] in"
                f" {ctx.rev} ({every} functions or scripts read {sanitize.name(name)} under"
                " other keys or whole); check the key's spelling, or give the source"
                " alone"
            )
    return Source(starts, None, frozenset({name}), desc, hint)


def _key_reads(ctx: Ctx, endpoint: str) -> dict[str, set[int]]:
    """The places reading one key of a superglobal: the ``flows_to`` edges of its
    ``http_endpoint`` node to the code reading it (not those to the SQL strings its value
    reaches, which carry ``via``)."""
    nid = ids.node_id(NodeKind.HTTP_ENDPOINT, endpoint, None, None)
    out: dict[str, set[int]] = {}
    for e in ctx.graph.edges_from(ctx.rev, [nid], (EdgeKind.FLOWS_TO,)):
        if e.evidence_path and e.evidence_line and not _is_via(e):
            out.setdefault(e.evidence_path, set()).add(e.evidence_line)
    return out


def _is_via(e: EdgeRow) -> bool:
    return bool(e.props) and "via" in json.loads(e.props or "{}")


def _innermost(stmts: list[list[Any]], hits: list[int], lines: set[int]) -> list[int]:
    """Of the statements ``hits``, the innermost one around each of ``lines``."""
    out: set[int] = set()
    for ln in lines:
        around = [i for i in hits if stmts[i][0] <= ln <= stmts[i][1]]
        if around:
            out.add(min(around, key=lambda i: (stmts[i][1] - stmts[i][0], i)))
    return sorted(out)


def _source(ctx: Ctx, g: FlowGraph, source: str) -> Source | str | None:
    """The statements a flow starts from; None for a source of no known form, the language
    of a place or parameter that data flow does not cover."""
    src_place = _parse_place(source)
    if src_place is not None:
        ctx.touch(src_place[0])
        lang = dfcover.uncovered(ctx, src_place[0])
        if lang is not None:
            return lang
        starts = g.at(*src_place)
        defs = {v for n in starts for v in g.unit(n[0]).stmts[n[1]][4]}
        return Source(
            starts, frozenset(defs) if defs else None, NONE, {"kind": "statement", "place": source}
        )
    name = split_source(source)[0]
    if (
        source.startswith("$_")
        or source.startswith("php://")
        or name in ctx.s.config().dataflow.all_sources()
    ):
        return _request_source(ctx, g, source)
    fqn, _, param = source.partition("(")  # a parameter: Fqn($param), pkg.f(x)
    param = param.rstrip(")").strip()
    rows = lookup.targets(ctx, {"fqn": fqn}) if param else []
    if not rows:
        return None
    lang = dfcover.uncovered(ctx, rows[0].path)
    if lang is not None:
        return lang
    param = _var(param, g.naming(rows[0].path or "")) or ""
    starts = [(u.row.unit_id, 0) for u in g.entry_units(rows[0].node_id) if param in u.stmts[0][4]]
    desc = {"kind": "parameter", "fqn": sanitize.name(rows[0].fqn), "name": param}
    return Source(starts, frozenset({param}), NONE, desc)


def flow_op(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """The body of ``ops.flow`` once the revision has the layer."""
    from ragraf.facade.flowops import LIMIT_FLOW

    g = FlowGraph(ctx)
    depth = int(args.get("depth", 3))
    limit = int(args.get("limit", 5))
    ctx.limits.append(LIMIT_FLOW)
    source = str(args["source"]).strip()
    sink = str(args.get("sink") or "any").strip()
    src = _source(ctx, g, source)
    sink_place = _parse_place(sink)
    lang = src if isinstance(src, str) else None
    if lang is None and sink_place is not None:
        lang = dfcover.uncovered(ctx, sink_place[0])
    if lang is not None:
        return dfcover.refuse(ctx, "flow", lang)
    if src is None or isinstance(src, str):
        return {
            "source": {"kind": "unknown", "name": sanitize.name(source), "statements": 0},
            "sink": {"kind": sink},
            "reaches": False,
            "paths": [],
            "hint": "`source` is a request source of the `dataflow` configuration (PHP:"
            " $_GET, $_POST['id'], php://input; Python: request.args['id'], os.environ...),"
            " a place (path:line) or a parameter (Class::method($param), pkg.func(x)) of a"
            f" function in {ctx.rev}; this is none of them",
        }
    kinds = (
        SINK_KINDS
        if sink in ("any", "") or sink_place
        else tuple(k for k in SINK_KINDS if k == sink)
    )
    if not kinds:
        return {
            "source": {**src.desc, "statements": len(src.starts)},
            "sink": {"kind": "unknown", "name": sanitize.name(sink)},
            "reaches": False,
            "paths": [],
            "hint": f"`sink` is a place (path:line) or one of: any, {', '.join(SINK_KINDS)}",
        }
    result: dict[str, Any] = {
        "source": {**src.desc, "statements": len(src.starts)},
        "sink": {"kind": "statement", "place": sink} if sink_place else {"kind": sink},
        "reaches": False,
        "paths": [],
    }
    if not src.starts:
        result["hint"] = src.hint or "no statement of the data-flow layer reads that source"
        return result
    fw = Walk(g, "forward", depth, MAX_FLOW_STATEMENTS, control=False)
    fw.start(src.starts, src.only, src.arrived)
    if sink_place is not None:
        return _to_place(ctx, g, fw, sink_place, depth, result)
    return _to_sinks(ctx, g, fw, Sinks(ctx, g, kinds), src, limit, result)


def _to_place(
    ctx: Ctx,
    g: FlowGraph,
    fw: Walk,
    place: tuple[str, int],
    depth: int,
    result: dict[str, Any],
) -> dict[str, Any]:
    """A place as the sink: the shortest path, searched from both ends."""
    ctx.touch(place[0])
    targets = g.at(*place)
    if not targets:
        result["hint"] = "no statement of the data-flow layer at the sink place"
        return result
    path, complete = _bidirectional(g, fw, targets, depth)
    if path is not None:
        result["reaches"] = True
        result["paths"].append(_flow_path(g, path, None))
    result["searched"] = len(fw.nodes)
    if path is None and not complete:
        _stopped(ctx, result)
    return result


def _to_sinks(
    ctx: Ctx,
    g: FlowGraph,
    fw: Walk,
    sinks: Sinks,
    src: Source,
    limit: int,
    result: dict[str, Any],
) -> dict[str, Any]:
    """Every sink the forward walk reaches (to its end or its cap), ranked (``rank``)."""
    found: dict[Node, list[str]] = {}
    # breadth first: paths come shortest first, so once `limit` pairs have their first
    # path, a later one ranks after them all (``rank``); the source statements (paths of
    # no step) first, in order
    pairs: set[tuple[str, str]] = set()
    for n in src.starts:  # a source statement that is a sink already
        if len(pairs) >= limit:
            break
        ks = sinks.of(n, set(fw.arrived.get(n, set())) | set(src.only or ()))
        if ks:
            found[n] = ks
            pairs.add((_func(g, n), _func(g, n)))
    while fw.queue and not fw.truncated and len(pairs) < limit:
        before = len(fw.grew)
        fw.step()
        for m in dict.fromkeys(fw.grew[before:]):
            ks = sinks.of(m, fw.arrived.get(m, set()))
            if ks and m not in found:
                found[m] = ks
                pairs.add((_func(g, fw.origin(m)), _func(g, m)))
    if fw.truncated and len(found) < limit:
        _stopped(ctx, result)
    ranked = rank(g, fw, list(found))
    for n in ranked[:limit]:
        p = _flow_path(g, fw.path_to(n), (n, found[n]))
        if n in sinks.via:
            p["sink"]["via"] = [v.view() for v in sinks.via[n]]
        result["paths"].append(p)
    if len(ranked) > limit or fw.queue:
        more = "; the search stopped there, more may follow" if fw.queue else ""
        ctx.limits.append(
            f"flow: {min(limit, len(ranked))} of {len(ranked)} sinks found listed"
            f" ({ORDER_PATHS}){more}; `limit` up to 50"
        )
    result["sinks_found"] = len(ranked)
    result["reaches"] = bool(result["paths"])
    result["searched"] = len(fw.nodes)
    wrappers = {(v.fqn, v.param): v for n in ranked[:limit] for v in sinks.via.get(n, ())}
    if wrappers:
        result["wrappers"] = [
            {**v.view(), "why": _why(v)} for _k, v in sorted(wrappers.items(), key=lambda kv: kv[0])
        ]
    return result


def _why(v: Via) -> str:
    inner = " -> ".join(x[: sanitize.MAX_NAME] for x in v.through)
    tail = f" through {inner}" if inner else f" ({sanitize.name(v.call)})"
    return (
        f"its parameter {sanitize.name(v.param)} reaches a SQL sink at {v.sink}{tail}, so a"
        " call passing data to it runs that data as SQL"
    )


def _func(g: FlowGraph, n: Node) -> str:
    return g.unit(n[0]).row.func_node_id


def rank(g: FlowGraph, fw: Walk, sinks: list[Node]) -> list[Node]:
    """The sinks in the order their paths are listed: the shortest path of each distinct
    (source function, sink function) pair first, then the others; each group by length,
    then by place (issue 42: the 50 shortest paths hid a 5-step path across two calls)."""
    length = {n: len(fw.path_to(n)) for n in sinks}
    func = partial(_func, g)

    def place(n: Node) -> tuple[str, int]:
        u = g.unit(n[0])
        return (u.row.path, int(u.stmts[n[1]][0]))

    seen: set[tuple[str, str]] = set()
    first: list[Node] = []
    rest: list[Node] = []
    for n in sorted(sinks, key=lambda n: (length[n], place(n), n)):
        pair = (func(fw.origin(n)), func(n))
        if pair in seen:
            rest.append(n)
        else:
            seen.add(pair)
            first.append(n)
    return first + rest


def _stopped(ctx: Ctx, result: dict[str, Any]) -> None:
    """The search hit its cap: a path beyond it is not known either way (the answer says
    so instead of a silent 'does not reach')."""
    result["complete"] = False
    ctx.limits.append(
        f"flow: stopped after {MAX_FLOW_STATEMENTS} statements; a path beyond them is not"
        " known (narrow the source or name a sink place path:line)"
    )


def _bidirectional(
    g: FlowGraph, fw: Walk, targets: list[Node], depth: int
) -> tuple[list[dict[str, Any]] | None, bool]:
    """Bidirectional breadth-first search (travsr): expand the smaller frontier a level at a
    time until the forward and backward walks meet; the shortest evidence path, and whether
    the search ended for want of statements (True) rather than at the cap (False)."""
    bw = Walk(g, "back", depth, MAX_FLOW_STATEMENTS, control=False)
    bw.start(targets, None)
    meet = next((n for n in fw.nodes if n in bw.nodes), None)
    capped = False
    while meet is None and fw.queue and bw.queue:
        if len(fw.nodes) + len(bw.nodes) > MAX_FLOW_STATEMENTS or fw.truncated or bw.truncated:
            capped = True
            break
        w, other = (fw, bw) if len(fw.queue) <= len(bw.queue) else (bw, fw)
        for _ in range(len(w.queue)):
            before = len(w.order)
            w.step()
            meet = next((m for m in w.order[before:] if m in other.nodes), None)
            if meet is not None:
                break
    if meet is None:
        return None, not capped
    return fw.path_to(meet) + bw.path_to(meet), True


def _flow_path(
    g: FlowGraph, edges: list[dict[str, Any]], end: tuple[Node, list[str]] | None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "edges": edges,
        "length": len(edges),
        "provenance": Provenance.DERIVED
        if any(e["provenance"] == Provenance.DERIVED for e in edges)
        else Provenance.STATED,
        "confidence": min([e["confidence"] for e in edges] or [1.0]),
    }
    if end is not None:
        out["sink"] = {**_statement(g, end[0], 0, True), "kinds": end[1]}
        out["sink"].pop("hops", None)
    return out
