"""Plain words in text answers (issue 43, item 3): search hits as name, place and one-line
reason (the measures under --explain and in --json), a glossary of the terms in `ragraf
--help`, the calls' coverage that says what the rest is, no schema warning for a
repository without SQL, and sized lists that say how to get the rest."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragraf import config
from ragraf.cli import glossary
from ragraf.cli.render import calls_line
from ragraf.indexing import indexer
from tests.helpers import copy_pilot, invoke, write


@pytest.fixture(scope="module")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_pilot(tmp_path_factory.mktemp("plain") / "pilot")
    config.init_project(root)
    indexer.build(config.load(root))
    return root


FOOT = "-- from the index rev-0001 (with data flow)\n"
LEXICAL = "-- vectors disabled for this revision (--no-vectors): search is lexical\n"


def test_a_search_hit_is_its_place_name_and_why_in_one_line(pilot: Path) -> None:
    r = invoke("-C", pilot, "query", "search", "invoice total", "--limit", "3", check=True)
    assert r.stdout == (
        "src/Billing/Invoice.php:41-44  method App\\Billing\\Invoice::total"
        "  (its name is the query; its text has invoice, total)\n"
        "src/Billing/Report.php:6-22  method App\\Billing\\Report::monthly"
        "  (its text has invoice, total)\n"
        "src/Billing/Model.php:15-15  method App\\Billing\\Model::total"
        "  (its name has words of the query; its text has total)\n" + FOOT + LEXICAL
    )
    env = json.loads(
        invoke("-C", pilot, "query", "search", "invoice total", "--json", check=True).stdout
    )
    hit = env["result"]["hits"][0]
    assert hit["reason"] == "its name is the query; its text has invoice, total"
    assert "rerank" not in hit["why"]  # brief: the measures are in detail full (issue 45)
    full = invoke(
        "-C", pilot, "query", "search", "invoice total", "--json", "--detail", "full", check=True
    )
    assert json.loads(full.stdout)["result"]["hits"][0]["why"]["rerank"]["rrf"] == 1.0


def test_explain_shows_the_measures_of_each_hit(pilot: Path) -> None:
    r = invoke("-C", pilot, "query", "search", "invoice total", "--limit", "1", "--explain")
    lines = r.stdout.splitlines()
    assert lines[0] == (
        "src/Billing/Invoice.php:41-44  method App\\Billing\\Invoice::total"
        "  (its name is the query; its text has invoice, total)"
    )
    assert re.fullmatch(r"    score [\d.]+: fts_terms=invoice/total, lexical_rank=1, .*", lines[1])
    assert "rerank=(rrf 1.0 name 1.0 coverage 1.0" in lines[1]
    assert re.fullmatch(r"    chunk [0-9a-f]{40}", lines[2])
    assert lines[3:] == [FOOT.strip(), LEXICAL.strip()]


def test_the_help_explains_each_term_once() -> None:
    text = invoke("--help", check=True).stdout
    flat = re.sub(r"[\s│]+", " ", text)
    assert "Words used in answers:" in flat
    for term, meaning in glossary.TERMS:
        assert f"{term}: {meaning}" in flat, term
    for word in (
        "stated",
        "derived",
        "hard / soft",
        "degraded",
        "provenance index",
        "P1",
        "edges invalidated",
        "slice boundary",
        "archive's arithmetic",
    ):
        assert sum(word in t for t, _m in glossary.TERMS) == 1, word
    cli_md = (Path(__file__).resolve().parents[1] / "docs" / "CLI.md").read_text()
    assert "Words used in answers:" in cli_md  # generated from the help


def test_the_calls_say_what_the_rest_is() -> None:
    cov = {
        "calls.total": 60216,
        "calls.stated": 14316,
        "calls.derived": 791,
        "calls.external": 44816,
        "calls.unresolved": 293,
    }
    assert calls_line(cov) == (
        "calls into the corpus: 93.0% stated, 5.1% derived, 1.9% unresolved"
        " (44,816 more call code outside it: external)"
    )
    assert calls_line({"calls.total": 0}) is None


def test_index_and_status_word_the_calls(pilot: Path, tmp_path: Path) -> None:
    root = copy_pilot(tmp_path / "p")
    config.init_project(root)
    r = invoke("-C", root, "index", check=True)
    assert re.fullmatch(
        r"sealed rev-0001: 12 files, 74 nodes, 140 edges, \d+ chunks in [\d.]+ s;"
        r" calls into the corpus: 81.0% stated, 19.0% derived, 0.0% unresolved"
        r" \(3 more call code outside it: external\)",
        r.stdout.splitlines()[0],
    ), r.stdout
    assert "calls resolved as stated" not in r.stdout
    status = invoke("-C", pilot, "status", check=True).stdout.splitlines()
    assert (
        "           calls into the corpus: 81.0% stated, 19.0% derived, 0.0% unresolved"
        " (3 more call code outside it: external)"
    ) in status
    # with SQL (the pilot's migrations, SQL in its code) the schema's state is said
    assert "ragraf: database schema incomplete: live schema not read" in r.stderr


def test_a_repository_without_sql_hears_nothing_of_a_schema(tmp_path: Path) -> None:
    root = tmp_path / "nosql"
    write(root, "app.py", "def main():\n    return helper()\n\n\ndef helper():\n    return 1\n")
    config.init_project(root)
    r = invoke("-C", root, "index", check=True)
    assert "schema" not in r.stderr, r.stderr
    assert not any(
        ln.startswith("schema") for ln in invoke("-C", root, "status").stdout.split("\n")
    )
    # SQL in a string is enough to say it
    write(root, "db.py", "def rows(c):\n    return c.execute('SELECT id FROM users')\n")
    r = invoke("-C", root, "index", check=True)
    assert "ragraf: database schema incomplete: live schema not read" in r.stderr, r.stderr


def test_a_long_list_says_how_many_and_how_to_get_the_rest(pilot: Path) -> None:
    args = ("-C", pilot, "query", "callers", "App\\Core\\Database::query", "--depth", "2")
    r = invoke(*args, "--limit", "2", check=True)
    assert r.stdout == (
        "5 callers: 4 stated, 1 derived (2 by call, 3 not on this page)\n"
        "stated (proven by the code): 4 (2 listed)\n"
        "  [1] method App\\Billing\\Invoice::find  src/Billing/Invoice.php:22  conf 1.00"
        "  at src/Billing/Invoice.php:25\n"
        "  [1] method App\\Billing\\Model::save  src/Billing/Model.php:10  conf 1.00"
        "  at src/Billing/Model.php:12\n"
        "derived (inferred, with a confidence): 1 (0 listed)\n"
        "2 of 5 callers listed; next: --offset 2, or --limit 5 for all\n" + FOOT
    )
    r = invoke(*args, "--limit", "2", "--offset", "4", check=True)
    assert r.stdout.splitlines()[1:4] == [
        "stated (proven by the code): 4 (0 listed)",
        "derived (inferred, with a confidence): 1",
        "  [1] method App\\Billing\\Report::monthly  src/Billing/Report.php:6  conf 0.85"
        "  at src/Billing/Report.php:15  via global-single-type",
    ]


def test_impact_says_what_hard_and_soft_mean_and_counts_all(pilot: Path) -> None:
    r = invoke("-C", pilot, "query", "impact", "App\\Core\\Database::query", "--limit", "1")
    assert r.stdout == (
        "hard (through stated facts only): 3 files, 3 symbols, 0 routes, 0 tables, 0 tests\n"
        "  file index.php\n"
        "  [1] method App\\Billing\\Invoice::find  src/Billing/Invoice.php:22\n"
        "soft (needs a derived fact: check it): 1 files, 1 symbols, 0 routes, 0 tables,"
        " 0 tests\n"
        "  file src/Billing/Report.php\n"
        "  [1] method App\\Billing\\Report::monthly  src/Billing/Report.php:6\n"
        "1 of 3 hard files, 1 of 3 hard symbols listed; next: --offset 1, or --limit 3 for all\n"
        + FOOT
    )
