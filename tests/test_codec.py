"""The facts cache is data only: round trips are exact, and a crafted row never runs code."""

from __future__ import annotations

import os
import pickle
import zlib
from pathlib import Path
from typing import NamedTuple

import apsw
import pytest

from ragraf import config
from ragraf.corpus import scan
from ragraf.indexing import indexer
from ragraf.indexing.extract import INTERFACE
from ragraf.lang import codec, registry
from ragraf.lang.facts import CallbackRef, FileFacts
from ragraf.lang.typedesc import Cls
from tests.helpers import REPO, fixture_facts


@pytest.mark.parametrize("fixture", ["pilot", "sqlapp", "sqlcode", "tags", "jsapp"])
def test_round_trip_is_exact_on_the_fixtures(tmp_path: Path, fixture: str) -> None:
    facts = fixture_facts(fixture)
    for f in facts:
        back = codec.decode(codec.encode(f))
        assert back == f, f.path  # (enum members come back as their equal strings)
    assert len(facts) >= 5


def test_rows_that_are_not_facts_are_rejected() -> None:
    def row(*parts: bytes) -> bytes:
        return len(parts[0]).to_bytes(4, "big") + b"".join(parts)

    head = zlib.compress(b'{"format": 2}')
    for blob in (
        b"",
        b"not zlib",
        zlib.compress(b"[]"),
        zlib.compress(b'{"format": 1}'),
        zlib.compress(pickle.dumps({"format": 1})),
        row(zlib.compress(b"[]"), zlib.compress(b"[]")),
        row(head, zlib.compress(b"{}")),
        row(head, zlib.compress(pickle.dumps({"format": 2}))),
        b"\xff\xff\xff\xff" + head,
    ):
        with pytest.raises(ValueError):
            codec.decode(blob)
        with pytest.raises(ValueError):
            codec.decode_for_linking(blob)


class _Evil:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def test_a_crafted_cache_row_never_runs_code(indexed_pilot: Path, tmp_path: Path) -> None:
    cfg = config.load(indexed_pilot)
    marker = tmp_path / "pwned"
    max_lines = cfg.chunking.max_chunk_lines
    budget = cfg.index.time_budget
    conn = apsw.Connection(str(config.Layout(indexed_pilot).graph_db))
    rows = 0
    for f in scan(cfg).files:
        if f.status != "ok":
            continue
        key = registry.facts_key(f.path, f.lang, max_lines, budget)
        evil = zlib.compress(pickle.dumps(_Evil(str(marker))))
        for extractor in (key, key + INTERFACE):  # the facts, and the interface of a scoped build
            conn.execute(
                "INSERT OR REPLACE INTO file_facts(sha256, extractor, facts) VALUES (?,?,?)",
                (f.sha256, extractor, evil),
            )
        rows += 1
    conn.close()
    assert rows > 5
    res = indexer.build(config.load(indexed_pilot), commit=True, force=True)  # reads the cache
    assert res.status == "built" and res.reused_files == 0  # every row rejected, re-extracted
    assert not marker.exists()
    assert res.counts["nodes"] == 74


@pytest.mark.parametrize("fixture", ["pilot", "sqlapp", "jsapp"])
def test_what_linking_reads_decodes_alone(fixture: str) -> None:
    """The first part of a row is what linking reads (``facts.for_linking``): decoded alone
    it is exactly that."""
    from ragraf.lang.facts import for_linking

    facts = fixture_facts(fixture)
    for f in facts:
        assert codec.decode_for_linking(codec.encode(f)) == for_linking(f), f.path
    assert len(facts) >= 3


def test_an_interface_is_all_linking_reads_of_it() -> None:
    """Interface rows are decoded from their first part alone (``Facts``): that is exact
    because an interface holds nothing linking does not read."""
    from ragraf.indexing.extract import interface
    from ragraf.lang.facts import for_linking

    root = REPO / "fixtures" / "pilot"
    for path in sorted(root.rglob("*.php")):
        rel = path.relative_to(root).as_posix()
        f = interface(registry.extract(rel, "php", path.read_text(encoding="utf-8"), 120))
        assert for_linking(f) == f, rel
        assert codec.decode_for_linking(codec.encode(f)) == f, rel


def test_the_rest_of_a_row_completes_what_linking_reads() -> None:
    root = REPO / "fixtures" / "dataflow"
    for path in sorted(root.rglob("*.php")):
        rel = path.relative_to(root).as_posix()
        f = registry.extract(rel, "php", path.read_text(encoding="utf-8"), 120)
        blob = codec.encode(f)
        assert codec.with_rest(blob, codec.decode_for_linking(blob)) == f, rel
        codec.check_rest(blob)
    with pytest.raises(ValueError):
        codec.check_rest(blob[: 4 + int.from_bytes(blob[:4], "big")] + zlib.compress(b"[]"))


def test_a_string_orjson_refuses_round_trips_through_the_stdlib() -> None:
    """A lone surrogate (``surrogateescape`` of a byte slice cut inside a character) is not
    UTF-8: orjson refuses to write it, and the row is made by the stdlib encoder instead,
    which escapes it; the row decodes to the same facts (read back by the stdlib too)."""
    import dataclasses

    import orjson

    f = fixture_facts("pilot")[0]
    assert f.refs and f.chunks
    odd = dataclasses.replace(
        f,
        note="cut \udcc3 here",
        refs=[f.refs[0]._replace(**{f.refs[0]._fields[0]: "x\udcff"}), *f.refs[1:]],
        chunks=[dataclasses.replace(f.chunks[0], code="\udce9t\u00e9"), *f.chunks[1:]],
    )
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(odd.note)
    blob = codec.encode(odd)
    assert codec.decode(blob) == odd
    assert codec.decode(codec.encode(f)) == f  # and the usual row is orjson's


def _descriptors() -> FileFacts:
    """Facts holding every type descriptor variant, nested, and every kind of place one
    sits in (returns, class properties, globals, references)."""
    from ragraf.kinds import BindKind, Denotes, TargetKind
    from ragraf.lang import typedesc as T
    from ragraf.lang.facts import ClassDecl, FactNode, MethodCallRef, Target

    f = FileFacts("a.php", "php", "ok", None, 3)
    f.nodes = [FactNode("n0", "file", "a.php", "a.php", 1, 3, {}, "structural")]
    every: list[T.TypeDesc] = [
        T.Cls("App\\A"),
        T.Static(),
        T.Parent("App\\A"),
        T.Prop(T.Cls("App\\A"), "db"),
        T.Prop(T.Parent("App\\A"), "one", static=True),
        T.Call(T.Global("wpdb"), "get"),
        T.Call(T.Static(), "make", static=True),
        T.Func(("App\\f", "f")),
        T.Array(T.Cls("App\\Row")),
        T.Elem(T.Array(T.AnyOf((T.Cls("App\\A"), T.Cls("App\\B"))))),
        T.Var("x", 12),
        T.FuncName(("f",)),
        T.CallableOf(T.Cls("App\\A"), "m"),
        T.Pending(Denotes.RETURN, ("example.com/x", "New")),
        T.Holder(T.Pending(Denotes.INSTANCE, ("flask.ctx.RequestContext",))),
        T.Global("g"),
        T.AnyOf((T.Global("g"), T.Cls("g"), T.Parent("g"))),  # equal fields, three variants
    ]
    assert {type(d) for d in every} == set(T.VARIANTS)
    f.returns = {0: every}
    f.classes = [ClassDecl(0, "App\\A", "class", props={"p": every[:3]})]
    f.global_assigns = [
        ("g", T.Global("g")),
        ("e", T.Export(BindKind.VALUE, desc=every[3])),
        ("o", T.Export(BindKind.FUNCTION, "m.o.f", member="f")),
    ]
    f.refs = [
        MethodCallRef(0, 2, every[4], "m"),
        CallbackRef(
            0, 2, Target(TargetKind.METHOD, receiver=every[9], method="m"), 0, Target("function")
        ),
    ]
    return f


def test_every_type_descriptor_round_trips() -> None:
    """Each variant comes back as itself (two variants with equal fields stay apart)."""
    f = _descriptors()
    back = codec.decode(codec.encode(f))
    assert back == f
    assert [type(d) for d in back.returns[0]] == [type(d) for d in f.returns[0]]
    assert codec.from_data(codec.to_data(f.returns[0])) == tuple(f.returns[0])


def test_a_row_cannot_give_a_descriptor_another_variant_s_tag() -> None:
    """A descriptor's ``tag`` is not written; a row that adds one is not a facts row."""
    f = FileFacts("a.php", "php", "ok", None, 1)
    f.returns = {0: [Cls("App\\A")]}
    blob = codec.encode(f)
    n = int.from_bytes(blob[:4], "big")
    head = zlib.decompress(blob[4 : 4 + n])
    assert b'{"@":"Cls","v":["App\\\\A"]}' in head
    crafted = zlib.compress(head.replace(b'"v":["App\\\\A"]', b'"v":["App\\\\A","parent"]'))
    with pytest.raises(ValueError):
        codec.decode(len(crafted).to_bytes(4, "big") + crafted + blob[4 + n :])


def test_every_facts_type_is_listed() -> None:
    """A NamedTuple type of the facts module or of the descriptors is one the cache can
    write (``facts.FACT_TYPES``): else a row holding one would fail to encode."""
    from ragraf.lang import facts, typedesc

    defined = {
        t
        for m in (facts, typedesc)
        for t in vars(m).values()
        if isinstance(t, type) and issubclass(t, tuple) and t.__module__ == m.__name__
    }
    assert defined - {facts.FactNode, facts.LocalEdge, facts.TextFact, facts.FlowUnit} == set(
        facts.FACT_TYPES
    )


class ShapeRef(NamedTuple):
    """A reference type only a (test) language produces."""

    owner: int
    line: int
    shape: str


def test_a_language_s_own_reference_type_round_trips(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reference type a language declares in its package and names in its registry entry
    (``fact_types``) is written and read by the cache without touching the codec."""
    import dataclasses
    import importlib

    php = registry.get("php")
    assert php is not None
    lang = dataclasses.replace(php, fact_types=(f"{__name__}:ShapeRef",))
    monkeypatch.setattr(registry, "LANGUAGES", (*registry.LANGUAGES, lang))
    assert ShapeRef in registry.fact_types()
    f = FileFacts("a.php", "php", "ok", None, 1)
    f.refs = [ShapeRef(0, 1, "circle")]  # type: ignore[list-item]
    try:
        fresh = importlib.reload(codec)
        assert fresh.decode(fresh.encode(f)) == f
    finally:
        monkeypatch.undo()
        importlib.reload(codec)
    with pytest.raises(ValueError):  # a codec that does not know it writes a plain list
        codec.decode(codec.encode(f))
