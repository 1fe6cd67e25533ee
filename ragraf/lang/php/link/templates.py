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
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ragraf.kinds import EdgeKind
from ragraf.lang import templates
from ragraf.lang.facts import FileFacts, TemplateRef
from ragraf.lang.linking import EdgeSpec, LinkContext, Linking


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


def linking(ctx: LinkContext) -> Linking:
    t = Templates(ctx)
    return Linking(handlers={TemplateRef: t.on_template})
