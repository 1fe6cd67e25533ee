"""Markdown -> doc / doc_section nodes and text (layer text, principle P6).

Headings (ATX ``#``) outside fenced code open sections; a section runs to the
next heading of any level. Links to corpus files and backticked names are
kept as ``refs`` for the resolver (``documented_by`` / ``mentions``).
"""

from __future__ import annotations

import re

from ragraf import ids
from ragraf.kinds import EdgeKind, Layer, NodeKind, ParseStatus, TextKind
from ragraf.lang.chunking import DEFAULT_MAX_LINES, doc_chunks
from ragraf.lang.facts import DocLinkRef, DocNameRef, FactNode, FileFacts, LocalEdge, TextFact

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s#]+)(?:#[^)]*)?\)")
_CODE = re.compile(r"`([^`\n]+)`")


def slug(title: str) -> str:
    s = re.sub(r"[^\w\- ]", "", title.lower()).strip()
    return re.sub(r"[\s]+", "-", s) or "section"


def extract(path: str, text: str, max_lines: int = DEFAULT_MAX_LINES) -> FileFacts:
    lines = text.split("\n")
    n = len(lines) - (1 if lines and lines[-1] == "" else 0)
    f = FileFacts(path, "markdown", ParseStatus.OK, None, n)
    doc_id = ids.node_id(NodeKind.DOC, path, path, 1)
    title = path.rsplit("/", 1)[-1]
    heads: list[tuple[int, int, str]] = []
    fence = False
    for i, line in enumerate(lines[:n], 1):
        if _FENCE.match(line):
            fence = not fence
            continue
        if fence:
            continue
        m = _HEADING.match(line)
        if m:
            heads.append((i, len(m.group(1)), m.group(2)))
    if heads and heads[0][1] == 1:
        title = heads[0][2]
    f.nodes.append(
        FactNode(doc_id, NodeKind.DOC, title, path, 1, max(n, 1), {"lang": "markdown"}, Layer.TEXT)
    )
    f.scope_nodes.append(0)
    sections: list[tuple[int, int, str, str, int]] = []
    if not heads or heads[0][0] > 1:
        first = heads[0][0] - 1 if heads else n
        if any(ln.strip() for ln in lines[:first]):
            heads.insert(0, (1, 0, title))
    seen: dict[str, int] = {}
    for k, (start, _level, htitle) in enumerate(heads):
        end = heads[k + 1][0] - 1 if k + 1 < len(heads) else n
        end = max(start, end)
        s = slug(htitle)
        seen[s] = seen.get(s, 0) + 1
        if seen[s] > 1:
            s = f"{s}-{seen[s] - 1}"
        fqn = f"{path}#{s}"
        nid = ids.node_id(NodeKind.DOC_SECTION, fqn, path, start)
        f.nodes.append(
            FactNode(
                nid, NodeKind.DOC_SECTION, htitle, fqn, start, end, {"level": _level}, Layer.TEXT
            )
        )
        idx = len(f.nodes) - 1
        f.edges.append(LocalEdge(doc_id, nid, EdgeKind.CONTAINS, start))
        body = "\n".join(lines[start - 1 : end])
        f.texts.append(TextFact(start, end, TextKind.MD, body, idx))
        sections.append((start, end, htitle, body, idx))
        for off, line in enumerate(lines[start - 1 : end]):
            ln = start + off
            for m in _LINK.finditer(line):
                target = m.group(1)
                if "://" not in target and not target.startswith("mailto:"):
                    f.refs.append(DocLinkRef(idx, ln, target))
            for m in _CODE.finditer(line):
                f.refs.append(DocNameRef(idx, ln, m.group(1).strip()))
    f.chunks = doc_chunks(path, sections, max_lines)
    return f
