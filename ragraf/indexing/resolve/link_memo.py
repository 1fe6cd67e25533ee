"""Resolution scoped to what a change can affect (issue 15, ``resolve.scoped``): the
per-file memo of the linker.

What the linker makes of one file (its edges, the nodes it adds, routes, unresolved call
sites, its share of the stats) is a function of two things only: that file's facts (as the
languages' ``prepare`` hooks left them) and the answers to the corpus-wide questions its
handlers asked (``Lookups``: the symbol table, the include graph, the names of tags-level
declarations, the table-name conventions). So every build records, per file, the questions
with their answers and what the revision's whole needs of the file (``FileOut``: stats,
nodes without a path, tables named), tagged with the revision it built; the next build
keeps the rows that revision has for a file when

- its key is the same: content (sha256), extractor key and, for a file a ``prepare`` hook
  rewrote, a digest of what the hooks saw (``hook_context``);
- the parameters are the same (``params``: confidence, candidate limits, the schema's
  tables, configured prefixes, helpers and builders, the config hash, ragraf's code), and
  the memo is the parent revision's;
- every question it asked has the same answer now (asked again against this build's
  tables: equal answers, equal outputs).

Nothing else is needed to decide: a file whose references could resolve differently (a
name declared or removed elsewhere, a changed hierarchy, include, global, prefix or
CREATE TABLE) asked a question whose answer changed, and is resolved again. A change no
question sees leaves every other file as it is. What couples files' rows besides the
linker (chunks of equal content, the schema) is ``ragraf.indexing.scoped_write``'s.

Invariants a change must keep:
- Every corpus-wide lookup of a handler goes through ``Lookups`` (the linker holds no
  other path to the tables while it resolves a file); a lookup is a pure function of its
  arguments and the tables. The files an include pattern matches read the corpus paths
  only: the memo's answers to it stand while ``paths_key`` is the same (``Memo.paths``).
- A ``prepare`` hook reads, of other files, only the facts of files of languages with a
  hook and which paths have nodes (``hook_context`` covers exactly that).
- The result equals a full resolution (tests/test_shared_rows.py compares every row of
  scoped builds with clean builds).
- The memo is data only (JSON, like the facts cache): a crafted one can at worst give
  wrong edges, never run code; one that does not decode is ignored (full resolution).
- It is a cache, never a commit point: written atomically after the seal; a build killed
  before that leaves the memo of an older revision, which is not used.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragraf.kinds import EdgeKind, NodeKind, TableHow
from ragraf.lang.codec import from_data, json_bytes, to_data, to_json
from ragraf.model import EdgeRow, NodeRow, RouteRow, UnresolvedRow, props_of

FORMAT = 4
#: the file of the memo under ``.ragraf/index/``
MEMO_FILE = "resolve-memo.json.z"

#: a lookup asked: its name and its arguments (strings, numbers, type descriptors: each
#: lookup has its own signature, the memo records them all alike, as JSON)
Query = tuple[str, tuple[Any, ...]]


@dataclass
class FileOut:
    """What resolving one file added: its share of the linker's result. The memo keeps
    only what the revision's whole needs of a file it does not rewrite: its stats, the
    nodes without a path it links to, the tables its SQL names (``named``) and the DDL
    its SQL strings hold (``ddl``: what defines the columns of tables known only from
    code); the rows themselves stay in the stores."""

    edges: list[EdgeRow] = field(default_factory=list)
    nodes: list[NodeRow] = field(default_factory=list)
    routes: list[RouteRow] = field(default_factory=list)
    unresolved: list[UnresolvedRow] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    pathless: list[str] = field(default_factory=list)  # node ids
    #: lower table name -> (not a CREATE, line, spelling) of the first SQL string of the
    #: file naming it (CREATE statements first: ``schema.add_code_tables``)
    named: dict[str, tuple[bool, int, str]] = field(default_factory=dict)
    #: (line, owner fqn, table, statement) of the DDL of its SQL strings (node prop ``ddl``)
    ddl: list[tuple[int, str, str, str]] = field(default_factory=list)

    def summarize(self) -> FileOut:
        """This share with ``pathless``, ``named`` and ``ddl`` filled from its nodes."""
        from ragraf.indexing.resolve.sqlrefs import SYSTEM_SCHEMAS

        self.pathless = sorted({n.node_id for n in self.nodes if n.path is None})
        for n in self.nodes:
            if n.kind != NodeKind.SQL_LITERAL:
                continue
            p = props_of(n.props)
            created = p.get("operation") == "create"
            owner = (n.fqn or "").split("#sql@", 1)[0]
            self.ddl += [(n.start_line or 0, owner, str(t), str(x)) for t, x in p.get("ddl") or ()]
            for t in p.get("tables", []):
                name = t.get("name")
                if not name or (t.get("schema") or "").lower() in SYSTEM_SCHEMAS:
                    continue
                if t.get("how") == TableHow.ENTITY:  # DQL: its mapping names the table
                    continue
                low, at = str(name).lower(), (not created, n.start_line or 0, str(name))
                if low not in self.named or at < self.named[low]:
                    self.named[low] = at
        for name, _path, line in orm_tables(self.edges):
            low, at = name.lower(), (True, line, name)
            if low not in self.named or at < self.named[low]:
                self.named[low] = at
        return self


def orm_tables(edges: Iterable[EdgeRow]) -> Iterator[tuple[str, str, int]]:
    """(table as mapped, evidence path, line) of each ORM entity's ``references_table`` edge: a table the
    code names, like a SQL string's."""
    from ragraf.indexing.resolve.sqlrefs import ORM_TABLE

    for e in edges:
        if e.kind == EdgeKind.REFERENCES_TABLE and e.props and ORM_TABLE in e.props:
            name = props_of(e.props).get(ORM_TABLE)
            if isinstance(name, str) and name:
                yield name, e.evidence_path or "", e.evidence_line or 0


@dataclass
class Entry:
    key: str
    asked: list[int]  # indexes into Memo.queries
    out: FileOut


@dataclass
class Memo:
    params: str = ""
    rev: str = ""  # the revision whose rows the entries describe
    #: (name, encoded args, encoded answer) of every question some entry asked
    queries: list[tuple[str, Any, Any]] = field(default_factory=list)
    files: dict[str, Entry] = field(default_factory=dict)
    #: the node ids of the tables known only from code and of their columns in revision
    #: ``rev`` (``ragraf.indexing.schema.add_code_tables``): rows of the revision as a whole,
    #: which a scoped write replaces whatever their path (``ragraf.indexing.scoped_write``)
    code_nodes: list[str] = field(default_factory=list)
    #: ``paths_key`` of the corpus the answers were given for
    paths: str = ""


def paths_key(paths: Iterable[str]) -> str:
    """A digest of the corpus paths (the files with nodes, in order): the lookups that read
    nothing else of the corpus (the files an include pattern matches) answer the same
    while it is the same."""
    return hashlib.sha1("\0".join(paths).encode()).hexdigest()


class Lookups:
    """The corpus-wide questions of the linker, each a plain attribute (no cost when not
    recording); recording ones note ``(name, args) -> answer`` in the current file's log
    (``log``: None between files)."""

    def __init__(self, fns: dict[str, Callable[..., Any]], record: bool) -> None:
        self.fns: dict[str, Callable[..., Any]] = {}
        self.record = record
        self.log: dict[Query, Any] | None = None
        for name, fn in fns.items():
            self.add(name, fn)

    def add(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Make ``fn`` the lookup ``name`` (one of each name): the callable to call."""
        if name in self.__dict__ or hasattr(Lookups, name):
            raise ValueError(f"corpus-wide lookup {name!r}: the name is taken")
        self.fns[name] = fn
        ask = self._recording(name, fn) if self.record else fn
        setattr(self, name, ask)
        return ask

    def close(self) -> None:
        """Drop the lookups: each refers back to this object (a recording closure, or a
        bound method of the linker that holds it), a cycle only a collection frees."""
        self.__dict__.clear()

    def __getattr__(self, name: str) -> Any:  # a lookup not in ``fns`` (set by ``add``)
        raise AttributeError(f"no corpus-wide lookup {name!r}")

    def _recording(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def ask(*args: Any) -> Any:
            ans = fn(*args)
            log = self.log
            if log is not None:
                log[(name, args)] = ans
            return ans

        return ask


def params_key(parts: Iterable[Any]) -> str:
    """A digest of the linker's parameters (with the code of ragraf)."""
    h = hashlib.sha1(code_fingerprint().encode())
    h.update(json.dumps(list(parts), sort_keys=True, default=repr).encode())
    return h.hexdigest()


_CODE: str | None = None


def code_fingerprint() -> str:
    """A digest of ragraf's own Python sources: a memo written by other code is not used
    (what a handler makes of a file depends on the code, not only on the facts)."""
    global _CODE
    if _CODE is None:
        root = Path(__file__).resolve().parents[2]
        h = hashlib.sha1()
        for p in sorted(root.rglob("*.py")):
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
        _CODE = h.hexdigest()
    return _CODE


def hook_context(files: Iterable[Any], keys: dict[str, str], lang_name: str | None) -> str:
    """What the languages' ``prepare`` hooks see of other files, for a file of
    ``lang_name``, as a digest: the facts keys of every file of a language with a hook (a
    hook reads its own language's files: JavaScript's the JavaScript family and its
    manifests, the tags-level one its own) and, for the tags-level hook, the paths of the files with
    nodes (it resolves imports to them). A file a hook rewrote is reused only when this is
    unchanged."""
    from ragraf.lang import registry

    h = hashlib.sha1()
    for f in files:
        lang = registry.get(f.lang)
        # a JavaScript manifest (package.json, tsconfig.json) says where imports lead
        if (lang is not None and lang.prepare is not None) or registry.prepare_reads(f.path):
            h.update(f"{f.path}\0{keys.get(f.path)}\0".encode())
    mine = registry.get(lang_name)
    if mine is not None and mine.prepare == registry.TAGS_EXTRACTOR:
        h.update(b"\1")
        for f in files:
            if f.nodes:
                h.update(f.path.encode() + b"\0")
    return h.hexdigest()


def renamed(v: Any, moved: dict[str, str]) -> Any:
    """``v`` (memo data: JSON values) with every string that is a key of ``moved`` (an old
    node id) replaced by its value, dict keys included; ``v`` itself when none is."""
    t = type(v)
    if t is str:
        return moved.get(v, v)
    if t is list or t is tuple:
        items = [renamed(x, moved) for x in v]
        return v if all(a is b for a, b in zip(items, v, strict=True)) else t(items)
    if t is dict:
        pairs = [(renamed(k, moved), renamed(x, moved)) for k, x in v.items()]
        same = all(a is k and b is x for (a, b), (k, x) in zip(pairs, v.items(), strict=True))
        return v if same else dict(pairs)
    return v


def _names_any(v: Any, moved: dict[str, str]) -> bool:
    """Whether memo data ``v`` (JSON values: no tuples) holds a string that is a key of
    ``moved``."""
    t = type(v)
    if t is str:
        return v in moved
    if t is list:
        try:  # a list of plain values (the common answer: ids), compared in C
            return not moved.keys().isdisjoint(v)
        except TypeError:  # it holds lists or objects
            return any(_names_any(x, moved) for x in v)
    if t is tuple:  # not JSON's, but looked into all the same (a hashable may hold an id)
        return any(_names_any(x, moved) for x in v)
    if t is dict:
        return any(_names_any(k, moved) or _names_any(x, moved) for k, x in v.items())
    return False


class Checker:
    """Which recorded questions still have their answers (each asked again once).

    ``still_renamed``: a question whose answer changed only because declarations moved
    (their ids carry lines, §5.3): asked with the moved ids renamed, it answers the old
    answer renamed. A file whose every other question still stands then makes what it made
    with those ids renamed (the linker treats ids as names: it compares and collects them,
    never reads into them), so its rows are the old ones renamed, without linking it again
    (``ragraf.indexing.scoped_write``)."""

    def __init__(self, memo: Memo, lookups: Lookups) -> None:
        self.memo = memo
        self.fns = lookups.fns
        self.ok: dict[int, bool] = {}
        #: index -> (name, args, answer) renamed, of the questions ``still_renamed`` passed
        self.renamed: dict[int, tuple[str, Any, Any] | None] = {}

    def still(self, idx: int) -> bool:
        got = self.ok.get(idx)
        if got is None:
            name, args, ans = self.memo.queries[idx]
            fn = self.fns.get(name)
            if fn is None:
                got = False
            else:
                now = fn(*from_data(args))
                # most answers (lists of ids, dicts of classes, names) are JSON as they are
                got = now == ans or to_data(now) == ans
            self.ok[idx] = got
        return got

    def naming(self, moved: dict[str, str]) -> set[int]:
        """The recorded questions whose arguments or answer name one of the ``moved`` ids."""
        return {
            i
            for i, (_name, args, ans) in enumerate(self.memo.queries)
            if _names_any(args, moved) or _names_any(ans, moved)
        }

    def still_renamed(self, idx: int, moved: dict[str, str]) -> bool:
        if idx not in self.renamed:
            name, args, ans = self.memo.queries[idx]
            fn = self.fns.get(name)
            a2, ans2 = renamed(args, moved), renamed(ans, moved)
            got = None
            if fn is not None and (a2 is not args or ans2 is not ans):
                now = fn(*from_data(a2))
                if now == ans2 or to_data(now) == ans2:
                    got = (name, a2, ans2)
            self.renamed[idx] = got
        return self.renamed[idx] is not None

    def reusable(self, path: str, key: str) -> Entry | None:
        e = self.memo.files.get(path)
        if e is None or e.key != key:
            return None
        return e if all(self.still(i) for i in e.asked) else None


# -- persistence -----------------------------------------------------------------------
def load(path: Path) -> Memo | None:
    """The memo at ``path`` (None: absent or not one; ``resolve`` checks its parameters)."""
    try:
        data = json.loads(zlib.decompress(path.read_bytes()))
        if data.get("format") != FORMAT:
            return None
        memo = Memo(
            str(data["params"]),
            str(data["rev"]),
            [(str(n), a, ans) for n, a, ans in data["queries"]],
            code_nodes=[str(x) for x in data["code_nodes"]],
            paths=str(data["paths"]),
        )
        for p, (key, asked, stats, pathless, named, ddl) in data["files"].items():
            memo.files[str(p)] = Entry(
                str(key),
                [int(i) for i in asked],
                FileOut(
                    stats={str(k): int(v) for k, v in stats.items()},
                    pathless=[str(x) for x in pathless],
                    named={str(k): (bool(a), int(b), str(c)) for k, (a, b, c) in named.items()},
                    ddl=[(int(a), str(b), str(c), str(d)) for a, b, c, d in ddl],
                ),
            )
        return memo
    except (OSError, ValueError, KeyError, TypeError, zlib.error):
        return None  # absent, damaged or of another version: resolve everything


def save(path: Path, memo: Memo) -> None:
    """Write the memo atomically (a kill leaves the previous one, or none)."""
    write(path, encode(memo))


def encode(memo: Memo) -> list[bytes]:
    """The memo as ``write`` writes it (zlib of its JSON, in pieces): a build encodes it as
    soon as it is complete and lets its objects go, then writes it after the seal."""
    data = {
        "format": FORMAT,
        "params": memo.params,
        "rev": memo.rev,
        "queries": memo.queries,
        "code_nodes": memo.code_nodes,
        "paths": memo.paths,
        "files": {
            p: [e.key, e.asked, e.out.stats, e.out.pathless, e.out.named, e.out.ddl]
            for p, e in memo.files.items()
        },
    }
    return list(_compressed_json(data))


def write(path: Path, pieces: Iterable[bytes]) -> None:
    """Write an encoded memo atomically (a kill leaves the previous one, or none)."""
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        for piece in pieces:
            fh.write(piece)
    os.replace(tmp, path)


#: list items encoded at once by ``_compressed_json``
_BATCH = 4096


def _compressed_json(data: dict[str, Any]) -> Iterable[bytes]:
    """zlib of the JSON of ``data`` (``codec.json_bytes``: the value ``json.loads`` reads
    back is ``json.loads(json.dumps(data))``), made a batch of list items at a time: a large
    memo as one string, its bytes and the compressed copy at once was a peak at the end of a
    build."""
    z = zlib.compressobj(1)

    def parts() -> Iterable[bytes]:
        yield b"{"
        for n, (k, v) in enumerate(data.items()):
            yield (b"," if n else b"") + json_bytes(k) + b":"
            if type(v) is list and v:
                for i in range(0, len(v), _BATCH):
                    yield (b"[" if i == 0 else b",") + json_bytes(v[i : i + _BATCH])[1:-1]
                yield b"]"
            elif type(v) is dict and v:
                items = list(v.items())
                for i in range(0, len(items), _BATCH):
                    yield (b"{" if i == 0 else b",") + json_bytes(dict(items[i : i + _BATCH]))[1:-1]
                yield b"}"
            else:
                yield json_bytes(v)
        yield b"}"

    for piece in parts():
        got = z.compress(piece)
        if got:
            yield got
    yield z.flush()


class MemoWriter:
    """The memo of this build, file by file: path -> (key, the questions asked with their
    answers, or for a reused entry its indexes into ``previous``, outputs). A question many
    files asked is stored once; the files' own logs need not be kept until the end."""

    def __init__(self, params: str, previous: Memo | None) -> None:
        self.memo = Memo(params)
        self.previous = previous
        self.index: dict[Query, int] = {}
        self.again: dict[int, int] = {}  # index in previous -> index here
        self.encoded: dict[tuple[str, str], int] = {}  # (name, args as JSON) -> index here

    def add(
        self,
        path: str,
        key: str,
        asked: dict[Query, Any] | Sequence[int | tuple[str, Any, Any]],
        out: FileOut,
    ) -> None:
        """``asked``: the questions of a file resolved now (with their answers), or those
        of a reused entry, each its index into ``previous`` or (for one asked again with
        moved ids renamed: ``Checker.still_renamed``) the (name, args, answer) as data."""
        memo = self.memo
        idxs = []
        if not isinstance(asked, dict):
            assert self.previous is not None
            for j in asked:
                if isinstance(j, tuple):
                    at = (j[0], json.dumps(j[1]))
                    i = self.encoded.get(at)
                    if i is None:
                        i = self.encoded[at] = len(memo.queries)
                        memo.queries.append(j)
                    idxs.append(i)
                    continue
                i = self.again.get(j)
                if i is None:
                    i = self.again[j] = len(memo.queries)
                    memo.queries.append(self.previous.queries[j])
                idxs.append(i)
        else:
            for q, ans in asked.items():
                i = self.index.get(q)
                if i is None:
                    i = self.index[q] = len(memo.queries)
                    memo.queries.append((q[0], to_json(q[1]), to_json(ans)))
                idxs.append(i)
        memo.files[path] = Entry(key, idxs, out)
