"""Templates named by code (``renders``) and by templates (``imports``: Twig's ``include``,
Blade's ``@extends``, Mustache's partials), matched to corpus files by the ends of their
paths (``ragraf.lang.templates``).

Invariants a change must keep:
- Derived only: ``template_single`` for one file, ``template_ambiguous`` each for several;
  a name no file ends is counted (``templates_unresolved``), never guessed.
- Of the files a name ends, those under the shallowest folder are the loader's, and of
  those the ones sharing the most folders with the naming file; a PHP file that declares
  a class or a function is no template.
- The files a name may be are asked through the recorded lookup ``template_files`` (a
  function of the names, the naming file's path and the corpus's paths and declarations).
- A template's calls (``TemplateCallRef``) are derived ``calls_heuristic`` edges from the
  template's file: typed by the variables the renders of that template pass (the recorded
  lookup ``template_vars``, a function of the collected renders and the corpus's paths)
  where those evaluate to corpus classes (``via`` ``template-typed``; a typed receiver
  without such a method links nothing), else matched by name with ``name_match``'s rules
  (``via`` ``template-name``), only for a call (``a.b()``) or a getter's name
  (``a.getB``): a bare ``a.b`` of an unknown value is most often an array's key. Of
  several methods of that name, those whose class has every other method the template
  calls on the same receiver are kept when any is (``by``: those others).
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from ragraf.kinds import EdgeKind
from ragraf.lang import templates
from ragraf.lang.facts import FileFacts, TemplateCallRef, TemplateRef
from ragraf.lang.linking import EdgeSpec, LinkContext, Linking
from ragraf.lang.typedesc import AnyOf, Call, Elem, Prop, TypeDesc

#: how many of the other methods a template calls on a receiver an edge names (``by``)
MAX_BY = 5
#: how many includes deep a template's variables are followed to the code rendering it
_MAX_INCLUDE_DEPTH = 6
#: a name Twig's attribute access reads as a method's even without parentheses
_METHOD_SHAPED = re.compile(r"^(get|is|has)[A-Z_0-9]")


def twig_methods(name: str) -> tuple[str, ...]:
    """The methods (lower case) Twig's ``a.name`` / ``a.name()`` calls, in the order it
    tries them: ``name``, ``getName``, ``isName``, ``hasName``."""
    low = name.lower()
    return (low, "get" + low, "is" + low, "has" + low)


def step_desc(d: TypeDesc, step: str) -> TypeDesc:
    """What a template's access step (``TemplateCallRef.steps``) from ``d`` evaluates to."""
    if step == "[]":
        return Elem(d)
    kind, name = step[:2], step[2:]
    if kind == "m:":
        return Call(d, name)
    if kind == "p:":
        return Prop(d, name)
    return AnyOf((*(Call(d, m) for m in twig_methods(name)), Prop(d, name)))


def _shared_folders(a: str, b: str) -> int:
    """How many leading folders two paths share."""
    n = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1], strict=False):
        if x != y:
            break
        n += 1
    return n


class Templates:
    def __init__(self, ctx: LinkContext) -> None:
        self.ctx = ctx
        self._tails: dict[str, list[str]] | None = None  # path tail -> the files it ends
        self.template_files = ctx.lookup("template_files", self._files)
        self.renders: list[tuple[str, TemplateRef]] = []
        self._direct: dict[tuple[str, str], list[TypeDesc]] | None = None
        #: included template -> (the including template, its include)
        self._included: dict[str, list[tuple[str, TemplateRef]]] = {}
        self._vars: dict[tuple[str, str], list[TypeDesc]] = {}
        self._chains: tuple[str, dict[tuple[str, tuple[str, ...]], set[str]]] = ("", {})
        self.template_vars = ctx.lookup("template_vars", self._template_vars)

    def _files(self, names: tuple[str, ...], here: str) -> tuple[list[str], int]:
        """The corpus files whose paths end with the first of ``names`` (path tails, most
        specific first) that ends any, and how many more it ends that were left out: a
        template is named relative to a loader's folder, which the code sets at run time;
        of the files a name ends, those
        under the shallowest folder are the loader's (``header`` is ``templates/header.twig``,
        not ``templates/login/header.twig``), and of those the ones sharing the most folders
        with ``here``, the file naming it (a theme's ``header.php`` for that theme, a skin's
        Mustache partial from that skin). A PHP file that declares a class or a function is no
        template. A function of the arguments and the corpus's paths and declarations."""
        if self._tails is None:
            tails: dict[str, list[str]] = defaultdict(list)
            declaring = self.ctx.declaring
            for p in self.ctx.paths:
                # a PHP file declaring a class or a function is code, not a view
                if p.endswith(templates.TEMPLATE_SUFFIXES) and not (
                    p in declaring and p.endswith(templates.CODE_SUFFIXES)
                ):
                    tails[p].append(p)
                    i = p.find("/")
                    while i >= 0:
                        tails[p[i + 1 :]].append(p)
                        i = p.find("/", i + 1)
            self._tails = dict(tails)
        for n in names:
            got = self._tails.get(n)
            if got:
                depth = {p: p[: len(p) - len(n)].count("/") for p in got}
                top = min(depth.values())
                kept = sorted(p for p in got if depth[p] == top)
                if len(kept) > 1:
                    near = {p: _shared_folders(p, here) for p in kept}
                    best = max(near.values())
                    kept = [p for p in kept if near[p] == best]
                return kept, len(got) - len(kept)
        return [], 0

    def collect(self, f: FileFacts, ref: TemplateRef) -> None:
        """A render passing variables, a template including another (read of every file
        before linking)."""
        if ref.vars or ref.how != "render":
            self.renders.append((f.path, ref))

    def _tables(self) -> dict[tuple[str, str], list[TypeDesc]]:
        """(template, variable) -> what the renders of code pass, and the includes."""
        if self._direct is None:
            got: dict[tuple[str, str], list[TypeDesc]] = defaultdict(list)
            included: dict[str, list[tuple[str, TemplateRef]]] = defaultdict(list)
            for here, ref in sorted(self.renders, key=lambda r: (r[0], r[1].line)):
                files, _ = self._files(ref.names, here)
                for p in files:
                    if ref.how != "render":
                        if p != here:
                            included[p].append((here, ref))
                        continue
                    for k, d in ref.vars:
                        if d not in got[(p, k)]:
                            got[(p, k)].append(d)
            self._direct, self._included = dict(got), dict(included)
        return self._direct

    def _template_vars(self, path: str, var: str) -> list[TypeDesc]:
        """What template ``path``'s variable ``var`` may be: what the renders of code pass
        it, and what the templates including it (or extended by it) pass or have
        (``with {'var': a.b}``; their own variables unless ``only``). A function of the
        arguments, the collected renders and the corpus's paths and declarations."""
        return self._vars_of(path, var, frozenset())

    def _vars_of(self, path: str, var: str, seen: frozenset[str]) -> list[TypeDesc]:
        key = (path, var)
        got = self._vars.get(key)
        if got is not None:
            return got
        out = list(self._tables().get(key, []))
        if path not in seen and len(seen) < _MAX_INCLUDE_DEPTH:
            for here, ref in self._included.get(path, []):
                given = next(((r, st) for k, r, st in ref.passes if k == var), None)
                if given is not None:
                    descs = self._vars_of(here, given[0], seen | {path})
                    for d in descs:
                        for step in given[1]:
                            d = step_desc(d, step)
                        if d not in out:
                            out.append(d)
                elif not ref.only:
                    out.extend(d for d in self._vars_of(here, var, seen | {path}) if d not in out)
        if not seen:
            self._vars[key] = out
        return out

    def on_template(self, f: FileFacts, src: str, ref: TemplateRef) -> None:
        """A template named by code (``renders``) or by a template (``imports``): derived,
        to each file its name matches under the shallowest folder (``template_single`` for
        one, else ``template_ambiguous`` each); a name matching no file is counted, not
        linked."""
        ctx = self.ctx
        st = ctx.stats
        st["templates_total"] += 1
        files, deeper = self.template_files(ref.names, f.path)
        found = [p for p in files if p != f.path]
        if not found:
            st["templates_unresolved"] += 1
            return
        kind = EdgeKind.RENDERS if ref.how == "render" else EdgeKind.IMPORTS
        conf = ctx.conf["template_single" if len(found) == 1 else "template_ambiguous"]
        props: dict[str, Any] = {"via": "template-name", "template": ref.name, "how": ref.how}
        if len(found) > 1:
            props["candidates"] = len(found)
        if deeper:
            props["other_matches"] = deeper  # the same name deeper down or farther away
        spec = EdgeSpec(conf, True, props)
        for p in found:
            target = ctx.sym.file_id(p)
            assert target is not None  # a corpus path (``template_files``)
            ctx.add(src, target, kind, f.path, ref.line, spec)
        st["templates_resolved"] += 1

    def chain_calls(self, f: FileFacts) -> dict[tuple[str, tuple[str, ...]], set[str]]:
        """(root, steps) of each receiver the template calls methods on -> their names (made
        once per file, of its facts)."""
        if self._chains[0] != f.path:
            got: dict[tuple[str, tuple[str, ...]], set[str]] = defaultdict(set)
            for r in f.refs:
                if isinstance(r, TemplateCallRef) and _method_like(r):
                    got[(r.root, r.steps)].add(r.name)
            self._chains = (f.path, dict(got))
        return self._chains[1]

    def _has_all(self, cls: str | None, names: set[str], php: bool) -> bool:
        """Whether class ``cls`` has a method for each of ``names`` (Twig's resolution
        unless ``php``)."""
        if cls is None:
            return False
        find = self.ctx.sym.find_method
        return all(
            any(find(cls, m) for m in ((n.lower(),) if php else twig_methods(n))) for n in names
        )

    def on_template_call(self, f: FileFacts, src: str, ref: TemplateCallRef) -> None:
        """A method a template may call: of the classes its receiver evaluates to (the
        variables its renders pass, followed along ``steps``), else by name (see the
        module docstring). Counted in ``templates_calls_*`` (coverage ``templates.calls_*``)."""
        ctx = self.ctx
        st = ctx.stats
        st["templates_calls_total"] += 1
        names = (ref.name.lower(),) if ref.php else twig_methods(ref.name)
        descs = self.template_vars(f.path, ref.root) if ref.root else []
        props: dict[str, Any] = {"expr": _expr(ref)}
        if descs:
            d: TypeDesc = descs[0] if len(descs) == 1 else AnyOf(tuple(descs))
            for step in ref.steps:
                d = step_desc(d, step)
            tys = ctx.sym.types(d)
            if tys:
                targets: list[str] = []
                for cls in sorted(tys):
                    for m in names:  # the first Twig finds on that class
                        found = ctx.sym.find_method(cls, m)
                        if found:
                            targets.extend(t for t in found if t not in targets)
                            break
                if not targets:
                    st["templates_calls_no_method"] += 1  # a property, an array's key
                    return
                props["via"] = "template-typed"
                if len(targets) > 1:
                    props["candidates"] = len(targets)
                conf = ctx.conf["template_call" if len(targets) == 1 else "heuristic_ambiguous"]
                spec = EdgeSpec(conf, True, props)
                for t in targets:
                    ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, f.path, ref.line, spec)
                st["templates_calls_typed"] += 1
                return
        if not _method_like(ref):
            st["templates_calls_untyped"] += 1  # most often an array's key
            return
        cands: list[str] = []
        for m in names:  # the first name some corpus method has
            cands = ctx.sym.methods_named(m, f.path)
            if cands:
                break
        others = self.chain_calls(f).get((ref.root, ref.steps), set()) - {ref.name}
        if len(cands) > 1 and others and (ref.root or ref.steps):
            # the receiver has every method the template calls on it: of the classes
            # declaring this one, those having the others too
            fit = [t for t in cands if self._has_all(ctx.sym.method_class(t), others, ref.php)]
            if fit:
                cands = fit
                props["by"] = sorted(others)[:MAX_BY]
        n = len(cands)
        if not n or n > ctx.max_ambiguous:
            st["templates_calls_unresolved"] += 1
            return
        props["via"] = "template-name"
        if n == 1:
            conf = ctx.conf["heuristic_single"]
        elif n <= ctx.max_candidates:
            conf = ctx.conf["heuristic_ambiguous"]
        else:
            conf = round(min(ctx.conf["heuristic_ambiguous"], ctx.conf["heuristic_many"] / n), 4)
            props["ambiguous"] = True
        if n > 1:
            props["candidates"] = n
        spec = EdgeSpec(conf, True, props)
        for t in cands:
            ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, f.path, ref.line, spec)
        st["templates_calls_name_match"] += 1


def _method_like(ref: TemplateCallRef) -> bool:
    """A call or a getter's name: what only a method answers."""
    return ref.called or ref.php or _METHOD_SHAPED.match(ref.name) is not None


def _expr(ref: TemplateCallRef) -> str:
    """The access as the template writes it, roughly (``index.getColumns[].getName()``)."""
    sep = "->" if ref.php else "."
    parts = [("$" if ref.php else "") + (ref.root or "?")]
    for s in ref.steps:
        parts.append("[]" if s == "[]" else sep + s[2:] + ("()" if s[:2] == "m:" else ""))
    parts.append(sep + ref.name + ("()" if ref.called else ""))
    return "".join(parts)


def linking(ctx: LinkContext) -> Linking:
    t = Templates(ctx)
    return Linking(
        handlers={TemplateRef: t.on_template, TemplateCallRef: t.on_template_call},
        collect={TemplateRef: t.collect},
    )
