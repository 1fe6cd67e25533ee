"""Arguments line up with parameter positions, not with the names an entry defines
(issue 42): a destructured JavaScript parameter (``function run({cmd, opts}, extra)``,
``([x, y], z) =>``) binds the argument of its position to each of its names, and the next
position's argument to the next parameter; a rest parameter takes every argument from its
position on. End to end through ``flow`` and ``slice`` on fixtures/dataflow_params."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.flowhelp import indexed_copy
from tests.flowhelp import result as run

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "dataflow_params"
P = "src/params.js:"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(tmp_path_factory, FIXTURE, "dataflow_params")


def sinks(root: Path, source: str) -> set[str]:
    r = run(root, "flow", source=source, sink="shell", limit=50)
    return {p["sink"]["evidence"] for p in r["paths"]}


def test_each_argument_reaches_the_names_of_its_own_position(root: Path) -> None:
    # req.query.a is the first argument: both destructured names, never `extra` / `z`
    assert sinks(root, "req.query") == {P + "4", P + "5", P + "10"}
    # req.body.b is the second: `extra` / `z` (not the second destructured name), and
    # a rest parameter takes the third argument
    assert sinks(root, "req.body") == {P + "6", P + "11", P + "15"}


def test_the_argument_edge_names_the_parameter_of_its_position(root: Path) -> None:
    r = run(root, "flow", source="req.body", sink=P + "6")
    assert r["reaches"]
    edges = [(e["from"], e["to"], e["var"], e["kind"]) for e in r["paths"][0]["edges"]]
    assert (P + "21", P + "3", "extra", "argument") in edges
    s = run(root, "slice", path="src/params.js", line=6, direction="back", depth=1)
    assert [x["line"] for x in s["statements"]] == [3, 6, 18, 20, 21]
    opts = run(root, "slice", path="src/params.js", line=5, direction="back", depth=1)
    assert [x["line"] for x in opts["statements"]] == [3, 5, 18, 19, 21]


def reached(root: Path, source: str) -> set[str]:
    r = run(root, "flow", source=source, sink="any", limit=50)
    return {p["sink"]["evidence"] for p in r["paths"]}


def test_python_star_args_take_the_extra_positions_and_kwargs_the_extra_keywords(
    root: Path,
) -> None:
    """``run(1, 2, a, key=3, other=b)`` of ``def run(cmd, *args, key=None, **kw)``: ``a``
    goes to ``args`` (not the keyword-only ``key``), ``other=b`` to ``kw``."""
    assert reached(root, "request.args") == {"src/params.py:8"}
    assert reached(root, "request.form") == {"src/params.py:10"}


def test_go_blank_and_variadic_parameters_keep_their_positions(root: Path) -> None:
    """``run(db, 1, a, "x", b)`` of ``func run(db, _ int, q string, rest ...string) (n
    int)``: ``a`` goes to ``q`` (``_`` holds its position), ``b`` to ``rest``, never to the
    named result ``n``; the call itself is a wrapper sink (line 18)."""
    g = "src/params.go:"
    assert reached(root, g + "16") == {g + "9", g + "18"}
    assert reached(root, g + "17") == {g + "10", g + "18"}


def test_java_varargs_take_every_argument_from_their_position(root: Path) -> None:
    j = "src/Params.java:"
    assert reached(root, j + "11") == {j + "6", j + "13"}
    assert reached(root, j + "12") == {j + "7", j + "13"}
