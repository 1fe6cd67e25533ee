"""The names people type for a declaration (issue 40 section 1), one lookup for every
operation that takes a symbol and every language.

A name is read as segments split at ``.``, ``::``, ``#``, ``/`` and ``\\`` (so
``Session.request``, ``Session::request``, ``Session#request`` and ``Session/request``
are one name), and matched, case-insensitively, in this order; the first step that
matches anything is the answer:

1. the fqn as stored (``src.requests.sessions.Session.request``,
   ``App\\Billing\\Invoice::charge``, ``mux.Router.NewRoute``);
2. a trailing part of the fqn, whole segments only (``Session.request``,
   ``requests.sessions.Session.request`` without a ``src.`` the index kept,
   ``Router.NewRoute``, ``Invoice#total``, ``app.set``, ``charge``);
3. the fqn behind a prefix the index does not keep (an import path:
   ``github.com/gorilla/mux.Router.NewRoute``; ``src.app.models.Invoice`` once the
   index drops ``src.``), and a module path written with its file's extension
   (``src/util.mjs#fmt``).

Among the matches of one step, those spelled with the same case win when there are any
(Go's ``Router.walk`` is not ``Router.Walk``). Candidates come from the indexed ``name``
column (a declaration's name is its fqn's last segment; a file's is its base name), so a
lookup reads only the declarations of that name, never the whole table.

Invariants a change must keep:
- PHP's names keep their meaning: ``Application::run`` matches ``Ns\\Application::run``,
  never ``Ns\\SingleCommandApplication::run``; a bare ``charge`` matches every
  declaration named ``charge``.
- A lookup is a few indexed queries, whatever the size of the corpus.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragraf.facade.context import Ctx
from ragraf.model import NodeRow

#: the separators of a name's segments
_SEP = re.compile(r"::|[.#/\\]")
#: the separators of a path's components (a file's base name keeps its dots)
_PATH_SEP = re.compile(r"::|[#/\\]")
#: a source file's extension inside a module path (``src/util.mjs#fmt``, ``app/db.py::q``)
_EXT = re.compile(r"\.(?:[cm]?[jt]sx?|pyi?|go|java|php)(?=::|[.#/\\]|$)", re.IGNORECASE)
#: the most declarations of one name a lookup reads
MOST = 10_000
#: per deep language, the forms of one declaration's name a lookup reads (the help of
#: every operation that takes a symbol and the operations reference show them): the fqn
#: the index prints first, then what a user of the code writes, then trailing parts
FORMS_BY_LANGUAGE: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "PHP",
        ("App\\Billing\\Invoice::charge", "Billing\\Invoice::charge", "Invoice::charge", "charge"),
    ),
    (
        "Python",
        (
            "requests.sessions.Session.request",
            "src.requests.sessions.Session.request",
            "sessions.Session.request",
            "Session.request",
            "request",
        ),
    ),
    (
        "JavaScript",
        ("lib/application.app.set", "./lib/application.js#app.set", "app.set", "set"),
    ),
    (
        "TypeScript",
        ("src/v3/types.ZodType.parse", "v3/types.ZodType.parse", "ZodType#parse", "parse"),
    ),
    (
        "Go",
        (
            "mux.Router.NewRoute",
            "github.com/gorilla/mux.Router.NewRoute",
            "Router.NewRoute",
            "NewRoute",
        ),
    ),
    (
        "Java",
        (
            "net.starlark.java.eval.Starlark.str",
            "net.starlark.java.eval.Starlark#str",
            "Starlark#str",
            "Starlark.str",
            "str",
        ),
    ),
)


def takes_a_name(params: Sequence[str]) -> bool:
    """Whether an operation with these arguments takes a symbol's name."""
    return "fqn" in params


#: how the forms are read, in a sentence (help texts, the operations reference)
FORMS_RULE = (
    "A name may be the fqn the index prints, the import path a user of the code writes"
    " (Python's dotted module path from the package root, a JavaScript / TypeScript module"
    " path and export name, Go's package.Type.Method, Java's package.Class.method or"
    " Class#method) or any trailing part of it split at `.`, `::`, `#`, `/` or `\\`"
    " (case-insensitive; the same spelling wins). One declaration: the answer, with its"
    " full name (`resolved`); several: they answer together and `candidates` lists them"
    " with their callers (narrow with --path); a partial name of more than 10: only the"
    " list; none: the nearest names."
)


def segments(name: str) -> list[str]:
    """The segments of a name: ``a.b::C#d`` -> ``[a, b, C, d]``."""
    return [s for s in _SEP.split(name) if s]


def last(name: str) -> str:
    """The last segment of a name (``request`` of ``Session.request``); the name itself
    when it has no segment."""
    segs = segments(name)
    return segs[-1] if segs else name


@dataclass(frozen=True)
class Found:
    """The declarations a name matched and how (``form``: ``fqn``, ``trailing part``,
    ``import path``, ``name``; empty when nothing matched)."""

    rows: list[NodeRow]
    form: str = ""


def _ends_with(longer: list[str], shorter: list[str]) -> bool:
    return len(shorter) <= len(longer) and longer[len(longer) - len(shorter) :] == shorter


def same_case(rows: list[NodeRow], typed: list[str]) -> list[NodeRow]:
    """The rows whose fqn spells the typed segments with the same case, when there are
    any and they are fewer; else all of them."""
    n = len(typed)

    def spelled(r: NodeRow) -> bool:
        segs = segments(r.fqn or "")
        tail = segs[-n:] if n <= len(segs) else segs
        return typed[-len(tail) :] == tail

    exact = [r for r in rows if spelled(r)]
    return exact if exact and len(exact) < len(rows) else rows


def _candidates(ctx: Ctx, typed: str, most: int) -> list[NodeRow]:
    """Declarations whose name is the typed name's last segment or its last path
    component (a file's base name: ``Invoice.php``, ``main.go``)."""
    keys = [last(typed)]
    base = [s for s in _PATH_SEP.split(typed) if s]
    if base and base[-1] not in keys:
        keys.append(base[-1])
    rows: list[NodeRow] = []
    seen: set[str] = set()
    for k in keys:
        for r in ctx.graph.nodes_by_name(ctx.rev, k, most):
            if r.node_id not in seen:
                seen.add(r.node_id)
                rows.append(r)
    return rows


def keep(rows: list[NodeRow], path: str | None, kinds: Sequence[str] | None) -> list[NodeRow]:
    """The rows in ``path`` and of ``kinds`` (each when given)."""
    if path:
        rows = [r for r in rows if r.path == path]
    if kinds:
        rows = [r for r in rows if r.kind in kinds]
    return rows


def find(
    ctx: Ctx,
    typed: str,
    path: str | None = None,
    kinds: Sequence[str] | None = None,
    most: int = MOST,
) -> Found:
    """The declarations ``typed`` names (see the module docstring), only those in ``path``
    and of ``kinds`` when given."""
    what = typed.strip().lstrip("\\")
    if not what:
        return Found([])
    exact = keep(ctx.graph.nodes_by_fqn(ctx.rev, what, most), path, kinds)
    if exact:
        return Found(same_case(exact, segments(what)), "fqn")
    want = [s.lower() for s in segments(what)]
    if not want:
        return Found([])
    pool = keep(_candidates(ctx, what, most), path, kinds)
    split = [(r, [s.lower() for s in segments(r.fqn or "")]) for r in pool]
    trailing = [r for r, segs in split if _ends_with(segs, want)]
    if trailing:
        return Found(same_case(trailing, segments(what)), "trailing part")
    # the fqn behind a prefix the index does not keep (two segments at least: a bare
    # `run` stored at the top level is not `anything.run`)
    longer = [r for r, segs in split if len(segs) >= 2 and _ends_with(want, segs)]
    if longer:
        return Found(same_case(longer, segments(what)), "import path")
    bare = _EXT.sub("", what)
    if bare != what:
        return find(ctx, bare, path, kinds, most)
    return Found([])
