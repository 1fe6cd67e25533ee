"""The facade's per-call context: which revision, which stores, which files the
answer rests on, and the envelope around the result (architecture §7).

Invariants a change must keep:
- Stores are opened read-only; the facade never writes (FT-9).
- The revision is the one rev.json names unless ``rev`` selects another
  retained revision; rows of other revisions are never read.
- Every file an answer rests on is ``touch``ed. Before the envelope is built,
  each touched file is compared with the indexed version (size + mtime first,
  sha256 only when they differ) and the ledger is consulted: a fact from a
  changed file is never served without a stale_warning (P2, I3).
- ``limits`` always states that runtime dynamics are not covered (§6.3).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import OrderedDict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ragraf.config import Layout
from ragraf.errors import InvalidArgument
from ragraf.facade import sanitize
from ragraf.store import manifest
from ragraf.store.control import ControlStore
from ragraf.store.graph import GraphStore
from ragraf.store.lexvec import LexStore

TEXT_CACHE_FILES = 512
LIMIT_STATIC = "static analysis; runtime dynamics not covered"
LIMIT_DEGRADED = (
    "capability degraded: no CPG (Joern not used); slices and data flows are unavailable"
)


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
        self.graph = GraphStore(self.layout.graph_db, readonly=True)
        self.lex = LexStore(self.layout.lexvec_db, readonly=True)
        self.control = ControlStore(self.layout.control_db, readonly=True)
        self._hash_cache: dict[tuple[str, int, int], str] = {}
        # indexed file texts by sha256 (content-addressed, so valid for every revision)
        self.text_cache: OrderedDict[str, list[str]] = OrderedDict()
        self._cfg: Any = None
        self._embedder: tuple[Any, str | None] | None = None
        self.schema_checked_at: float | None = None

    def embedder(self) -> tuple[Any, str | None]:
        """The query embedder, loaded once per session: (embedder or None, why not)."""
        if self._embedder is None:
            from ragraf.embed import Embedder
            from ragraf.errors import EmbeddingUnavailable

            try:
                emb_cfg = self.config().project["embedding"]
                emb = Embedder.from_config(emb_cfg)
                if emb_cfg.get("path") and not os.path.isabs(emb_cfg["path"]):
                    emb.path = str((self.root / emb_cfg["path"]).resolve())
                self._embedder = (emb.load(), None)
            except EmbeddingUnavailable as e:
                self._embedder = (None, str(e))
        return self._embedder

    def close(self) -> None:
        self.graph.close()
        self.lex.close()
        self.control.close()

    def config(self) -> Any:
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
        """sha256 of the file now (None when it is gone); cheap when size and mtime are unchanged."""
        full = self.root / path
        try:
            st = os.stat(full)
        except OSError:
            return None
        if size == st.st_size and mtime_ns == st.st_mtime_ns:
            return indexed_sha
        key = (path, st.st_size, st.st_mtime_ns)
        hit = self._hash_cache.get(key)
        if hit is None:
            try:
                with open(full, "rb") as fh:
                    hit = hashlib.sha256(fh.read()).hexdigest()
            except OSError:
                return None
            self._hash_cache[key] = hit
        return hit

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
            if states.get(rev) != "ready":
                retained = ", ".join(r for r, s in sorted(states.items()) if s == "ready")
                raise InvalidArgument(
                    f"{op}: revision '{rev}' is not retained; retained revisions: {retained}"
                )
        self.touched: dict[str, None] = {}
        self.limits: list[str] = [LIMIT_STATIC]
        self.provenance = "index"
        self._file_rows: dict[str, tuple[Any, ...] | None] = {}
        self._texts: dict[str, list[str] | None] = {}
        self._ledger: list[dict[str, Any]] | None = None
        self.edge_uids: dict[str, str] = {}  # edge_uid -> evidence path, of every edge served

    # -- facts and files ----------------------------------------------------
    def touch(self, path: str | None) -> None:
        if path:
            self.touched[path] = None

    def file_row(self, path: str) -> tuple[Any, ...] | None:
        if path not in self._file_rows:
            self._file_rows[path] = self.graph.file_row(self.rev, path)
        return self._file_rows[path]

    def indexed_lines(self, path: str) -> list[str] | None:
        """The file as this revision indexed it, split in lines (None if not parsed)."""
        if path not in self._texts:
            fr = self.file_row(path)
            lines = self.s.text_cache.get(fr[3]) if fr else None
            if lines is None and fr is not None:
                text = self.graph.file_text(self.rev, path)
                lines = None if text is None else split_lines(text)
                if lines is not None:
                    self.s.remember_text(fr[3], lines)
            self._texts[path] = lines
        return self._texts[path]

    def line_text(self, path: str, line: int | None) -> dict[str, Any] | None:
        lines = self.indexed_lines(path) if line else None
        if not lines or line is None or line < 1 or line > len(lines):
            return None
        return sanitize.untrusted(lines[line - 1].strip(), sanitize.LINE_CAP)

    def node(self, row: tuple[Any, ...], *, full: bool = False) -> dict[str, Any]:
        """A node row as the facade shows it (touches its file)."""
        node_id, kind, name, fqn, path, start, end, props, _layer = row
        self.touch(path)
        out: dict[str, Any] = {
            "node_id": node_id,
            "kind": kind,
            "name": sanitize.name(name),
            "fqn": sanitize.name(fqn),
            "path": path,
            "start_line": start,
            "end_line": end,
        }
        out["evidence"] = f"{path}:{start}" if path else None
        p = json.loads(props) if props else {}
        if p.get("external"):
            out["external"] = True
        if full:
            keep = {
                k: v
                for k, v in p.items()
                if k
                in (
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
                    "key",
                    "ordinal",
                    "source",
                    "engine",
                    "row_estimate",
                )
            }
            if "signature" in keep:
                keep["signature"] = sanitize.clean(keep["signature"])
            out["props"] = keep
        if path:
            fr = self.file_row(path)
            if fr is not None and fr[4] == "partial":
                out["partial_parse"] = fr[5] or True
        return out

    def edge(
        self, row: tuple[Any, ...], other: dict[str, Any] | None, *, with_text: bool = True
    ) -> dict[str, Any]:
        src, dst, kind, prov, path, line, conf, _sources, uid, props = row
        self.touch(path)
        self.edge_uids[uid] = path
        out: dict[str, Any] = {
            "kind": kind,
            "provenance": prov,
            "confidence": conf,
            "evidence": f"{path}:{line}",
            "path": path,
            "line": line,
            "edge_uid": uid,
        }
        if props:
            p = json.loads(props)
            for k in (
                "via",
                "magic",
                "conditional",
                "candidates",
                "callable",
                "include",
                "use",
                "external",
            ):
                if k in p:
                    out[k] = p[k]
        if other is not None:
            out["symbol"] = other
        if with_text:
            out["text"] = self.line_text(path, line)
        return out

    # -- envelope -------------------------------------------------------------
    def ledger(self) -> list[dict[str, Any]]:
        if self._ledger is None:
            self._ledger = self.control.entries(self.rev)
        return self._ledger

    def stale_warnings(self) -> list[dict[str, Any]]:
        from ragraf.drift.scan import ledger_state

        warnings: list[dict[str, Any]] = []
        since_rev = self.rev
        entries = self.ledger()
        state = ledger_state(entries)
        slices: dict[str, list[dict[str, Any]]] = {}
        for e in entries:
            if e["kind"] in ("slice_boundary", "note", "schema_change"):
                slices.setdefault(e["path"], []).append(e)
        warned: set[str] = set()
        for path in sorted(self.touched):
            fr = self.file_row(path)
            last = state.get(path)
            if last is not None and not (
                fr is not None and last["kind"] != "delete" and last["new_hash"] == fr[3]
            ):
                warnings.append(
                    {
                        "path": path,
                        "reason": f"{last['kind']} after {since_rev} (ledger entry #{last['id']})",
                        "since": last["ts"],
                        "suggest": "live_read",
                    }
                )
                warned.add(path)
            for e in slices.get(path, []):
                what = {
                    "slice_boundary": "slice_boundary",
                    "note": "note",
                    "schema_change": "schema_change",
                }[e["kind"]]
                warnings.append(
                    {
                        "path": path,
                        "reason": f"{what} after {since_rev} (ledger entry #{e['id']}): "
                        + sanitize.clean(e["note"] or "")[:300],
                        "since": e["ts"],
                        "suggest": "live_read",
                    }
                )
                warned.add(path)
        # edges the ledger invalidated, wherever their evidence lies
        reverted = set()
        for p, last in state.items():
            row = self.file_row(p)
            if row is not None and last["kind"] != "delete" and last["new_hash"] == row[3]:
                reverted.add(p)
        by_id = {e["id"]: e for e in entries}
        for uid, reason, entry_id in self.control.stale_edges_among(
            self.rev, sorted(self.edge_uids)
        ):
            e = by_id.get(entry_id)
            if e is None or e["path"] in reverted:
                continue
            path = self.edge_uids[uid]
            if path in warned:
                continue
            warnings.append(
                {
                    "path": path,
                    "reason": f"edge invalidated by ledger entry #{entry_id} "
                    f"({e['kind']} {e['path']} after {since_rev}): {reason}",
                    "since": e["ts"],
                    "suggest": "live_read",
                }
            )
            warned.add(path)
        for path in sorted(self.touched):
            if path in warned:
                continue
            fr = self.file_row(path)
            if fr is None:
                continue
            _p, _lang, _lines, sha, _status, _note, size, mtime_ns = fr
            now = self.s.current_sha(path, size, mtime_ns, sha)
            if now == sha:
                continue
            if now is None:
                reason, since = f"delete after {since_rev}", None
            else:
                reason = f"modify after {since_rev}"
                try:
                    since = datetime.fromtimestamp(
                        os.stat(self.root / path).st_mtime, UTC
                    ).isoformat(timespec="seconds")
                except OSError:
                    since = None
            warnings.append(
                {
                    "path": path,
                    "reason": reason + " (not yet in the ledger)",
                    "since": since,
                    "suggest": "live_read",
                }
            )
        return warnings

    def envelope(self, result: Any) -> dict[str, Any]:
        stale = self.stale_warnings()
        ledger = self.ledger()
        files = {e["path"] for e in ledger if e["kind"] != "note"} | {w["path"] for w in stale}
        symbols: set[str] = set()
        for e in ledger:
            for k in ("symbols_added", "symbols_removed", "symbols_changed"):
                symbols.update(json.loads(e[k]) if e[k] else [])
        capability = (
            self.man.get("capability", "degraded") if self.rev == self.active else "degraded"
        )
        if capability == "degraded" and LIMIT_DEGRADED not in self.limits:
            self.limits.append(LIMIT_DEGRADED)
        return {
            "op": self.op,
            "index_rev": self.rev,
            "capability": capability,
            "drift": {"files": len(files), "symbols": len(symbols), "entries": len(ledger)},
            "provenance": self.provenance,
            "limits": self.limits,
            "result": result,
            "stale_warnings": stale,
        }
