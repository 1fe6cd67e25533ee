"""Chunks for the lexicon and the vectors (chunking.by_symbol, max_chunk_lines).

Invariants a change must keep:
- A function or method is one chunk (with its docblock), split into windows
  of at most ``max_chunk_lines``; a class-like contributes its header (up to
  its first method); the rest of the file (top-level code) forms ``file``
  chunks. Every line of code is in at most one chunk.
- ``code`` is exactly the source lines ``start_line..end_line``; the chunk's
  content hash (and so its chunk_id) depends on nothing else.
- Token columns follow ``ragraf.tokens``: the query side tokenizes the same way.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from ragraf.kinds import CALLABLE, CLASS_LIKE, ChunkSource, NodeKind, TextKind
from ragraf.lang.facts import Chunk, FileFacts
from ragraf.sql.sqltext import STATEMENT_KEYWORDS as _SQL_KEYWORDS
from ragraf.sql.sqltext import looks_like_sql
from ragraf.tokens import fts_text

DEFAULT_MAX_LINES = 120
# /* ... */, // ... (not after ':' or a word character: URLs), # ... (not #[ attributes). The
# two slash forms share their first character: the scan rejects most positions at once
# (the same matches as the plain alternation, two to four times faster).
_COMMENT = re.compile(
    r"/(?:\*.*?\*/|(?<![:\w]/)/[^\n]*)|^\s*#(?!\[)[^\n]*", re.DOTALL | re.MULTILINE
)
_STRING = re.compile(
    r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|<<<\s*['\"]?(\w+)['\"]?\n.*?\n\s*\1\b", re.DOTALL
)
_TRIVIAL = re.compile(
    r"^\s*(<\?php|\?>|[{}();,\[\]]*|use\s+[^;]+;|namespace\s+[^;{]+;|declare\([^)]*\);)?\s*$",
    re.IGNORECASE,
)


def _body(literal: str) -> str:
    """The text inside a quoted string or a heredoc / nowdoc literal."""
    if literal.startswith("<<<"):
        return literal.partition("\n")[2].rpartition("\n")[0]
    return literal[1:-1]


# A superset of the string literals whose body can pass ``looks_like_sql``: a quote, then
# what ``sqltext._LEAD`` skips, then one of its statement keywords (any case) as a whole
# word; heredocs (the body starts after ``<<<ID``'s line) are tested separately. A chunk
# without such a place has no SQL string, and the literals need not be looked at.
_SQL_HINT = re.compile(
    r"""['"][\s(]*(?:/\*.*?\*/[\s(]*)*(?:""" + "|".join(sorted(_SQL_KEYWORDS)) + r")\b",
    re.DOTALL | re.IGNORECASE,
)


def _tokens(code: str) -> tuple[str, str, str]:
    # one pass over the comments: the text between them is what `_COMMENT.sub(" ", code)`
    # gives (each comment replaced by one blank)
    comments: list[str] = []
    gaps: list[str] = []
    pos = 0
    for m in _COMMENT.finditer(code):
        start, end = m.span()
        gaps.append(code[pos:start])
        comments.append(m.group(0))
        pos = end
    if comments:
        gaps.append(code[pos:])
        stripped = " ".join(gaps)
    else:
        stripped = code
    sql = ""
    if _SQL_HINT.search(stripped) is not None or "<<<" in stripped:
        # the same test the graph applies to strings (ragraf.sql.sqltext), on the body
        sql = " ".join(
            m.group(0) for m in _STRING.finditer(stripped) if looks_like_sql(_body(m.group(0)))
        )
    return fts_text(stripped), fts_text(sql), fts_text(" ".join(comments))


def _windows(start: int, end: int, max_lines: int) -> list[tuple[int, int]]:
    out = []
    s = start
    while s <= end:
        e = min(end, s + max_lines - 1)
        out.append((s, e))
        s = e + 1
    return out


def make_chunks(
    path: str, text: str, facts: FileFacts, lang: str, max_lines: int = DEFAULT_MAX_LINES
) -> list[Chunk]:
    lines = text.split("\n")
    n_lines = len(lines)
    covered = [False] * (n_lines + 2)
    doc_start: dict[int, int] = {}
    for t in facts.texts:
        if t.kind == TextKind.DOCBLOCK and t.owner is not None:
            doc_start.setdefault(t.owner, t.start_line)
    nodes = facts.nodes
    ranges: list[tuple[int, int, int, str]] = []  # (start, end, node index, kind)
    # methods per class, to cut class headers
    first_member: dict[int, int] = {}
    for cd in facts.classes:
        if cd.methods:
            first_member[cd.node] = min(
                doc_start.get(i, nodes[i].start_line) for i in cd.methods.values()
            )
    for i, nd in enumerate(nodes):
        kind = nd.kind
        if kind in CALLABLE:
            ranges.append((doc_start.get(i, nd.start_line), nd.end_line, i, kind))
        elif kind in CLASS_LIKE:
            s = doc_start.get(i, nd.start_line)
            e = first_member.get(i, nd.end_line + 1) - 1
            ranges.append((s, max(s, e), i, kind))
    chunks: list[Chunk] = []
    # the declarations by start line, to name those a window holds without a pass over all
    starts = sorted((nodes[j].start_line, j) for j in range(1, len(nodes)))
    start_lines = [ln for ln, _j in starts]

    def emit(
        s: int, e: int, node: int | None, source_kind: str, header_kind: str, fqn: str
    ) -> None:
        for ws, we in _windows(s, e, max_lines):
            if ws > n_lines:
                continue
            we = min(we, n_lines)
            code = "\n".join(lines[ws - 1 : we])
            held = starts[bisect_left(start_lines, ws) : bisect_right(start_lines, we)]
            names = [nodes[j].fqn for j in sorted(j for _ln, j in held)]
            sym = fts_text(" ".join(dict.fromkeys([fqn, *names])))
            ct, st, tt = _tokens(code)
            chunks.append(
                Chunk(
                    source_kind,
                    node,
                    ws,
                    we,
                    f"{header_kind} {fqn} ({path}:{ws})",
                    code,
                    sym,
                    ct,
                    st,
                    tt,
                )
            )

    taken_end = 0  # the furthest end of the ranges taken so far (each starts at or before s)
    for s, e, i, kind in sorted(ranges, key=lambda r: (r[0], -r[1])):
        # nested functions (closures are not nodes) stay inside their parent chunk: a range
        # taken before starts at or before this one, so it holds it when it ends at or after
        if e <= taken_end:
            continue
        taken_end = e
        for ln in range(s, min(e, n_lines) + 1):
            covered[ln] = True
        emit(s, e, i, ChunkSource.SYMBOL, kind, nodes[i].fqn)
    # leftovers: top-level code
    run_start = None
    for ln in range(1, n_lines + 2):
        free = ln <= n_lines and not covered[ln]
        if free and run_start is None:
            run_start = ln
        elif not free and run_start is not None:
            s, e = run_start, ln - 1
            run_start = None
            if any(not _TRIVIAL.match(lines[k - 1]) for k in range(s, e + 1)):
                while s < e and not lines[s - 1].strip():
                    s += 1
                while e > s and not lines[e - 1].strip():
                    e -= 1
                emit(s, e, 0, ChunkSource.FILE, NodeKind.FILE, path)
    return chunks


def doc_chunks(
    path: str, sections: list[tuple[int, int, str, str, int]], max_lines: int = DEFAULT_MAX_LINES
) -> list[Chunk]:
    """Markdown sections -> chunks (source_kind doc)."""
    out: list[Chunk] = []
    for start, end, title, body, node in sections:
        body_lines = body.split("\n")
        for ws, we in _windows(start, end, max_lines):
            code = "\n".join(body_lines[ws - start : we - start + 1])
            out.append(
                Chunk(
                    ChunkSource.DOC,
                    node,
                    ws,
                    we,
                    f"doc_section {title} ({path}:{ws})",
                    code,
                    fts_text(title),
                    "",
                    "",
                    fts_text(code),
                )
            )
    return out


def file_chunks(
    path: str, text: str, tokens: str, node: int, max_lines: int = DEFAULT_MAX_LINES
) -> list[Chunk]:
    """A file without symbols (e.g. SQL) as plain windows; ``tokens`` names the ft_chunk
    column its words go to: code, sql or text (``Language.window_tokens``)."""
    lines = text.split("\n")
    out: list[Chunk] = []
    n = len(lines)
    if n and not lines[-1]:
        n -= 1
    for ws, we in _windows(1, max(n, 1), max_lines):
        code = "\n".join(lines[ws - 1 : we])
        if not code.strip():
            continue
        words = fts_text(code)
        out.append(
            Chunk(
                ChunkSource.FILE,
                node,
                ws,
                we,
                f"file {path} ({path}:{ws})",
                code,
                fts_text(path),
                words if tokens == "code" else "",
                words if tokens == "sql" else "",
                words if tokens == "text" else "",
            )
        )
    return out
