"""The facade operations (architecture §7) that read code, files, routes and the ledger, and
the thin entries of those built elsewhere. One function per operation; its docstring is the
MCP tool description and the reference text. The others have modules of their own:
``symbol`` in ``lookup`` (with the lookups every operation shares), ``references`` /
``callers`` / ``callees`` in ``callgraph``, ``impact`` in ``impactop``, ``schema`` /
``table_usage`` in ``schemaops``.

Invariants a change must keep:
- No query language, no writes, no fact without evidence (FT-4, FT-7, FT-9):
  every node carries ``evidence`` (path:line), every edge its own.
- Not found is an answer: an empty result with a hint (nearest names, live_read).
- Bodies of code only through ``code`` (explicit request) and ``live_read``.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from typing import Any

from ragraf.errors import InvalidArgument
from ragraf.facade import lookup, sanitize
from ragraf.facade.context import (
    EVIDENCE_PER_ITEM,
    LIMIT_SLICE_REFUSED,
    Ctx,
    split_lines,
)
from ragraf.facade.paging import Pager
from ragraf.kinds import ChangeKind, EdgeKind, NodeKind
from ragraf.model import EdgeRow, LedgerEntry, NodeRow

#: the order of ``routes``' lists (``page.order``)
ORDER_ROUTES = "routes by path and method, parameters by name, files by path"
#: the order of ``drift_report``'s entries
ORDER_ENTRIES = "by entry id, the order they were recorded"
#: symbols whose code one `code` call returns (a short name can match many)
CODE_TARGETS = 10


def code(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """The indexed text of a symbol or a file, given only when asked for: its declarations
    or its whole body. For a symbol (`node_id` / `fqn`) or a file (`path`):
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
            return {"items": [], **lookup.not_found_hint(ctx, args["path"])}
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
    found = lookup.named(ctx, args)
    rows = found.rows
    stop = lookup.unanswered(ctx, args, found, rows)
    if stop is not None:
        return {"items": [], **stop}
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
    return {
        "items": items,
        **lookup.narrow(ctx, rows, "code"),
        **lookup.resolved(args, found, rows),
    }


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
    """Where requests enter the application: each route with its method and handler, the
    request parameters it reads, and the scripts run directly. In detail: router
    registrations (method, route, handler, evidence), the request parameters read from
    superglobals ($_GET / $_POST / $_REQUEST / $_COOKIE / $_FILES) with where they are
    read, and PHP files with top-level code that no other file includes. `path` filters
    by route prefix or file path."""
    flt = args.get("path")

    def in_filter(path: str | None) -> bool:
        return not flt or path == flt or bool(path and path.startswith(flt.rstrip("/") + "/"))

    pager = Pager(args, ORDER_ROUTES)
    rts = [
        rt
        for rt in ctx.graph.routes(ctx.rev)
        if not flt or rt.route.startswith("/" + flt.lstrip("/")) or rt.evidence_path == flt
    ]
    out_routes = []
    for rt in pager.cut("routes", rts):
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
    eps = ctx.graph.nodes_of_kind(ctx.rev, NodeKind.HTTP_ENDPOINT)
    reads_of: dict[str, list[EdgeRow]] = defaultdict(list)
    for e in ctx.graph.edges_from(ctx.rev, [ep.node_id for ep in eps], (EdgeKind.FLOWS_TO,)):
        if in_filter(e.evidence_path):
            reads_of[e.src].append(e)
    endpoints = []
    for ep in pager.cut("endpoints", [ep for ep in eps if reads_of.get(ep.node_id)]):
        reads = reads_of[ep.node_id]
        readers = ctx.graph.nodes_by_ids(ctx.rev, [e.dst for e in reads[:EVIDENCE_PER_ITEM]])
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
    included = {dst for _src, dst in ctx.graph.edge_ends(ctx.rev, EdgeKind.IMPORTS) if dst}
    entry_files = [
        ctx.node(f)
        for f in pager.cut(
            "entry_files",
            [
                f
                for f in ctx.graph.top_level_files(ctx.rev)
                if f.node_id not in included and in_filter(f.path)
            ],
        )
    ]
    return {
        "routes": out_routes,
        "endpoints": endpoints,
        "entry_files": entry_files,
        "page": pager.page(),
    }


def index_status(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """The revision, its state and times, capability (dataflow with the data-flow layer,
    else degraded) and which of its languages data flow covers, counts of nodes and edges,
    coverage (parsed / partial / failed files, calls resolved), ledger size, changes not
    yet registered and store sizes. Call it first in every session; `detail: full` adds
    every coverage metric and the edge kinds."""
    from ragraf.facade.status import brief, status_of

    full = status_of(ctx.s.root, ctx.rev, ctx.graph, ctx.lex, ctx.control, ctx.man)
    return full if args.get("detail") == "full" else brief(full)


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
    limit = cfg.corpus.max_file_bytes
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
    from ragraf.redact import redact

    cur = split_lines(redact(data.decode("utf-8", "replace"))[0])  # as the index keeps texts
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
    call gives derived steps); with a `variable`, a call is entered only when its result
    makes that variable. `mode: nodes` leaves the text out. Never whole bodies: read them
    with `code`. Paged like the other lists (`limit` / `offset`): the statements nearest
    the start first, each page with its edges and functions. Built from the syntax tree
    (reaching definitions per function) for the languages `status` says data flow covers
    (php, python, javascript, typescript, go, java); a variable is named as the language
    writes it (`$total` or `total`, `$this->p`, `self.p`, `this.p`); a place in another
    language, or a revision without the layer, answers with a refusal naming the language,
    and alternatives."""
    if ctx.capability == "dataflow":
        from ragraf.facade.flowops import slice_op

        return slice_op(ctx, args)
    return _refused(ctx, "slice", args.get("path"))


def _refused(ctx: Ctx, op: str, path: str | None) -> dict[str, Any]:
    """``slice`` / ``flow`` on a revision without the layer: which language is not covered
    (the file's, else the revision's), never a reindex that cannot add it."""
    from ragraf.facade import dfcover

    fr = ctx.file_row(path) if path else None
    lang = fr.lang if fr is not None else None
    c = dfcover.cover(ctx.graph, ctx.rev)
    ctx.limits.append(LIMIT_SLICE_REFUSED)
    ctx.limits.append(dfcover.limit(op, lang, c))
    return dfcover.refusal(op, ctx.rev, lang or None, c)


def flow(ctx: Ctx, args: dict[str, Any]) -> dict[str, Any]:
    """Whether data from a `source` (a request source: a superglobal such as $_GET or
    $_POST['id'], php://input, Python's request.args['id'] or os.environ; a place path:line;
    or a parameter Class::method($param)) reaches a `sink` (sql: an SQL execution call;
    sql_string: an SQL string assembled from it; output, include, shell, code (eval); any;
    or a place path:line), and the shortest evidence path to each sink found:
    def-use, argument -> parameter and return -> call edges with provenance and confidence,
    up to `depth` call hops. A place as sink is searched from both ends at once
    (bidirectional breadth-first search). A key ($_POST['id'], request.args.get('id'))
    starts only where that key is read. A call of a function whose parameter reaches a SQL
    sink inside it (a query wrapper) is a sql sink too, listed with why (`via`, `wrappers`). Paths are ranked: the
    shortest of each distinct (source function, sink function) pair first, then by length;
    `limit` keeps the first. Sinks and sources come from the `dataflow` section of the
    configuration. Built from the syntax tree: `reaches: false` means no path the layer
    sees, not proof that none exists."""
    if ctx.capability == "dataflow":
        from ragraf.facade.flowpaths import flow_op

        return flow_op(ctx, args)
    place = str(args.get("source") or "").rpartition(":")
    return _refused(ctx, "flow", place[0] if place[2].isdigit() else None)


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
    pager = Pager(args, ORDER_ENTRIES)
    listed = pager.cut("entries", out)
    hint = None
    if not out:
        hint = (
            f"the ledger of {ctx.rev} is empty"
            + (" since " + str(since) if since else "")
            + "; run `ragraf drift --scan` after edits to register them"
        )
    return {
        "rev": ctx.rev,
        "since": since,
        "entries": listed,
        "summary": summary,
        "hint": hint,
        "page": pager.page(),
    }


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
    cfg = ctx.s.config().search
    cover_cos = max(cfg.coverage_cosine, t)
    grey = [(v, r) for c, v, _n, r in scored if t <= c < cover_cos and v is not None]
    m = cfg.min_term_coverage
    if grey:
        m, _ok = _best_split(grey, lo=0.0, hi=1.0)

    def passes(c: float, v: float | None) -> bool:
        return c >= cover_cos or (c >= t and (v is None or v >= m))

    # below near_cosine, the content words must meet in one place near in meaning: the share,
    # fitted on the samples the two thresholds above let through
    near_cos = cfg.near_cosine
    grey_near = [(n, r) for c, v, n, r in scored if passes(c, v) and c < near_cos and n is not None]
    mn = cfg.min_near_meet
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
