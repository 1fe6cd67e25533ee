"""Tags-level languages (issue 14): Ruby, C#, Rust, Kotlin, C, C++, Swift, Scala, Lua and
Bash through ``ragraf.lang.tags`` and ``queries/<lang>-tags.scm``.

One golden fixture per language (fixtures/tags/<lang>/), indexed for real; the expected
sets were checked by hand against the sources: every declaration the query names, a
call by name linked to every declaration of that name in the language's group (derived:
one candidate 0.6 = ``heuristic_single``, two 0.4 = ``heuristic_ambiguous``), a call of
a name only a class has is an ``instantiates`` edge, a name no declaration has is
external (no edge), and an import whose text names a corpus file is a stated
``imports`` edge between the files. Builtins (``puts``, ``printf``, ``println``...) get
no edge.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragraf import config
from ragraf.corpus import scan
from ragraf.indexing import indexer
from ragraf.lang import registry, tstree
from ragraf.store.graph import GraphStore
from tests.helpers import REPO, invoke, write
from tests.test_pilot_golden import _graph

TAGS = REPO / "fixtures" / "tags"
LANGS = ("ruby", "csharp", "rust", "kotlin", "c", "cpp", "swift", "scala", "lua", "bash")

#: language -> (nodes, edges other than contains, contains edges)
GOLDEN: dict[str, tuple[set[tuple], set[tuple], set[tuple]]] = {
    "ruby": (
        {
            ("class", "Shapes::Circle", "lib/shapes.rb", 5, 13),
            ("file", "lib/shapes.rb", "lib/shapes.rb", 1, 14),
            ("file", "lib/util.rb", "lib/util.rb", 1, 14),
            ("function", "Util::area", "lib/util.rb", 6, 8),
            ("function", "main", "lib/util.rb", 11, 14),
            ("method", "Shapes::Circle::area", "lib/shapes.rb", 10, 12),
            ("method", "Shapes::Circle::initialize", "lib/shapes.rb", 6, 8),
            ("method", "Util::square", "lib/util.rb", 2, 4),
            ("module", "Shapes", "lib/shapes.rb", 3, 14),
            ("module", "Util", "lib/util.rb", 1, 9),
        },
        {
            (
                "calls_heuristic",
                "Shapes::Circle::area",
                "Util::square",
                "lib/shapes.rb:11",
                "derived",
                0.6,
            ),
            ("calls_heuristic", "main", "Shapes::Circle::area", "lib/util.rb:13", "derived", 0.4),
            ("calls_heuristic", "main", "Util::area", "lib/util.rb:13", "derived", 0.4),
            ("imports", "lib/shapes.rb", "lib/util.rb", "lib/shapes.rb:1", "stated", 1.0),
            ("instantiates", "main", "Shapes::Circle", "lib/util.rb:12", "derived", 0.6),
        },
        {
            ("contains", "Shapes", "Shapes::Circle", "lib/shapes.rb:5"),
            ("contains", "Shapes::Circle", "Shapes::Circle::area", "lib/shapes.rb:10"),
            ("contains", "Shapes::Circle", "Shapes::Circle::initialize", "lib/shapes.rb:6"),
            ("contains", "Util", "Util::area", "lib/util.rb:6"),
            ("contains", "Util", "Util::square", "lib/util.rb:2"),
            ("contains", "lib/shapes.rb", "Shapes", "lib/shapes.rb:3"),
            ("contains", "lib/util.rb", "Util", "lib/util.rb:1"),
            ("contains", "lib/util.rb", "main", "lib/util.rb:11"),
        },
    ),
    "csharp": (
        {
            ("class", "App.Shapes.Circle", "src/Shapes.cs", 12, 19),
            ("class", "App.Shapes.Point", "src/Shapes.cs", 23, 23),
            ("class", "App.Util.MathUtil", "src/MathUtil.cs", 3, 12),
            ("enum", "App.Shapes.Color", "src/Shapes.cs", 21, 21),
            ("file", "src/MathUtil.cs", "src/MathUtil.cs", 1, 12),
            ("file", "src/Shapes.cs", "src/Shapes.cs", 1, 24),
            ("interface", "App.Shapes.IShape", "src/Shapes.cs", 6, 9),
            ("method", "App.Shapes.Circle.Area", "src/Shapes.cs", 18, 18),
            ("method", "App.Shapes.Circle.Circle", "src/Shapes.cs", 16, 16),
            ("method", "App.Shapes.IShape.Area", "src/Shapes.cs", 8, 8),
            ("method", "App.Util.MathUtil.Main", "src/MathUtil.cs", 7, 11),
            ("method", "App.Util.MathUtil.Square", "src/MathUtil.cs", 5, 5),
            ("namespace", "App.Shapes", "src/Shapes.cs", 4, 24),
        },
        {
            (
                "calls_heuristic",
                "App.Shapes.Circle.Area",
                "App.Util.MathUtil.Square",
                "src/Shapes.cs:18",
                "derived",
                0.6,
            ),
            (
                "calls_heuristic",
                "App.Util.MathUtil.Main",
                "App.Shapes.Circle.Area",
                "src/MathUtil.cs:10",
                "derived",
                0.4,
            ),
            (
                "calls_heuristic",
                "App.Util.MathUtil.Main",
                "App.Shapes.IShape.Area",
                "src/MathUtil.cs:10",
                "derived",
                0.4,
            ),
            (
                "instantiates",
                "App.Util.MathUtil.Main",
                "App.Shapes.Circle",
                "src/MathUtil.cs:9",
                "derived",
                0.6,
            ),
        },
        {
            ("contains", "App.Shapes", "App.Shapes.Circle", "src/Shapes.cs:12"),
            ("contains", "App.Shapes", "App.Shapes.Color", "src/Shapes.cs:21"),
            ("contains", "App.Shapes", "App.Shapes.IShape", "src/Shapes.cs:6"),
            ("contains", "App.Shapes", "App.Shapes.Point", "src/Shapes.cs:23"),
            ("contains", "App.Shapes.Circle", "App.Shapes.Circle.Area", "src/Shapes.cs:18"),
            ("contains", "App.Shapes.Circle", "App.Shapes.Circle.Circle", "src/Shapes.cs:16"),
            ("contains", "App.Shapes.IShape", "App.Shapes.IShape.Area", "src/Shapes.cs:8"),
            ("contains", "App.Util.MathUtil", "App.Util.MathUtil.Main", "src/MathUtil.cs:7"),
            ("contains", "App.Util.MathUtil", "App.Util.MathUtil.Square", "src/MathUtil.cs:5"),
            ("contains", "src/MathUtil.cs", "App.Util.MathUtil", "src/MathUtil.cs:3"),
            ("contains", "src/Shapes.cs", "App.Shapes", "src/Shapes.cs:4"),
        },
    ),
    "rust": (
        {
            ("class", "Circle", "src/shapes.rs", 5, 7),
            ("enum", "Kind", "src/shapes.rs", 9, 11),
            ("file", "src/main.rs", "src/main.rs", 1, 12),
            ("file", "src/shapes.rs", "src/shapes.rs", 1, 27),
            ("function", "helper", "src/main.rs", 12, 12),
            ("function", "main", "src/main.rs", 6, 10),
            ("function", "square", "src/shapes.rs", 25, 27),
            ("method", "Circle::area", "src/shapes.rs", 20, 22),
            ("method", "Circle::new", "src/shapes.rs", 14, 16),
            ("method", "Shape::area", "src/shapes.rs", 2, 2),
            ("module", "shapes", "src/main.rs", 1, 1),
            ("trait", "Shape", "src/shapes.rs", 1, 3),
        },
        {
            ("calls_heuristic", "Circle::area", "square", "src/shapes.rs:21", "derived", 0.6),
            ("calls_heuristic", "main", "Circle::new", "src/main.rs:7", "derived", 0.6),
            ("calls_heuristic", "main", "helper", "src/main.rs:9", "derived", 0.6),
            ("imports", "src/main.rs", "src/shapes.rs", "src/main.rs:1", "stated", 1.0),
            ("instantiates", "Circle::new", "Circle", "src/shapes.rs:15", "derived", 0.6),
        },
        {
            ("contains", "Shape", "Shape::area", "src/shapes.rs:2"),
            ("contains", "src/main.rs", "helper", "src/main.rs:12"),
            ("contains", "src/main.rs", "main", "src/main.rs:6"),
            ("contains", "src/main.rs", "shapes", "src/main.rs:1"),
            ("contains", "src/shapes.rs", "Circle", "src/shapes.rs:5"),
            ("contains", "src/shapes.rs", "Circle::area", "src/shapes.rs:20"),
            ("contains", "src/shapes.rs", "Circle::new", "src/shapes.rs:14"),
            ("contains", "src/shapes.rs", "Kind", "src/shapes.rs:9"),
            ("contains", "src/shapes.rs", "Shape", "src/shapes.rs:1"),
            ("contains", "src/shapes.rs", "square", "src/shapes.rs:25"),
        },
    ),
    "kotlin": (
        {
            ("class", "app.shapes.Circle", "src/Shapes.kt", 10, 12),
            ("class", "app.shapes.Registry", "src/Shapes.kt", 16, 18),
            ("enum", "app.shapes.Color", "src/Shapes.kt", 14, 14),
            ("file", "src/Shapes.kt", "src/Shapes.kt", 1, 18),
            ("file", "src/Util.kt", "src/Util.kt", 1, 10),
            ("function", "app.util.main", "src/Util.kt", 7, 10),
            ("function", "app.util.square", "src/Util.kt", 5, 5),
            ("interface", "app.shapes.Shape", "src/Shapes.kt", 5, 7),
            ("method", "app.shapes.Circle.area", "src/Shapes.kt", 11, 11),
            ("method", "app.shapes.Registry.all", "src/Shapes.kt", 17, 17),
            ("method", "app.shapes.Shape.area", "src/Shapes.kt", 6, 6),
        },
        {
            (
                "calls_heuristic",
                "app.shapes.Circle.area",
                "app.util.square",
                "src/Shapes.kt:11",
                "derived",
                0.6,
            ),
            (
                "calls_heuristic",
                "app.util.main",
                "app.shapes.Circle.area",
                "src/Util.kt:9",
                "derived",
                0.4,
            ),
            (
                "calls_heuristic",
                "app.util.main",
                "app.shapes.Shape.area",
                "src/Util.kt:9",
                "derived",
                0.4,
            ),
            ("imports", "src/Shapes.kt", "src/Util.kt", "src/Shapes.kt:3", "stated", 1.0),
            ("imports", "src/Util.kt", "src/Shapes.kt", "src/Util.kt:3", "stated", 1.0),
            (
                "instantiates",
                "app.shapes.Registry.all",
                "app.shapes.Circle",
                "src/Shapes.kt:17",
                "derived",
                0.6,
            ),
            ("instantiates", "app.util.main", "app.shapes.Circle", "src/Util.kt:8", "derived", 0.6),
        },
        {
            ("contains", "app.shapes.Circle", "app.shapes.Circle.area", "src/Shapes.kt:11"),
            ("contains", "app.shapes.Registry", "app.shapes.Registry.all", "src/Shapes.kt:17"),
            ("contains", "app.shapes.Shape", "app.shapes.Shape.area", "src/Shapes.kt:6"),
            ("contains", "src/Shapes.kt", "app.shapes.Circle", "src/Shapes.kt:10"),
            ("contains", "src/Shapes.kt", "app.shapes.Color", "src/Shapes.kt:14"),
            ("contains", "src/Shapes.kt", "app.shapes.Registry", "src/Shapes.kt:16"),
            ("contains", "src/Shapes.kt", "app.shapes.Shape", "src/Shapes.kt:5"),
            ("contains", "src/Util.kt", "app.util.main", "src/Util.kt:7"),
            ("contains", "src/Util.kt", "app.util.square", "src/Util.kt:5"),
        },
    ),
    "c": (
        {
            ("class", "point", "src/util.h", 4, 7),
            ("enum", "color", "src/util.h", 9, 9),
            ("file", "src/util.c", "src/util.c", 1, 17),
            ("file", "src/util.h", "src/util.h", 1, 13),
            ("function", "area", "src/util.c", 9, 11),
            ("function", "main", "src/util.c", 13, 17),
            ("function", "square", "src/util.c", 5, 7),
        },
        {
            ("calls_heuristic", "area", "square", "src/util.c:10", "derived", 0.6),
            ("calls_heuristic", "main", "area", "src/util.c:15", "derived", 0.6),
            ("imports", "src/util.c", "src/util.h", "src/util.c:1", "stated", 1.0),
        },
        {
            ("contains", "src/util.c", "area", "src/util.c:9"),
            ("contains", "src/util.c", "main", "src/util.c:13"),
            ("contains", "src/util.c", "square", "src/util.c:5"),
            ("contains", "src/util.h", "color", "src/util.h:9"),
            ("contains", "src/util.h", "point", "src/util.h:4"),
        },
    ),
    "cpp": (
        {
            ("class", "shapes::Circle", "src/shapes.hpp", 10, 17),
            ("class", "shapes::Point", "src/shapes.hpp", 19, 21),
            ("class", "shapes::Shape", "src/shapes.hpp", 5, 8),
            ("enum", "shapes::Color", "src/shapes.hpp", 23, 23),
            ("file", "src/shapes.cpp", "src/shapes.cpp", 1, 15),
            ("file", "src/shapes.hpp", "src/shapes.hpp", 1, 27),
            ("function", "main", "src/shapes.cpp", 12, 15),
            ("function", "shapes::square", "src/shapes.cpp", 6, 6),
            ("method", "shapes::Circle::Circle", "src/shapes.hpp", 12, 12),
            ("method", "shapes::Circle::area", "src/shapes.cpp", 8, 8),
            ("namespace", "shapes", "src/shapes.cpp", 3, 10),
            ("namespace", "shapes", "src/shapes.hpp", 3, 27),
        },
        {
            (
                "calls_heuristic",
                "main",
                "shapes::Circle::area",
                "src/shapes.cpp:14",
                "derived",
                0.6,
            ),
            (
                "calls_heuristic",
                "shapes::Circle::area",
                "shapes::square",
                "src/shapes.cpp:8",
                "derived",
                0.6,
            ),
            ("imports", "src/shapes.cpp", "src/shapes.hpp", "src/shapes.cpp:1", "stated", 1.0),
        },
        {
            ("contains", "shapes", "shapes::Circle", "src/shapes.hpp:10"),
            ("contains", "shapes", "shapes::Circle::area", "src/shapes.cpp:8"),
            ("contains", "shapes", "shapes::Color", "src/shapes.hpp:23"),
            ("contains", "shapes", "shapes::Point", "src/shapes.hpp:19"),
            ("contains", "shapes", "shapes::Shape", "src/shapes.hpp:5"),
            ("contains", "shapes", "shapes::square", "src/shapes.cpp:6"),
            ("contains", "shapes::Circle", "shapes::Circle::Circle", "src/shapes.hpp:12"),
            ("contains", "src/shapes.cpp", "main", "src/shapes.cpp:12"),
            ("contains", "src/shapes.cpp", "shapes", "src/shapes.cpp:3"),
            ("contains", "src/shapes.hpp", "shapes", "src/shapes.hpp:3"),
        },
    ),
    "swift": (
        {
            ("class", "Circle", "Sources/Shapes.swift", 8, 18),
            ("class", "Point", "Sources/Shapes.swift", 20, 22),
            ("enum", "Color", "Sources/Shapes.swift", 24, 26),
            ("file", "Sources/Shapes.swift", "Sources/Shapes.swift", 1, 26),
            ("file", "Sources/main.swift", "Sources/main.swift", 1, 8),
            ("function", "run", "Sources/main.swift", 5, 8),
            ("function", "square", "Sources/main.swift", 1, 3),
            ("interface", "Shape", "Sources/Shapes.swift", 3, 5),
            ("method", "Circle.area", "Sources/Shapes.swift", 15, 17),
            ("method", "Circle.init", "Sources/Shapes.swift", 11, 13),
            ("method", "Shape.area", "Sources/Shapes.swift", 4, 4),
        },
        {
            ("calls_heuristic", "Circle.area", "square", "Sources/Shapes.swift:16", "derived", 0.6),
            ("calls_heuristic", "run", "Circle.area", "Sources/main.swift:7", "derived", 0.4),
            ("calls_heuristic", "run", "Shape.area", "Sources/main.swift:7", "derived", 0.4),
            ("instantiates", "run", "Circle", "Sources/main.swift:6", "derived", 0.6),
        },
        {
            ("contains", "Circle", "Circle.area", "Sources/Shapes.swift:15"),
            ("contains", "Circle", "Circle.init", "Sources/Shapes.swift:11"),
            ("contains", "Shape", "Shape.area", "Sources/Shapes.swift:4"),
            ("contains", "Sources/Shapes.swift", "Circle", "Sources/Shapes.swift:8"),
            ("contains", "Sources/Shapes.swift", "Color", "Sources/Shapes.swift:24"),
            ("contains", "Sources/Shapes.swift", "Point", "Sources/Shapes.swift:20"),
            ("contains", "Sources/Shapes.swift", "Shape", "Sources/Shapes.swift:3"),
            ("contains", "Sources/main.swift", "run", "Sources/main.swift:5"),
            ("contains", "Sources/main.swift", "square", "Sources/main.swift:1"),
        },
    ),
    "scala": (
        {
            ("class", "app.shapes.Circle", "src/Shapes.scala", 10, 12),
            ("class", "app.shapes.Circle", "src/Shapes.scala", 14, 16),
            ("class", "app.shapes.Point", "src/Shapes.scala", 18, 18),
            ("class", "app.util.MathUtil", "src/MathUtil.scala", 3, 10),
            ("file", "src/MathUtil.scala", "src/MathUtil.scala", 1, 10),
            ("file", "src/Shapes.scala", "src/Shapes.scala", 1, 18),
            ("method", "app.shapes.Circle.area", "src/Shapes.scala", 11, 11),
            ("method", "app.shapes.Circle.unit", "src/Shapes.scala", 15, 15),
            ("method", "app.shapes.Shape.area", "src/Shapes.scala", 6, 6),
            ("method", "app.util.MathUtil.main", "src/MathUtil.scala", 6, 9),
            ("method", "app.util.MathUtil.square", "src/MathUtil.scala", 4, 4),
            ("trait", "app.shapes.Shape", "src/Shapes.scala", 5, 7),
        },
        {
            (
                "calls_heuristic",
                "app.shapes.Circle.area",
                "app.util.MathUtil.square",
                "src/Shapes.scala:11",
                "derived",
                0.6,
            ),
            (
                "calls_heuristic",
                "app.util.MathUtil.main",
                "app.shapes.Circle.area",
                "src/MathUtil.scala:8",
                "derived",
                0.4,
            ),
            (
                "calls_heuristic",
                "app.util.MathUtil.main",
                "app.shapes.Shape.area",
                "src/MathUtil.scala:8",
                "derived",
                0.4,
            ),
            (
                "imports",
                "src/Shapes.scala",
                "src/MathUtil.scala",
                "src/Shapes.scala:3",
                "stated",
                1.0,
            ),
            (
                "instantiates",
                "app.shapes.Circle.unit",
                "app.shapes.Circle",
                "src/Shapes.scala:15",
                "derived",
                0.4,
            ),
            (
                "instantiates",
                "app.util.MathUtil.main",
                "app.shapes.Circle",
                "src/MathUtil.scala:7",
                "derived",
                0.4,
            ),
        },
        {
            ("contains", "app.shapes.Circle", "app.shapes.Circle.area", "src/Shapes.scala:11"),
            ("contains", "app.shapes.Circle", "app.shapes.Circle.unit", "src/Shapes.scala:15"),
            ("contains", "app.shapes.Shape", "app.shapes.Shape.area", "src/Shapes.scala:6"),
            ("contains", "app.util.MathUtil", "app.util.MathUtil.main", "src/MathUtil.scala:6"),
            ("contains", "app.util.MathUtil", "app.util.MathUtil.square", "src/MathUtil.scala:4"),
            ("contains", "src/MathUtil.scala", "app.util.MathUtil", "src/MathUtil.scala:3"),
            ("contains", "src/Shapes.scala", "app.shapes.Circle", "src/Shapes.scala:10"),
            ("contains", "src/Shapes.scala", "app.shapes.Circle", "src/Shapes.scala:14"),
            ("contains", "src/Shapes.scala", "app.shapes.Point", "src/Shapes.scala:18"),
            ("contains", "src/Shapes.scala", "app.shapes.Shape", "src/Shapes.scala:5"),
        },
    ),
    "lua": (
        {
            ("file", "lib/shapes.lua", "lib/shapes.lua", 1, 19),
            ("file", "lib/util.lua", "lib/util.lua", 1, 11),
            ("function", "area", "lib/util.lua", 7, 9),
            ("function", "main", "lib/shapes.lua", 14, 17),
            ("method", "Circle.area", "lib/shapes.lua", 10, 12),
            ("method", "Circle.new", "lib/shapes.lua", 6, 8),
            ("method", "M.square", "lib/util.lua", 3, 5),
        },
        {
            ("calls_heuristic", "Circle.area", "M.square", "lib/shapes.lua:11", "derived", 0.6),
            ("calls_heuristic", "main", "Circle.area", "lib/shapes.lua:16", "derived", 0.4),
            ("calls_heuristic", "main", "Circle.new", "lib/shapes.lua:15", "derived", 0.6),
            ("calls_heuristic", "main", "area", "lib/shapes.lua:16", "derived", 0.4),
            ("imports", "lib/shapes.lua", "lib/util.lua", "lib/shapes.lua:1", "stated", 1.0),
        },
        {
            ("contains", "lib/shapes.lua", "Circle.area", "lib/shapes.lua:10"),
            ("contains", "lib/shapes.lua", "Circle.new", "lib/shapes.lua:6"),
            ("contains", "lib/shapes.lua", "main", "lib/shapes.lua:14"),
            ("contains", "lib/util.lua", "M.square", "lib/util.lua:3"),
            ("contains", "lib/util.lua", "area", "lib/util.lua:7"),
        },
    ),
    "bash": (
        {
            ("file", "bin/deploy.sh", "bin/deploy.sh", 1, 10),
            ("file", "bin/lib.sh", "bin/lib.sh", 1, 7),
            ("function", "build_all", "bin/lib.sh", 5, 7),
            ("function", "deploy", "bin/deploy.sh", 5, 8),
            ("function", "log", "bin/lib.sh", 1, 3),
        },
        {
            ("calls_heuristic", "bin/deploy.sh", "deploy", "bin/deploy.sh:10", "derived", 0.6),
            ("calls_heuristic", "build_all", "log", "bin/lib.sh:6", "derived", 0.6),
            ("calls_heuristic", "deploy", "build_all", "bin/deploy.sh:7", "derived", 0.6),
            ("calls_heuristic", "deploy", "log", "bin/deploy.sh:6", "derived", 0.6),
            ("imports", "bin/deploy.sh", "bin/lib.sh", "bin/deploy.sh:2", "stated", 1.0),
        },
        {
            ("contains", "bin/deploy.sh", "deploy", "bin/deploy.sh:5"),
            ("contains", "bin/lib.sh", "build_all", "bin/lib.sh:5"),
            ("contains", "bin/lib.sh", "log", "bin/lib.sh:1"),
        },
    ),
}


def _index(tmp_path: Path, lang: str) -> Path:
    root = tmp_path / lang
    shutil.copytree(TAGS / lang, root)
    config.init_project(root)
    res = indexer.build(config.load(root), no_vectors=True)
    assert res.status == "built" and res.warnings == []
    return root


@pytest.mark.parametrize("lang", LANGS)
def test_golden_nodes_and_edges_exactly(tmp_path: Path, lang: str) -> None:
    nodes, edges, struct = _graph(_index(tmp_path, lang))
    want_nodes, want_edges, want_struct = GOLDEN[lang]
    assert nodes == want_nodes
    assert edges - want_edges == set(), "unexpected edges"
    assert want_edges - edges == set(), "missing edges"
    assert struct == want_struct


def test_every_grammar_and_query_loads_offline() -> None:
    """tree-sitter-language-pack bundles each grammar (no download at run time) and each
    query compiles against it."""
    for lang in LANGS:
        entry = registry.get(lang)
        assert entry is not None and entry.extractor == registry.TAGS_EXTRACTOR
        assert entry.queries == (f"{lang}-tags.scm",)
        tstree.query(entry.grammar or lang, entry.queries[0])
        assert entry.include and all(g.startswith("**/*.") for g in entry.include)


def test_auto_selects_the_tags_languages_and_status_counts_them(tmp_path: Path) -> None:
    for lang in LANGS:
        shutil.copytree(TAGS / lang, tmp_path / lang)
    write(tmp_path, "notes.txt", "x\n")
    config.init_project(tmp_path)
    res = scan(config.load(tmp_path))
    assert {f.lang for f in res.files} == set(LANGS)
    assert res.not_selected == {".gitignore": 1, ".txt": 1}
    assert invoke("index", "--no-vectors", cwd=tmp_path).exit_code == 0
    cov = json.loads(invoke("status", "--json", cwd=tmp_path).stdout)["coverage"]
    files = {k: v["value"] for k, v in cov.items() if k.endswith(".files")}
    assert files == {f"lang.{lang}.files": 2.0 for lang in LANGS}
    # bash: deploy -> log, build_all; build_all -> log; the top-level `deploy "$@"`; 2
    # builtins (source is the import, echo)
    assert cov["lang.bash.calls.total"]["value"] == 5.0
    assert cov["lang.bash.calls.derived"]["value"] == 4.0
    assert cov["lang.bash.calls.external"]["value"] == 1.0


def test_a_name_match_stays_in_its_language_group(tmp_path: Path) -> None:
    """A tags-level use matches only declarations of its group (C and C++ share one), and
    a PHP or Python untyped call never lands on a tags-level declaration."""
    write(tmp_path, "a.rb", "def save\nend\n\ndef run\n  save\n  helper()\nend\n")
    write(tmp_path, "b.py", "def helper():\n    pass\n\n\ndef go(x):\n    x.save()\n")
    write(tmp_path, "c.php", "<?php\nfunction go($x) { $x->save(); }\n")
    write(tmp_path, "m.c", "int twice(int x) { return x * 2; }\n")
    write(tmp_path, "n.cpp", "int use() { return twice(2); }\n")
    config.init_project(tmp_path)
    assert indexer.build(config.load(tmp_path), no_vectors=True).status == "built"
    _nodes, edges, _s = _graph(tmp_path)
    assert edges == {
        ("calls_heuristic", "run", "save", "a.rb:5", "derived", 0.6),
        ("calls_heuristic", "use", "twice", "n.cpp:1", "derived", 0.6),
    }


def test_many_candidates_are_marked_ambiguous(tmp_path: Path) -> None:
    """Above ``resolve.max_heuristic_candidates`` (5) the edges carry ``heuristic_many / n``
    and the ``ambiguous`` mark, as the PHP name match does."""
    for i in range(6):
        write(tmp_path, f"m{i}.lua", "function T.run()\nend\n")
    write(tmp_path, "main.lua", "local function main()\n  T.run()\nend\n")
    config.init_project(tmp_path)
    assert indexer.build(config.load(tmp_path), no_vectors=True).status == "built"
    layout = config.Layout(tmp_path)
    g = GraphStore(layout.graph_db, readonly=True)
    try:
        rows = g.db.query("SELECT kind, confidence, props FROM edge WHERE kind LIKE 'calls%'")
    finally:
        g.close()
    assert len(rows) == 6
    for kind, conf, props in rows:
        assert kind == "calls_heuristic" and conf < 0.4
        assert json.loads(props) == {"ambiguous": True, "candidates": 6, "via": "name-match"}
