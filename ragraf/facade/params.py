"""Operation arguments: declared once, validated before any store is touched (SEC-002).

The same declarations give the MCP tools' input schemas, the CLI's options and
the generated reference (skills/ragraf-core/reference/operations.md).

Invariants a change must keep:
- Unknown arguments, wrong types, out-of-range numbers, over-long strings and
  paths outside the project root (absolute, ``..``, NUL) are refused with an
  InvalidArgument naming the operation and the argument.
- Paths come out normalised, relative to the root, POSIX style.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ragraf.errors import InvalidArgument
from ragraf.escape import corpus_name, escape, unescape
from ragraf.limits import MAX_TEXT_ARG

MAX_STR = MAX_TEXT_ARG
#: characters of a bad value quoted back in an error message
SHOWN_CHARS = 80


def shown(value: object) -> str:
    """A value as an error message quotes it: repr, capped, control characters escaped."""
    text = repr(value)
    if len(text) > SHOWN_CHARS:
        text = f"{text[:SHOWN_CHARS]}... ({len(text)} characters)"
    return escape(text)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean search?)`` for a mistyped name close to one of ``choices``
    (difflib's ratio >= 0.6, the two closest), else ''."""
    import difflib

    near = difflib.get_close_matches(word, list(choices), n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(near)}?)" if near else ""


NODE_ID = re.compile(r"^[0-9a-f]{40}$")
REV_ID = re.compile(r"^rev-\d{4,}$")


@dataclass(frozen=True)
class Param:
    name: str
    type: str  # string | path | node_id | int | bool | enum | list
    help: str
    default: Any = None
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    max_items: int = 50
    item: str = "string"  # for lists: string | node_id | chunk_id

    def json_schema(self) -> dict[str, Any]:
        t = self.type
        s: dict[str, Any]
        if t in ("string", "path"):
            s = {"type": "string", "minLength": 1, "maxLength": MAX_STR}
        elif t == "node_id":
            s = {"type": "string", "pattern": NODE_ID.pattern}
        elif t == "int":
            s = {"type": "integer"}
            if self.minimum is not None:
                s["minimum"] = self.minimum
            if self.maximum is not None:
                s["maximum"] = self.maximum
        elif t == "bool":
            s = {"type": "boolean"}
        elif t == "enum":
            s = {"type": "string", "enum": list(self.choices)}
        elif t == "samples":
            s = {
                "type": "array",
                "minItems": 2,
                "maxItems": self.max_items,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["query", "relevant"],
                    "properties": {
                        "query": {"type": "string", "minLength": 1, "maxLength": MAX_STR},
                        "relevant": {"type": "boolean"},
                    },
                },
            }
        elif t == "list":
            if self.item in ("node_id", "chunk_id"):
                inner: dict[str, Any] = {"type": "string", "pattern": NODE_ID.pattern}
            elif self.item == "int":
                inner = {"type": "integer", "minimum": 1}
            else:
                inner = {"type": "string", "minLength": 1, "maxLength": MAX_STR}
            s = {"type": "array", "items": inner, "minItems": 1, "maxItems": self.max_items}
        else:  # pragma: no cover - a declaration error
            raise ValueError(t)
        s["description"] = self.help
        if self.default is not None:
            s["default"] = self.default
        return s


@dataclass(frozen=True)
class OpSpec:
    """The declaration of one operation: its arguments and its effects.

    ``writes`` names what the operation appends to besides answering (empty: it only
    reads); ``network`` says whether it reaches anything outside the machine. The MCP
    tool hints, the CLI help and the generated reference are derived from these two,
    and tests/test_effects.py checks them against what the operation really does.
    """

    name: str
    params: tuple[Param, ...]
    main: str | None = None  # the CLI's positional argument
    one_of: tuple[tuple[str, ...], ...] = ()  # exactly one of each group is required
    required: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    writes: tuple[str, ...] = ()  # e.g. ("control.sqlite drift_ack", "LEDGER.md")
    network: bool = False
    #: the CLI tokens after ``ragraf query OP`` of one typical call (shown in its --help;
    #: tests run every example on the pilot fixture)
    example: tuple[str, ...] = ()

    @property
    def read_only(self) -> bool:
        return not self.writes

    def effects(self) -> str:
        """One line for help texts: what the operation touches."""
        what = "appends to " + ", ".join(self.writes) if self.writes else "read-only"
        return what + ("; reaches the network" if self.network else "; never uses the network")

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def input_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {p.name: p.json_schema() for p in self.params},
            "additionalProperties": False,
        }
        req = list(self.required)
        if req:
            schema["required"] = req
        return schema


def normalise_path(op: str, name: str, value: str) -> str:
    """A project-relative path as a user gives it (raw, or with the escapes answers show:
    control characters ``\\xNN``, bytes that are no UTF-8 ``\\u{dcNN}``; ``\\`` as a
    separator) as its corpus name (``ragraf.escape.corpus_name``), or InvalidArgument."""
    value = unescape(value)
    if "\0" in value:
        raise InvalidArgument(f"{op}: argument '{name}' contains a NUL byte")
    v = value.replace("\\", "/")
    if v.startswith("/") or re.match(r"^[A-Za-z]:/", v):
        raise InvalidArgument(
            f"{op}: argument '{name}' must be relative to the project root, not absolute: {shown(value)}"
        )
    norm = posixpath.normpath(v)
    if norm == ".." or norm.startswith("../") or any(part == ".." for part in v.split("/")):
        raise InvalidArgument(f"{op}: argument '{name}' leaves the project root: {shown(value)}")
    if norm in (".", ""):
        raise InvalidArgument(f"{op}: argument '{name}' is empty")
    return corpus_name(norm)


def validate(spec: OpSpec, args: dict[str, Any]) -> dict[str, Any]:
    op = spec.name
    if not isinstance(args, dict):
        raise InvalidArgument(f"{op}: arguments must be an object")
    known = {p.name for p in spec.params}
    for k in args:
        if k not in known:
            raise InvalidArgument(
                f"{op}: unknown argument {shown(k)}; expected one of: {', '.join(sorted(known)) or 'none'}"
            )
    out: dict[str, Any] = {}
    for p in spec.params:
        v = args.get(p.name)
        if v is None:
            if p.default is not None:
                out[p.name] = p.default
            continue
        out[p.name] = _check(op, p, v)
    for group in spec.one_of:
        given = [g for g in group if g in out]
        if len(given) != 1:
            raise InvalidArgument(
                f"{op}: give exactly one of {', '.join(repr(g) for g in group)}"
                + (f" (got {', '.join(given)})" if given else "")
            )
    for r in spec.required:
        if r not in out:
            raise InvalidArgument(f"{op}: argument '{r}' is required")
    return out


def _check(op: str, p: Param, v: Any) -> Any:
    where = f"{op}: argument '{p.name}'"
    t = p.type
    if t in ("string", "path", "node_id", "enum"):
        if not isinstance(v, str):
            raise InvalidArgument(f"{where} must be a string, got {type(v).__name__}")
        if not v.strip():
            raise InvalidArgument(f"{where} is empty")
        if len(v) > MAX_STR:
            raise InvalidArgument(f"{where} is longer than {MAX_STR} characters")
        if any(ord(c) < 32 and c not in "\t" for c in v):
            raise InvalidArgument(f"{where} contains control characters")
        if t == "path":
            return normalise_path(op, p.name, v)
        if t == "node_id" and not NODE_ID.match(v):
            raise InvalidArgument(f"{where} must be a 40-hex node id")
        if t == "enum" and v not in p.choices:
            raise InvalidArgument(f"{where} must be one of: {', '.join(p.choices)}")
        return v.strip() if t == "string" else v
    if t == "int":
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidArgument(f"{where} must be an integer, got {type(v).__name__}")
        if p.minimum is not None and v < p.minimum or p.maximum is not None and v > p.maximum:
            raise InvalidArgument(f"{where} must be between {p.minimum} and {p.maximum}, got {v}")
        return v
    if t == "bool":
        if not isinstance(v, bool):
            raise InvalidArgument(f"{where} must be true or false")
        return v
    if t == "samples":
        if not isinstance(v, list) or len(v) < 2 or len(v) > p.max_items:
            raise InvalidArgument(f"{where} must be a list of 2..{p.max_items} samples")
        out = []
        for i, item in enumerate(v):
            if (
                not isinstance(item, dict)
                or set(item) != {"query", "relevant"}
                or not isinstance(item["relevant"], bool)
            ):
                raise InvalidArgument(f"{where}[{i}] must be {{query: text, relevant: true|false}}")
            out.append(
                {
                    "query": _check(op, Param("query", "string", ""), item["query"]),
                    "relevant": item["relevant"],
                }
            )
        return out
    if t == "list":
        if not isinstance(v, list) or not v:
            raise InvalidArgument(f"{where} must be a non-empty list")
        if len(v) > p.max_items:
            raise InvalidArgument(f"{where} has more than {p.max_items} items")
        inner = Param(
            p.name,
            {"node_id": "node_id", "chunk_id": "node_id", "int": "int"}.get(p.item, "string"),
            p.help,
            minimum=1 if p.item == "int" else None,
            maximum=2**62 if p.item == "int" else None,
        )
        return [_check(op, inner, x) for x in v]
    raise InvalidArgument(f"{where}: unsupported type")  # pragma: no cover


def coerce_cli(spec: OpSpec, name: str, raw: str | bool) -> Any:
    """A CLI option value (text) -> the declared type, before validation."""
    p = spec.param(name)
    if p is None:
        return raw
    if p.type == "int" and isinstance(raw, str):
        try:
            return int(raw)
        except ValueError:
            raise InvalidArgument(
                f"{spec.name}: argument '{name}' must be an integer, got {shown(raw)}"
            ) from None
    if p.type == "bool" and isinstance(raw, str):
        if raw.lower() in ("1", "true", "yes"):
            return True
        if raw.lower() in ("0", "false", "no"):
            return False
        raise InvalidArgument(f"{spec.name}: argument '{name}' must be true or false")
    if p.type == "list" and isinstance(raw, str):
        items = [x for x in (s.strip().lstrip("#") for s in raw.split(",")) if x]
        if p.item == "int":
            try:
                return [int(x) for x in items]
            except ValueError:
                raise InvalidArgument(
                    f"{spec.name}: argument '{name}' must be a comma-separated list of numbers"
                ) from None
        return items
    return raw
