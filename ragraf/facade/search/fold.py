"""Stage 5 of search, the fold: one hit per symbol, and a built copy folded into its source.

Invariants a change must keep:
- The fold keeps the ranking's order; a candidate takes the place of the best-ranked of those
  folded into it, and names them in ``why`` (``built_copies``, ``windows``).
- One hit per symbol: after ranking, a later window of a symbol longer than
  ``max_chunk_lines`` (several chunks) folds into its best-ranked window, whose hit names the
  windows found (``why.windows``); the ranking itself is per chunk.
- A built copy folds only into a source among the candidates; one without stays a hit.
"""

from __future__ import annotations

from ragraf.facade.search.candidate import Candidate
from ragraf.model import NodeRow

#: folders whose files are usually built from others (a bundler's or compiler's output)
BUILT_DIRS = frozenset({"dist", "build"})
#: the folders such output is built from
SOURCE_DIRS = frozenset({"src", "source", "lib"})


def copy_key(path: str, kind: str, name: str) -> tuple[tuple[str, str, str], bool]:
    """(kind, name, the path without its built / source folders), and whether the path is
    under a built folder: a built copy and its source share the key (``repo_map`` folds
    built copies by it too)."""
    parts = path.split("/")
    folder = [p for p in parts[:-1] if p not in BUILT_DIRS | SOURCE_DIRS]
    built = any(p in BUILT_DIRS for p in parts[:-1])
    return (kind, name, "/".join([*folder, parts[-1]])), built


def _copy_key(path: str, n: NodeRow | None) -> tuple[tuple[str, str, str], bool] | None:
    """``copy_key`` of a chunk's node; None for a chunk without a named node."""
    if n is None or not n.name:
        return None
    return copy_key(path, n.kind, n.name)


def built_copies(order: list[Candidate]) -> list[Candidate]:
    """The ranked candidates with each built copy (a symbol under ``dist/`` or ``build/``
    whose kind and name a candidate under the source folder has at the same place, as
    ``js/dist/functions.js`` to ``js/src/functions.js``) folded into its source: the source
    takes the better of the two ranks, and names the copies (``built_copies``). A copy with no
    source among the candidates stays a hit of its own."""
    keyed: dict[str, tuple[tuple[str, str, str], bool]] = {}
    source_of: dict[tuple[str, str, str], Candidate] = {}
    for c in order:
        got = _copy_key(c.chunk.path, c.node)
        if got is None:
            continue
        keyed[c.id] = got
        if not got[1]:
            source_of.setdefault(got[0], c)
    out: list[Candidate] = []
    placed: set[str] = set()
    for c in order:
        got = keyed.get(c.id)
        src = source_of.get(got[0]) if got is not None and got[1] else None
        if src is not None:
            if src.built_copies is None:
                src.built_copies = []
            src.built_copies.append(f"{c.chunk.path}:{c.chunk.start_line}")
            c = src  # the source takes the copy's place
        if c.id not in placed:
            placed.add(c.id)
            out.append(c)
    return out


def one_per_symbol(order: list[Candidate]) -> list[Candidate]:
    """The ranked candidates with each symbol once, at its best-ranked window (a chunk without
    a node stands for itself); a symbol found in several windows names their start lines, in
    order (``windows``)."""
    first: dict[str, Candidate] = {}
    out: list[Candidate] = []
    found: dict[str, list[int]] = {}
    for c in order:
        kept = first.setdefault(c.place, c)
        if kept is c:
            out.append(c)
        found.setdefault(kept.id, []).append(c.chunk.start_line)
    for c in out:
        lines = found[c.id]
        if len(lines) > 1:
            c.windows = sorted(lines)
    return out
