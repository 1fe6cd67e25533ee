"""Files of a known kind without an extractor (SQL, ...) and files of no known
language: a file node and plain text windows for search, nothing else."""

from __future__ import annotations

from ragraf import ids
from ragraf.kinds import Layer, NodeKind, ParseStatus
from ragraf.lang.chunking import file_chunks
from ragraf.lang.facts import FactNode, FileFacts


def line_count(text: str) -> int:
    """Lines as editors count them (a final newline does not open a line)."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def extract(path: str, lang: str | None, text: str, max_lines: int, tokens: str) -> FileFacts:
    lines = line_count(text)
    f = FileFacts(path, lang, ParseStatus.OK, None, lines)
    f.nodes.append(
        FactNode(
            ids.node_id(NodeKind.FILE, path, path, 1),
            NodeKind.FILE,
            path.rsplit("/", 1)[-1],
            path,
            1,
            max(lines, 1),
            {"lang": lang} if lang else {},
            Layer.STRUCTURAL,
        )
    )
    f.scope_nodes.append(0)
    f.chunks = file_chunks(path, text, tokens, 0, max_lines)
    return f
