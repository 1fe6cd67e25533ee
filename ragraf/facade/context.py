"""The facade's per-call context: which revision, which stores, which files the
answer rests on, and the envelope around the result (architecture §7).

Invariants a change must keep:
- Stores are opened read-only; the facade never writes the index (FT-9). The
  operations that declare ``writes`` (drift_ack, calibrate) open control.sqlite
  for writing themselves and append only.
- The revision is the one rev.json names unless ``rev`` selects another
  retained revision; rows of other revisions are never read.
- Every file an answer rests on is ``touch``ed. Before the envelope is built,
  each touched file is compared with the indexed version (size + mtime first,
  sha256 only when they differ) and the ledger is consulted: a fact from a
  changed file is never served without a stale_warning (P2, I3).
- ``limits`` always states that runtime dynamics are not covered (§6.3).
- While the active revision's vectors are still being embedded (or their embedding was
  interrupted), the envelope carries ``vectors`` (how far the layer is); otherwise it
  has no such field. The revision's facts do not depend on it (vectors are a cache).
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragraf.config import Config, Layout
from ragraf.errors import InvalidArgument
from ragraf.escape import os_name
from ragraf.facade import sanitize
from ragraf.kinds import PATH_NOTES, ChangeKind, ParseStatus, RevState, VectorStatus
from ragraf.model import EdgeRow, FileRow, LedgerEntry, NodeRow, props_of
from ragraf.store import Stores, manifest

if TYPE_CHECKING:  # pragma: no cover
    from ragraf.embed import Embedder

TEXT_CACHE_FILES = 512
#: what current_sha says of a path that is no longer a regular file (differs from any sha)
NOT_REGULAR = "not-a-regular-file"
#: the most items one list of an answer holds; beyond it the answer says so in limits
MAX_ITEMS = 500
#: evidence edges kept per listed symbol (callers, callees, routes' readers)
EVIDENCE_PER_ITEM = 20
#: node props an answer shows (the rest are internal to the build)
SHOWN_PROPS = frozenset(
    {
        "signature",
        "visibility",
        "static",
        "abstract",
        "final",
        "modifiers",
        "parameters",
        "return_type",
        "type",
        "promoted",
        "enum_case",
        "define",
        "method",
        "route",
        "superglobal",
        "key",
        "level",
        "lang",
        "operation",
        "columns",
        "select_star",
        "dynamic",
        "parsed",
        "tables",
        "data_type",
        "nullable",
        "ordinal",
        "source",
        "engine",
        "row_estimate",
    }
)
#: edge props an answer shows
SHOWN_EDGE_PROPS = (
    "via",
    "magic",
    "conditional",
    "candidates",
    "ambiguous",
    "through",
    "callable",
    "hook",
    "run_as",
    "pattern",
    "computed",
    "include",
    "use",
    "external",
)
LIMIT_STATIC = "static analysis; runtime dynamics not covered"
LIMIT_DEGRADED = (
    "capability degraded: no data-flow layer in this revision (Joern not used); slices and"
    " data flows are unavailable"
)
LIMIT_SLICE_REFUSED = (
    "slice refused: capability degraded (this revision has no data-flow layer; Joern not used)"
)
LIMIT_GREEDY_MAP = (
    "repo_map: greedy packing (the candidates x budget exceed knapsack_max_cells for the"
    " exact 0-1 knapsack); the map may hold slightly less value than the best fit"
)
#: limits that are machine detail, not advice: every answer of a revision carries the first
#: two (the footer's capability already says it), the others restate a result field in the
#: design's terms. The text rendering leaves them to --json, so a human reads only what
#: concerns this answer, in plain words.
DETAIL_LIMITS = (LIMIT_STATIC, LIMIT_DEGRADED, LIMIT_SLICE_REFUSED, LIMIT_GREEDY_MAP)


def made_with(man: dict[str, Any]) -> tuple[str, str] | None:
    """(model, model_version) of the vectors rev.json's revision was embedded with."""
    v = man.get("vectors")
    if isinstance(v, dict) and isinstance(v.get("model"), str):
        if isinstance(v.get("model_version"), str):
            return v["model"], v["model_version"]
    return None


def vector_layer(layout: Layout, man: dict[str, Any], lex: Any) -> dict[str, Any] | str:
    """The active revision's vector layer: rev.json's ``vectors`` block, and while it is
    being filled, how far (``embedded`` of ``total``, ``percent``) and whether a process
    is still embedding (``status`` ``embedding``) or it stopped (``interrupted``: the
    next ``index``, ``reindex --commit`` or ``ragraf vectors --resume`` finishes it).
    ``lex`` is the revision's LexStore (Any: the facade imports no store type here)."""
    v = man.get("vectors", VectorStatus.UNAVAILABLE)
    if not isinstance(v, dict):
        return str(v)
    if v.get("status") != VectorStatus.EMBEDDING:
        return v
    from ragraf.locks import is_held

    embedded = int(lex.vector_count(man["rev_id"]))
    total = int(v.get("total") or 0)
    running = is_held(layout.lock_file)
    if running is False:
        # the writer may have finished between our read of rev.json and the lock test: it
        # records the final status before it lets the lock go, so read rev.json again
        from ragraf.store import manifest

        now = manifest.read(layout.rev_json) or {}
        fresh = now.get("vectors")
        if now.get("rev_id") == man["rev_id"] and isinstance(fresh, dict):
            if fresh.get("status") != VectorStatus.EMBEDDING:
                return fresh
    out = dict(v)
    out.update(
        status=VectorStatus.EMBEDDING if running is not False else VectorStatus.INTERRUPTED,
        embedded=embedded,
        percent=min(100, embedded * 100 // total) if total else 100,
    )
    if running is False:
        out["resume"] = "ragraf vectors --resume"
    return out


def sha_now(
    root: Path,
    path: str,
    indexed: tuple[int | None, int | None, str],
    cache: dict[tuple[str, int, int], str] | None = None,
) -> str | None:
    """sha256 of the file ``path`` now (None when it is gone), given what the index recorded
    (size, mtime_ns, sha256): cheap when size and mtime are unchanged. Never follows a
    symlink and never opens anything but a regular file (a path that became a FIFO or a
    link reads as changed, not as a hang)."""
    from ragraf.corpus import NotRegular, open_regular

    size, mtime_ns, indexed_sha = indexed
    full = root / os_name(path)
    try:
        st = os.lstat(full)
    except OSError:
        return None
    if size == st.st_size and mtime_ns == st.st_mtime_ns:
        return indexed_sha
    if stat.S_ISLNK(st.st_mode):  # the index records a symlink by the sha of its target path
        return hashlib.sha256(os.readlink(full).encode("utf-8", "surrogateescape")).hexdigest()
    key = (path, st.st_size, st.st_mtime_ns)
    hit = cache.get(key) if cache is not None else None
    if hit is None:
        try:
            hit = open_regular(root, path, 0).sha256
        except NotRegular:
            hit = NOT_REGULAR
        except OSError:
            return None
        if cache is not None:
            cache[key] = hit
    return hit


def split_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


class Session:
    """Open read-only stores of one project, reused across calls (the MCP server keeps one)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.layout = Layout(root)
        manifest.require(self.layout.rev_json)
        self.stores = Stores(self.layout)
        self.graph = self.stores.graph
        self.lex = self.stores.lex
        self.control = self.stores.control
        self._hash_cache: dict[tuple[str, int, int], str] = {}
        # indexed file texts by sha256 (content-addressed, so valid for every revision)
        self.text_cache: OrderedDict[str, list[str]] = OrderedDict()
        self._cfg: Config | None = None
        self._embedders: dict[str | None, tuple[Embedder | None, str | None]] = {}
        self.schema_checked_at: float | None = None
        # values derived from one revision, computed once per session (e.g. search's centrality)
        self.memo: dict[tuple[str, str], Any] = {}
        self._embedder_lock = threading.Lock()

    def embedder(self, quantize: str | None = None) -> tuple[Embedder | None, str | None]:
        """The query embedder of the configured model, loaded once per session (and per
        ``quantize``, which overrides ``embedding.quantize``): (embedder or None, why not).
        Thread-safe: a call while ``preload_embedder`` is loading waits for that load."""
        with self._embedder_lock:
            got = self._embedders.get(quantize)
            if got is None:
                from ragraf.embed import Embedder
                from ragraf.errors import EmbeddingUnavailable

                embedding = self.config().embedding.as_mapping()
                if quantize is not None:
                    embedding["quantize"] = quantize
                try:
                    got = (Embedder.from_config(embedding, root=self.root).load(), None)
                except EmbeddingUnavailable as e:
                    got = (None, str(e))
                self._embedders[quantize] = got
            return got

    def preload_embedder(
        self, done: Callable[[float], None] | None = None
    ) -> threading.Thread | None:
        """Load the query embedder in a background thread (the MCP server calls this at start,
        so the first search does not pay the model load and no other operation waits for it).
        None when the active revision has no vectors (a search would not embed) or the model is
        already loaded."""
        from ragraf.embed.quantize import quantize_of

        man = manifest.require(self.layout.rev_json)
        made = made_with(man)
        quantize = quantize_of(made[1]) if made else None
        if quantize in self._embedders:
            return None
        if not self.lex.has_vectors(man["rev_id"]):
            return None

        def load() -> None:
            t0 = time.perf_counter()
            self.embedder(quantize)
            if done is not None:
                done(time.perf_counter() - t0)

        t = threading.Thread(target=load, name="ragraf-embedder-preload", daemon=True)
        t.start()
        return t

    def close(self) -> None:
        self.stores.close()

    def config(self) -> Config:
        if self._cfg is None:
            from ragraf import config

            self._cfg = config.load(self.root)
        return self._cfg

    def remember_text(self, sha: str, lines: list[str]) -> None:
        self.text_cache[sha] = lines
        self.text_cache.move_to_end(sha)
        while len(self.text_cache) > TEXT_CACHE_FILES:
            self.text_cache.popitem(last=False)

    def current_sha(
        self, path: str, size: int | None, mtime_ns: int | None, indexed_sha: str
    ) -> str | None:
        """sha256 of the file now (``sha_now``), its hashes cached for the session."""
        return sha_now(self.root, path, (size, mtime_ns, indexed_sha), self._hash_cache)

    def context(self, op: str, rev: str | None) -> Ctx:
        man = manifest.require(self.layout.rev_json)
        return Ctx(self, op, man, rev)


class Ctx:
    def __init__(self, session: Session, op: str, man: dict[str, Any], rev: str | None) -> None:
        self.s = session
        self.op = op
        self.man = man
        self.active = man["rev_id"]
        self.rev = rev or self.active
        self.graph = session.graph
        self.lex = session.lex
        self.control = session.control
        self.root = session.root
        if rev is not None and rev != self.active:
            states = dict(self.graph.revs())
            if states.get(rev) != RevState.READY:
                retained = ", ".join(r for r, s in sorted(states.items()) if s == RevState.READY)
                raise InvalidArgument(
                    f"{op}: revision '{rev}' is not retained; retained revisions: {retained}"
                )
        self.touched: dict[str, None] = {}
        self.limits: list[str] = [LIMIT_STATIC]
        self.provenance = "index"
        self._file_rows: dict[str, FileRow | None] = {}
        self._texts: dict[str, list[str] | None] = {}
        self._ledger: list[LedgerEntry] | None = None
        self.edge_uids: dict[str, str] = {}  # edge_uid -> evidence path, of every edge served
        self._vectors: dict[str, Any] | str | None = None
        self._capability: str | None = None

    def vectors(self) -> dict[str, Any] | str | None:
        """The vector layer of the answered revision (``vector_layer``); None for a
        revision other than the active one (rev.json describes the active one only)."""
        if self.rev != self.active:
            return None
        if self._vectors is None:
            self._vectors = vector_layer(self.s.layout, self.man, self.lex)
        return self._vectors

    def query_embedder(self) -> tuple[Embedder | None, str | None]:
        """The embedder of queries against this revision's vectors: the configured model in
        the arithmetic the vectors were made in (``embedding.quantize`` may have changed
        since), or (None, why) when they were made by another model than the configured
        one: its query vectors would lie in another space, and the cosines would mean
        nothing."""
        from ragraf.embed.quantize import quantize_of, space_of

        made = made_with(self.man) if self.rev == self.active else None
        if made is None and self.rev != self.active:
            from ragraf.store.vec import VecStore

            dim = self.s.config().embedding.dim
            pairs = VecStore(self.lex.db, dim).models(self.rev)
            made = (pairs[0][0], pairs[0][1]) if len(pairs) == 1 and pairs[0][1] else None
        emb, err = self.s.embedder(quantize_of(made[1]) if made else None)
        if emb is None or made is None:
            return emb, err
        if emb.model_id != made[0] or space_of(emb.model_version) != space_of(made[1]):
            return None, (
                f"the vectors of {self.rev} were made by {made[0]} ({made[1]}), the configured "
                f"model is {emb.model_id} ({emb.model_version}); `ragraf index` embeds them again"
            )
        return emb, None

    def vectors_filling(self) -> dict[str, Any] | None:
        """How far the layer is, while it is not complete: {status, embedded, total,
        percent}; None once it is complete (or disabled, unavailable)."""
        v = self.vectors()
        if not isinstance(v, dict) or v.get("status") not in (
            VectorStatus.EMBEDDING,
            VectorStatus.INTERRUPTED,
        ):
            return None
        return {k: v[k] for k in ("status", "embedded", "total", "percent")}

    @property
    def capability(self) -> str:
        """``dataflow`` for a revision with the data-flow layer, else ``degraded`` (§6.4)."""
        if self._capability is None:
            if self.rev == self.active:
                self._capability = str(self.man.get("capability", "degraded"))
            else:
                self._capability = "dataflow" if self.graph.has_flow(self.rev) else "degraded"
        return self._capability

    # -- facts and files ----------------------------------------------------
    def touch(self, path: str | None) -> None:
        if path:
            self.touched[path] = None

    def file_row(self, path: str) -> FileRow | None:
        if path not in self._file_rows:
            self._file_rows[path] = self.graph.file_row(self.rev, path)
        return self._file_rows[path]

    def indexed_lines(self, path: str) -> list[str] | None:
        """The file as this revision indexed it, split in lines (None if not parsed)."""
        if path not in self._texts:
            fr = self.file_row(path)
            lines = self.s.text_cache.get(fr.sha256) if fr else None
            if lines is None and fr is not None:
                text = self.graph.file_text(self.rev, path)
                lines = None if text is None else split_lines(text)
                if lines is not None:
                    self.s.remember_text(fr.sha256, lines)
            self._texts[path] = lines
        return self._texts[path]

    def line_text(self, path: str, line: int | None) -> dict[str, Any] | None:
        lines = self.indexed_lines(path) if line else None
        if not lines or line is None or line < 1 or line > len(lines):
            return None
        return sanitize.untrusted(lines[line - 1].strip(), sanitize.LINE_CAP)

    def node(self, row: NodeRow, *, full: bool = False) -> dict[str, Any]:
        """A node row as the facade shows it (touches its file)."""
        path = row.path
        self.touch(path)
        out: dict[str, Any] = {
            "node_id": row.node_id,
            "kind": row.kind,
            "name": sanitize.name(row.name),
            "fqn": sanitize.name(row.fqn),
            "path": path,
            "start_line": row.start_line,
            "end_line": row.end_line,
        }
        out["evidence"] = f"{path}:{row.start_line}" if path else None
        p = props_of(row.props)
        if p.get("external"):
            out["external"] = True
        if full:
            keep = {k: v for k, v in p.items() if k in SHOWN_PROPS}
            if "signature" in keep:
                keep["signature"] = sanitize.clean(keep["signature"])
            out["props"] = keep
        if path:
            fr = self.file_row(path)
            if fr is not None and fr.parse_status == ParseStatus.PARTIAL:
                out["partial_parse"] = fr.parse_note or True
        return out

    def edge(
        self, row: EdgeRow, other: dict[str, Any] | None, *, with_text: bool = True
    ) -> dict[str, Any]:
        """An edge row as the facade shows it (touches its evidence file)."""
        path, line = row.evidence_path, row.evidence_line
        self.touch(path)
        self.edge_uids[row.edge_uid] = path or ""
        out: dict[str, Any] = {
            "kind": row.kind,
            "provenance": row.provenance,
            "confidence": row.confidence,
            "evidence": f"{path}:{line}",
            "path": path,
            "line": line,
            "edge_uid": row.edge_uid,
        }
        if row.props:
            p = props_of(row.props)
            for k in SHOWN_EDGE_PROPS:
                if k in p:
                    out[k] = p[k]
        if other is not None:
            out["symbol"] = other
        if with_text and path:
            out["text"] = self.line_text(path, line)
        elif with_text:
            out["text"] = None
        return out

    # -- envelope -------------------------------------------------------------
    def ledger(self) -> list[LedgerEntry]:
        if self._ledger is None:
            self._ledger = self.control.entries(self.rev)
        return self._ledger

    def forget_ledger(self) -> None:
        """After an operation appended to the ledger: the envelope reads it again."""
        self._ledger = None

    def _matches_index(self, path: str, last: LedgerEntry) -> bool:
        """True when the ledger's last word on ``path`` is its indexed content (a revert)."""
        fr = self.file_row(path)
        return fr is not None and last.kind != ChangeKind.DELETE and last.new_hash == fr.sha256

    def stale_warnings(self) -> list[dict[str, Any]]:
        from ragraf.drift.state import ledger_state

        warnings: list[dict[str, Any]] = []
        since_rev = self.rev
        entries = self.ledger()
        state = ledger_state(entries)
        notes: dict[str, list[LedgerEntry]] = {}
        for e in entries:
            if e.kind in PATH_NOTES:
                notes.setdefault(e.path, []).append(e)
        warned: set[str] = set()

        def warn(path: str, reason: str, since: str | None) -> None:
            warnings.append(
                {"path": path, "reason": reason, "since": since, "suggest": "live_read"}
            )
            warned.add(path)

        for path in sorted(self.touched):
            last = state.get(path)
            if last is not None and not self._matches_index(path, last):
                warn(path, f"{last.kind} after {since_rev} (ledger entry #{last.id})", last.ts)
            for e in notes.get(path, []):
                warn(
                    path,
                    f"{e.kind} after {since_rev} (ledger entry #{e.id}): "
                    + sanitize.clean(e.note or "")[:300],
                    e.ts,
                )
        # edges the ledger invalidated, wherever their evidence lies
        reverted = {p for p, last in state.items() if self._matches_index(p, last)}
        by_id = {e.id: e for e in entries}
        for stale in self.control.stale_edges_among(self.rev, sorted(self.edge_uids)):
            inv = by_id.get(stale.drift_entry_id)
            if inv is None or inv.path in reverted:
                continue
            path = self.edge_uids[stale.edge_uid]
            if path in warned:
                continue
            warn(
                path,
                f"edge invalidated by ledger entry #{inv.id} ({inv.kind} {inv.path} after {since_rev}):"
                f" {stale.reason}",
                inv.ts,
            )
        # changed on disk and not (yet) registered
        for path in sorted(self.touched):
            if path in warned:
                continue
            fr = self.file_row(path)
            if fr is None:
                continue
            now = self.s.current_sha(path, fr.size, fr.mtime_ns, fr.sha256)
            if now == fr.sha256:
                continue
            since: str | None
            if now is None:
                reason, since = f"delete after {since_rev}", None
            else:
                reason = f"modify after {since_rev}"
                try:
                    since = datetime.fromtimestamp(
                        os.stat(self.root / os_name(path)).st_mtime, UTC
                    ).isoformat(timespec="seconds")
                except OSError:
                    since = None
            warn(path, reason + " (not yet in the ledger)", since)
        return warnings

    def envelope(self, result: Any) -> dict[str, Any]:
        stale = self.stale_warnings()
        ledger = self.ledger()
        files = {e.path for e in ledger if e.kind != ChangeKind.NOTE} | {w["path"] for w in stale}
        symbols: set[str] = set()
        for e in ledger:
            for k in ("symbols_added", "symbols_removed", "symbols_changed"):
                symbols.update(e.names(k))
        capability = self.capability
        if capability == "degraded" and LIMIT_DEGRADED not in self.limits:
            self.limits.append(LIMIT_DEGRADED)
        env = {
            "op": self.op,
            "index_rev": self.rev,
            "capability": capability,
            "drift": {"files": len(files), "symbols": len(symbols), "entries": len(ledger)},
            "provenance": self.provenance,
            "limits": sanitize.escape_tree(self.limits),
            "result": sanitize.escape_tree(result),
            "stale_warnings": sanitize.escape_tree(stale),
        }
        filling = self.vectors_filling()
        if filling is not None:
            env["vectors"] = filling
        return env
