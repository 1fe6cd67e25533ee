"""Template files: Twig (``*.twig``) and Mustache (``*.mustache``). Each is a file node with
text windows for search; the templates one pulls in are ``TemplateRef``s the linker matches
to files (``ragraf.lang.templates``): Twig's ``{% include %}``, ``{% extends %}``,
``{% embed %}``, ``{% import %}``, ``{% from %}``, ``{% use %}``, ``{{ include() }}`` and
``{{ source() }}``, Mustache's partials ``{{> name}}``; the methods a Twig template's
expressions may call are ``TemplateCallRef``s (``ragraf.lang.template_calls``).

Invariants a change must keep:
- A function of the file's text (FileFacts stay a function of path and content).
- Only a literal name makes a ref: ``{% include var %}`` and name lists say nothing.
"""

from __future__ import annotations

from ragraf.lang import template_calls, templates
from ragraf.lang.facts import FileFacts, TemplateRef
from ragraf.lang.plain import extract as plain


def extract(path: str, text: str, max_lines: int) -> FileFacts:
    mustache = path.endswith(".mustache")
    f = plain(path, "mustache" if mustache else "twig", text, max_lines, "code")
    refs = templates.mustache_refs(text) if mustache else templates.twig_refs(text)
    scan = None if mustache else template_calls.twig_scan(text)
    passes = {(line, name): (p, only) for line, name, p, only in scan.includes} if scan else {}
    for line, how, name in refs:
        if templates.shaped(name):
            names = templates.file_names(name, suffixes=(".mustache",) if mustache else None)
            p, only = passes.get((line, name), ((), False))
            f.refs.append(TemplateRef(0, line, how, name, names, (), p, only))
    if scan is not None:
        f.refs.extend(scan.refs)
    return f
