"""Imports and documentation: ``use`` / ``import`` statements (a class, a function, a
module's file) and markdown's links to corpus files and backticked names.

Invariants: those of ``ragraf.indexing.resolve``. Besides:
- An import names one declaration or none: a class declared more than once gets no edge;
  a class outside the corpus an external node (``props.external``).
- A doc link is ``documented_by`` from the file it names (relative to the doc, else to
  the root); a doc name ``mentions`` its one declaration, stated for its exact name,
  derived (``name-match``) for a short one. Their sources are the doc's language's.
"""

from __future__ import annotations

import json
import posixpath
import re

from ragraf.indexing.resolve.context import Context
from ragraf.indexing.resolve.edges import SOURCES_TS
from ragraf.kinds import EdgeKind, ImportKind, NodeKind
from ragraf.lang import registry
from ragraf.lang.facts import DocLinkRef, DocNameRef, FileFacts, ImportRef
from ragraf.lang.linking import EdgeSpec

_USE_FUNCTION = EdgeSpec(props={"use": ImportKind.FUNCTION})
_USE_MODULE = EdgeSpec(props={"use": ImportKind.MODULE})


class Imports:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.sym = ctx.sym
        self.conf = ctx.conf

    def on_import(self, f: FileFacts, src: str, ref: ImportRef) -> None:
        file_id = self.sym.file_id(f.path)
        if ref.kind == ImportKind.CLASS:
            cids = self.sym.class_ids(ref.fqn)
            if len(cids) > 1:
                return  # duplicate declarations: the import names no single one
            dst = cids[0] if cids else self.ctx.out.external(NodeKind.CLASS, ref.fqn)
            props = {"use": ImportKind.CLASS, **({"external": True} if not cids else {})}
            self.ctx.add(file_id, dst, EdgeKind.IMPORTS, f.path, ref.line, EdgeSpec(props=props))
        elif ref.kind == ImportKind.FUNCTION:
            fids = self.sym.function_ids(ref.fqn.lower())
            if fids and len(fids) == 1:
                self.ctx.add(file_id, fids[0], EdgeKind.IMPORTS, f.path, ref.line, _USE_FUNCTION)
        elif ref.kind in (ImportKind.MODULE, ImportKind.AMBIGUOUS):  # fqn: the module's path
            mod_id = self.sym.file_id(ref.fqn)
            if mod_id is not None and mod_id != file_id:
                spec = _USE_MODULE
                if ref.kind == ImportKind.AMBIGUOUS:  # one of several modules of that name
                    props = {"use": ImportKind.MODULE, "via": "ambiguous-import"}
                    spec = EdgeSpec(self.conf["heuristic_ambiguous"], True, props)
                    self.ctx.stats["imports_ambiguous"] += 1
                self.ctx.add(file_id, mod_id, EdgeKind.IMPORTS, f.path, ref.line, spec)

    # -- documentation ---------------------------------------------------------------------
    def _doc_sources(self, f: FileFacts) -> str:
        lang = registry.get(f.lang)
        return json.dumps(list(lang.sources)) if lang else SOURCES_TS

    def on_doc_link(self, f: FileFacts, src: str, ref: DocLinkRef) -> None:
        base = posixpath.dirname(f.path)
        for cand in (
            posixpath.normpath(posixpath.join(base, ref.target)),
            posixpath.normpath(ref.target.lstrip("/")),
        ):
            if self.sym.in_corpus(cand):
                spec = EdgeSpec(sources=self._doc_sources(f))
                self.ctx.add(
                    self.sym.file_id(cand), src, EdgeKind.DOCUMENTED_BY, f.path, ref.line, spec
                )
                break

    def on_doc_name(self, f: FileFacts, src: str, ref: DocNameRef) -> None:
        name = ref.name.strip().lstrip("\\").rstrip("()")
        if not re.fullmatch(r"[A-Za-z_][\w\\]*(::\$?\w+)?", name):
            return
        targets, exact = self.sym.doc_targets(name)
        if len(targets) != 1:
            return
        sources = self._doc_sources(f)
        if exact:
            spec = EdgeSpec(sources=sources)
        else:
            spec = EdgeSpec(self.conf["heuristic_single"], True, {"via": "name-match"}, sources)
        self.ctx.add(src, targets[0], EdgeKind.MENTIONS, f.path, ref.line, spec)
