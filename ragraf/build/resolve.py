"""Cross-file linking: refs of every file -> edges with evidence (§5.2, §6.2).

Invariants a change must keep:
- No edge without evidence: every edge carries the path and line of the use
  or declaration that proves it (P3).
- ``stated`` only when the use resolves to exactly one declaration through
  names, ``use`` aliases, the class hierarchy and declared / assigned types.
  Everything else is ``derived`` with a confidence from confidence.yaml and
  a ``via`` mark in props: a name match (one candidate / several), a global
  variable typed from assignments elsewhere, call_user_func / variable
  functions, magic ``__call``, dynamic include paths.
- Name matches with more candidates than ``resolve.max_heuristic_candidates``
  produce no edge; they are counted as unresolved instead of guessed.
- Output is deterministic: it depends on the facts only, never on dict or
  process order (edges are keyed by edge_uid).
- SQL in strings (§6.2): every analysed string becomes a ``sql_literal`` node
  (fqn ``<owner fqn>#sql@<line>``, ``#2``... for more on one line) contained
  in its owner. Each table it names that the schema knows (``tables``) gets a
  ``references_table`` edge from the literal and a ``queries`` edge from the
  owner, both with the string's line as evidence: stated only when the text
  parsed, is neither ``SELECT *`` nor assembled from run-time identifiers and
  the name is entirely literal; otherwise derived with ``sql_dynamic``
  confidence and a ``via`` reason. A name the schema does not know, or with
  no literal character, gets no edge (counted in stats, never guessed).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ragraf import ids
from ragraf.lang.facts import ClassDecl, FileFacts
from ragraf.rank import kcore
from ragraf.sql import sqltext

Edge = tuple[str, str, str, str, str | None, int | None, float, str, str, str | None]
NodeRow = tuple[str, str, str, str, str | None, int | None, int | None, str, str]

SOURCES_TS = json.dumps(["tree-sitter"])
SOURCES_MD = json.dumps(["markdown"])
SOURCES_SQL = json.dumps(["tree-sitter", "sqlglot"])
SOURCES_SQL_REGEX = json.dumps(["tree-sitter", "regex"])
SYSTEM_SCHEMAS = frozenset({"information_schema", "mysql", "performance_schema", "sys"})
MAX_INCLUDE_CANDIDATES = 20


RANK_KINDS = frozenset(
    {
        "calls",
        "calls_heuristic",
        "extends",
        "implements",
        "uses_trait",
        "instantiates",
        "references",
        "imports",
        "overrides",
    }
)


@dataclass
class Resolved:
    nodes: list[NodeRow]
    edges: list[Edge]
    stats: dict[str, int]
    routes: list[tuple[str, str, str, str, int]]
    shells: list[tuple[str, int]]


class _ClassDef:
    __slots__ = ("decl", "facts", "nid")

    def __init__(self, decl: ClassDecl, facts: FileFacts) -> None:
        self.decl = decl
        self.facts = facts
        self.nid = facts.nodes[decl.node][0]


class Resolver:
    def __init__(
        self,
        files: list[FileFacts],
        conf: dict[str, float],
        max_candidates: int = 5,
        tables: dict[str, str] | None = None,
        prefixes: dict[str, str] | None = None,
    ) -> None:
        self.tables = tables or {}  # lower table name -> db_table node id
        self.prefixes = prefixes or {}  # db.table_prefixes
        self.prefix_keys = {sqltext.norm_dyn(k) for k in self.prefixes}
        self.files = files
        self.conf = conf
        self.max_candidates = max_candidates
        self.classes: dict[str, list[_ClassDef]] = defaultdict(list)
        self.functions: dict[str, list[str]] = defaultdict(list)
        self.methods_by_name: dict[str, list[str]] = defaultdict(list)
        self.returns: dict[str, list[Any]] = {}
        self.globals: dict[str, list[Any]] = defaultdict(list)
        self.file_ids: dict[str, str] = {}
        self.paths: list[str] = []
        self.node_fqn: dict[str, str] = {}
        self.edges: dict[str, Edge] = {}
        self.extra_nodes: dict[str, NodeRow] = {}
        self.routes: list[tuple[str, str, str, str, int]] = []
        self.stats: dict[str, int] = defaultdict(int)
        self._method_cache: dict[tuple[str, str], list[str]] = {}
        self._type_cache: dict[tuple[Any, str | None], dict[str, bool]] = {}
        for f in files:
            if not f.nodes:
                continue
            self.file_ids[f.path] = f.nodes[0][0]
            self.paths.append(f.path)
            for cd in f.classes:
                self.classes[cd.fqn.lower()].append(_ClassDef(cd, f))
                for mname, idx in cd.methods.items():
                    self.methods_by_name[mname].append(f.nodes[idx][0])
            for fqn, idx in f.functions:
                self.functions[fqn.lower()].append(f.nodes[idx][0])
            for idx, descs in f.returns.items():
                self.returns[f.nodes[idx][0]] = descs
            for name, d in f.global_assigns:
                self.globals[name].append(d)
        for lst in self.functions.values():
            lst.sort()
        for lst in self.methods_by_name.values():
            lst.sort()
        self.path_set = set(self.paths)

    # -- edges --------------------------------------------------------------
    def add(
        self,
        src: str,
        dst: str,
        kind: str,
        path: str | None,
        line: int | None,
        conf: float = 1.0,
        derived: bool = False,
        props: dict[str, Any] | None = None,
        sources: str = SOURCES_TS,
    ) -> None:
        uid = ids.edge_uid(src, dst, kind, path, line)
        old = self.edges.get(uid)
        if old is not None and old[6] >= conf:
            return
        self.edges[uid] = (
            src,
            dst,
            kind,
            "derived" if derived else "stated",
            path,
            line,
            conf,
            sources,
            uid,
            json.dumps(props, sort_keys=True) if props else None,
        )

    def external(self, kind: str, fqn: str) -> str:
        nid = ids.node_id(kind, fqn, None, None)
        if nid not in self.extra_nodes:
            self.extra_nodes[nid] = (
                nid,
                kind,
                fqn.rsplit("\\", 1)[-1],
                fqn,
                None,
                None,
                None,
                json.dumps({"external": True}),
                "structural",
            )
        return nid

    # -- hierarchy ----------------------------------------------------------
    def class_ids(self, fqn: str) -> list[str]:
        return [c.nid for c in self.classes.get(fqn.lower(), [])]

    def find_method(self, cls: str, m: str, depth: int = 0) -> list[str]:
        key = (cls, m)
        hit = self._method_cache.get(key)
        if hit is not None:
            return hit
        out: list[str] = []
        if depth < 12:
            for cdef in self.classes.get(cls, []):
                d = cdef.decl
                idx = d.methods.get(m)
                if idx is not None:
                    out.append(cdef.facts.nodes[idx][0])
                    continue
                found: list[str] = []
                for t, _l in d.traits:
                    found = self.find_method(t.lower(), m, depth + 1)
                    if found:
                        break
                if not found:
                    for p, _l in d.extends:
                        found = self.find_method(p.lower(), m, depth + 1)
                        if found:
                            break
                if not found and (d.kind == "interface" or d.abstract):
                    for p, _l in d.implements:
                        found = self.find_method(p.lower(), m, depth + 1)
                        if found:
                            break
                out.extend(found)
        out = sorted(set(out))
        self._method_cache[key] = out
        return out

    def find_const(self, cls: str, name: str, depth: int = 0) -> list[str]:
        out: list[str] = []
        if depth > 12:
            return out
        for cdef in self.classes.get(cls, []):
            d = cdef.decl
            idx = d.consts.get(name)
            if idx is not None:
                out.append(cdef.facts.nodes[idx][0])
                continue
            for p, _l in (*d.traits, *d.extends, *d.implements):
                found = self.find_const(p.lower(), name, depth + 1)
                if found:
                    out.extend(found)
                    break
        return sorted(set(out))

    def prop_types(self, cls: str, name: str, depth: int = 0) -> list[Any]:
        if depth > 12:
            return []
        out: list[Any] = []
        for cdef in self.classes.get(cls, []):
            d = cdef.decl
            if name in d.props and d.props[name]:
                out.extend(d.props[name])
                continue
            for p, _l in (*d.traits, *d.extends):
                found = self.prop_types(p.lower(), name, depth + 1)
                if found:
                    out.extend(found)
                    break
        return out

    def parents(self, cls: str) -> list[str]:
        out: list[str] = []
        for cdef in self.classes.get(cls, []):
            out.extend(p.lower() for p, _l in cdef.decl.extends)
        return out

    # -- types --------------------------------------------------------------
    def types(
        self,
        d: Any,
        static_cls: str | None = None,
        depth: int = 0,
        seen_globals: frozenset[str] = frozenset(),
    ) -> dict[str, bool]:
        """Classes (lower fqn) a descriptor evaluates to -> derived flag."""
        if d is None or depth > 10:
            return {}
        key = (d, static_cls)
        if not seen_globals:
            hit = self._type_cache.get(key)
            if hit is not None:
                return hit
        out: dict[str, bool] = {}

        def merge(items: dict[str, bool], derived: bool = False) -> None:
            for k, v in items.items():
                v = v or derived
                out[k] = out.get(k, True) and v

        tag = d[0]
        if tag == "class":
            if d[1]:
                out[d[1].lower()] = False
        elif tag == "static":
            if static_cls:
                out[static_cls] = False
        elif tag == "parent":
            for p in self.parents(d[1].lower()):
                out[p] = False
        elif tag == "any":
            for alt in d[1]:
                merge(self.types(alt, static_cls, depth + 1, seen_globals))
        elif tag == "global":
            name = d[1]
            if name not in seen_globals:
                for alt in self.globals.get(name, []):
                    merge(self.types(alt, None, depth + 1, seen_globals | {name}), derived=True)
        elif tag in ("prop", "sprop"):
            for cls, der in self.types(d[1], static_cls, depth + 1, seen_globals).items():
                for pd in self.prop_types(cls, d[2]):
                    merge(self.types(pd, cls, depth + 1, seen_globals), derived=der)
        elif tag in ("call", "scall"):
            for cls, der in self.types(d[1], static_cls, depth + 1, seen_globals).items():
                for mid in self.find_method(cls, d[2].lower()):
                    for rd in self.returns.get(mid, []):
                        merge(self.types(rd, cls, depth + 1, seen_globals), derived=der)
        elif tag == "func":
            for cand in d[1]:
                fids = self.functions.get(cand.lower())
                if fids:
                    for fid in fids:
                        for rd in self.returns.get(fid, []):
                            merge(self.types(rd, None, depth + 1, seen_globals))
                    break
        if not seen_globals:
            self._type_cache[key] = out
        return out

    # -- linking ------------------------------------------------------------
    def link_targets(
        self,
        src: str,
        targets: list[str],
        kind: str,
        path: str,
        line: int,
        derived: bool,
        via: str | None,
        magic: bool = False,
    ) -> str | None:
        """Link a use to its target declaration(s); returns 'stated', 'derived' or None."""
        if not targets:
            return None
        if len(targets) == 1 and not derived and not magic:
            self.add(src, targets[0], kind, path, line)
            return "stated"
        if kind == "calls":
            kind = "calls_heuristic"
        if magic:
            conf, via = self.conf["magic"], "magic"
        elif len(targets) == 1:
            conf = (
                self.conf["global_variable"] if via == "global" else self.conf["heuristic_single"]
            )
        else:
            conf = self.conf["heuristic_ambiguous"]
        props: dict[str, Any] = {"via": via or "ambiguous"}
        if magic:
            props["magic"] = True
        if len(targets) > 1:
            props["candidates"] = len(targets)
        for t in targets:
            self.add(src, t, kind, path, line, conf, True, props)
        return "derived"

    def resolve_method_call(
        self, src: str, path: str, line: int, recv: Any, m: str, kind: str = "calls"
    ) -> str | None:
        ml = m.lower()
        tys = self.types(recv) if recv is not None else {}
        if tys:
            targets: dict[str, bool] = {}
            for cls, der in tys.items():
                for t in self.find_method(cls, ml):
                    targets[t] = targets.get(t, True) and der
            if targets:
                tl = sorted(targets)
                derived = all(targets.values())
                return self.link_targets(
                    src, tl, kind, path, line, derived, "global" if derived else None
                )
            magic = sorted({t for cls in tys for t in self.find_method(cls, "__call")})
            if magic and kind == "calls":
                return self.link_targets(src, magic, kind, path, line, True, "magic", magic=True)
            if any(cls in self.classes for cls in tys):
                return None  # the class is known and has no such method
        return self.name_match(src, path, line, ml, kind)

    def name_match(self, src: str, path: str, line: int, ml: str, kind: str) -> str | None:
        cands = self.methods_by_name.get(ml, [])
        if not cands or len(cands) > self.max_candidates:
            return None
        return self.link_targets(src, cands, kind, path, line, True, "name-match")

    def run(self) -> Resolved:
        st = self.stats
        for f in self.files:
            if not f.nodes:
                continue
            nodes = f.nodes
            path = f.path
            for src, dst, kind, line in f.edges:
                self.add(
                    src,
                    dst,
                    kind,
                    path,
                    line,
                    sources=SOURCES_MD if f.lang == "markdown" else SOURCES_TS,
                )
            for cd in f.classes:
                self.class_edges(f, cd)
            for ref in f.refs:
                self.resolve_ref(f, nodes, ref)
        # duplicates
        st["conflict.duplicate_class"] = sum(1 for v in self.classes.values() if len(v) > 1)
        st["conflict.duplicate_function"] = sum(1 for v in self.functions.values() if len(v) > 1)
        edges = [self.edges[k] for k in sorted(self.edges)]
        extra = [self.extra_nodes[k] for k in sorted(self.extra_nodes)]
        return Resolved(extra, edges, dict(st), sorted(self.routes), self.shells(edges))

    def shells(self, edges: list[Edge]) -> list[tuple[str, int]]:
        """k-core shell of every symbol in the undirected graph of code links."""
        index: dict[str, int] = {}
        pairs = []
        for e in edges:
            if e[2] in RANK_KINDS:
                a = index.setdefault(e[0], len(index))
                b = index.setdefault(e[1], len(index))
                pairs.append((a, b))
        shell = kcore(len(index), pairs)
        return sorted((nid, shell[i]) for nid, i in index.items() if shell[i] > 0)

    def class_edges(self, f: FileFacts, cd: ClassDecl) -> None:
        src = f.nodes[cd.node][0]
        for rel, items, ext_kind in (
            ("extends", cd.extends, "interface" if cd.kind == "interface" else "class"),
            ("implements", cd.implements, "interface"),
            ("uses_trait", cd.traits, "trait"),
        ):
            for fqn, line in items:
                targets = self.class_ids(fqn)
                if not targets:
                    self.add(
                        src,
                        self.external(ext_kind, fqn),
                        rel,
                        f.path,
                        line,
                        props={"external": True},
                    )
                elif len(targets) == 1:
                    self.add(src, targets[0], rel, f.path, line)
                else:
                    for t in targets:
                        self.add(
                            src,
                            t,
                            rel,
                            f.path,
                            line,
                            self.conf["heuristic_ambiguous"],
                            True,
                            {"via": "duplicate-class", "candidates": len(targets)},
                        )
        # overrides: a method redeclared from a parent, a trait or an interface
        for mname, idx in cd.methods.items():
            if mname == "__construct":
                continue
            for p, _l in (*cd.extends, *cd.implements):
                found = self.find_method(p.lower(), mname)
                if len(found) == 1:
                    self.add(f.nodes[idx][0], found[0], "overrides", f.path, f.nodes[idx][4])
                    break

    def resolve_ref(self, f: FileFacts, nodes: list[Any], ref: tuple[Any, ...]) -> None:
        st = self.stats
        kind = ref[0]
        src = nodes[ref[1]][0]
        line = ref[2]
        path = f.path
        if kind == "call":
            st["calls_total"] += 1
            for cand in ref[3]:
                fids = self.functions.get(cand.lower())
                if fids:
                    self.link_targets(
                        src,
                        fids,
                        "calls",
                        path,
                        line,
                        False,
                        "duplicate-function" if len(fids) > 1 else None,
                    )
                    st["calls_stated" if len(fids) == 1 else "calls_derived"] += 1
                    return
            st["calls_unresolved_function"] += 1
        elif kind == "mcall":
            st["calls_total"] += 1
            self._count(self.resolve_method_call(src, path, line, ref[3], ref[4]))
        elif kind == "scall":
            st["calls_total"] += 1
            tys = self.types(ref[3]) if ref[3] is not None else {}
            ml = ref[4].lower()
            targets = sorted({t for cls in tys for t in self.find_method(cls, ml)})
            if targets:
                self._count(self.link_targets(src, targets, "calls", path, line, False, None))
                return
            magic = sorted({t for cls in tys for t in self.find_method(cls, "__callstatic")})
            if magic:
                self.link_targets(src, magic, "calls", path, line, True, "magic", magic=True)
                st["calls_derived"] += 1
                return
            st["calls_unresolved_method"] += 1
        elif kind == "new":
            tys = self.types(ref[3])
            for cls in sorted(tys):
                cids = self.class_ids(cls)
                if len(cids) == 1:
                    self.add(src, cids[0], "instantiates", path, line)
                ctor = self.find_method(cls, "__construct")
                if ctor:
                    st["calls_total"] += 1
                    self.link_targets(src, ctor, "calls", path, line, False, None)
                    st["calls_stated" if len(ctor) == 1 else "calls_derived"] += 1
        elif kind == "cref":
            tys = self.types(ref[3])
            member = ref[4]
            for cls in sorted(tys):
                if member.lower() == "class":
                    cids = self.class_ids(cls)
                else:
                    cids = self.find_const(cls, member)
                if len(cids) == 1:
                    self.add(src, cids[0], "references", path, line)
        elif kind == "callable":
            tys = self.types(ref[3]) if ref[3] is not None else {}
            targets = sorted({t for cls in tys for t in self.find_method(cls, ref[4].lower())})
            if len(targets) == 1:
                self.add(src, targets[0], "references", path, line, props={"callable": True})
            elif targets:
                self.link_targets(src, targets, "references", path, line, True, "ambiguous")
        elif kind == "vcall":
            st["calls_total"] += 1
            alts = ref[4] or ()
            targets: list[str] = []
            for alt in alts:
                if alt is None:
                    continue
                if alt[0] == "function":
                    for cand in alt[1]:
                        fids = self.functions.get(cand.lower())
                        if fids:
                            targets.extend(fids)
                            break
                elif alt[0] == "method" and alt[1] is not None:
                    for cls in self.types(alt[1]):
                        targets.extend(self.find_method(cls, alt[2].lower()))
            targets = sorted(set(targets))
            if targets:
                via = "call_user_func" if ref[3] == "call_user_func" else "variable-function"
                for t in targets:
                    self.add(
                        src,
                        t,
                        "calls_heuristic",
                        path,
                        line,
                        self.conf["variable_function"],
                        True,
                        {"via": via},
                    )
                st["calls_derived"] += 1
            else:
                st["calls_unresolved_dynamic"] += 1
        elif kind == "include":
            self.resolve_include(f, src, line, ref[3], ref[4], ref[5])
        elif kind == "superglobal":
            sg, key = ref[3], ref[4]
            fqn = f"{sg}['{key}']" if key is not None else sg
            nid = ids.node_id("http_endpoint", fqn, None, None)
            if nid not in self.extra_nodes:
                self.extra_nodes[nid] = (
                    nid,
                    "http_endpoint",
                    fqn,
                    fqn,
                    None,
                    None,
                    None,
                    json.dumps({"superglobal": sg, "key": key}),
                    "structural",
                )
            self.add(nid, src, "flows_to", path, line)
        elif kind == "route":
            self.resolve_route(f, src, line, ref[3], ref[4], ref[5])
        elif kind == "import":
            ikind, fqn = ref[3], ref[4]
            if ikind == "class":
                cids = self.class_ids(fqn)
                dst = cids[0] if len(cids) == 1 else (None if cids else self.external("class", fqn))
                if dst:
                    self.add(
                        self.file_ids[path],
                        dst,
                        "imports",
                        path,
                        line,
                        props={"use": "class", **({"external": True} if not cids else {})},
                    )
            elif ikind == "function":
                fids = self.functions.get(fqn.lower())
                if fids and len(fids) == 1:
                    self.add(
                        self.file_ids[path],
                        fids[0],
                        "imports",
                        path,
                        line,
                        props={"use": "function"},
                    )
        elif kind == "doclink":
            target = ref[3]
            base = posixpath.dirname(path)
            for cand in (
                posixpath.normpath(posixpath.join(base, target)),
                posixpath.normpath(target.lstrip("/")),
            ):
                if cand in self.path_set:
                    self.add(
                        self.file_ids[cand], src, "documented_by", path, line, sources=SOURCES_MD
                    )
                    break
        elif kind == "docname":
            self.resolve_docname(src, path, line, ref[3])
        elif kind == "sql":
            self.resolve_sql(f, src, nodes[ref[1]][3], line, ref[3], ref[4], ref[5], ref[6])

    def resolve_sql(
        self,
        f: FileFacts,
        owner: str,
        owner_fqn: str,
        line: int,
        end_line: int,
        frags: tuple[tuple[str, str], ...],
        info: Any,
        ordinal: int,
    ) -> None:
        st = self.stats
        if self.prefix_keys and any(
            k == "dyn" and sqltext.norm_dyn(t) in self.prefix_keys for k, t in frags
        ):
            from ragraf.lang.php import pack_sql

            info = pack_sql(sqltext.analyze(frags, self.prefixes))
        if info is None:
            return
        op, tables, columns, star, dynamic, parsed, problems = info
        path = f.path
        fqn = f"{owner_fqn}#sql@{line}" + (f"#{ordinal}" if ordinal > 1 else "")
        nid = ids.node_id("sql_literal", fqn, path, line)
        names = list(dict.fromkeys(t[0] for t in tables if t[0])) or ["?"]
        props: dict[str, Any] = {
            "operation": op,
            "columns": None if columns is None else list(columns),
            "select_star": star,
            "dynamic": dynamic,
            "parsed": parsed,
            "tables": [
                {
                    "name": n,
                    "how": h,
                    "role": r,
                    **({"schema": s} if s else {}),
                    **({"expr": e} if e else {}),
                }
                for n, h, r, s, e in tables
            ],
        }
        if problems:
            props["problems"] = list(problems)
        self.extra_nodes[nid] = (
            nid,
            "sql_literal",
            f"{op} {', '.join(names)}"[:120],
            fqn,
            path,
            line,
            end_line,
            json.dumps(props, sort_keys=True),
            "structural",
        )
        self.add(owner, nid, "contains", path, line)
        st["sql_literals"] += 1
        st["sql_parsed"] += 1 if parsed else 0
        st["sql_dynamic"] += 1 if dynamic else 0
        st["sql_select_star"] += 1 if star else 0
        found: dict[str, tuple[set[str], set[str]]] = {}
        for name, how, role, schema, _expr in tables:
            if not name:
                st["sql_tables_dynamic"] += 1
                continue
            if schema and schema.lower() in SYSTEM_SCHEMAS:
                continue
            tid = self.tables.get(name.lower())
            if tid is None:
                st["sql_tables_unknown"] += 1
                continue
            roles, hows = found.setdefault(tid, (set(), set()))
            roles.add(role)
            hows.add(how)
        sources = SOURCES_SQL if parsed else SOURCES_SQL_REGEX
        for tid in sorted(found):
            roles, hows = found[tid]
            name_how = (
                "exact"
                if "exact" in hows
                else "prefix_resolved"
                if "prefix_resolved" in hows
                else "dynamic"
            )
            via = (
                "not_parsed"
                if not parsed
                else "dynamic_table_name"
                if name_how == "dynamic"
                else "table_prefix"
                if name_how == "prefix_resolved"
                else "select_star"
                if star
                else "dynamic_sql"
                if dynamic
                else None
            )
            derived = via is not None
            conf = self.conf["sql_dynamic"] if derived else 1.0
            eprops: dict[str, Any] = {"operation": op, "roles": sorted(roles)}
            if via:
                eprops["via"] = via
            self.add(nid, tid, "references_table", path, line, conf, derived, eprops, sources)
            self.add(owner, tid, "queries", path, line, conf, derived, eprops, sources)
            st["sql_edges_derived" if derived else "sql_edges_stated"] += 1

    def resolve_route(
        self,
        f: FileFacts,
        src: str,
        line: int,
        methods: tuple[str, ...],
        route: str,
        handler: tuple[Any, ...],
    ) -> None:
        method = "|".join(methods)
        fqn = f"{method} {route}"
        nid = ids.node_id("web_route", fqn, f.path, line)
        targets: list[str] = []
        if handler[0] == "class":
            for cls in sorted(self.types(handler[1])):
                inv = self.find_method(cls, "__invoke")
                targets.extend(inv or self.class_ids(cls))
        elif handler[0] == "method":
            for cls in sorted(self.types(handler[1])):
                targets.extend(self.find_method(cls, handler[2].lower()))
        else:
            targets.append(src)  # a closure: the code registering it handles the route
        self.extra_nodes[nid] = (
            nid,
            "web_route",
            route,
            fqn,
            f.path,
            line,
            line,
            json.dumps({"method": method, "route": route}),
            "structural",
        )
        self.routes.append((nid, route, method, f.path, line))
        for t in sorted(set(targets)):
            self.add(
                nid,
                t,
                "handles",
                f.path,
                line,
                self.conf["heuristic_single"],
                True,
                {"via": "router-call"},
            )

    def _count(self, outcome: str | None) -> None:
        self.stats["calls_unresolved_method" if outcome is None else f"calls_{outcome}"] += 1

    def resolve_include(
        self,
        f: FileFacts,
        src: str,
        line: int,
        kind: str,
        parts: tuple[tuple[str, str], ...],
        conditional: bool,
    ) -> None:
        st = self.stats
        st["includes_total"] += 1
        base = posixpath.dirname(f.path)
        props: dict[str, Any] = {"include": kind}
        if conditional:
            props["conditional"] = True
        dynamic = any(p[0] == "dyn" for p in parts)
        if not dynamic:
            text = "".join(
                base + "/" if p[0] == "dir" and base else ("" if p[0] == "dir" else p[1])
                for p in parts
            )
            anchored = bool(parts) and parts[0][0] == "dir"
            cands = [text] if anchored else [posixpath.join(base, text), text]
            for c in cands:
                c = posixpath.normpath(c.lstrip("/")) if c else c
                if c in self.path_set:
                    self.add(src, self.file_ids[c], "imports", f.path, line, props=props)
                    st["includes_resolved"] += 1
                    return
            st["includes_unresolved"] += 1
            return
        # the literal prefix (before the first dynamic part) is normalised like a path
        first_dyn = next(i for i, p in enumerate(parts) if p[0] == "dyn")
        prefix = "".join(
            (base + "/" if base else "") if k == "dir" else v for k, v in parts[:first_dyn]
        )
        rx = []
        if first_dyn == 0:
            rx.append("(?:.*/)?")
        elif prefix:
            norm = posixpath.normpath(prefix.lstrip("/"))
            norm = "" if norm == "." else norm
            if prefix.endswith("/") and norm:
                norm += "/"
            rx.append(re.escape(norm))
        for i, (k, v) in enumerate(parts[first_dyn:], first_dyn):
            if k == "lit":
                rx.append(re.escape(v.lstrip("/") if i == 1 and first_dyn == 0 else v))
            elif k == "dyn" and i > 0:
                rx.append("[^/]*")
        try:
            pattern = re.compile("".join(rx))
        except re.error:
            st["includes_unresolved"] += 1
            return
        cands = sorted(
            p for p in self.paths if pattern.fullmatch(p) and p.endswith((".php", ".inc", ".phtml"))
        )
        if not cands or len(cands) > MAX_INCLUDE_CANDIDATES:
            st["includes_unresolved"] += 1
            return
        conf = (
            self.conf["include_dynamic_single"]
            if len(cands) == 1
            else self.conf["include_dynamic_multiple"]
        )
        props["via"] = "dynamic-include"
        if len(cands) > 1:
            props["candidates"] = len(cands)
        for c in cands:
            self.add(src, self.file_ids[c], "imports", f.path, line, conf, True, props)
        st["includes_dynamic"] += 1

    def resolve_docname(self, src: str, path: str, line: int, text: str) -> None:
        name = text.strip().lstrip("\\").rstrip("()")
        if not re.fullmatch(r"[A-Za-z_][\w\\]*(::\$?\w+)?", name):
            return
        if "::" in name:
            cls, _, member = name.partition("::")
            cands = (
                [cls.lower()]
                if cls.lower() in self.classes
                else [k for k in self.classes if k.rsplit("\\", 1)[-1] == cls.lower()]
            )
            targets = sorted({t for c in cands for t in self.find_method(c, member.lower())})
            exact = cls.lower() in self.classes
        else:
            low = name.lower()
            if low in self.classes:
                targets, exact = self.class_ids(name), True
            elif "\\" not in low:
                targets = sorted(
                    c.nid
                    for k, v in self.classes.items()
                    if k.rsplit("\\", 1)[-1] == low
                    for c in v
                )
                exact = False
            else:
                targets, exact = [], False
        if len(targets) == 1:
            if exact:
                self.add(src, targets[0], "mentions", path, line, sources=SOURCES_MD)
            else:
                self.add(
                    src,
                    targets[0],
                    "mentions",
                    path,
                    line,
                    self.conf["heuristic_single"],
                    True,
                    {"via": "name-match"},
                    sources=SOURCES_MD,
                )


def resolve(
    files: Iterable[FileFacts],
    conf: dict[str, float],
    max_candidates: int = 5,
    tables: dict[str, str] | None = None,
    prefixes: dict[str, str] | None = None,
) -> Resolved:
    return Resolver(list(files), conf, max_candidates, tables, prefixes).run()
