"""bench/agent_cost.py's scoring and policies on a tiny fixture: what counts as seen, what an
answer cites, and the baseline and ragraf policies on the pilot (they must be able to fail:
a wrong truth is missed, a spent budget stops the policy)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench.agent_cost import (
    Item,
    Ragraf,
    Transcript,
    Tree,
    baseline,
    citations,
    code_blocks,
    enclosing_function,
    parse_item,
    ragraf_policy,
    text_citations,
)


def test_items_parse() -> None:
    assert parse_item("a/b.php:12") == Item("loc", path="a/b.php", lo=12, hi=12)
    assert parse_item("a/b.php:12-20") == Item("loc", path="a/b.php", lo=12, hi=20)
    assert parse_item("file:a/b.php") == Item("file", path="a/b.php")
    assert parse_item("name:wp_trash_post") == Item("name", name="wp_trash_post")
    assert str(parse_item("a/b.php:12-20")) == "a/b.php:12-20"


def test_seen_rules() -> None:
    place, span = parse_item("a.php:30"), parse_item("b.php:100-180")
    tr = Transcript([place, span, parse_item("file:c.php"), parse_item("name:charge")])
    tr.add("rg", "a.php:29:x\n", shown=[("a.php", 29, 29)])
    assert not tr.seen(place)  # the line next to it is not it
    tr.add("answer", "{}", cited=[("a.php", 1, 40)])
    assert not tr.seen(place)  # a 40-line citation does not locate a one-line place
    tr.add("answer", "{}", cited=[("a.php", 28, 31)])
    assert tr.seen(place)
    tr.add("answer", "{}", cited=[("b.php", 90, 190)])
    assert not tr.seen(span)  # longer than the place itself and than 12 lines
    tr.add("answer", "{}", cited=[("b.php", 150, 230)])
    assert tr.seen(span)
    assert not tr.seen(parse_item("file:c.php"))
    tr.add("answer", "{}", cited=[("c.php", 0, 0)])
    assert tr.seen(parse_item("file:c.php"))
    assert not tr.seen(parse_item("name:charge"))
    tr.add("report", "App\\Invoice::charged\n")
    assert not tr.seen(parse_item("name:charge"))
    tr.add("report", "App\\Invoice::charge\n")
    assert tr.done() and tr.recall() == 1.0
    assert tr.summary()["calls"] == 8 and tr.summary()["bytes"] == tr.bytes() > 0


def test_budget_stops() -> None:
    tr = Transcript([parse_item("a.php:1")], max_calls=2)
    tr.add("rg", "")
    assert not tr.finished()
    tr.add("rg", "")
    assert tr.finished() and tr.summary()["budget_spent"]


def test_citations_of_an_answer() -> None:
    answer = {
        "target": [{"path": "t.php", "start_line": 1, "end_line": 9}],
        "stated": [
            {"symbol": {"path": "s.php", "start_line": 10, "end_line": 40}, "evidence": "s.php:12"},
            {"path": "u.php", "line": 62, "end_line": 63},
        ],
        "files": ["src/x.py", "not a path"],
    }
    files = frozenset({"src/x.py"})
    got = list(citations(answer, ("target",), files))
    assert got == [("s.php", 10, 40), ("s.php", 12, 12), ("u.php", 62, 63), ("src/x.py", 0, 0)]
    assert ("t.php", 1, 9) in list(citations(answer, (), files))


def test_citations_of_codegraph_text() -> None:
    text = (
        'Impact of changing "Layer":\n\n'
        "lib/router/index.js\n  variable    Layer:17\n  function    route:502\n\n"
        "- `Route` (lib/router/route.js:43) — 1 caller\n"
        "**`lib/view.js`** — View(function)\n\n```javascript\n52\tfunction View(name) {\n"
        "53\t  this.name = name;\n\n... (gap) ...\n\n60\t}\n```\n"
    )
    files = frozenset({"lib/router/index.js", "lib/router/route.js", "lib/view.js"})
    cited = text_citations(text, Path("/nowhere"), files)
    assert ("lib/router/index.js", 0, 0) in cited
    assert ("lib/router/index.js", 502, 502) in cited
    assert ("lib/router/route.js", 43, 43) in cited
    assert code_blocks(text) == [("lib/view.js", 52, 53), ("lib/view.js", 60, 60)]


def test_enclosing_function() -> None:
    lines = ["<?php", "class A {", "  function f($x) {", "    $y = $x;", "    q($y);", "  }", "}"]
    assert enclosing_function(lines, 5) == "f"
    assert enclosing_function(["<?php", "$a = 1;", "q($a);"], 3) is None


@pytest.fixture
def pilot_tree(indexed_pilot: Path) -> Path:
    subprocess.run(["git", "init", "-q"], cwd=indexed_pilot, check=True)
    return indexed_pilot


def _task(**kw: object) -> dict[str, object]:
    return {"id": "t", "corpus": "pilot", **kw}


@pytest.mark.slow
def test_baseline_callers_and_dataflow_on_the_pilot(pilot_tree: Path) -> None:
    tree = Tree(pilot_tree, "php")
    truth = [parse_item("index.php:12")]
    tr = Transcript(truth)
    baseline(_task(family="callers", symbol="App\\Billing\\Invoice::charge"), tree, tr)
    assert tr.recall() == 1.0 and tr.calls[0]["tool"] == "rg" and len(tr.calls) == 1
    # a place no search shows is missed, and the policy stops at its budget
    wrong = Transcript([parse_item("src/Billing/Report.php:9")], max_calls=3)
    baseline(_task(family="callers", symbol="App\\Billing\\Invoice::charge"), tree, wrong)
    assert wrong.recall() == 0.0 and len(wrong.calls) <= 3
    # data flow: $_POST['invoice_id'] at index.php:11 reaches Invoice::find's query
    flow = Transcript([parse_item("index.php:11")])
    at = "src/Billing/Invoice.php:25"
    baseline(_task(family="dataflow", at=at), tree, flow)
    assert flow.recall() == 1.0 and any(c["tool"] == "read" for c in flow.calls)


@pytest.mark.slow
def test_ragraf_policy_on_the_pilot(pilot_tree: Path) -> None:
    tree = Tree(pilot_tree, "php")
    rg = Ragraf(pilot_tree, tree.fileset())
    try:
        tr = Transcript([parse_item("index.php:12")])
        ragraf_policy(_task(family="callers", symbol="App\\Billing\\Invoice::charge"), rg, tree, tr)
        assert [c["tool"] for c in tr.calls] == ["ragraf_index_status", "ragraf_callers"]
        assert tr.recall() == 1.0 and tr.summary()["session_start_bytes"] > 0
        # a trailing part in another language's spelling is found at once (issue 40)
        tr = Transcript([parse_item("index.php:12")])
        ragraf_policy(_task(family="callers", symbol="Invoice.charge"), rg, tree, tr)
        assert [c["tool"] for c in tr.calls] == ["ragraf_index_status", "ragraf_callers"]
        assert tr.recall() == 1.0
        # a name the index does not know: the agent looks it up and asks again
        tr = Transcript([parse_item("index.php:12")])
        ragraf_policy(_task(family="callers", symbol="Invoice.chrage"), rg, tree, tr)
        assert "ragraf_symbol" in [c["tool"] for c in tr.calls] and tr.recall() == 1.0
        miss = Transcript([parse_item("src/Billing/Report.php:9")])
        ragraf_policy(
            _task(family="callers", symbol="App\\Billing\\Invoice::charge"), rg, tree, miss
        )
        assert miss.recall() == 0.0
    finally:
        rg.reset()


def test_op_sizes_table() -> None:
    from bench.agent_cost import op_sizes

    report = {
        "tasks": [{"ragraf": {"call_bytes": [["ragraf_callers", 10], ["ragraf_callers", 30]]}}]
    }
    assert op_sizes(report)[-1] == "| ragraf | ragraf_callers | 2 | 30 | 30 | 40 |"


def test_citations_of_a_brief_answer() -> None:
    """A brief answer says a path once for a group of items and lists an item's lines."""
    answer = {
        "stated": [{"path": "s.php", "start_line": 10, "end_line": 40, "lines": [12, 30]}],
        "sites": [{"path": "g.php", "sites": [{"line": 5}, {"line": 9, "path": None}]}],
        "hard": {"symbols": [{"path": "h.php", "symbols": [{"start_line": 3, "end_line": 8}]}]},
    }
    assert list(citations(answer)) == [
        ("s.php", 10, 40),
        ("s.php", 12, 12),
        ("s.php", 30, 30),
        ("g.php", 5, 5),
        ("h.php", 3, 8),
    ]
