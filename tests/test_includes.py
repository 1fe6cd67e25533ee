"""Functions declared more than once, told apart by the include graph, and include paths
built from constants (issue 11; ``ragraf.indexing.resolve.reach``), on fixtures/includes:
exact edges, with the reason each one carries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragraf import config
from ragraf.indexing.resolve.reach import Loading
from ragraf.store.graph import GraphStore
from tests.helpers import REPO, indexed_fixture

INCLUDES = REPO / "fixtures" / "includes"
REV = "rev-0001"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(INCLUDES, tmp_path_factory.mktemp("inc") / "includes")


def _edges(root: Path, kinds: tuple[str, ...]) -> list[tuple[object, ...]]:
    """(evidence, kind, provenance, target path, props) of every edge of these kinds."""
    out = []
    with GraphStore(config.Layout(root).graph_db, readonly=True) as g:
        for f in g.files(REV):
            for e in g.edges_with_evidence_in(REV, f.path):
                if e.kind not in kinds:
                    continue
                dst = g.node(REV, e.dst)
                assert dst is not None
                props = json.loads(e.props) if e.props else {}
                props.pop("include", None)
                out.append((f"{f.path}:{e.evidence_line}", e.kind, e.provenance, dst.path, props))
    return sorted(out, key=str)


def test_calls_of_a_function_declared_twice_follow_the_include_graph(root: Path) -> None:
    two = {"declarations": 2}
    dup = {"candidates": 2, "via": "duplicate-function"}
    assert _edges(root, ("calls", "calls_heuristic")) == sorted(
        [
            # admin/includes/plugin.php: nothing includes it any more (INC is 'lib'): it runs
            # where the unresolved `include $plugin` does, in index.php's requests
            ("admin/includes/plugin.php:5", "calls", "stated", "lib/plugin.php",
             {**two, "chosen_by": "unresolved-include"}),
            # the front controller's own includes load options.php, not the stubs
            ("index.php:26", "calls", "stated", "lib/options.php",
             {**two, "chosen_by": "file-includes"}),
            # cache-compat.php's cache_add is a function_exists fallback
            ("index.php:27", "calls", "stated", "lib/cache.php",
             {**two, "chosen_by": "file-includes", "fallbacks_skipped": 1}),
            # both poly() are fallbacks: either may be the one
            ("index.php:28", "calls_heuristic", "derived", "lib/poly-a.php",
             {**dup, "why": "file-includes"}),
            ("index.php:28", "calls_heuristic", "derived", "lib/poly-b.php",
             {**dup, "why": "file-includes"}),
            ("index.php:29", "calls", "stated", "index.php", {}),
            # included inside boot_extra(), which index.php calls
            ("lib/extra.php:5", "calls", "stated", "lib/plugin.php",
             {**two, "chosen_by": "includers"}),
            # loaded by both entries: the stub or the real one
            ("lib/loader.php:5", "calls_heuristic", "derived", "lib/noop.php",
             {**dup, "why": "includers"}),
            ("lib/loader.php:5", "calls_heuristic", "derived", "lib/options.php",
             {**dup, "why": "includers"}),
            ("lib/page.php:5", "calls", "stated", "lib/options.php",
             {**two, "chosen_by": "includers"}),
            ("plugins/hello.php:5", "calls", "stated", "lib/options.php",
             {**two, "chosen_by": "unresolved-include"}),
            ("plugins/hello.php:5", "calls", "stated", "lib/plugin.php",
             {**two, "chosen_by": "unresolved-include"}),
            ("scripts/load.php:7", "calls", "stated", "lib/noop.php",
             {**two, "chosen_by": "file-includes"}),
            ("tools/cli.php:3", "calls", "stated", "lib/plugin.php",
             {**two, "chosen_by": "unresolved-include"}),
            # nothing loads old/: the include graph tells nothing
            ("tools/cli.php:4", "calls_heuristic", "derived", "old/one.php",
             {**dup, "why": "no-include-path"}),
            ("tools/cli.php:4", "calls_heuristic", "derived", "old/two.php",
             {**dup, "why": "no-include-path"}),
        ],
        key=str,
    )  # fmt: skip


def test_include_paths_read_constants_with_one_literal_value(root: Path) -> None:
    dyn = {"via": "dynamic-include"}
    inc = {"constants": {"INC": "lib"}}
    assert _edges(root, ("imports",)) == sorted(
        [
            # ROOT is computed (a wildcard); INC = 'lib' keeps admin/includes/plugin.php out
            ("index.php:6", "imports", "derived", "lib/options.php", {**dyn, **inc}),
            ("index.php:7", "imports", "derived", "lib/plugin.php", {**dyn, **inc}),
            # every part known: a literal path
            ("index.php:8", "imports", "stated", "lib/cache.php", inc),
            ("index.php:9", "imports", "stated", "lib/cache-compat.php", {}),
            ("index.php:10", "imports", "stated", "lib/poly-a.php", {}),
            ("index.php:11", "imports", "stated", "lib/poly-b.php", {}),
            ("index.php:12", "imports", "stated", "lib/loader.php", {}),
            ("index.php:13", "imports", "stated", "lib/page.php", {}),
            # SKIN has two values: a wildcard
            ("index.php:14", "imports", "derived", "skins/dark/skin.php", {**dyn, "candidates": 2}),
            ("index.php:14", "imports", "derived", "skins/light/skin.php",
             {**dyn, "candidates": 2}),
            # THEME's one value names no file: the constant falls back to a wildcard
            ("index.php:15", "imports", "derived", "themes/plain/theme.php",
             {**dyn, "constants_unmatched": {"THEME": "themes/none"}}),
            ("index.php:19", "imports", "stated", "lib/extra.php", {}),
            ("scripts/load.php:4", "imports", "stated", "lib/noop.php", {}),
            ("scripts/load.php:5", "imports", "stated", "lib/loader.php", {}),
        ],
        key=str,
    )  # fmt: skip


def test_guards_and_constant_values_are_kept_as_props(root: Path) -> None:
    with GraphStore(config.Layout(root).graph_db, readonly=True) as g:
        nodes = [n for f in g.files(REV) for n in g.nodes_in_file(REV, f.path)]
    guarded = sorted(
        (n.path, n.fqn, json.loads(n.props)["guarded"])
        for n in nodes
        if n.kind == "function" and "guarded" in json.loads(n.props or "{}")
    )
    assert guarded == [
        ("lib/cache-compat.php", "cache_add", "function_exists"),
        ("lib/poly-a.php", "poly", "function_exists"),
        ("lib/poly-b.php", "poly", "function_exists"),  # `if (...) : ... endif;`
    ]
    values = sorted(
        (n.path, n.fqn, json.loads(n.props or "{}").get("value"))
        for n in nodes
        if n.kind == "constant"
    )
    assert values == [
        ("index.php", "INC", "lib"),
        ("index.php", "ROOT", None),  # __DIR__ . '/': computed
        ("index.php", "THEME", "themes/none"),  # const THEME = '...'
        ("scripts/load.php", "SKIN", "skins/dark"),
        ("skins/dark/skin.php", "SKIN", "skins/light"),
    ]


def test_loading_is_a_fixpoint_over_cycles() -> None:
    # a.php and b.php include each other (inside functions); a.php's file-level include
    # of real.php fixes f there, b.php reaches f only through a.php
    got = Loading(
        ["a.php", "b.php", "real.php", "stub.php", "entry.php"],
        [
            ("a.php", "b.php", False),
            ("b.php", "a.php", False),
            ("a.php", "real.php", True),
            ("entry.php", "stub.php", True),
        ],
        [],
        [["f@real", "f@stub"]],
        {"f@real": "real.php", "f@stub": "stub.php"},
        set(),
    )
    assert got.reachable("a.php", ["f@real", "f@stub"]) == (["f@real"], "file-includes")
    assert got.reachable("b.php", ["f@real", "f@stub"]) == (["f@real"], "includers")
    assert got.reachable("entry.php", ["f@real", "f@stub"]) == (["f@stub"], "file-includes")
    assert got.reachable("nowhere.php", ["f@real", "f@stub"]) == (
        ["f@real", "f@stub"],
        "no-include-path",
    )
