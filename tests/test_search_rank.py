"""The pieces of search's ranking that need no index: the symbol-name channel's match, the
strong-signal z-scores, the vocabulary expansion's choice of words and how far the words
meet in one place (issue 17)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragraf.facade.search.rank import zscores
from ragraf.facade.search.words import (
    expansion_terms,
    name_match,
    query_name_words,
    words_meet,
)


@pytest.mark.parametrize(
    "terms, name, owner, how",
    [
        (["sanitize", "message"], "sanitizeMessage", "PhpMyAdmin\\Sanitize", "exact"),
        (["database", "interface", "fetch", "result"], "fetchResult", "X\\DatabaseInterface", "exact"),
        (["schedule", "event"], "wp_schedule_event", None, "ordered"),
        (["formatbyte"], "formatByteDown", "PhpMyAdmin\\Util", "prefix"),
        (["invoices", "charged"], "charge", "App\\Billing\\Invoice", "words"),
        (["weather"], "charge", "App\\Billing\\Invoice", ""),
    ],
)  # fmt: skip
def test_name_match_kinds(terms: list[str], name: str, owner: str | None, how: str) -> None:
    score, got = name_match(terms, name, owner)
    assert got == how
    assert (score == 1.0) is (how == "exact") and (score == 0.0) is (how == "")


def test_a_class_and_method_named_with_stop_words_is_exact() -> None:
    # "get" and "by" are search stop words, but they are words of the name
    query = "RevisionStore getRevisionById"
    words = query_name_words(query)
    assert words == ["revision", "store", "get", "revision", "by", "id"]
    terms = ["revisionstore", "revision", "store", "getrevisionbyid", "id"]
    owner = "MediaWiki\\Revision\\RevisionStore"
    assert name_match(terms, "getRevisionById", owner)[1] == "words"
    assert name_match(terms, "getRevisionById", owner, words) == (1.0, "exact")
    assert name_match(terms, "getRevisionById", "ApiComparePages", words)[1] != "exact"


def test_name_match_orders_exact_over_ordered_over_words() -> None:
    exact = name_match(["sanitize", "message"], "sanitizeMessage", "A\\Sanitize")[0]
    # the same words, but the method of another class: a weaker match
    swapped = name_match(["sanitize", "message"], "sanitize", "A\\Message")[0]
    ordered = name_match(["schedule", "event"], "wp_schedule_event", None)[0]
    longer = name_match(["schedule", "event"], "wp_schedule_single_event", None)[0]
    assert exact > ordered > longer and exact > swapped


def test_zscores_need_a_distribution() -> None:
    assert zscores({"a": 1.0, "b": 2.0}) == {}  # too few to tell an outlier
    assert zscores(dict.fromkeys("abcdef", 0.5)) == {}  # no spread
    z = zscores({"a": 0.9, "b": 0.3, "c": 0.31, "d": 0.29, "e": 0.3, "f": 0.3})
    assert max(z, key=lambda c: z[c]) == "a" and z["a"] > 2


def test_words_meet_only_where_half_of_them_are() -> None:
    # two rare words of five hold most of the idf weight, but have not met the rest
    idf = {"translate": 6.0, "automatically": 5.0, "table": 1.0, "comments": 1.5, "language": 2.0}
    two_rare = {"translate", "automatically"}
    assert words_meet([two_rare], idf) == 0.0
    three = {"table", "comments", "language"}
    assert words_meet([two_rare, three], idf) == pytest.approx(4.5 / 15.5)
    assert words_meet([two_rare | {"language"}], idf) == pytest.approx(13 / 15.5)
    assert words_meet([set(idf)], idf) == 1.0
    # nothing to meet with fewer than two words; no place at all meets nothing
    assert words_meet([{"table"}], {"table": 1.0}) is None
    assert words_meet([], idf) == 0.0


def test_expansion_takes_rare_words_the_first_hits_share() -> None:
    sources = [["shortcode", "content", "tags"], ["shortcode", "regex", "content"], ["other"]]
    df = {"shortcode": 12, "content": 900, "regex": 3, "tags": 40, "other": 5}
    # "content" is in 2 sources but too common (900 of 1000 chunks); "regex" is in one only
    got = expansion_terms(["expand", "macros"], sources, df, 1000, set(), 4)
    assert got == ["shortcode"]
    assert expansion_terms(["shortcode"], sources, df, 1000, set(), 4) == []  # a query word
    assert expansion_terms(["x"], sources, df, 1000, set(), 0) == []


def _index_and_search(root: Path, query: str) -> list[dict[str, Any]]:
    """Index the files written under ``root`` (no vectors) and return the hits of ``query``."""
    from ragraf import config, facade
    from ragraf.indexing import indexer
    from tests.schemacheck import check

    config.init_project(root)
    indexer.build(config.load(root))
    env = facade.run_op(root, "search", {"query": query, "detail": "full"})
    check(env)
    hits: list[dict[str, Any]] = env["result"]["hits"]
    return hits


def test_a_built_copy_folds_into_its_source(tmp_path: Path) -> None:
    """A function of ``js/dist`` (a bundler's output) whose name and place a hit of
    ``js/src`` has is not a hit of its own: the source takes the better rank and names the
    copy; a built file with no source among the hits stays one."""
    from tests.helpers import write

    body = (
        "export function escapeBacktick(name) {\n"
        "  // quote a database identifier with backticks\n"
        "  return '`' + name.replace(/`/g, '``') + '`';\n}\n"
    )
    write(tmp_path, "js/src/functions.js", body)
    write(tmp_path, "js/dist/functions.js", body.replace("export ", ""))
    write(
        tmp_path,
        "js/dist/only.js",
        "function quoteIdentifierWithBackticks(name) {\n  return '`' + name + '`';\n}\n",
    )
    hits = _index_and_search(tmp_path, "escape identifier backticks")
    paths = [h["path"] for h in hits]
    assert "js/src/functions.js" in paths and "js/dist/functions.js" not in paths, paths
    src = next(h for h in hits if h["path"] == "js/src/functions.js")
    assert src["why"]["built_copies"] == ["js/dist/functions.js:1"]
    assert paths.index("js/src/functions.js") == 0
    assert "js/dist/only.js" in paths  # no source for it: a hit of its own


def test_implementations_and_own_code_rank_above_contracts_and_copies(tmp_path: Path) -> None:
    """An interface's method and a bundled library's copy hold the same words as the
    project's implementation; the implementation ranks first, the others say why they rank
    lower (``rerank.abstract``, ``rerank.vendored``)."""
    from tests.helpers import write

    write(
        tmp_path,
        "src/Mailer.php",
        "<?php\nnamespace App;\n\ninterface Transport\n{\n"
        "    /** Deliver one message to its recipients over SMTP. */\n"
        "    public function deliver(string $message): bool;\n}\n\n"
        "class SmtpTransport implements Transport\n{\n"
        "    /** Deliver one message to its recipients over SMTP. */\n"
        "    public function deliver(string $message): bool\n    {\n"
        "        return mail('root', 'subject', $message);\n    }\n}\n\n"
        "abstract class BaseTransport\n{\n"
        "    /** Deliver one message to its recipients over SMTP. */\n"
        "    abstract public function deliver(string $message): bool;\n}\n",
    )
    write(
        tmp_path,
        "lib/third_party/mailer/Smtp.php",
        "<?php\nclass Vendor_Smtp\n{\n"
        "    /** Deliver one message to its recipients over SMTP. */\n"
        "    public function deliver($message)\n    {\n"
        "        return fwrite($this->socket, $message);\n    }\n}\n",
    )
    hits = _index_and_search(tmp_path, "deliver a message over SMTP")
    fqns = [h["fqn"] for h in hits]
    assert fqns[0] == "App\\SmtpTransport::deliver", fqns
    contract = next(h for h in hits if h["fqn"] == "App\\Transport::deliver")
    copy = next(h for h in hits if h["fqn"] == "Vendor_Smtp::deliver")
    assert contract["why"]["rerank"]["abstract"] == 1.0
    base = next(h for h in hits if h["fqn"] == "App\\BaseTransport::deliver")
    assert base["why"]["rerank"]["abstract"] == 1.0
    assert copy["why"]["rerank"]["vendored"] == 1.0
    assert "abstract" not in hits[0]["why"]["rerank"] and "vendored" not in hits[0]["why"]["rerank"]


def test_the_default_vendored_paths_name_libraries_not_their_users() -> None:
    """The default ``search.vendored_paths`` match bundled libraries, not a project's own
    plugins of them (a jQuery plugin, a CodeMirror addon, moment's locale overrides)."""
    import yaml

    from ragraf.config import default_text
    from ragraf.globs import GlobSet

    vendored = GlobSet(yaml.safe_load(default_text("project"))["search"]["vendored_paths"])
    for path in (
        "wp-includes/PHPMailer/SMTP.php",
        "wp-includes/SimplePie/Parser.php",
        "wp-includes/js/tinymce/plugins/lists/plugin.js",
        "wp-includes/js/jquery/jquery.js",
        "wp-includes/js/jquery/ui/dialog.js",
        "extensions-core/CodeEditor/modules/ace/ace.js",
        "resources/lib/moment/moment.js",
        "lib/third_party/mailer/Smtp.php",
    ):
        assert vendored.match(path), path
    for path in (
        "resources/src/jquery/jquery.tablesorter.js",
        "js/src/codemirror/addon/lint/sql-lint.js",
        "resources/src/moment-locale-overrides.js",
        "wp-includes/pluggable.php",
        "src/Mailer.php",
    ):
        assert not vendored.match(path), path
