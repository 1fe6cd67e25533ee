"""Help that a new user reads (issue 43.5): the operations' one-line summaries never stop
mid-code, every summary says what the operation gives, required arguments read as CLI forms,
`model fetch` names the model really used, and a mistyped command or operation gets the
nearest name back."""

from __future__ import annotations

import re

from ragraf import facade
from ragraf.cli import app as cli_app
from ragraf.cli import ophelp
from ragraf.embed import DEFAULT_MODEL, SPEC_MODEL
from tests.helpers import invoke


def _overview_rows() -> dict[str, str]:
    text = invoke("query", "--help", check=True).stdout
    return dict(re.findall(r"^  (\w+) +(.+)$", text.split("Operations:\n", 1)[1], re.M))


def test_query_overview_summaries_are_whole_and_say_what_they_give() -> None:
    rows = _overview_rows()
    # the sentence ends outside `code`: `direction: back` is not cut at its colon
    assert rows["slice"] == "Which statements feed a place (`direction: back`) or are fed by it..."
    assert rows["code"] == "The indexed text of a symbol or a file, given only when asked for"
    assert rows["routes"] == "Where requests enter the application"
    for op in facade.OPERATIONS:
        s = ophelp.summary(op)
        assert s.count("`") % 2 == 0, (op, s)  # never mid-code
        assert len(s) <= ophelp.SUMMARY_CHARS, (op, s)
        assert len(s.split()) >= 4, (op, s)  # a phrase that says something, not a label


def test_required_arguments_read_as_cli_forms() -> None:
    h = invoke("query", "table_usage", "--help", check=True).stdout
    assert "Required: TABLE (or --table).\n" in h
    assert "Give table is required" not in h
    h = invoke("query", "callers", "--help", check=True).stdout
    assert "Give exactly one of: FQN (or --fqn), --node-id.\n" in h


def test_model_fetch_help_names_the_model_used_and_the_one_fetched() -> None:
    assert DEFAULT_MODEL == cli_app._MODEL_USED
    assert SPEC_MODEL.endswith("/" + cli_app._MODEL_FETCHED)
    h = invoke("model", "fetch", "--help", check=True).stdout
    flat = " ".join(re.sub(r"[│╭╮╰╯─]", " ", h).split())
    assert f"Not needed for the model ragraf uses by default, {DEFAULT_MODEL}" in flat
    assert f"without one: {cli_app._MODEL_FETCHED}" in flat


def test_a_mistyped_command_names_the_nearest() -> None:
    r = invoke("stauts")
    assert r.exit_code == 2 and "Did you mean 'ragraf status'?" in r.stderr, r.stderr
    # an operation typed as a command: its command line
    r = invoke("serch")
    assert r.exit_code == 2 and "Did you mean 'ragraf query search'?" in r.stderr, r.stderr
    r = invoke("live_read")
    assert "Did you mean 'ragraf live-read'?" in r.stderr, r.stderr
    r = invoke("model", "fech")
    assert "Did you mean 'ragraf model fetch'?" in r.stderr, r.stderr
    r = invoke("zzzz")
    assert r.exit_code == 2 and "Did you mean" not in r.stderr, r.stderr


def test_a_mistyped_operation_or_option_names_the_nearest() -> None:
    r = invoke("query", "serch", "invoice")
    assert r.exit_code == 2
    assert r.stderr.startswith("ragraf: unknown operation 'serch' (did you mean search?);")
    r = invoke("query", "callers", "x", "--dept", "2")
    assert r.exit_code == 2
    assert r.stderr.startswith(
        "ragraf: callers: unknown option '--dept' (did you mean --depth"  # the nearest first
    ), r.stderr
    assert "options: --fqn," in r.stderr


def test_text_names_the_command_that_works_in_a_shell() -> None:
    assert ophelp.command("live_read", "src/a b.php") == "ragraf live-read 'src/a b.php'"
    assert ophelp.command("callers", "A::b") == "ragraf query callers A::b"
    assert ophelp.command("drift_report") == "ragraf drift"


def test_hints_in_text_name_commands_not_operations() -> None:
    assert ophelp.cli_words("added after the revision: read it with live_read.") == (
        "added after the revision: read it with `ragraf live-read`."
    )
    # a name inside code or a longer word is left alone
    assert ophelp.cli_words("`live_read` and live_reader") == "`live_read` and live_reader"
