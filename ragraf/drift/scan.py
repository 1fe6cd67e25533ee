"""Delta detection against the active revision (architecture §8.2).

Invariants a change must keep:
- The index is never touched (I1): detection reads the working tree and the
  revision's rows, and writes only to the ledger (``ragraf.drift.ledger``) and to the
  extraction cache (``file_facts``, keyed by content and extractor, read by no query): the
  changed files' facts extracted for the symbol diff are the ones the next reindex needs.
- Unchanged files cost a stat: size and mtime equal to the indexed ones mean
  unchanged; only differing files are hashed, and only changed files parsed.
- Symbols are diffed with the same extractor the index used. A changed symbol
  has a different signature or body; edges with evidence in a changed file or
  touching a changed / removed symbol are invalidated (stale_edge rows).
- slice_boundary (I4) is its own entry, separate from modify: a new function
  whose body lines mostly came out of a function that shrank (extract), or a
  removed function whose body lines now sit in a function that grew (inline).
  With the data-flow layer (§6.5) an extraction's note names the variables
  whose def-use edges in the indexed function now cross the new boundary: the
  extracted code carries its slice with it.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragraf.config import Config
from ragraf.corpus import ScannedFile, read_file, scan
from ragraf.drift.ledger import NewEntry
from ragraf.drift.state import RENAMED_FROM, ledger_state
from ragraf.errors import InvalidArgument
from ragraf.kinds import (
    CALLABLE,
    PATH_NOTES,
    SYMBOL,
    ChangeKind,
    DivergenceKind,
    ParseStatus,
    UnitKind,
)
from ragraf.lang import registry
from ragraf.lang.facts import FileFacts
from ragraf.lang.registry import lang_of
from ragraf.model import SCHEMA_PATH, LedgerEntry, props_of
from ragraf.store.control import ControlStore
from ragraf.store.graph import GraphStore

if TYPE_CHECKING:
    from ragraf.sql.dbschema import Divergence

_TRIVIAL = {
    "",
    "{",
    "}",
    "};",
    ");",
    "(",
    ")",
    "]",
    "[",
    "];",
    "<?php",
    "?>",
    "return;",
    "break;",
    "else",
    "} else {",
}


@dataclass
class Change:
    path: str
    kind: str  # add | modify | delete | rename
    old_sha: str | None
    new_sha: str | None
    old_path: str | None = None  # rename: where it was
    text: str | None = None  # current text (add / modify / rename)
    detected_by: str = "compare"
    commit_sha: str | None = None


@dataclass
class SymbolInfo:
    fqn: str
    kind: str
    node_id: str | None
    signature: str
    body: list[str] = field(default_factory=list)
    start_line: int = 0  # of the indexed declaration (0: not known)


def _norm(lines: list[str]) -> list[str]:
    return [
        s
        for s in (ln.strip() for ln in lines)
        if s not in _TRIVIAL and not s.startswith(("//", "#", "*", "/*"))
    ]


def current_files(cfg: Config) -> dict[str, ScannedFile]:
    """Selected paths now, as the scan sees them without reading regular files (size and
    mtime only); symlinks and special files carry the sha the index records for them."""
    return {f.path: f for f in scan(cfg, read=False).files}


def detect(
    cfg: Config, graph: GraphStore, rev: str, now: dict[str, ScannedFile] | None = None
) -> list[Change]:
    """The changes of the tree (``now``: ``current_files``, read here when not given)
    against the files of ``rev``."""
    indexed = {r.path: (r.sha256, r.size, r.mtime_ns) for r in graph.files(rev)}
    if now is None:
        now = current_files(cfg)
    max_bytes = cfg.corpus.max_file_bytes
    adds: dict[str, Change] = {}
    changes: list[Change] = []
    for path, cur in sorted(now.items()):
        old = indexed.get(path)
        if old is not None and old[1] == cur.size and old[2] == cur.mtime_ns:
            continue
        if cur.status == ParseStatus.OK:  # a regular file whose size or mtime moved: read it
            sf = read_file(cfg.root, path, lang_of(path), max_bytes)
            sha, text = sf.sha256, sf.text
        else:  # a symlink or a special file: what the scan records is all there is
            sha, text = cur.sha256, None
        if old is None:
            adds[path] = Change(path, ChangeKind.ADD, None, sha, text=text)
        elif old[0] != sha:
            changes.append(Change(path, ChangeKind.MODIFY, old[0], sha, text=text))
    deletes = [
        Change(p, ChangeKind.DELETE, indexed[p][0], None) for p in sorted(set(indexed) - set(now))
    ]
    # rename: a deleted path whose content appears at a new path
    by_sha: dict[str, list[str]] = defaultdict(list)
    for p, c in adds.items():
        by_sha[c.new_sha or ""].append(p)
    for d in deletes:
        cands = by_sha.get(d.old_sha or "")
        if cands:
            newp = cands.pop(0)
            a = adds.pop(newp)
            changes.append(
                Change(newp, ChangeKind.RENAME, d.old_sha, a.new_sha, old_path=d.path, text=a.text)
            )
        else:
            changes.append(d)
    changes.extend(adds.values())
    return sorted(changes, key=lambda c: (c.path, c.kind))


def git_annotate(cfg: Config, changes: list[Change], rev_commit: str | None) -> str | None:
    """Mark changes git knows about (detected_by git-diff, commit_sha when committed). Returns HEAD."""
    from ragraf import gitinfo

    head = gitinfo.head(cfg.root)
    tree = gitinfo.WorkTree.of(cfg.root) if head is not None else None
    if head is None or tree is None:
        return None  # not a repository, or no commit yet: compare alone
    committed = (
        tree.changed_between(rev_commit, head) if rev_commit and rev_commit != head else set()
    )
    uncommitted = tree.uncommitted()
    for c in changes:
        paths = {c.path, c.old_path} - {None}
        if paths & uncommitted:
            c.detected_by = "git-diff"
        elif paths & committed:
            c.detected_by, c.commit_sha = "git-diff", head
    return head


# -- symbols -------------------------------------------------------------------------
def indexed_symbols(graph: GraphStore, rev: str, path: str) -> dict[str, SymbolInfo]:
    text = graph.file_text(rev, path)
    lines = text.split("\n") if text is not None else []
    out: dict[str, SymbolInfo] = {}
    for n in graph.nodes_in_file(rev, path):
        if n.kind not in SYMBOL or not n.fqn:
            continue
        sig = props_of(n.props).get("signature", "")
        start, end = n.start_line, n.end_line
        body = lines[start - 1 : end] if start and end and n.kind in CALLABLE else []
        out.setdefault(n.fqn, SymbolInfo(n.fqn, n.kind, n.node_id, sig, body, start or 0))
    return out


@dataclass
class CurrentFacts:
    """What ``current_facts`` found: the facts per path, their cache rows, and the paths
    whose analysis exceeded the per-file time budget (their symbols cannot be compared)."""

    facts: dict[str, FileFacts]
    rows: list[tuple[str, str, bytes]]
    timed_out: dict[str, float]


#: what one extraction of a scan is given: path, language, text, max_lines, facts like it
_Job = tuple[str, str, str, int, "FileFacts | None"]


def _extract_all(jobs: list[_Job], budget: float | None) -> dict[int, FileFacts | None]:
    """Facts of each job; with a budget, each in a forked worker killed at the budget (as
    ``index`` does: ``ragraf.workers``), a job it kills mapping to None."""
    if budget is None:
        return {i: registry.extract(*job) for i, job in enumerate(jobs)}
    from ragraf import cpus
    from ragraf.workers import run_jobs

    def work(i: int) -> FileFacts:
        return registry.extract(*jobs[i])

    done = run_jobs(list(range(len(jobs))), work, min(len(jobs), cpus.usable()), budget)
    return {i: None if o.timed_out else o.result for i, o in done.items()}


def current_facts(cfg: Config, changes: list[Change], graph: GraphStore) -> CurrentFacts:
    """The facts of the changed files whose language declares symbols, extracted as a
    build extracts them, and their rows for the extraction cache (the key of
    ``ragraf.indexing.extract.facts_of``): the next ``reindex`` reads them instead of parsing
    the files again. A file whose content is in the cache already (an earlier scan of the
    same edit, or a build) is read from it, not parsed again. Every analysis runs under
    the build's per-file time budget (``index.file_time_budget_s``): a file over it is
    ``timed_out``, not cached (a build would record it failed)."""
    from ragraf.lang import codec

    max_lines = cfg.chunking.max_chunk_lines
    budget = cfg.index.time_budget
    facts: dict[str, FileFacts] = {}
    rows: list[tuple[str, str, bytes]] = []
    todo: list[tuple[Change, str, tuple[str, str]]] = []
    for c in changes:
        lang = registry.language_of(c.path)
        if c.text is None or c.new_sha is None or lang is None or not lang.declares_symbols:
            continue
        key = (c.new_sha, registry.facts_key(c.path, lang_of(c.path), max_lines, budget))
        todo.append((c, lang.name, key))
    cached = graph.cached_facts([key for _c, _lang, key in todo])
    # the facts of the versions indexed, under the same key: the analyses of the SQL strings
    # an edit left as they were are taken from them (``registry.extract(like=)``)
    before = graph.cached_facts(
        [(c.old_sha, key[1]) for c, _lang, key in todo if c.old_sha and key not in cached]
    )
    jobs: list[_Job] = []
    keys: list[tuple[str, str]] = []
    for c, lang_name, key in todo:
        blob = cached.get(key)
        if blob is not None:
            try:
                facts[c.path] = codec.decode(blob)
                continue
            except ValueError:
                pass  # not a row this version reads: extracted again and replaced
        like = None
        old = before.get((c.old_sha, key[1])) if c.old_sha else None
        if old is not None:
            try:
                like = codec.decode_for_linking(old)
            except ValueError:
                like = None  # not a row this version reads: analysed again
        jobs.append((c.path, lang_name, c.text or "", max_lines, like))
        keys.append(key)
    timed_out: dict[str, float] = {}
    for i, f in sorted(_extract_all(jobs, budget).items()):
        if f is None:
            timed_out[jobs[i][0]] = budget or 0.0
            continue
        facts[jobs[i][0]] = f
        rows.append((*keys[i], codec.encode(f)))
    return CurrentFacts(facts, rows, timed_out)


def current_symbols(f: FileFacts | None, text: str | None) -> dict[str, SymbolInfo]:
    """The symbols of the current text of a file from its facts (None: none declared)."""
    if f is None or text is None:
        return {}
    lines = text.split("\n")
    out: dict[str, SymbolInfo] = {}
    for n in f.nodes:
        if n.kind not in SYMBOL or not n.fqn:
            continue
        body = lines[n.start_line - 1 : n.end_line] if n.kind in CALLABLE else []
        sig = n.props.get("signature", "")
        out.setdefault(n.fqn, SymbolInfo(n.fqn, n.kind, None, sig, body))
    return out


@dataclass
class FileDelta:
    change: Change
    added: list[str]
    removed: list[str]
    changed: list[str]
    edges: list[tuple[str, str]]
    old: dict[str, SymbolInfo]
    new: dict[str, SymbolInfo]
    note: str | None = None  # why the symbols could not be compared


def file_delta(
    graph: GraphStore,
    rev: str,
    c: Change,
    facts: FileFacts | None,
    timed_out: float | None = None,
) -> FileDelta:
    """What changed in the knowledge of one file. ``timed_out`` (the budget, in seconds):
    its analysis was killed, so its symbols cannot be compared: every indexed one counts
    as changed (its edges stale), none as added or removed, and the entry says why."""
    old_path = c.old_path or c.path
    old = indexed_symbols(graph, rev, old_path) if c.kind != ChangeKind.ADD else {}
    new = current_symbols(facts, c.text) if c.kind != ChangeKind.DELETE else {}
    if timed_out is not None:
        new = dict(old)
    added = sorted(set(new) - set(old))
    removed = sorted(set(old) - set(new))
    changed = sorted(
        f
        for f in set(old) & set(new)
        if timed_out is not None
        or old[f].signature != new[f].signature
        or _norm(old[f].body) != _norm(new[f].body)
    )
    edges: dict[str, str] = {}
    how = "modified" if c.kind == ChangeKind.MODIFY else f"{c.kind}d"
    for e in graph.edges_with_evidence_in(rev, old_path):
        edges.setdefault(e.edge_uid, f"evidence in {how} file {old_path}")
    touched: dict[str, str] = {}
    for f in (*changed, *removed):
        nid = old[f].node_id
        if nid:
            touched[nid] = f
    if c.kind in (ChangeKind.DELETE, ChangeKind.RENAME):
        touched.update({s.node_id: f for f, s in old.items() if s.node_id})

    def fate(name: str) -> str:
        return "removed" if name in removed else "changed"

    if touched:
        for e in graph.edges_to(rev, list(touched)):
            edges.setdefault(e.edge_uid, f"target symbol {touched[e.dst]} {fate(touched[e.dst])}")
        for e in graph.edges_from(rev, list(touched)):
            edges.setdefault(e.edge_uid, f"source symbol {touched[e.src]} {fate(touched[e.src])}")
    note = None
    if timed_out is not None:
        note = (
            f"symbols not compared: the file's analysis took longer than the per-file time "
            f"budget ({timed_out:g} s, index.file_time_budget_s)"
        )
    return FileDelta(c, added, removed, changed, sorted(edges.items()), old, new, note)


#: what the def-use graph says about code moved out of a function: (its delta, the function,
#: the moved lines, normalised) -> a note, or None without a data-flow layer
Crossing = Callable[["FileDelta", str, set[str]], "str | None"]


def slice_crossing(graph: GraphStore, rev: str) -> Crossing:
    """The def-use edges of an indexed function (its flow unit, §6.5) between the lines
    that moved out of it and those that stayed: what flows into the moved code (the new
    function's parameters must carry it) and what flows out (its result must)."""

    def crossing(d: FileDelta, fqn: str, moved: set[str]) -> str | None:
        src = d.old.get(fqn)
        if src is None or not src.node_id or not src.start_line:
            return None
        path = d.change.old_path or d.change.path
        units = [
            u
            for u in graph.flow_units_in_file(rev, path)
            if u.func_node_id == src.node_id and u.kind != UnitKind.CLOSURE
        ]
        if not units:
            return None
        data = json.loads(units[0].data)
        stmts = data["s"]

        def is_moved(i: int) -> bool:
            k = stmts[i][0] - src.start_line
            return 0 <= k < len(src.body) and src.body[k].strip() in moved

        flows_in: set[str] = set()
        flows_out: set[str] = set()
        for a, b, var in data["d"]:
            if not is_moved(a) and is_moved(b):
                flows_in.add(var)
            elif is_moved(a) and not is_moved(b):
                flows_out.add(var)
        if not flows_in and not flows_out:
            return "no def-use edge of it crosses the new boundary"
        parts = []
        if flows_in:
            parts.append(f"flowing in: {', '.join(sorted(flows_in))}")
        if flows_out:
            parts.append(f"flowing out: {', '.join(sorted(flows_out))}")
        return "its def-use edges across the new boundary, " + "; ".join(parts)

    return crossing


def slice_boundaries(
    deltas: list[FileDelta], threshold: float, crossing: Crossing | None = None
) -> list[tuple[FileDelta, list[str], list[str]]]:
    """(delta the boundary belongs to, symbols involved, notes) for extract-method and inline
    edits; ``crossing`` adds what the def-use graph says about an extraction."""
    shrunk: list[tuple[FileDelta, str, set[str]]] = []  # function lost these lines
    grown: list[tuple[FileDelta, str, set[str]]] = []  # function gained these lines
    for d in deltas:
        for f in d.changed:
            o, n = set(_norm(d.old[f].body)), set(_norm(d.new[f].body))
            if o - n:
                shrunk.append((d, f, o - n))
            if n - o:
                grown.append((d, f, n - o))
    found: dict[int, tuple[FileDelta, list[str], list[str]]] = {}

    def note(d: FileDelta, syms: list[str], text: str) -> None:
        slot = found.setdefault(id(d), (d, [], []))
        slot[1].extend(s for s in syms if s not in slot[1])
        slot[2].append(text)

    for d in deltas:
        for f in d.added:
            s = d.new[f]
            if s.kind not in CALLABLE:
                continue
            body = set(_norm(s.body[1:]))  # without the signature line
            if len(body) < 2:
                continue
            best = max(
                ((len(body & lost) / len(body), src, sd) for sd, src, lost in shrunk),
                default=None,
                key=lambda x: x[0],
            )
            if best and best[0] >= threshold:
                text = (
                    f"code extracted from `{best[1]}` into `{f}` "
                    f"({round(best[0] * 100)}% of its body) — slices around `{best[1]}` changed"
                )
                x = crossing(best[2], best[1], body & _lost(best[2], best[1])) if crossing else None
                note(d, [best[1], f], f"{text} ({x})" if x else text)
        for f in d.removed:
            s = d.old[f]
            if s.kind not in CALLABLE:
                continue
            body = set(_norm(s.body[1:]))
            if len(body) < 2:
                continue
            best = max(
                ((len(body & gain) / len(body), dst, gd) for gd, dst, gain in grown),
                default=None,
                key=lambda x: x[0],
            )
            if best and best[0] >= threshold:
                note(
                    best[2],
                    [f, best[1]],
                    f"`{f}` inlined into `{best[1]}` ({round(best[0] * 100)}% of its body)"
                    f" — slices around `{best[1]}` changed",
                )
    return list(found.values())


def _lost(d: FileDelta, fqn: str) -> set[str]:
    return set(_norm(d.old[fqn].body)) - set(_norm(d.new[fqn].body))


def entries_for(
    deltas: list[FileDelta], threshold: float, crossing: Crossing | None = None
) -> list[NewEntry]:
    out: list[NewEntry] = []
    for d in deltas:
        c = d.change
        note = f"{RENAMED_FROM}{c.old_path}" if c.kind == ChangeKind.RENAME else d.note
        out.append(
            NewEntry(
                c.path,
                c.kind,
                c.detected_by,
                c.old_sha,
                c.new_sha,
                d.added,
                d.removed,
                d.changed,
                d.edges,
                c.commit_sha,
                note,
            )
        )
    for d, syms, notes in slice_boundaries(deltas, threshold, crossing):
        c = d.change
        out.append(
            NewEntry(
                c.path,
                ChangeKind.SLICE_BOUNDARY,
                c.detected_by,
                c.old_sha,
                c.new_sha,
                symbols_changed=syms,
                commit_sha=c.commit_sha,
                note="; ".join(notes),
            )
        )
    return out


def reverts(
    changes: list[Change],
    state: dict[str, LedgerEntry],
    indexed: dict[str, str],
    now: dict[str, ScannedFile],
    cfg: Config,
) -> list[NewEntry]:
    """Paths the ledger holds as changed that are back to their indexed content."""
    out = []
    changed_paths = {c.path for c in changes} | {c.old_path for c in changes if c.old_path}
    for path, last in state.items():
        if path in changed_paths or last.kind in PATH_NOTES:
            continue
        if path not in indexed or path not in now:
            continue
        sf = read_file(cfg.root, path, lang_of(path), cfg.corpus.max_file_bytes)
        if sf.sha256 == indexed[path] and last.new_hash != indexed[path]:
            out.append(
                NewEntry(
                    path,
                    ChangeKind.MODIFY,
                    "compare",
                    last.new_hash,
                    indexed[path],
                    note="back to the indexed content",
                )
            )
    return out


# -- db-schema-diff (§8.2) -----------------------------------------------------------
def diff_live(
    cfg: Config, graph: GraphStore, rev_id: str
) -> tuple[list[Divergence] | None, str | None]:
    """The live database now against the tables of revision ``rev_id``.

    Returns ``(divergences, None)``, or ``(None, reason)`` when the live schema
    cannot be read (not configured, unreachable, information_schema not in
    ``db.schema_source``). In each Divergence the ``live`` side is the database
    now and the ``migrations`` side is the revision: ``table_only_live`` = a
    table that appeared since the revision, ``table_only_migrations`` = one
    that is gone, ``column_only_*`` / ``type_differs`` alike. Never raises on
    the server's account; the reason holds no password.
    """
    from ragraf.sql import dbschema
    from ragraf.store import mysql_live

    if "information_schema" not in cfg.db.schema_source:
        return None, "information_schema is not in db.schema_source"
    live, why = mysql_live.live_schema(cfg.db.connection())
    if live is None:
        return None, why
    rows = graph.db_tables(rev_id)
    cols: dict[str, list[dbschema.Column]] = defaultdict(list)
    for c in graph.db_columns(rev_id, [r.table_id for r in rows]):
        cols[c.table_id].append(
            dbschema.Column(c.column_name, c.data_type, bool(c.is_nullable), c.column_key or "")
        )
    tables = {
        r.table_name.lower(): dbschema.Table(
            r.table_name, r.engine, r.row_estimate, cols.get(r.table_id, []), r.source
        )
        for r in rows
    }
    return dbschema.diff_schemas(live, dbschema.Schema(tables, [], set(), "revision")), None


#: divergences quoted in a schema_change note before "... N more"
SCHEMA_NOTE_ITEMS = 20


def schema_entries(cfg: Config, graph: GraphStore, rev: str) -> tuple[list[NewEntry], str]:
    """A schema_change entry when the live database differs from the revision's tables,
    and what the check found (for the report). Quiet without a configured database."""
    import os

    if not cfg.db.dsn and not any(k.startswith("RAGRAF_DB_") for k in os.environ):
        return [], "no live database configured"
    divergences, why = diff_live(cfg, graph, rev)
    if divergences is None:
        return [], f"live schema not compared ({why})"
    if not divergences:
        return [], "the live database matches the revision"
    lines = sorted(
        f"{d.kind} {d.table}"
        + (f".{d.column}" if d.column else "")
        + (
            f" ({d.migration_type} -> {d.live_type})"
            if d.kind == DivergenceKind.TYPE_DIFFERS
            else ""
        )
        for d in divergences
    )
    live_hash = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    rev_hash = hashlib.sha256(rev.encode()).hexdigest()
    more = len(lines) - SCHEMA_NOTE_ITEMS
    note = (
        "live database differs from the revision: "
        + "; ".join(lines[:SCHEMA_NOTE_ITEMS])
        + (f"; ... {more} more" if more > 0 else "")
    )
    entry = NewEntry(
        SCHEMA_PATH, ChangeKind.SCHEMA_CHANGE, "db-schema-diff", rev_hash, live_hash, note=note
    )
    return [entry], f"{len(lines)} divergences from the live database"


@dataclass
class ScanReport:
    rev_id: str
    changes: int
    written: list[LedgerEntry]
    head: str | None
    schema: str = ""


def run_scan(cfg: Config, detected_by: str = "compare") -> ScanReport:
    """`ragraf drift --scan`: register what changed since the active revision in the ledger:
    files of the corpus and, when a live database is configured, its schema."""
    from ragraf.drift import ledger
    from ragraf.store import manifest

    layout = cfg.layout
    # under the ledger lock from the start: a reindex --commit running now finishes first,
    # and the scan then compares against the revision it sealed
    with ledger.ledger_lock(layout):
        return _scan_locked(cfg, detected_by, manifest.require(layout.rev_json))


def _scan_locked(cfg: Config, detected_by: str, man: dict[str, Any]) -> ScanReport:
    from ragraf.drift import ledger

    layout = cfg.layout
    rev = man["rev_id"]
    with GraphStore(layout.graph_db, readonly=True) as graph:
        now = current_files(cfg)  # one walk of the tree serves detection and reverts
        changes = detect(cfg, graph, rev, now)
        head = git_annotate(cfg, changes, man.get("git_commit"))
        if detected_by != "compare":  # the trigger names the detection (the commit stays recorded)
            for c in changes:
                c.detected_by = detected_by
        got = current_facts(cfg, changes, graph)
        cache_rows = got.rows
        deltas = [
            file_delta(graph, rev, c, got.facts.get(c.path), got.timed_out.get(c.path))
            for c in changes
        ]
        items = entries_for(deltas, cfg.drift.slice_similarity, slice_crossing(graph, rev))
        schema_items, schema_note = schema_entries(cfg, graph, rev)
        items += schema_items
        with ControlStore(layout.control_db) as control:
            state = ledger_state(control.entries(rev))
            if state:
                indexed = {r.path: r.sha256 for r in graph.files(rev)}
                items += reverts(changes, state, indexed, now, cfg)
            written = ledger.append(layout, control, rev, items)
    if cache_rows:
        with GraphStore(layout.graph_db) as cache:
            cache.store_facts(cache_rows, replace=True)
    return ScanReport(rev, len(changes), written, head, schema_note)


def note_entry(cfg: Config, path: str, text: str) -> list[LedgerEntry]:
    """A manual ledger entry about a path (detected_by manual); a text over
    ``MAX_TEXT_ARG`` characters is refused before anything is stored."""
    from ragraf.drift import ledger
    from ragraf.limits import MAX_TEXT_ARG

    if not text.strip() or len(text) > MAX_TEXT_ARG:
        raise InvalidArgument(
            f"--text: a note takes 1 to {MAX_TEXT_ARG} characters (got {len(text)})"
        )
    from ragraf.store import manifest

    man = manifest.require(cfg.layout.rev_json)
    with ControlStore(cfg.layout.control_db) as control:
        sha = hashlib.sha256(text.encode()).hexdigest()
        return ledger.append(
            cfg.layout,
            control,
            man["rev_id"],
            [NewEntry(path, ChangeKind.NOTE, "manual", None, sha, note=text)],
        )
