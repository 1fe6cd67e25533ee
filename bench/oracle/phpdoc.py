"""Docblocks and type strings as phpDocumentor, PHPStan and Psalm write them (plain text, no parser).

The oracle reads ``@param``, ``@var``, ``@property`` (``-read`` / ``-write``), ``@return`` and
``@global``; a ``@phpstan-`` or ``@psalm-`` variant wins over the plain tag. A type string becomes
a ``DocType``: the class-like names it allows (as written, unresolved), the element names of the
arrays / iterables it allows (for ``foreach``), and whether some part is opaque (``mixed``,
``object``, a shape, something unreadable), i.e. might be any object.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: types that are never an object (or say nothing about one)
SCALARS = frozenset(
    {
        "string",
        "int",
        "integer",
        "float",
        "double",
        "bool",
        "boolean",
        "false",
        "true",
        "null",
        "void",
        "never",
        "never-return",
        "noreturn",
        "resource",
        "array-key",
        "scalar",
        "numeric",
        "numeric-string",
        "non-empty-string",
        "non-falsy-string",
        "truthy-string",
        "literal-string",
        "lowercase-string",
        "class-string",
        "interface-string",
        "trait-string",
        "enum-string",
        "callable-string",
        "positive-int",
        "negative-int",
        "non-positive-int",
        "non-negative-int",
        "non-zero-int",
        "int-mask",
        "int-mask-of",
        "key-of",
        "value-of",
        "number",
        "binary",
        "char",
    }
)
#: containers whose generic arguments or ``[]`` give element types, and which are not objects
ARRAYS = frozenset(
    {"array", "list", "non-empty-array", "non-empty-list", "iterable", "associative-array"}
)
#: types that may be any object: the oracle cannot say which
OPAQUE = frozenset({"mixed", "object", "callable", "callable-object", "pure-callable", "closed"})
_NAME = re.compile(
    r"\\?[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*(\\[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*)*$"
)
_TAG = re.compile(
    r"@(?:(phpstan|psalm)-)?(param|var|return|property-read|property-write|property|global)\b"
)


@dataclass(frozen=True)
class DocType:
    """What a type string allows, names as written (``self``, ``static``, ``$this`` kept)."""

    names: tuple[str, ...] = ()
    elems: tuple[str, ...] = ()
    opaque: bool = False
    elems_opaque: bool = False

    def __or__(self, other: DocType) -> DocType:
        return DocType(
            tuple(dict.fromkeys(self.names + other.names)),
            tuple(dict.fromkeys(self.elems + other.elems)),
            self.opaque or other.opaque,
            self.elems_opaque or other.elems_opaque,
        )

    @property
    def says_object(self) -> bool:
        """True when the type names at least one class (so it is worth more than silence)."""
        return bool(self.names)


def _split_top(text: str, seps: str) -> list[str]:
    """Split on any of ``seps`` outside brackets and quotes."""
    out, depth, cur, quote = [], 0, [], ""
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        elif ch in seps and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return [p.strip() for p in out]


def parse_type(text: str) -> DocType:
    """A type string (``?Foo``, ``Foo|Bar[]|null``, ``array<int, Foo>``, ``(A&B)|null``...)."""
    text = text.strip()
    if not text:
        return DocType(opaque=True)
    parts = _split_top(text, "|&")
    out = DocType()
    for p in parts:
        out = out | _atom(p)
    return out


def _atom(p: str) -> DocType:
    p = p.strip()
    if not p:
        return DocType()
    if p.startswith("?"):
        return _atom(p[1:])
    if p.endswith("[]"):
        inner = _atom(p[:-2])
        return DocType(elems=inner.names + inner.elems, elems_opaque=inner.opaque)
    if p.startswith("(") and p.endswith(")"):
        return parse_type(p[1:-1])
    if p[0] in "'\"" or p[0].isdigit() or p[0] == "-":
        return DocType()  # a literal type
    m = re.match(r"([^<{(]+)([<{(].*)?$", p, re.S)
    if m is None:
        return DocType(opaque=True)
    base, rest = m.group(1).strip(), (m.group(2) or "")
    low = base.lower().lstrip("\\")
    if rest.startswith("{"):  # array{...} / object{...} shapes
        return DocType(opaque=low == "object")
    if rest.startswith("("):  # callable(int): Foo, Closure(): Foo
        return DocType(names=("Closure",)) if low == "closure" else DocType(opaque=True)
    args = _split_top(rest[1:-1], ",") if rest.startswith("<") and rest.endswith(">") else []
    last = parse_type(args[-1]) if args else DocType()
    if low in ARRAYS:
        return DocType(elems=last.names + last.elems, elems_opaque=last.opaque)
    if low in SCALARS or low.startswith(("int<", "class-string")):
        return DocType()
    if low in OPAQUE:
        return DocType(opaque=True)
    if base in ("$this", "static", "self", "parent"):
        return DocType(names=(base,))
    if not _NAME.match(base):
        return DocType(opaque=True)
    # a class, possibly generic (Collection<Foo>, Generator<int, Foo>): iterating gives Foo
    return DocType(names=(base,), elems=last.names, elems_opaque=last.opaque)


@dataclass
class DocBlock:
    """The tags of one docblock the oracle uses (types still as strings)."""

    params: dict[str, str] = field(default_factory=dict)
    returns: str | None = None
    vars: list[tuple[str, str | None]] = field(default_factory=list)
    properties: dict[str, str] = field(default_factory=dict)
    globals: dict[str, str] = field(default_factory=dict)


def _read_type(s: str) -> tuple[str, str]:
    """The type expression at the start of ``s`` and the rest (brackets may hold spaces)."""
    depth, i = 0, 0
    while i < len(s):
        ch = s[i]
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        elif ch.isspace() and depth <= 0:
            # `Foo | Bar` and `Foo |Bar`: a bar joins the next word
            j = i
            while j < len(s) and s[j].isspace():
                j += 1
            if j < len(s) and s[j] in "|&" or s[i - 1] in "|&":
                i = j
                continue
            break
        i += 1
    return s[:i].strip(), s[i:]


def parse_docblock(text: str) -> DocBlock:
    """The tags of a ``/** ... */`` comment."""
    body = text
    if body.startswith("/**"):
        body = body[3:]
    if body.endswith("*/"):
        body = body[:-2]
    lines = [re.sub(r"^\s*\*?", "", ln) for ln in body.split("\n")]
    doc = DocBlock()
    strong: set[tuple[str, str]] = set()  # (tag, name) set by a phpstan-/psalm- variant
    for ln in lines:
        for m in _TAG.finditer(ln):
            prefixed, tag = bool(m.group(1)), m.group(2)
            rest = ln[m.end() :].lstrip()
            name: str | None = None
            if rest.startswith(("$", "&$", "...$")):
                # `@param $name Type` (older style): the name first
                nm = re.match(r"&?(?:\.\.\.)?\$(\w+)\s*(.*)", rest)
                if nm is None:
                    continue
                name = nm.group(1)
                ty, _ = _read_type(nm.group(2))
                if not ty or ty.startswith("$"):
                    ty = ""
            else:
                ty, rest = _read_type(rest)
                nm = re.match(r"\s*&?(?:\.\.\.)?\$(\w+)", rest)
                name = nm.group(1) if nm else None
            if not ty:
                continue
            key = (tag, name or "")
            if key in strong and not prefixed:
                continue
            if prefixed:
                strong.add(key)
            if tag == "param" and name:
                doc.params[name] = ty
            elif tag == "return":
                doc.returns = ty
            elif tag == "var":
                doc.vars = [v for v in doc.vars if v[1] != name] + [(ty, name)]
            elif tag.startswith("property") and name:
                doc.properties[name] = ty
            elif tag == "global" and name:
                doc.globals[name] = ty
    return doc
