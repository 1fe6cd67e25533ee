"""Identifiers (architecture §5.3). They derive from content only: no time,
no traversal order, no revision, so two builds of one tree agree exactly.

node_id  = sha1(kind|fqn|path|start_line)
edge_uid = sha1(src|dst|kind|evidence_path|evidence_line)
chunk_id = sha1(content_sha256|chunk_kind|model)
"""

from __future__ import annotations

import hashlib


def _sha1(*parts: object) -> str:
    return hashlib.sha1(
        "|".join(["" if p is None else str(p) for p in parts]).encode("utf-8", "surrogateescape")
    ).hexdigest()


def node_id(kind: str, fqn: str | None, path: str | None, start_line: int | None) -> str:
    return _sha1(kind, fqn, path, start_line)


def edge_uid(
    src: str, dst: str, kind: str, evidence_path: str | None, evidence_line: int | None
) -> str:
    # ``_sha1``'s text spelled out (a third faster; a build makes one per edge, MediaWiki
    # 284K): ``!s`` keeps a StrEnum kind its ``str``, as ``_sha1``'s ``str(p)`` does
    p = "" if evidence_path is None else evidence_path
    n = "" if evidence_line is None else evidence_line
    return hashlib.sha1(
        f"{src}|{dst}|{kind!s}|{p!s}|{n!s}".encode("utf-8", "surrogateescape")
    ).hexdigest()


def chunk_id(content_sha256: str, chunk_kind: str, model: str) -> str:
    return _sha1(content_sha256, chunk_kind, model)


def text_chunk_id(path: str, start_line: int, text_kind: str, raw: str) -> str:
    """Id of a comment / docblock / markdown text (text_chunk): unique per place and content."""
    return _sha1("text", path, start_line, text_kind, sha256_text(raw))


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
