"""``include`` / ``require``: the files each may load, linked as ``imports`` edges, and the
include graph the resolver reads to tell which declaration of a function declared more
than once a file can run (``ragraf.indexing.resolve.reach``).

Invariants a change must keep:
- A literal path (or one made literal by constants with one literal string value) is
  relative to the including file's folder, else to the corpus root; it is stated.
- A dynamic path is a pattern over corpus paths (literal parts kept, each dynamic part one
  path segment); 1..``MAX_INCLUDE_CANDIDATES`` matching PHP files are linked, derived
  (``via: dynamic-include``); more, none or a path with no literal text is counted
  unresolved and, for the include graph, open (it may load files it does not know).
- What an include loads is computed once per resolution (``ctx.once``): every file asking
  records the lookups it took. The files a pattern matches read the corpus paths alone,
  so the memo's answers to ``include_matches`` stand while the paths are the same.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Set
from enum import StrEnum
from typing import Any, NamedTuple

from ragraf.kinds import EdgeKind, FragmentKind, NodeKind
from ragraf.lang.facts import FileFacts, IncludeRef
from ragraf.lang.linking import EdgeSpec, IncludeGraph, LinkContext, Linking
from ragraf.lang.registry import DRUPAL_SUFFIXES

#: a dynamic include matching more files than this is not linked (counted unresolved):
#: past it the candidates say nothing an agent can use
MAX_INCLUDE_CANDIDATES = 20
_INCLUDABLE = (".php", ".inc", ".phtml", *DRUPAL_SUFFIXES)
#: a dynamic part of an include path that names a constant (``WPINC``, ``\\App\\DIR``)
_CONSTANT_REF = re.compile(r"\\?[A-Za-z_]\w*(?:\\[A-Za-z_]\w*)*")
#: PHP's own constants a path may be built of, as corpus paths spell them
_PATH_CONSTANTS = {"DIRECTORY_SEPARATOR": "/"}
#: an include pattern the memo has no answer for (``Includes._include_matches``)
_NOT_MATCHED: list[str] = []
Parts = tuple[tuple[str, str], ...]


class IncludeHow(StrEnum):
    """How an include's path is known."""

    STATIC = "static"  # a literal path (constants substituted): one file
    DYNAMIC = "dynamic"  # the corpus files a pattern of the path matches
    UNRESOLVED = "unresolved"


class IncludeHit(NamedTuple):
    """What one include loads: ``targets`` (corpus paths), ``how`` (``IncludeHow``), ``open`` (a dynamic path the resolver could not follow: it may load files
    it does not know) and the constants substituted by their values."""

    targets: tuple[str, ...]
    how: IncludeHow
    open: bool
    constants: dict[str, str]
    #: constants whose value named no file (the path matched with them as wildcards)
    unmatched: dict[str, str] = {}  # never mutated


class Includes:
    def __init__(self, ctx: LinkContext) -> None:
        self.ctx = ctx
        #: every include of the corpus, in file order (the include graph)
        self.refs: list[tuple[FileFacts, IncludeRef]] = []
        #: (parts, base) -> files of the include patterns the memo answered when the paths
        #: were the same (``_include_matches`` reads its arguments and the paths alone)
        self._matched: Mapping[Any, list[str] | None] | None = None
        self.literal_path = ctx.lookup("literal_path", self._literal_path)
        self.include_matches = ctx.lookup("include_matches", self._include_matches)

    def collect(self, f: FileFacts, ref: IncludeRef) -> None:
        self.refs.append((f, ref))

    def graph(self, callers: Mapping[str, set[str]]) -> IncludeGraph:
        """The include graph's edges: an include inside a function runs when the function
        is called, from the files that call it by name (``callers``, lower fqn -> paths;
        its own file when none does, and for a method). An unresolved include in a
        function no corpus file calls opens no file."""
        edges: list[tuple[str, str, bool]] = []
        open_files: set[str] = set()
        for f, ref in self.refs:
            hit = self.hit(f, ref)
            owner = f.nodes[ref.owner]
            froms = {f.path}
            called = True
            if owner.kind == NodeKind.FUNCTION:
                called = owner.fqn.lower() in callers
                froms = callers.get(owner.fqn.lower()) or froms
            for src in sorted(froms):
                edges.extend((src, t, ref.owner == 0) for t in hit.targets)
                if hit.open and called:
                    open_files.add(src)
        return IncludeGraph(edges, open_files)

    def hit(self, f: FileFacts, ref: IncludeRef) -> IncludeHit:
        """The files an include may load (computed once per include): a literal path (or
        one made literal by constants); else a pattern over corpus paths, constants with
        one literal value substituted first (the candidates matching the most literal text
        win; a value matching no file falls back to the constant as a wildcard)."""
        return self.ctx.once(("include", f.path, ref), lambda: self._hit(f, ref))

    def _hit(self, f: FileFacts, ref: IncludeRef) -> IncludeHit:
        sym = self.ctx.sym
        base = posixpath.dirname(f.path)
        parts = ref.parts
        consts: dict[str, str] = {}
        subst: list[tuple[str, str]] = []
        for k, v in parts:
            value = None
            if k == FragmentKind.DYN and _CONSTANT_REF.fullmatch(v):
                value = _PATH_CONSTANTS.get(v.lstrip("\\")) or sym.const_value(v)
            if value is not None:
                consts[v] = value
                subst.append((FragmentKind.LIT, value))
            else:
                subst.append((k, v))
        hit = IncludeHit((), IncludeHow.UNRESOLVED, False, consts)
        if not any(p[0] == FragmentKind.DYN for p in subst):
            path = self.literal_path(tuple(subst), base)
            if path is not None:
                hit = IncludeHit((path,), IncludeHow.STATIC, False, consts)
        elif not any(k != FragmentKind.DYN and v for k, v in subst):
            hit = IncludeHit((), IncludeHow.UNRESOLVED, True, {})  # `include $file`: says nothing
        else:
            found = self.include_matches(tuple(subst), base) if consts else None
            unmatched: dict[str, str] = {}
            if not found:
                found = self.include_matches(parts, base)
                consts, unmatched = {}, consts
            if found is None or len(found) > MAX_INCLUDE_CANDIDATES:
                hit = IncludeHit((), IncludeHow.UNRESOLVED, True, {})
            elif found:
                hit = IncludeHit(tuple(found), IncludeHow.DYNAMIC, False, consts, unmatched)
        return hit

    def _literal_path(self, parts: Parts, base: str) -> str | None:
        return _literal_path(parts, base, self.ctx.path_set)

    def _include_matches(self, parts: Parts, base: str) -> list[str] | None:
        """Corpus files a dynamic include path may name (None: no pattern can be made); the
        literal text after the last dynamic part must end the path (a cheap filter first)."""
        if self._matched is None:
            self._matched = self.ctx.remembered("include_matches")
        got = self._matched.get((parts, base), _NOT_MATCHED)
        if got is not _NOT_MATCHED:
            return None if got is None else list(got)
        pattern = _include_pattern(parts, base)
        if pattern is None:
            return None
        last = max(i for i, p in enumerate(parts) if p[0] == FragmentKind.DYN)
        tail = "".join(v for _k, v in parts[last + 1 :])
        if last == 0:
            tail = tail.lstrip("/")
        return sorted(
            p
            for p in self.ctx.paths
            if p.endswith(tail) and p.endswith(_INCLUDABLE) and pattern.fullmatch(p)
        )

    def on_include(self, f: FileFacts, src: str, ref: IncludeRef) -> None:
        ctx = self.ctx
        st = ctx.stats
        st["includes_total"] += 1
        hit = self.hit(f, ref)
        props: dict[str, Any] = {"include": ref.kind}
        if ref.conditional:
            props["conditional"] = True
        if hit.constants:
            props["constants"] = dict(sorted(hit.constants.items()))
            st["includes_constants"] += 1
        if hit.unmatched:
            props["constants_unmatched"] = dict(sorted(hit.unmatched.items()))
        file_id = ctx.sym.file_id
        if hit.how == IncludeHow.STATIC:
            target = file_id(hit.targets[0])
            assert target is not None  # a corpus path (``literal_path``)
            ctx.add(src, target, EdgeKind.IMPORTS, f.path, ref.line, EdgeSpec(props=props))
            st["includes_resolved"] += 1
            return
        if hit.how == IncludeHow.UNRESOLVED:
            st["includes_unresolved"] += 1
            return
        single = len(hit.targets) == 1
        conf = ctx.conf["include_dynamic_single" if single else "include_dynamic_multiple"]
        props["via"] = "dynamic-include"
        if not single:
            props["candidates"] = len(hit.targets)
        spec = EdgeSpec(conf, True, props)
        for c in hit.targets:
            target = file_id(c)
            assert target is not None  # a corpus path (``include_matches``)
            ctx.add(src, target, EdgeKind.IMPORTS, f.path, ref.line, spec)
        st["includes_dynamic"] += 1


def _literal_path(parts: Parts, base: str, known: Set[str]) -> str | None:
    """A path without dynamic parts: relative to the including file's folder, else to the
    corpus root (PHP's include_path and working directory); the corpus file or None."""
    text = "".join(
        base + "/"
        if p[0] == FragmentKind.DIR and base
        else ("" if p[0] == FragmentKind.DIR else p[1])
        for p in parts
    )
    anchored = bool(parts) and parts[0][0] == FragmentKind.DIR
    for c in [text] if anchored else [posixpath.join(base, text), text]:
        c = posixpath.normpath(c.lstrip("/")) if c else c
        if c in known:
            return c
    return None


def _include_pattern(parts: Parts, base: str) -> re.Pattern[str] | None:
    """A dynamic include path as a regex over corpus paths: the literal prefix (before the
    first dynamic part) normalised like a path, literal parts kept, dynamic parts one
    path segment each."""
    first_dyn = next(i for i, p in enumerate(parts) if p[0] == FragmentKind.DYN)
    prefix = "".join(
        (base + "/" if base else "") if k == FragmentKind.DIR else v for k, v in parts[:first_dyn]
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
        if k == FragmentKind.LIT:
            rx.append(re.escape(v.lstrip("/") if i == 1 and first_dyn == 0 else v))
        elif k == FragmentKind.DYN and i > 0:
            rx.append("[^/]*")
    try:
        return re.compile("".join(rx))
    except re.error:
        return None


def linking(ctx: LinkContext) -> Linking:
    i = Includes(ctx)
    return Linking(
        handlers={IncludeRef: i.on_include},
        collect={IncludeRef: i.collect},
        includes=i.graph,
    )
