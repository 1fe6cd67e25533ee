"""The facade: the fixed operations an agent may ask (architecture §7, P4).

``run_op(root, op, args)`` validates the arguments (SEC-002), runs the one
function of the operation against read-only stores and returns the envelope
``{op, index_rev, capability, drift, provenance, limits, result,
stale_warnings}``. The CLI and the MCP server call this and nothing else.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragraf.errors import InvalidArgument
from ragraf.facade.paging import OFFSET, limit_param
from ragraf.facade.params import REV_ID, OpSpec, Param, did_you_mean, shown, validate
from ragraf.kinds import ALL_NODES
from ragraf.lang import registry

FQN = Param(
    "fqn",
    "string",
    "A symbol's name: its fqn (App\\Billing\\Invoice::charge), the import path a user writes"
    " (requests.sessions.Session.request, mux.Router.NewRoute) or a trailing part split at"
    " . :: # / \\ (Invoice::charge, Session.request, Billing#charge, app.set).",
)
NODE = Param("node_id", "node_id", "A node id from an earlier answer.")
DEPTH = Param("depth", "int", "How many levels to follow.", 1, 1, 3)
HARD = Param("hard_only", "bool", "Follow stated (proven) edges only.", False)
DETAIL = Param(
    "detail",
    "enum",
    "brief: each item once with its lines, what is common said once (provenance by section,"
    " confidence only below 1); full: every edge with its id, provenance and confidence, and"
    " node ids.",
    "brief",
    choices=("brief", "full"),
)
PATH_ONE = Param(
    "path", "path", "Only the declaration in this file (a name several files declare)."
)


class _Op:
    """An operation's function, named by its module of ``ragraf.facade`` and imported when
    first run or described: a process that answers one question (a cold ``ragraf query
    search``) loads the modules of that answer, not those of every operation."""

    __slots__ = ("_fn", "module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name
        self._fn: Callable[..., dict[str, Any]] | None = None

    def fn(self) -> Callable[..., dict[str, Any]]:
        if self._fn is None:
            self._fn = getattr(importlib.import_module(f"ragraf.facade.{self.module}"), self.name)
        return self._fn


#: every node kind an agent may filter by (ragraf.kinds is the one list)
NODE_KINDS = tuple(str(k) for k in ALL_NODES)

REGISTRY: dict[str, tuple[_Op, OpSpec | None]] = {
    "search": (
        _Op("ops", "search"),
        OpSpec(
            "search",
            (
                Param(
                    "query", "string", "Words, a name or a description of the code you look for."
                ),
                Param(
                    "kinds",
                    "list",
                    "Only hits whose symbol kind is one of these (e.g. method, class, doc_section, file).",
                    max_items=10,
                ),
                Param(
                    "lang",
                    "enum",
                    "Only files of this language.",
                    choices=registry.names(),
                ),
                Param("limit", "int", "Maximum number of hits.", 10, 1, 50),
                Param(
                    "with_text", "bool", "Inline the text of each hit (untrusted content).", False
                ),
                Param(
                    "detail",
                    "enum",
                    "brief: each hit's why keeps what places it (windows, built copies,"
                    " neighbours, an exact name); full: every scoring feature (ranks, cosine,"
                    " bm25, re-rank).",
                    "brief",
                    choices=("brief", "full"),
                ),
            ),
            main="query",
            required=("query",),
            example=("invoice total", "--limit", "5"),
        ),
    ),
    "symbol": (
        _Op("lookup", "symbol"),
        OpSpec(
            "symbol",
            (
                Param(
                    "name",
                    "string",
                    "A short name (charge, Invoice, $db) or a qualified one in any form fqn takes.",
                ),
                FQN,
                Param("path", "path", "Only declarations in this file."),
                Param("kind", "enum", "Only this kind of node.", choices=NODE_KINDS),
                limit_param(what="declarations"),
                OFFSET,
            ),
            main="name",
            one_of=(("name", "fqn"),),
            example=("Invoice", "--kind", "class"),
        ),
    ),
    "references": (
        _Op("callgraph", "references"),
        OpSpec(
            "references",
            (FQN, NODE, PATH_ONE, DETAIL, limit_param(what="sites"), OFFSET),
            main="fqn",
            one_of=(("fqn", "node_id"),),
            example=("App\\Billing\\Invoice::find",),
        ),
    ),
    "callers": (
        _Op("callgraph", "callers"),
        OpSpec(
            "callers",
            (FQN, NODE, PATH_ONE, DEPTH, HARD, DETAIL, limit_param(what="callers"), OFFSET),
            main="fqn",
            one_of=(("fqn", "node_id"),),
            example=("Database::query", "--depth", "2"),
        ),
    ),
    "callees": (
        _Op("callgraph", "callees"),
        OpSpec(
            "callees",
            (FQN, NODE, PATH_ONE, DEPTH, HARD, DETAIL, limit_param(what="callees"), OFFSET),
            main="fqn",
            one_of=(("fqn", "node_id"),),
            example=("Invoice::charge", "--hard-only"),
        ),
    ),
    "impact": (
        _Op("impactop", "impact"),
        OpSpec(
            "impact",
            (
                FQN,
                NODE,
                Param("path", "path", "A file: the impact of changing anything in it."),
                Param("table", "string", "A database table name."),
                Param(
                    "mode",
                    "enum",
                    "hard: walk stated edges only; full: also derived ones (reported apart).",
                    "full",
                    choices=("hard", "full"),
                ),
                Param("depth", "int", "How many levels of dependents to follow.", 3, 1, 5),
                DETAIL,
                limit_param(what="items"),
                OFFSET,
            ),
            main="fqn",
            one_of=(("fqn", "node_id", "path", "table"),),
            example=("--table", "invoices"),
        ),
    ),
    "slice": (
        _Op("ops", "slice_"),
        OpSpec(
            "slice",
            (
                Param("path", "path", "A file: slice from the statements at `line` of it."),
                Param("line", "int", "The line of `path` to slice from.", None, 1, 10_000_000),
                Param(
                    "variable",
                    "string",
                    "Only this variable of the line (total or $total; $this->p for a property).",
                ),
                FQN,
                NODE,
                Param("direction", "enum", "back or forward.", "back", choices=("back", "forward")),
                Param(
                    "depth",
                    "int",
                    "Inter-procedural hops to follow (argument -> parameter, return -> call).",
                    1,
                    1,
                    5,
                ),
                Param(
                    "mode",
                    "enum",
                    "lines: statements with their first line; nodes: ids and places only.",
                    "lines",
                    choices=("lines", "nodes"),
                ),
                limit_param(what="statements"),
                OFFSET,
            ),
            main="fqn",
            one_of=(("fqn", "node_id", "path"),),
            example=("--path", "index.php", "--line", "12", "--direction", "back"),
        ),
    ),
    "flow": (
        _Op("ops", "flow"),
        OpSpec(
            "flow",
            (
                Param(
                    "source",
                    "string",
                    "Where the data comes from: a request source of the `dataflow` configuration"
                    " (PHP: $_GET, $_POST['id'], php://input; Python: request.args['id'],"
                    " request.form, os.environ, input()), a place (path:line) or a parameter"
                    " (Class::method($param), pkg.func(x)).",
                ),
                Param(
                    "sink",
                    "string",
                    "Where it must not arrive: any, sql, sql_string, output, include, shell,"
                    " code, or a place (path:line).",
                    "any",
                ),
                Param(
                    "depth",
                    "int",
                    "Inter-procedural hops to follow (argument -> parameter, return -> call).",
                    3,
                    1,
                    5,
                ),
                Param(
                    "limit", "int", "Most sinks reported, each with its shortest path.", 5, 1, 50
                ),
            ),
            main="source",
            required=("source",),
            example=("$_GET", "--sink", "sql"),
        ),
    ),
    "code": (
        _Op("ops", "code"),
        OpSpec(
            "code",
            (
                FQN,
                NODE,
                Param("path", "path", "A file."),
                Param(
                    "entry_ids",
                    "list",
                    "Chunk ids from search hits.",
                    item="chunk_id",
                    max_items=20,
                ),
                Param(
                    "style",
                    "enum",
                    "signatures: declarations only; compact: bodies without blank lines.",
                    "signatures",
                    choices=("signatures", "compact"),
                ),
            ),
            main="fqn",
            one_of=(("fqn", "node_id", "path", "entry_ids"),),
            example=("Invoice::total", "--style", "compact"),
        ),
    ),
    "repo_map": (
        _Op("ops", "repo_map"),
        OpSpec(
            "repo_map",
            (
                Param(
                    "scope",
                    "string",
                    "A path prefix (src/Billing) or a namespace prefix (App\\Billing).",
                ),
                Param("budget_tokens", "int", "Token budget of the map.", 2000, 100, 32000),
                Param(
                    "detail",
                    "enum",
                    "names or signatures.",
                    "names",
                    choices=("names", "signatures"),
                ),
            ),
            main="scope",
            example=("src/Billing", "--budget-tokens", "500"),
        ),
    ),
    "routes": (
        _Op("ops", "routes"),
        OpSpec(
            "routes",
            (
                Param("path", "string", "A route prefix (/server) or a file path."),
                limit_param(what="items"),
                OFFSET,
            ),
            main="path",
        ),
    ),
    "index_status": (
        _Op("ops", "index_status"),
        OpSpec(
            "index_status",
            (
                Param(
                    "detail",
                    "enum",
                    "brief: what a session needs (capability, counts, the coverage that says"
                    " how complete the answers are, ledger, pending changes; ~2 KB); full:"
                    " every coverage metric with its note, counts by edge kind, every revision.",
                    "brief",
                    choices=("brief", "full"),
                ),
            ),
        ),
    ),
    # their specs are declared beside them (``_spec`` imports the module when asked)
    "schema": (_Op("schemaops", "schema"), None),
    "table_usage": (_Op("schemaops", "table_usage"), None),
    "drift_report": (
        _Op("ops", "drift_report"),
        OpSpec(
            "drift_report",
            (
                Param(
                    "since",
                    "string",
                    "Only entries after this entry id, or since this ISO date/time.",
                ),
                limit_param(50, "entries"),
                OFFSET,
            ),
            main="since",
        ),
    ),
    "drift_ack": (
        _Op("ops", "drift_ack"),
        OpSpec(
            "drift_ack",
            (
                Param(
                    "entry_ids",
                    "list",
                    "Ledger entry ids to acknowledge.",
                    item="int",
                    max_items=200,
                ),
                Param("note", "string", "Why they are accounted for."),
                Param(
                    "by", "string", "Who acknowledges (default: $RAGRAF_ACTOR or the user name)."
                ),
            ),
            main="entry_ids",
            required=("entry_ids",),
            example=("1", "--note", "reviewed"),
            writes=("control.sqlite (drift_ack)", ".ragraf/drift/LEDGER.md"),
        ),
    ),
    "calibrate": (
        _Op("ops", "calibrate"),
        OpSpec(
            "calibrate",
            (
                Param("kind", "enum", "What to calibrate.", "threshold", choices=("threshold",)),
                Param(
                    "samples", "samples", "Labelled samples: [{query, relevant}].", max_items=500
                ),
            ),
            required=("samples",),
            example=("--samples", "samples.yaml"),
            writes=("control.sqlite (calibration)",),
        ),
    ),
    "live_read": (
        _Op("ops", "live_read"),
        OpSpec(
            "live_read",
            (
                Param("path", "path", "A file, relative to the project root."),
                Param("start", "int", "First line (1-based).", None, 1, 10_000_000),
                Param("end", "int", "Last line (inclusive).", None, 1, 10_000_000),
            ),
            main="path",
            required=("path",),
            example=("src/bootstrap.php", "--start", "1", "--end", "20"),
        ),
    ),
}

OPERATIONS = tuple(REGISTRY)


def describe(op: str) -> str:
    fn, _declared = REGISTRY[op]
    return " ".join((fn.fn().__doc__ or "").split())


def spec(op: str) -> OpSpec:
    if op not in REGISTRY:
        raise InvalidArgument(
            f"unknown operation {shown(op)}{did_you_mean(str(op), OPERATIONS)};"
            f" operations: {', '.join(OPERATIONS)}"
        )
    return _spec(op)


def _spec(op: str) -> OpSpec:
    """The declaration of a known operation (schemaops declares its two beside them)."""
    declared = REGISTRY[op][1]
    if declared is None:
        from ragraf.facade import schemaops

        declared = {
            "schema": schemaops.SCHEMA_SPEC,
            "table_usage": schemaops.TABLE_USAGE_SPEC,
        }[op]
    return declared


def check_rev(rev: Any) -> str | None:
    if rev is None:
        return None
    if not isinstance(rev, str) or not REV_ID.match(rev):
        raise InvalidArgument(f"argument 'rev' must look like rev-0001, got {shown(rev)}")
    return rev


def run(
    session: Any, op: str, args: dict[str, Any] | None = None, rev: str | None = None
) -> dict[str, Any]:
    """Validate, run one operation on an open Session, wrap the result in the envelope."""
    sp = spec(op)
    clean = validate(sp, dict(args or {}))
    rev = check_rev(rev)
    ctx = session.context(op, rev)
    fn = REGISTRY[op][0].fn()
    result: dict[str, Any] = fn(ctx, clean)
    envelope: dict[str, Any] = ctx.envelope(result)
    return envelope


def run_op(
    root: Path, op: str, args: dict[str, Any] | None = None, rev: str | None = None
) -> dict[str, Any]:
    """One call with its own session (the CLI). Arguments are validated before any store opens."""
    from ragraf.facade.context import Session

    validate(spec(op), dict(args or {}))
    check_rev(rev)
    session = Session(root)
    try:
        return run(session, op, args, rev)
    finally:
        session.close()
