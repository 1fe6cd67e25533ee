"""FileFacts as plain JSON: the format of the per-file facts cache.

Invariants a change must keep:
- Data only: decoding builds nothing but the types ``ragraf.lang.facts.FACT_TYPES``
  lists (references, their parts, type descriptors) and those the languages' registry
  entries name (``registry.fact_types``), tuples, lists, dicts, strings, numbers, booleans and
  None. A crafted cache row (a repository can ship its own ``.ragraf/``) can
  at worst give wrong facts or be rejected; it never runs code (the cache used
  to be pickled).
- ``decode(encode(f)) == f`` for every FileFacts an extractor produces, and
  ``decode_for_linking(encode(f)) == facts.for_linking(f)`` (tests/test_codec.py checks
  both on the fixtures).
- A row is two zlib streams, a 4-byte big-endian length of the first before them: the
  first holds what linking reads (``facts.for_linking``), the second the texts, chunks
  and flow units whole, so a build that only links a file again decodes the first alone.
- A row that does not decode raises ``ValueError``; the caller re-extracts.
"""

from __future__ import annotations

import dataclasses
import json
import struct
import zlib
from typing import Any

import orjson

from ragraf.lang import facts as F
from ragraf.lang import registry

#: the NamedTuple types a cache row may contain (``facts.FACT_TYPES``: references, their
#: parts, type descriptors; and those a language's registry entry names), by name
_TYPES: dict[str, type] = {t.__name__: t for t in (*F.FACT_TYPES, *registry.fact_types())}
if len(_TYPES) != len(F.FACT_TYPES) + len(registry.fact_types()):
    raise ValueError("two facts types of one name")  # a row names its types by name
FORMAT = 3
_TAGS: dict[type, str] = {t: name for name, t in _TYPES.items()}
#: how many fields of a type a row holds: all but a descriptor's ``tag`` (its type says it)
_WRITTEN: dict[type, int] = {
    t: len(t._fields) - (t._fields[-1:] == ("tag",))  # type: ignore[attr-defined]
    for t in _TYPES.values()
}
#: values JSON writes as they are (the common case, tested first by exact type)
_PLAIN = frozenset({str, int, float, bool, type(None)})


def _enc(v: Any) -> Any:
    """Tagged NamedTuples, tuples as lists, everything else as is."""
    t = type(v)
    if t in _PLAIN:
        return v
    name = _TAGS.get(t)
    if name is not None:
        return {"@": name, "v": [_enc(x) for x in v[: _WRITTEN[t]]]}
    if isinstance(v, tuple | list):
        return [_enc(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _enc(x) for k, x in v.items()}
    return v


def _dec(v: Any) -> Any:
    """The inverse of _enc for reference data: lists come back as tuples."""
    t = type(v)
    if t in _PLAIN:  # what json.loads makes of a string, number, boolean or null
        return v
    if t is list:
        return tuple(map(_dec, v))
    if t is dict:
        name = v.get("@")
        if name is None:
            raise ValueError("an untagged object in reference data")
        cls = _TYPES.get(name)
        if cls is None or set(v) != {"@", "v"} or not isinstance(v["v"], list):
            raise ValueError(f"not a facts type: {name!r}")
        if len(v["v"]) > _WRITTEN[cls]:
            raise ValueError(f"too many fields for {name!r}")
        return cls(*map(_dec, v["v"]))
    if v is None or isinstance(v, str | int | float | bool):
        return v
    raise ValueError(f"unexpected value of type {type(v).__name__}")


def to_data(v: Any) -> Any:
    """Reference data (NamedTuples of ``_TYPES``, tuples, lists, dicts of them) as JSON-able
    values (used by ``ragraf.indexing.resolve.link_memo`` for its memo)."""
    return _enc(v)


def to_json(v: Any) -> Any:
    """``to_data`` for a value that is only written as JSON: a list or tuple of plain values
    stays the object it is (JSON writes a tuple as a list), so recording an answer the
    tables hold does not copy it (a memo is mostly such lists). Compare
    with ``to_data``, never with this."""
    t = type(v)
    if (t is list or t is tuple) and all(type(x) in _PLAIN for x in v):
        return v
    return _enc(v)


def from_data(v: Any) -> Any:
    """The inverse of ``to_data`` for values without plain dicts (lists become tuples)."""
    if type(v) is list and all(type(x) in _PLAIN for x in v):
        return tuple(v)  # the common case (a memo question's arguments): names and numbers
    return _dec(v)


def _class(d: dict[str, Any]) -> F.ClassDecl:
    return F.ClassDecl(
        node=int(d["node"]),
        fqn=str(d["fqn"]),
        kind=str(d["kind"]),
        extends=[(str(a), int(b)) for a, b in d["extends"]],
        implements=[(str(a), int(b)) for a, b in d["implements"]],
        traits=[(str(a), int(b)) for a, b in d["traits"]],
        methods={str(k): int(x) for k, x in d["methods"].items()},
        props={str(k): [_dec(x) for x in xs] for k, xs in d["props"].items()},
        consts={str(k): int(x) for k, x in d["consts"].items()},
        abstract=bool(d["abstract"]),
    )


def _texts(f: F.FileFacts) -> list[list[Any]]:
    return [list(t) for t in f.texts]


def _chunks(f: F.FileFacts) -> list[list[Any]]:
    return [
        [
            c.source_kind,
            c.node,
            c.start_line,
            c.end_line,
            c.header,
            c.code,
            c.symbol_tokens,
            c.code_tokens,
            c.sql_tokens,
            c.text_tokens,
            c.ui_tokens,
        ]
        for c in f.chunks
    ]


def _flows(f: F.FileFacts) -> list[list[Any]]:
    return [list(u) for u in f.flows]


def _tag(v: Any) -> Any:
    """orjson's hook for what it does not write itself: a NamedTuple of ``_TYPES`` (as
    ``_enc`` tags it; its fields are written by orjson, tagged by this hook in turn)."""
    t = type(v)
    name = _TAGS.get(t)
    if name is None:
        raise TypeError(f"not a facts type: {t.__name__}")
    return {"@": name, "v": list(v[: _WRITTEN[t]])}


def json_bytes(data: Any) -> bytes:
    """``data`` (references and their parts as they are, tagged as ``_enc`` tags them) as
    compact JSON. orjson writes it in C (the stdlib encoder and ``_enc`` took ~15% of
    WordPress's extraction); a string orjson refuses (a lone surrogate: ``surrogateescape``
    of bytes that are not UTF-8) makes the same JSON value through ``_enc`` and the stdlib,
    which escapes it. (Also the resolve memo's writer: ``resolve.scope``.)"""
    try:
        return orjson.dumps(data, default=_tag, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # orjson.JSONEncodeError is one
        return json.dumps(_enc(data), separators=(",", ":")).encode("ascii")


def _json(data: Any) -> bytes:
    return zlib.compress(json_bytes(data), 1)


def _loads(raw: bytes) -> Any:
    """JSON parsed by orjson; what it refuses (an escaped lone surrogate) by the stdlib."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)


def encode(f: F.FileFacts) -> bytes:
    linking = F.for_linking(f)
    data = {
        "format": FORMAT,
        "path": f.path,
        "lang": f.lang,
        "status": f.status,
        "note": f.note,
        "lines": f.lines,
        "nodes": [list(n) for n in f.nodes],  # props stay a JSON object (decoded as is)
        "edges": [list(e) for e in f.edges],
        "classes": [
            {
                "node": c.node,
                "fqn": c.fqn,
                "kind": c.kind,
                "extends": c.extends,
                "implements": c.implements,
                "traits": c.traits,
                "methods": c.methods,
                "props": c.props,
                "consts": c.consts,
                "abstract": c.abstract,
            }
            for c in f.classes
        ],
        "functions": f.functions,
        "returns": {str(k): xs for k, xs in f.returns.items()},
        "refs": f.refs,
        "scope_nodes": f.scope_nodes,
        "global_assigns": f.global_assigns,
        "texts": _texts(linking),
        "chunks": [c[:4] for c in _chunks(linking)],
        "stats": f.stats,
        "flows": _flows(linking),
    }
    head = _json(data)
    rest = _json({"texts": _texts(f), "chunks": _chunks(f), "flows": _flows(f)})
    return struct.pack(">I", len(head)) + head + rest


def decode(blob: bytes) -> F.FileFacts:
    """A cache row back to FileFacts; ValueError when it is not one."""
    f = _decode_head(blob, parts=False)
    try:
        _parts(f, _loads(zlib.decompress(blob[4 + _head_len(blob) :])))
    except (KeyError, TypeError, zlib.error, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"not a facts row: {type(e).__name__}: {e}") from None
    return f


def with_rest(blob: bytes, f: F.FileFacts) -> F.FileFacts:
    """``f`` (what linking reads of the facts of a row: ``decode_for_linking``) with the
    texts, chunks and flow units of the row's second part: the whole facts, without
    decoding the first part again. ValueError when the row has no such part."""
    out = dataclasses.replace(f)
    try:
        _parts(out, _loads(zlib.decompress(blob[4 + _head_len(blob) :])))
    except (KeyError, TypeError, zlib.error, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"not a facts row: {type(e).__name__}: {e}") from None
    return out


def check_rest(blob: bytes) -> None:
    """ValueError unless the second part of a row is one (``decode`` would read it): its
    JSON parsed, the lists there, without building the facts."""
    try:
        data = _loads(zlib.decompress(blob[4 + _head_len(blob) :]))
    except (zlib.error, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"not a facts row: {type(e).__name__}: {e}") from None
    if not isinstance(data, dict) or not all(
        isinstance(data.get(k), list) for k in ("texts", "chunks", "flows")
    ):
        raise ValueError("not a facts row: no texts, chunks and flow units")


def _head_len(blob: bytes) -> int:
    if len(blob) < 4:
        raise ValueError("not a facts row: too short")
    (n,) = struct.unpack(">I", blob[:4])
    if n > len(blob) - 4:
        raise ValueError("not a facts row: a part longer than the row")
    return int(n)


def _parts(f: F.FileFacts, data: dict[str, Any]) -> None:
    """The texts, chunks and flow units of ``data`` into ``f``."""
    f.texts = [
        F.TextFact(int(a), int(b), str(c), str(d), None if e is None else int(e))
        for a, b, c, d, e in data["texts"]
    ]
    f.chunks = [F.Chunk(*c) for c in data["chunks"]]
    f.flows = [
        F.FlowUnit(int(a), str(b), int(c), int(d), str(e), str(g))
        for a, b, c, d, e, g in data["flows"]
    ]


def decode_for_linking(blob: bytes) -> F.FileFacts:
    """What linking reads of the facts in a cache row (``facts.for_linking``), decoded
    without the rest; ValueError when it is not a row."""
    return _decode_head(blob, parts=True)


def _decode_head(blob: bytes, parts: bool) -> F.FileFacts:
    """The first part of a row (``parts``: with its texts, chunks and flow units)."""
    try:
        data = _loads(zlib.decompress(blob[4 : 4 + _head_len(blob)]))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not a facts row of this format")
        f = F.FileFacts(
            str(data["path"]), data["lang"], str(data["status"]), data["note"], int(data["lines"])
        )
        f.nodes = [
            F.FactNode(str(a), str(b), c, d, int(e), int(g), dict(p), str(layer))
            for a, b, c, d, e, g, p, layer in data["nodes"]
        ]
        f.edges = [F.LocalEdge(str(a), str(b), str(c), int(d)) for a, b, c, d in data["edges"]]
        f.classes = [_class(c) for c in data["classes"]]
        f.functions = [(str(a), int(b)) for a, b in data["functions"]]
        f.returns = {int(k): [_dec(x) for x in xs] for k, xs in data["returns"].items()}
        f.refs = [_dec(r) for r in data["refs"]]
        if not all(type(r).__name__.endswith("Ref") for r in f.refs):
            raise ValueError("a reference of another type")
        f.scope_nodes = [int(x) for x in data["scope_nodes"]]
        f.global_assigns = [(str(n), _dec(d)) for n, d in data["global_assigns"]]
        f.stats = {str(k): int(v) for k, v in data["stats"].items()}
        if parts:
            data["chunks"] = [[*c, "", "", "", "", "", ""] for c in data["chunks"]]
            _parts(f, data)
        return f
    except (KeyError, TypeError, zlib.error, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"not a facts row: {type(e).__name__}: {e}") from None
