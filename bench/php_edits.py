"""One-file edits of PHP source that keep it parseable, for bench/drift.py.

Each edit kind looks at the file's tree-sitter tree (the ``php`` grammar of
tree-sitter-language-pack, as the indexer uses) and changes a few bytes the way an agent
would: add a method to a class, delete or rename a method, put a call at the top of a
body, rename a local variable in one body, append a function (sometimes shadowing a
function the file calls), change an SQL string (a column, a comment, another table of the
same file). An edit whose result has a syntax error the file did not have is refused and
another one is tried, so every edit leaves valid PHP as far as the grammar can tell.

Deterministic: the same bytes, the same ``random.Random`` state and the same counter give
the same edit. Nothing here imports ragraf.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser


@dataclass(frozen=True)
class Edit:
    """One applied edit: what, where, and the file's new bytes."""

    kind: str
    path: str
    detail: str
    text: bytes


#: an edit kind: (source, tree root, rng, counter) -> (new source, detail) or None
EditFn = Callable[[bytes, "Node", random.Random, int], "tuple[bytes, str] | None"]

#: a string literal that starts with an SQL verb (phpMyAdmin and WordPress write them in capitals)
_SQL = re.compile(rb"^['\"]\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|SHOW|CREATE|ALTER)\s")
_FROM_TABLE = re.compile(rb"\bFROM\s+(`[\w$]+`|[A-Za-z_][\w]*)(?=[\s`,;)'\"]|$)", re.I)
_NOT_LOCAL = {b"$this", b"$GLOBALS", b"$_GET", b"$_POST", b"$_REQUEST", b"$_COOKIE", b"$_SERVER"}
_NOT_LOCAL |= {b"$_SESSION", b"$_FILES", b"$_ENV"}
#: language constructs tree-sitter parses as calls (isset('x') is not valid PHP)
_CONSTRUCTS = {b"isset", b"empty", b"unset", b"eval", b"exit", b"die", b"list", b"array"}
_CONSTRUCTS |= {b"echo", b"print", b"include", b"require", b"include_once", b"require_once"}


@cache
def _parser() -> Parser:
    from tree_sitter_language_pack import get_parser

    return get_parser("php")


def parse(src: bytes) -> Node:
    return _parser().parse(src).root_node


def walk(node: Node) -> Iterator[Node]:
    """Every node under ``node`` (itself included), in document order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def _txt(src: bytes, n: Node) -> bytes:
    return src[n.start_byte : n.end_byte]


def _splice(src: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    for start, end, new in sorted(edits, reverse=True):
        src = src[:start] + new + src[end:]
    return src


def _indent_of(src: bytes, n: Node) -> bytes:
    line_start = src.rfind(b"\n", 0, n.start_byte) + 1
    head = src[line_start : n.start_byte]
    return head if head.strip() == b"" else b""


def _step(src: bytes, n: Node) -> bytes:
    """The indentation of one level inside ``n``'s block (four spaces unless its first
    statement says otherwise)."""
    outer = _indent_of(src, n)
    for c in n.named_children:
        inner = _indent_of(src, c)
        if len(inner) > len(outer):
            return inner
    return outer + b"    "


def _classes(root: Node) -> list[Node]:
    return [n for n in walk(root) if n.type in ("class_declaration", "trait_declaration")]


def _methods(cls: Node) -> list[Node]:
    body = cls.child_by_field_name("body")
    return (
        [] if body is None else [c for c in body.named_children if c.type == "method_declaration"]
    )


def _is_static(method: Node) -> bool:
    return any(c.type == "static_modifier" for c in method.children)


def _bodies(root: Node) -> list[Node]:
    """Functions and methods with a body."""
    return [
        n
        for n in walk(root)
        if n.type in ("function_definition", "method_declaration")
        and n.child_by_field_name("body") is not None
    ]


def _called_names(src: bytes, root: Node) -> list[bytes]:
    """Unqualified names of the functions the file calls, in order of first call."""
    out: dict[bytes, None] = {}
    for n in walk(root):
        if n.type == "function_call_expression":
            f = n.child_by_field_name("function")
            if f is not None and f.type == "name" and _txt(src, f).lower() not in _CONSTRUCTS:
                out[_txt(src, f)] = None
    return list(out)


def add_method(src: bytes, root: Node, rng: random.Random, k: int) -> tuple[bytes, str] | None:
    """A small method at the end of a class; its body calls a method of the class."""
    classes = [c for c in _classes(root) if c.child_by_field_name("body") is not None]
    if not classes:
        return None
    cls = rng.choice(classes)
    body = cls.child_by_field_name("body")
    assert body is not None
    close = body.children[-1]
    if close.type != "}":
        return None
    methods = _methods(cls)
    if methods:
        m = rng.choice(methods)
        name = _txt(src, m.child_by_field_name("name") or m).decode("utf-8", "replace")
        ret = f"self::{name}()" if _is_static(m) else f"$this->{name}()"
    else:
        name, ret = "", f"count([{k}])"
    ind = _step(src, body).decode()
    line_start = src.rfind(b"\n", 0, close.start_byte) + 1
    method = f"{ind}public function ragrafBench{k}()\n{ind}{{\n{ind}    return {ret};\n{ind}}}\n"
    if src[line_start : close.start_byte].strip() == b"":
        new = _splice(src, [(line_start, line_start, ("\n" + method).encode())])
    else:
        one_line = f" public function ragrafBench{k}() {{ return {ret}; }} "
        new = _splice(src, [(close.start_byte, close.start_byte, one_line.encode())])
    cname = _txt(src, cls.child_by_field_name("name") or cls).decode("utf-8", "replace")
    return new, f"{cname}::ragrafBench{k}() returning {ret}"


def delete_method(src: bytes, root: Node, rng: random.Random, k: int) -> tuple[bytes, str] | None:
    """A method of a class deleted with its docblock (its callers lose their target)."""
    methods = [m for c in _classes(root) for m in _methods(c)]
    if not methods:
        return None
    m = rng.choice(methods)
    start, end = m.start_byte, m.end_byte
    prev = m.prev_sibling
    if prev is not None and prev.type == "comment" and src[prev.end_byte : start].strip() == b"":
        start = prev.start_byte
    line_start = src.rfind(b"\n", 0, start) + 1
    if src[line_start:start].strip() == b"":
        start = line_start
    eol = src.find(b"\n", end)
    if eol != -1 and src[end:eol].strip() == b"":
        end = eol + 1
    name = _txt(src, m.child_by_field_name("name") or m).decode("utf-8", "replace")
    return _splice(src, [(start, end, b"")]), f"deleted method {name} (line {m.start_point[0] + 1})"


def rename_method(src: bytes, root: Node, rng: random.Random, k: int) -> tuple[bytes, str] | None:
    """A method renamed where it is declared only (callers elsewhere now miss it)."""
    names = [
        n
        for c in _classes(root)
        for m in _methods(c)
        if (n := m.child_by_field_name("name")) is not None and not _txt(src, n).startswith(b"__")
    ]
    if not names:
        return None
    n = rng.choice(names)
    old = _txt(src, n)
    new = old + f"Rg{k}".encode()
    return _splice(
        src, [(n.start_byte, n.end_byte, new)]
    ), f"renamed method {old.decode()} -> {new.decode()}"


def edit_body(src: bytes, root: Node, rng: random.Random, k: int) -> tuple[bytes, str] | None:
    """A call to a function the file already calls, put first in a function or method body."""
    bodies = _bodies(root)
    if not bodies:
        return None
    fn = rng.choice(bodies)
    body = fn.child_by_field_name("body")
    assert body is not None
    callee = (rng.choice(_called_names(src, root) or [b"strlen"])).decode("utf-8", "replace")
    ind = _step(src, body).decode()
    stmt = f"\n{ind}$ragrafBench{k} = {callee}('ragraf {k}');"
    open_brace = body.children[0]
    name = _txt(src, fn.child_by_field_name("name") or fn).decode("utf-8", "replace")
    return (
        _splice(src, [(open_brace.end_byte, open_brace.end_byte, stmt.encode())]),
        f"{name}() now first calls {callee}()",
    )


def rename_variable(src: bytes, root: Node, rng: random.Random, k: int) -> tuple[bytes, str] | None:
    """A local variable renamed everywhere in one function or method (its parameters too)."""
    cands: list[tuple[Node, bytes]] = []
    for fn in _bodies(root):
        seen = {
            _txt(src, v)
            for v in walk(fn)
            if v.type == "variable_name" and _txt(src, v) not in _NOT_LOCAL
        }
        cands.extend((fn, name) for name in sorted(seen))
    if not cands:
        return None
    fn, old = rng.choice(cands)
    new = old + f"_rg{k}".encode()
    spans = [
        (v.start_byte, v.end_byte, new)
        for v in walk(fn)
        if v.type == "variable_name" and _txt(src, v) == old
    ]
    name = _txt(src, fn.child_by_field_name("name") or fn).decode("utf-8", "replace")
    return _splice(src, spans), f"{name}(): {old.decode()} -> {new.decode()} ({len(spans)} places)"


def append_function(src: bytes, root: Node, rng: random.Random, k: int) -> tuple[bytes, str] | None:
    """A function appended to the file; in a namespaced file, half the time it takes the
    name of a function the file calls (which then resolves to it, not to the global one)."""
    if any(n.type == "namespace_definition" and n.child_by_field_name("body") for n in walk(root)):
        return None  # braced namespaces: no code may follow them
    defined = {
        _txt(src, n.child_by_field_name("name") or n)
        for n in walk(root)
        if n.type == "function_definition"
    }
    namespaced = any(n.type == "namespace_definition" for n in root.children)
    called = [c for c in _called_names(src, root) if c not in defined] if namespaced else []
    shadow = bool(called) and rng.random() < 0.5
    name = rng.choice(called).decode("utf-8", "replace") if shadow else f"ragraf_bench_fn_{k}"
    fn = f"function {name}($ragrafArg = null)\n{{\n    return {k};\n}}\n"
    last = root.children[-1] if root.children else None
    in_html = src.rstrip().endswith(b"?>") or (
        last is not None and last.type == "text_interpolation"
    )
    tail = b"" if src.endswith(b"\n") else b"\n"
    add = (tail + b"<?php\n" if in_html else tail + b"\n") + fn.encode()
    return src + add, f"appended function {name}()" + (" (a name the file calls)" if shadow else "")


def change_sql(src: bytes, root: Node, rng: random.Random, k: int) -> tuple[bytes, str] | None:
    """A string literal holding SQL changed: an extra column, a comment after its verb, or
    its FROM table replaced by the FROM table of another SQL string of the file."""
    strings = [
        n
        for n in walk(root)
        if n.type in ("string", "encapsed_string") and _SQL.search(_txt(src, n)) is not None
    ]
    if not strings:
        return None
    s = rng.choice(strings)
    body = _txt(src, s)
    line = s.start_point[0] + 1
    tables = {m.group(1) for t in strings if (m := _FROM_TABLE.search(_txt(src, t)))}
    own = _FROM_TABLE.search(body)
    others = sorted(tables - {own.group(1)}) if own else []
    choice = rng.random()
    if own and others and choice < 0.4:
        table = rng.choice(others)
        new = body[: own.start(1)] + table + body[own.end(1) :]
        detail = f"SQL at line {line}: FROM {own.group(1).decode()} -> {table.decode()}"
    elif own and body[: own.start()].upper().find(b"SELECT") != -1 and choice < 0.8:
        col = f", 1 AS `ragraf_c{k}` ".encode()
        at = own.start()
        new = body[:at].rstrip() + col + body[at:]
        detail = f"SQL at line {line}: column ragraf_c{k} added"
    else:
        verb = _SQL.search(body)
        assert verb is not None
        new = body[: verb.end(1)] + f" /* ragraf {k} */".encode() + body[verb.end(1) :]
        detail = f"SQL at line {line}: comment after {verb.group(1).decode()}"
    return _splice(src, [(s.start_byte, s.end_byte, new)]), detail


EDITS: dict[str, EditFn] = {
    "add_method": add_method,
    "delete_method": delete_method,
    "rename_method": rename_method,
    "edit_body": edit_body,
    "rename_variable": rename_variable,
    "append_function": append_function,
    "change_sql": change_sql,
}


def edit_file(
    root_dir: Path, path: str, rng: random.Random, k: int, kinds: list[str]
) -> Edit | None:
    """The first of ``kinds`` (in that order) that applies to the file and keeps it
    parseable; None when none does or the file has syntax errors already."""
    src = (root_dir / path).read_bytes()
    tree = parse(src)
    if tree.has_error:
        return None
    for kind in kinds:
        res = EDITS[kind](src, tree, rng, k)
        if res is None or res[0] == src or parse(res[0]).has_error:
            continue
        return Edit(kind, path, res[1], res[0])
    return None


def random_edit(root_dir: Path, pool: list[str], rng: random.Random, k: int) -> Edit:
    """An edit of a random kind (each kind as likely) in a random file of ``pool`` (paths
    relative to root_dir) where that kind applies."""
    kind = rng.choice(sorted(EDITS))
    for _ in range(500):
        edit = edit_file(root_dir, rng.choice(pool), rng, k, [kind])
        if edit is not None:
            return edit
    raise RuntimeError(f"no file of the pool takes a {kind} edit (500 tries)")
