"""No silent "no callers" (issue 11): every callers / references / impact answer about
a function or method accounts for every call line of its name — attached to it,
unresolved (with the reason), external (a builtin or vendor class) or attached
elsewhere — on fixtures/calls, fixtures/pilot and fixtures/includes, against an
independent count of the call lines in the sources."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragraf import config, facade
from ragraf.kinds import CALLABLE
from ragraf.store.graph import GraphStore
from tests.helpers import PILOT, REPO, assert_lines, indexed_fixture, invoke, write

CALLS = REPO / "fixtures" / "calls"


@pytest.fixture(scope="module")
def calls(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(CALLS, tmp_path_factory.mktemp("acc") / "calls")


@pytest.fixture(scope="module")
def includes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(
        REPO / "fixtures" / "includes", tmp_path_factory.mktemp("acc") / "includes"
    )


@pytest.fixture(scope="module")
def types_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(REPO / "fixtures" / "types", tmp_path_factory.mktemp("acc") / "types")


@pytest.fixture(scope="module")
def pilot_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(PILOT, tmp_path_factory.mktemp("acc") / "pilot")


def _callers(root: Path, fqn: str, **kw: object) -> dict:  # type: ignore[type-arg]
    return facade.run_op(root, "callers", {"fqn": fqn, "detail": "full", **kw})["result"]


def test_calls_on_builtin_classes_are_external_never_a_name_match(calls: Path) -> None:
    r = _callers(calls, "Calls\\Http\\Header::getMessage")
    assert [(i["symbol"]["fqn"], i["evidence"][0]["evidence"]) for i in r["stated"]] == [
        ("Calls\\Http\\Controller::handle", "src/Http/Controller.php:24")
    ]
    # `catch (Exception $e) { $e->getMessage(); }` is not a caller; a union with a builtin
    # class may be: derived, never stated
    assert [(i["symbol"]["fqn"], i["evidence"][0]["via"]) for i in r["derived"]] == [
        ("Calls\\Http\\Controller::report", "union")
    ]
    assert r["unresolved"] == {
        "total": 0,
        "by_reason": {},
        "sites": [],
        "external": {"total": 2, "by_class": {"Exception": 1, "RuntimeException": 1}},
        "elsewhere": 1,  # $mail->getMessage(): Mail's
        "dynamic": {  # `$handler->$method()` on an object of a class not known: it may
            "total": 1,
            "by_form": {"method": 1},
            "sites": [
                {
                    "evidence": "src/Http/Controller.php:36",
                    "path": "src/Http/Controller.php",
                    "line": 36,
                    "name": "*",
                    "form": "method",
                    "reason": "dynamic_name",
                    "detail": None,
                    "from": "Calls\\Http\\Controller::dispatch",
                    "text": {"untrusted": "$handler->$method();", "truncated": False},
                }
            ],
        },
    }


def test_a_member_no_class_declares_is_listed_with_its_reason(calls: Path) -> None:
    env = facade.run_op(calls, "callers", {"fqn": "Calls\\Http\\Mail::missing", "detail": "full"})
    r = env["result"]
    assert (r["stated"], r["derived"]) == ([], [])
    [site] = r["unresolved"]["sites"]
    assert site == {
        "evidence": "src/Http/Controller.php:13",
        "path": "src/Http/Controller.php",
        "line": 13,
        "name": "missing",
        "form": "method",
        "reason": "unknown_member",
        "detail": "Calls\\Http\\Header",
        "from": "Calls\\Http\\Controller::handle",
        "text": {"untrusted": "$h->missing();", "truncated": False},
    }
    assert r["unresolved"]["total"] == 1
    assert any("1 call sites of missing() were not attached" in lim for lim in env["limits"])


def test_many_same_name_methods_are_kept_as_ambiguous_edges(calls: Path) -> None:
    with GraphStore(config.Layout(calls).graph_db, readonly=True) as g:
        edges = [
            e
            for e in g.edges_with_evidence_in("rev-0001", "src/Filters/Pipeline.php")
            if e.evidence_line == 11
        ]
    assert len(edges) == 9  # eight filters and the interface
    assert {(e.kind, e.provenance, e.confidence) for e in edges} == {
        ("calls_heuristic", "derived", 0.1111)
    }
    assert {e.props for e in edges} == {
        json.dumps({"ambiguous": True, "candidates": 9, "via": "name-match"}, sort_keys=True)
    }


def test_above_the_ceiling_a_site_is_unresolved_not_dropped(tmp_path: Path) -> None:
    root = indexed_fixture(CALLS, tmp_path / "calls", "resolve:\n  max_ambiguous_candidates: 10\n")
    r = _callers(root, "Calls\\Http\\UsersHandler::checkAccess")
    assert (r["stated"], r["derived"]) == ([], [])
    assert r["unresolved"]["by_reason"] == {"too_many_candidates": 1}
    [site] = r["unresolved"]["sites"]
    assert (site["evidence"], site["detail"]) == ("src/Http/Controller.php:35", "11")


def test_an_interface_method_has_its_implementations_callers(calls: Path) -> None:
    r = _callers(calls, "Calls\\Filters\\FilterInterface::filterItem")
    assert [i["symbol"]["fqn"] for i in r["stated"]] == ["Calls\\Filters\\Pipeline::typed"]
    assert [(i["symbol"]["fqn"], i["confidence"]) for i in r["derived"]] == [
        ("Calls\\Filters\\Pipeline::concrete", 0.6),  # $u = new UpperFilter: dispatch
        ("Calls\\Filters\\Pipeline::run", 0.1111),  # one of nine by name
    ]
    assert r["unresolved"]["elsewhere"] == 0


def test_the_text_answer_says_what_it_could_not_attach(calls: Path) -> None:
    r = invoke("-C", calls, "query", "callers", "Calls\\Http\\Mail::missing")
    assert r.exit_code == 0
    assert_lines(
        r.stdout,
        [
            "0 callers: 0 stated, 0 derived; may also call it: 1 unresolved same-name call"
            " sites, 1 dynamic call sites (name computed at run time)",
            "stated (proven by the code): 0",
            "derived (inferred, with a confidence): 0",
            "and 1 unresolved same-name call sites (1 unknown member):",
            "  src/Http/Controller.php:13  unknown member Calls\\Http\\Header",
            "      $h->missing();",
            "and 1 call sites whose callee is computed at run time may call it:",
            "  src/Http/Controller.php:36  method",
            "      $handler->$method();",
            "-- from the index rev-0001 (with data flow)",
            "-- callers: 1 call sites of missing() were not attached to any declaration"
            " (result.unresolved): they may call this one",
            "-- callers: 1 call sites whose callee is computed at run time (its name not known,"
            " or a pattern it matches) may call it (result.unresolved.dynamic)",
        ],
    )
    r = invoke("-C", calls, "query", "callers", "Calls\\Http\\Header::getMessage")
    assert (
        "not counted: 2 same-name calls on builtin or vendor classes"
        " (Exception 1, RuntimeException 1)" in r.stdout
    )


# -- functions passed by name --------------------------------------------------------------
CALLBACKS = {
    "app_error_handler": "set_error_handler('app_error_handler');",  # a PHP builtin's
    "on_child": "pcntl_signal(SIGCHLD, 'on_child');",
    "by_length": "usort($words, 'by_length');",
    "shout": "$loud = array_map('shout', $words);",  # not get_setting('shout'): no callable
    "boot_late": "add_action('init', 'boot_late');",  # @param callable $callback
    "Calls\\Hooks\\Registry::flush": "add_action('init', 'Calls\\Hooks\\Registry::flush');",
}


@pytest.mark.parametrize("fqn", sorted(CALLBACKS))
def test_a_string_callable_is_a_stated_reference(calls: Path, fqn: str) -> None:
    r = facade.run_op(calls, "references", {"fqn": fqn, "detail": "full"})["result"]
    assert [
        (s["kind"], s["provenance"], s.get("callable"), s["symbol"]["fqn"], s["text"]["untrusted"])
        for s in r["sites"]
    ] == [("references", "stated", True, "boot", CALLBACKS[fqn])]


def test_a_method_named_by_a_string_a_dispatcher_calls(calls: Path) -> None:
    for method, line in (("persist", 20), ("vacuum", 21)):
        r = _callers(calls, f"Calls\\Hooks\\Store::{method}")
        assert r["stated"] == []
        [d] = r["derived"]
        assert d["symbol"]["fqn"] == "Calls\\Hooks\\Registry::save"
        [ev] = d["evidence"]
        assert (ev["evidence"], ev["via"], ev["through"], ev["confidence"]) == (
            f"src/Hooks/Registry.php:{line}",
            "dispatcher",
            "Calls\\Hooks\\Registry::run",
            0.4,
        )


# -- the contract ---------------------------------------------------------------------------
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|#[^\n]*", re.S)
_STRING = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", re.S)


def _code_lines(text: str) -> list[str]:
    """The source with comments and string contents blanked, line numbers kept."""

    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    out = []
    pos = 0
    # strings before comments: a '#' or '//' inside a string is not a comment
    token = re.compile(_STRING.pattern + "|" + _COMMENT.pattern, re.S)
    for m in token.finditer(text):
        out.append(text[pos : m.start()])
        out.append(blank(m))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out).split("\n")


def _grep_call_lines(root: Path, name: str, method: bool) -> set[tuple[str, int]]:
    """Lines calling ``name`` outside comments and strings (declarations excluded)."""
    call = (
        re.compile(rf"(?:->|::)\s*{re.escape(name)}\s*\(", re.I)
        if method
        else re.compile(rf"(?<![\w$>:\\]){re.escape(name)}\s*\(", re.I)
    )
    decl = re.compile(rf"\bfunction\s+&?\s*{re.escape(name)}\s*\(", re.I)
    found = set()
    for p in sorted(root.rglob("*.php")):
        if ".ragraf" in p.parts:
            continue
        for i, line in enumerate(_code_lines(p.read_text(encoding="utf-8")), 1):
            if call.search(decl.sub("", line)):
                found.add((p.relative_to(root).as_posix(), i))
    return found


BY_VALUE = {"variable-function", "call_user_func", "dispatcher"}


@pytest.mark.parametrize("which", ["calls", "pilot", "types", "includes"])
def test_every_call_line_of_a_name_is_accounted_for(
    which: str, calls: Path, pilot_root: Path, types_root: Path, includes: Path
) -> None:
    roots = {"calls": calls, "pilot": pilot_root, "types": types_root, "includes": includes}
    root = roots[which]
    with GraphStore(config.Layout(root).graph_db, readonly=True) as g:
        rev = "rev-0001"
        callables = [n for kind in CALLABLE for n in g.nodes_of_kind(rev, kind) if n.path]
    assert len(callables) > 10
    checked = 0
    for n in callables:
        if n.name.startswith("__"):
            continue  # constructors and magic methods are called by `new` and the engine
        r = facade.run_op(
            root, "references", {"node_id": n.node_id, "limit": 500, "detail": "full"}
        )["result"]
        assert len(r["sites"]) == r["total"], n.fqn  # the whole list: every site attached
        # a page of one holds one site; the totals and the accounting still count everything
        one = facade.run_op(
            root, "references", {"node_id": n.node_id, "limit": 1, "detail": "full"}
        )["result"]
        assert len(one["sites"]) == min(1, r["total"])
        assert (one["total"], one["counts"], one["unresolved"]) == (
            r["total"],
            r["counts"],
            r["unresolved"],
        )
        attached = {  # calls by name: not `$fn()` / call_user_func (no name to grep)
            (s["path"], s["line"])
            for s in r["sites"]
            if s["kind"] in ("calls", "calls_heuristic") and s.get("via") not in BY_VALUE
        }
        u = r["unresolved"]
        accounted = len(attached) + u["total"] + u["external"]["total"] + u["elsewhere"]
        grep = _grep_call_lines(root, n.name, n.kind == "method")
        assert accounted == len(grep), (n.fqn, sorted(grep), sorted(attached), u)
        checked += 1
    assert checked > 10


INVOKABLE = """<?php
namespace App;

class Greeter
{
    public function __invoke(string $name): string
    {
        return "hi $name";
    }
}

function run(Greeter $g): string
{
    $h = new Greeter();
    $x = $h('a');
    return $g('b') . $x;
}

function later(): int
{
    $cb = function (int $n): int { return $n; };
    $f = 'App\\run';
    $f(new Greeter());
    return $cb(1);
}
"""


def test_calling_an_object_calls_its_invoke(tmp_path: Path) -> None:
    """``$h('a')`` on a variable holding a ``Greeter`` (``new``, a declared parameter type)
    is a stated call of ``Greeter::__invoke``; a closure or a function name in a variable
    is not (the variable function keeps its own derived edge)."""
    write(tmp_path / "src", "src/a.php", INVOKABLE)
    root = indexed_fixture(tmp_path / "src", tmp_path / "inv")
    r = _callers(root, "App\\Greeter::__invoke")
    assert [
        (i["symbol"]["fqn"], [e["evidence"] for e in i["evidence"]], i["provenance"])
        for i in r["stated"] + r["derived"]
    ] == [("App\\run", ["src/a.php:15", "src/a.php:16"], "stated")]
    assert r["unresolved"]["total"] == 0
    later = _callers(root, "App\\run")
    assert [(i["symbol"]["fqn"], i["evidence"][0]["via"]) for i in later["derived"]] == [
        ("App\\later", "variable-function")
    ]
