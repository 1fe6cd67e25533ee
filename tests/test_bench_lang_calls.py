"""bench/lang_calls.py scores for real: the enclosing declarations of call sites (tree-sitter,
syntax only), which listed callers cover which sites, recall and precision, the oracle's
check against its corpus and the name-form verdicts, on the small fixtures/lang_calls; and
the committed oracles hold what issue 40 asks (>= 20 targets per language, a note each)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.lang_calls import (
    ORACLES,
    Caller,
    Enclosures,
    Site,
    covers,
    form_outcome,
    name_forms,
    offered,
    oracle_sites,
    score,
)
from tests.helpers import REPO

ROOT = REPO / "fixtures" / "lang_calls"


def site(lang: str, path: str, line: int) -> Site:
    return Site(path, line, tuple(Enclosures(ROOT, lang).chain(path, line)))


def test_enclosures_name_the_declarations_around_a_line() -> None:
    enc = Enclosures(ROOT, "python")
    assert [e.name for e in enc.chain("shop.py", 13)] == ["of"]
    of = enc.chain("shop.py", 13)[0]
    assert (of.start, of.head) == (9, 12)  # decorated: starts at the decorator, named below
    assert [e.name for e in enc.chain("shop.py", 17)] == ["inner", "checkout"]
    assert [e.name for e in enc.chain("shop.py", 22)] == ["<module>"]
    js = Enclosures(ROOT, "javascript")
    assert [e.name for e in js.chain("shop.js", 5)] == ["add"]  # function add
    assert [e.name for e in js.chain("shop.js", 10)] == ["<anon>", "count"]  # cart.count = fn


def test_a_caller_covers_the_sites_it_encloses() -> None:
    in_of = site("python", "shop.py", 13)
    in_inner = site("python", "shop.py", 17)
    top = site("python", "shop.py", 22)
    at_decorator = Caller("shop.py", "of", "method", 9, 13)
    at_def = Caller("shop.py", "of", "method", 12, 13)
    assert covers(at_decorator, in_of) and covers(at_def, in_of)
    outer = Caller("shop.py", "checkout", "method", 15, 19)
    assert covers(outer, in_inner)  # a call in a nested function: the outer one names it too
    assert not covers(outer, in_of)  # another function of the same class
    assert not covers(Caller("other.py", "of", "method", 9, 13), in_of)
    file_node = Caller("shop.py", "shop.py", "file", 1, 22)
    assert covers(file_node, top) and not covers(file_node, in_of)
    assert covers(Caller("shop.py", "TAX", "constant", 22, 22), top)
    js_anon = site("javascript", "shop.js", 10)
    assert covers(Caller("shop.js", "count", "function", 8, 13), js_anon)
    assert covers(Caller("shop.js", "shop.js", "file", 1, 13), site("javascript", "shop.js", 2))


def test_score_counts_recall_over_sites_and_precision_over_callers() -> None:
    sites = [site("python", "shop.py", n) for n in (13, 17, 22)]
    callers = [
        Caller("shop.py", "of", "method", 12, 13),
        Caller("shop.py", "checkout", "method", 15, 19),
        Caller("shop.py", "total", "function", 4, 5),  # encloses no site: wrong
    ]
    got = score(sites, callers)
    assert (got["sites"], got["covered"], got["listed"], got["correct"]) == (3, 2, 3, 2)
    assert got["missed"] == ["shop.py:22 <module>"]
    assert got["wrong"] == ["shop.py:4 total"]
    assert score(sites, [])["covered"] == 0


def test_the_oracle_check_fails_on_a_site_that_is_not_in_the_caller_it_names() -> None:
    oracle = {
        "language": "python",
        "targets": [
            {"id": "total", "path": "shop.py", "line": 4, "name": "total", "sites": []},
        ],
    }
    oracle["targets"][0]["sites"] = ["shop.py:13 of", "shop.py:17 inner", "shop.py:22 <module>"]
    assert [s.line for s in oracle_sites(oracle, ROOT)["total"]] == [13, 17, 22]
    oracle["targets"][0]["sites"] = ["shop.py:13 checkout"]
    with pytest.raises(SystemExit, match="is in of, not checkout"):
        oracle_sites(oracle, ROOT)
    oracle["targets"][0].update(line=5, sites=[])
    with pytest.raises(SystemExit, match="does not declare total"):
        oracle_sites(oracle, ROOT)


def test_name_forms_and_their_verdicts() -> None:
    t = {"name": "request", "owner": "Session", "module": "requests.sessions"}
    forms = name_forms("python", t)
    assert forms["import.path"] == "requests.sessions.Session.request"
    assert forms["module.Owner.name"] == "sessions.Session.request"
    assert forms["Owner#name"] == "Session#request" and forms["name"] == "request"
    go = name_forms(
        "go", {"name": "NewRoute", "owner": "Router", "module": "github.com/gorilla/mux"}
    )
    assert go["module.Owner.name"] == "mux.Router.NewRoute"
    java = name_forms(
        "java", {"name": "str", "owner": "Starlark", "module": "net.starlark.java.eval"}
    )
    assert java["pkg.Class#method"] == "net.starlark.java.eval.Starlark#str"
    assert offered({"target": [{"node_id": "a"}, {"node_id": "b"}]}) == ["a", "b"]
    assert offered({"matches": [{"node_id": "a"}]}) == ["a"]
    assert offered({"target": None, "nearest": ["x"]}) == []
    assert form_outcome(["a"], "a") == "resolves"
    assert form_outcome(["a", "b"], "b") == "ambiguous"
    assert form_outcome(["b"], "a") == "wrong"
    assert form_outcome([], "a") == "not_found"


def test_the_committed_oracles_hold_twenty_targets_per_language_with_a_note_each() -> None:
    per_lang: dict[str, int] = {}
    for path in sorted(Path(ORACLES).glob("*.json")):
        o = json.loads(path.read_text("utf-8"))
        assert {"registry", "name", "version", "fetch", "root"} <= set(o["package"]), path
        for t in o["targets"]:
            assert t["how"] and t["path"] and t["line"] > 0 and "sites" in t, (path, t["id"])
            for s in t["sites"]:
                where = s.split(" ")[0]
                assert where.rpartition(":")[2].isdigit(), (path, t["id"], s)
        ids = [t["id"] for t in o["targets"]]
        assert len(ids) == len(set(ids)), path
        per_lang[o["language"]] = per_lang.get(o["language"], 0) + len(ids)
    assert set(per_lang) == {"python", "javascript", "typescript", "go", "java"}
    assert min(per_lang.values()) >= 20, per_lang
