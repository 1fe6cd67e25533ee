"""bench/oracle: the resolution benchmark's type oracle, on the PHP of fixtures/oracle.

Call sites are found by their ``// @site:NAME`` markers. Each test names the receiver type or
verdict PHP's semantics give; none of them runs ragraf's resolver.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.oracle.corpus import Corpus, Region
from bench.oracle.infer import Ty
from bench.oracle.judge import CORRECT, UNKNOWN_V, WRONG, Judge, Target, calls_on_line
from bench.oracle.phpdoc import DocType, parse_docblock, parse_type
from tests.helpers import REPO

ROOT = REPO / "fixtures" / "oracle"


def php_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.php"))


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus(ROOT, php_files(ROOT))


@pytest.fixture(scope="module")
def judge(corpus: Corpus) -> Judge:
    return Judge(corpus)


def site(marker: str) -> tuple[str, int]:
    """(path, line) of the line carrying ``// @site:<marker>``."""
    hits = []
    for rel in php_files(ROOT):
        for i, line in enumerate((ROOT / rel).read_text().split("\n"), 1):
            if line.rstrip().endswith(f"@site:{marker}"):
                hits.append((rel, i))
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def method(fqn: str, path: str = "src/Shapes.php") -> Target:
    return Target("method", fqn, path)


CIRCLE_AREA = method("App\\Shapes\\Circle::area")
SQUARE_AREA = method("App\\Shapes\\Square::area")
BIG_AREA = method("App\\Shapes\\BigSquare::area")
SHAPE_AREA = method("App\\Shapes\\Shape::area")
HEADER_MSG = method("App\\Header::getMessage", "src/Messages.php")


def verdict(judge: Judge, marker: str, target: Target) -> str:
    path, line = site(marker)
    return judge.judge(path, line, target).verdict


def receiver(judge: Judge, marker: str) -> Ty:
    path, line = site(marker)
    unit = judge.c.units[path]
    nodes = [n for n in calls_on_line(unit, line) if n.type != "function_call_expression"]
    return judge.receiver(unit, nodes[0])[0]  # the outermost call: the one the marker means


# -- docblocks and type strings -------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("?Foo", DocType(("Foo",))),
        ("Foo|Bar|null", DocType(("Foo", "Bar"))),
        ("\\A\\B&C", DocType(("\\A\\B", "C"))),
        ("Foo[]", DocType(elems=("Foo",))),
        ("array<int, Foo>|false", DocType(elems=("Foo",))),
        ("list<Foo|Bar>", DocType(elems=("Foo", "Bar"))),
        ("Collection<int, Item>", DocType(("Collection",), ("Item",))),
        ("(A|B)[]", DocType(elems=("A", "B"))),
        ("string|int[]", DocType()),
        ("class-string<Foo>", DocType()),
        ("mixed", DocType(opaque=True)),
        ("object|null", DocType(opaque=True)),
        ("array{a: Foo}", DocType()),
        ("static|$this", DocType(("static", "$this"))),
        ("'literal'|1", DocType()),
    ],
)
def test_parse_type(text: str, expected: DocType) -> None:
    assert parse_type(text) == expected


def test_parse_docblock_tags() -> None:
    doc = parse_docblock(
        """/**
         * Summary.
         *
         * @param Foo|null $a   the first
         * @param $b Bar         old style: the name first
         * @param array<int, Baz> $c
         * @phpstan-param Qux $a
         * @return static
         * @property-read Header $magic
         * @global wpdb $wpdb WordPress database abstraction object.
         */"""
    )
    assert doc.params == {"a": "Qux", "b": "Bar", "c": "array<int, Baz>"}
    assert doc.returns == "static"
    assert doc.properties == {"magic": "Header"}
    assert doc.globals == {"wpdb": "wpdb"}
    assert parse_docblock("/** @var Foo $x */").vars == [("Foo", "x")]
    assert parse_docblock("/** @var Foo */").vars == [("Foo", None)]


# -- names, hierarchy, includes ---------------------------------------------------------------
def test_names_resolve_as_php_does() -> None:
    r = Region(0, 1, "App", {"boom": "RuntimeException", "shapes": "App\\Shapes"}, {"h": "Lib\\h"})
    assert r.resolve_class_how("Boom") == ("RuntimeException", True)
    assert r.resolve_class_how("Header") == ("App\\Header", False)
    assert r.resolve_class_how("\\Exception") == ("Exception", True)
    assert r.resolve_class_how("Shapes\\Circle") == ("App\\Shapes\\Circle", True)
    assert r.resolve_class_how("namespace\\X") == ("App\\X", True)
    assert r.function_candidates("strlen") == ["App\\strlen", "strlen"]
    assert r.function_candidates("h") == ["Lib\\h"]
    assert r.function_candidates("\\g") == ["g"]


def test_use_imports_and_hierarchy(corpus: Corpus) -> None:
    calls = corpus.units["src/Messages.php"].regions[-1]
    assert calls.classes["boom"] == "RuntimeException"
    circle = corpus.decls("app\\shapes\\circle")[0]
    assert circle.parent == "app\\shapes\\base"
    assert circle.traits == ["app\\shapes\\named"]
    assert circle.props["r"].promoted
    assert corpus.descendants("app\\shapes\\shape") == {
        "app\\shapes\\base",
        "app\\shapes\\circle",
        "app\\shapes\\square",
        "app\\shapes\\bigsquare",
    }
    # trait methods before the parent's; an external parent ends the chain outside the corpus
    assert {m.fqn for m in corpus.lookup("app\\shapes\\circle", "getname").found} == {
        "App\\Shapes\\Named::getName"
    }
    ext = corpus.lookup("app\\appexception", "getmessage")
    assert not ext.found and ext.external
    assert {m.fqn for m in corpus.dispatch("app\\page", "nosuchmethod")} == {"App\\Page::__call"}


def test_includes_fold_constants_and_anchor_paths(corpus: Corpus) -> None:
    # dirname(__FILE__), __DIR__, and ROOT (two different definitions: a run-time prefix, so the
    # literal tail must name exactly one file)
    assert corpus.top_includes["app/index.php"] == {"app/globals.php", "app/pages.php"}
    assert corpus.top_includes["app/light.php"] == {"app/fallback.php", "app/common.php"}
    # an include inside a function is not file-level
    assert corpus.function_includes["app/common.php"] == {"app/late.php"}
    assert corpus.function_includes["app/light.php"] == {"app/index.php"}
    assert "app/index.php" in corpus.entries and "app/light.php" in corpus.entries
    assert "app/pages.php" not in corpus.entries


@pytest.mark.parametrize(
    ("marker", "lib", "stub"),
    [
        # only the application's entry loads pages.php: the library's helper runs; the request
        # light.php's full() would make (stubs and library both) is refused as impossible
        ("page-helper", CORRECT, WRONG),
        ("light-helper", WRONG, CORRECT),
        ("common-helper", CORRECT, CORRECT),  # loaded by both entries
        ("late-helper", CORRECT, CORRECT),  # by a function of common.php, in both requests
    ],
)
def test_duplicate_functions_by_the_files_loaded_together(
    judge: Judge, marker: str, lib: str, stub: str
) -> None:
    assert verdict(judge, marker, Target("function", "helper", "app/lib.php")) == lib
    assert verdict(judge, marker, Target("function", "helper", "app/fallback.php")) == stub


# -- receiver types -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("marker", "objs"),
    [
        ("promoted", {("app\\shapes\\circle", True)}),
        ("property-doc", {("app\\shapes\\square", True)}),
        ("union", {("app\\shapes\\shape", True), ("app\\header", True)}),
        ("param-doc", {("app\\shapes\\shape", True)}),
        ("foreach", {("app\\shapes\\square", True)}),
        ("new", {("app\\shapes\\circle", False)}),
        ("reassigned", {("app\\shapes\\square", False)}),
        ("instanceof", {("app\\shapes\\circle", True)}),
        ("early-return", {("app\\shapes\\square", True)}),
        ("catch", {("exception", True)}),
        ("static-factory", {("app\\shapes\\circle", False)}),
        ("singleton", {("app\\shapes\\circle", True)}),
        ("doc-return", {("app\\shapes\\square", True)}),
        ("return-type", {("app\\header", True)}),
        ("assigned-property", {("app\\header", False)}),
        ("class-property-doc", {("app\\header", True)}),
        ("inline-var", {("app\\header", True)}),
        ("builtin", {("datetime", False)}),
        ("builtin-fluent", {("datetime", False)}),  # DateTime::modify returns static
        ("array-access", {("app\\header", True)}),  # HeaderList::offsetGet(): Header
        ("closure-use", {("app\\shapes\\square", False)}),
        ("arrow-param", {("app\\shapes\\square", True)}),
        ("coalesce", {("app\\shapes\\shape", True), ("app\\header", True), ("app\\header", False)}),
        ("global", {("registry", False)}),
        ("global-doc", {("registry", True)}),
        ("this-abstract", {("app\\shapes\\base", True)}),
        ("parent", {("app\\shapes\\square", False)}),
    ],
)
def test_receiver_types(judge: Judge, marker: str, objs: set[tuple[str, bool]]) -> None:
    t = receiver(judge, marker)
    assert t.objs == objs
    assert not t.unknown


def test_an_untyped_return_is_unknown(judge: Judge) -> None:
    t = receiver(judge, "unknown")
    assert t.unknown and not t.objs
    assert verdict(judge, "unknown", CIRCLE_AREA) == UNKNOWN_V


# -- verdicts -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("marker", "target", "expected"),
    [
        ("promoted", CIRCLE_AREA, CORRECT),
        ("promoted", SQUARE_AREA, WRONG),
        ("property-doc", BIG_AREA, CORRECT),  # the property may hold a subclass
        ("new", BIG_AREA, WRONG),  # `new Circle`: exactly a Circle
        ("reassigned", SQUARE_AREA, CORRECT),  # the nearest assignment, not the first
        ("reassigned", CIRCLE_AREA, WRONG),
        ("abstract-param", SHAPE_AREA, CORRECT),  # the contract the call binds to
        ("abstract-param", CIRCLE_AREA, CORRECT),
        ("instanceof", method("App\\Shapes\\Named::getName"), CORRECT),  # a trait's method
        ("early-return", CIRCLE_AREA, WRONG),
        ("parent", SQUARE_AREA, CORRECT),
        ("parent", BIG_AREA, WRONG),  # parent:: never dispatches to the override
        ("this-abstract", SQUARE_AREA, CORRECT),
        ("union", HEADER_MSG, CORRECT),
        ("coalesce", HEADER_MSG, CORRECT),
        ("catch", HEADER_MSG, WRONG),  # Exception::getMessage is PHP's, not the Header's
        ("inherited-builtin", HEADER_MSG, WRONG),
        ("builtin", method("App\\Shapes\\Circle::format"), WRONG),
        ("magic-call", method("App\\Page::__call", "src/Messages.php"), CORRECT),
        ("global", method("Registry::lookup", "app/lib.php"), CORRECT),
        ("global-doc", method("Registry::lookup", "app/lib.php"), CORRECT),
        ("static-factory", CIRCLE_AREA, CORRECT),
    ],
)
def test_verdicts(judge: Judge, marker: str, target: Target, expected: str) -> None:
    assert verdict(judge, marker, target) == expected


def test_no_call_of_that_name_is_unknown(judge: Judge) -> None:
    path, line = site("promoted")
    v = judge.judge(path, line, method("App\\Shapes\\Circle::nothingHere"))
    assert v.verdict == UNKNOWN_V
    assert "no call" in v.reason
