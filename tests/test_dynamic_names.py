"""Names computed at run time and everything that runs a function without a call
(issue 41 §1, §3) on fixtures/dynamic: the names a variable may hold reach the functions
and methods they name (derived), hooks built from strings reach the callbacks whose names
fit, a callers answer counts registrations as items and lists the dynamic call sites
that may reach its target, and says when it cut an item's evidence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragraf import facade
from ragraf.lang import registry
from ragraf.lang.facts import DynamicCallRef, HookRef, Target
from ragraf.lang.typedesc import Cls
from tests.helpers import REPO, indexed_fixture, invoke

DYNAMIC = REPO / "fixtures" / "dynamic"


@pytest.fixture(scope="module")
def dyn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(DYNAMIC, tmp_path_factory.mktemp("dyn") / "dynamic")


def _callers(root: Path, fqn: str) -> dict[str, Any]:
    return facade.run_op(root, "callers", {"fqn": fqn, "detail": "full"})


def _items(r: dict[str, Any], sec: str) -> list[tuple[str, str, float, str | None]]:
    return [
        (
            i["symbol"]["fqn"],
            i["evidence"][0]["evidence"],
            i["confidence"],
            i.get("how") or i["evidence"][0].get("via"),
        )
        for i in r[sec]
    ]


def _dynamic_refs(path: str) -> dict[int, tuple[Target, ...]]:
    text = (DYNAMIC / path).read_text(encoding="utf-8")
    facts = registry.extract(path, "php", text, 120)
    return {r.line: r.targets for r in facts.refs if isinstance(r, DynamicCallRef)}


def test_the_names_a_variable_may_hold_are_the_targets_of_its_call() -> None:
    refs = _dynamic_refs("src/files.php")
    fn = "function"
    assert refs[13] == (  # $remote ? 'proxy_open' : 'local_open'
        Target(fn, candidates=("proxy_open",)),
        Target(fn, candidates=("local_open",)),
    )
    assert refs[20] == (Target(fn, candidates=("upgrade_to_*",)),)  # "upgrade_to_$v"
    assert refs[22] == (Target(fn, candidates=("upgrade_all_done",)),)  # sprintf
    # apply_filters('wp_die_ajax_handler', '_ajax_die_handler'): the default, or anything
    assert refs[32] == (
        Target(fn, candidates=("_default_die_handler",)),
        Target(fn, candidates=("*",)),
        Target(fn, candidates=("_ajax_die_handler",)),
    )
    # a parameter: nothing known of its name
    assert refs[37] == (Target(fn, candidates=("*",)),)
    assert refs[38] == (Target("method", method="*"),)
    plugins = _dynamic_refs("src/plugins.php")
    assert plugins[20] == (Target("method", receiver=Cls("Dyn\\Plugin"), method="*"),)
    assert plugins[33] == (Target("method", receiver=Cls("Dyn\\Page"), method="render_*"),)


def test_a_hook_name_built_of_a_listed_value_is_each_of_the_list() -> None:
    """``add_action('wp_ajax_' . $_GET['action'], 'wp_ajax_' . str_replace('-', '_', ...))``
    inside ``in_array($_GET['action'], $core_actions_get)``: one listen per listed action,
    the callback built of the same value; ``do_action("get_{$taxonomy}")`` runs the hooks
    the variable's two literals name, not a pattern."""
    text = (DYNAMIC / "src/ajax.php").read_text(encoding="utf-8")
    hooks = [
        r for r in registry.extract("src/ajax.php", "php", text, 120).refs if isinstance(r, HookRef)
    ]
    listens = [
        (h.line, h.hook, h.callback.candidates if h.callback else None)
        for h in hooks
        if h.role == "listen" and h.computed
    ]
    assert listens == [
        (9, "wp_ajax_fetch-list", ("wp_ajax_fetch_list",)),
        (9, "wp_ajax_ajax-tag-search", ("wp_ajax_ajax_tag_search",)),
        (12, "wp_ajax_oembed-cache", ("wp_ajax_oembed_cache",)),
        (12, "wp_ajax_heartbeat", ("wp_ajax_heartbeat",)),
    ]
    fires = [(h.line, h.hook) for h in hooks if h.role == "fire"]
    assert fires == [(16, "wp_ajax_*"), (22, "get_post_tag"), (22, "get_category")]


@pytest.mark.parametrize(
    ("fqn", "item"),
    [
        ("proxy_open", ("open_file", "src/files.php:13", 0.4, "call_user_func")),
        # a pattern matching two functions: the confidence is shared
        ("upgrade_to_2", ("upgrade", "src/files.php:20", 0.2, "variable-function")),
        ("upgrade_to_3", ("upgrade", "src/files.php:20", 0.2, "variable-function")),
        ("upgrade_all_done", ("upgrade", "src/files.php:22", 0.4, "variable-function")),
        ("_ajax_die_handler", ("die_now", "src/files.php:32", 0.4, "call_user_func")),
        # strtolower(self::HOOK_RENDER) passed to run($plugin, $type): $plugin->$m()
        (
            "Dyn\\Plugin::hook_render",
            ("Dyn\\PluginHost::render", "src/plugins.php:25", 0.4, "dispatcher"),
        ),
        ("wp_ajax_fetch_list", ("src/ajax.php", "src/ajax.php:16", 0.4, "hook")),
        ("wp_ajax_heartbeat", ("src/ajax.php", "src/ajax.php:16", 0.4, "hook")),
        ("on_get_category", ("src/ajax.php", "src/ajax.php:22", 0.7, "hook")),
        ("on_get_tag", ("src/ajax.php", "src/ajax.php:22", 0.7, "hook")),
    ],
)
def test_a_computed_name_reaches_what_it_names(dyn: Path, fqn: str, item: tuple[Any, ...]) -> None:
    r = _callers(dyn, fqn)["result"]
    assert r["stated"] == [] and _items(r, "derived") == [item]
    assert r["total"] == 1


def test_a_name_no_value_fits_is_not_reached(dyn: Path) -> None:
    """Neither a hook whose name the variable cannot hold (``get_other``), nor a method a
    pattern does not match, nor a handler no list names."""
    for fqn in (
        "on_get_other",
        "Dyn\\Plugin::unrelated",
        "Dyn\\Plugin::hook_init",
        "wp_ajax_never_listed",
    ):
        r = _callers(dyn, fqn)["result"]
        assert r["derived"] == [], fqn
    sites = facade.run_op(dyn, "references", {"fqn": "wp_ajax_fetch_list", "detail": "full"})[
        "result"
    ]["sites"]
    listen = [s for s in sites if s["kind"] == "references"]
    assert [(s["evidence"], s["provenance"], s.get("computed")) for s in listen] == [
        (
            "src/ajax.php:9",
            "derived",
            "'wp_ajax_' . $_GET['action'], 'wp_ajax_' . str_replace( '-', '_', $_GET['action'] )",
        )
    ]


def test_registrations_are_items_counted_in_total(dyn: Path) -> None:
    for fqn, how, at in (
        ("cmp_len", "registered with usort", "src/util.php:8"),
        ("on_error", "registered with set_error_handler", "src/util.php:9"),
        ("on_get_other", "added to hook 'get_other' (run outside the corpus)", "src/ajax.php:20"),
    ):
        r = _callers(dyn, fqn)["result"]
        [item] = r["stated"]
        assert (item["how"], item["evidence"][0]["evidence"], r["total"]) == (how, at, 1), fqn
    out = invoke("-C", dyn, "query", "callers", "on_error", check=True).stdout.splitlines()
    assert out[0] == (
        "1 callers: 1 stated, 0 derived (1 registered with set_error_handler);"
        " may also call it: 3 dynamic call sites (name computed at run time)"
    )


def test_dynamic_call_sites_that_may_reach_a_target_are_listed(dyn: Path) -> None:
    """A function: every callable site whose name is not known (``$cb()``, the filtered die
    handler); a method: also ``$obj->$name()`` on an unknown receiver and ``$plugin->$m()``
    on a ``Plugin``, not on an unrelated class."""

    def sites(fqn: str) -> list[tuple[str, str, str | None]]:
        d = _callers(dyn, fqn)["result"]["unresolved"]["dynamic"]
        assert d["total"] == len(d["sites"])
        return [(s["evidence"], s["form"], s["detail"]) for s in d["sites"]]

    assert sites("wp_ajax_never_listed") == [
        ("src/files.php:32", "function", "callable"),
        ("src/files.php:37", "function", "callable"),
        ("src/files.php:56", "function", "callable"),
    ]
    assert sites("Dyn\\Plugin::unrelated") == [
        ("src/files.php:32", "function", "callable"),
        ("src/files.php:37", "function", "callable"),
        ("src/files.php:38", "method", None),
        ("src/files.php:56", "function", "callable"),
        ("src/plugins.php:20", "method", "Dyn\\Plugin"),
    ]
    env = _callers(dyn, "wp_ajax_never_listed")
    assert any("3 call sites whose callee is computed at run time" in x for x in env["limits"])


def test_an_item_says_how_much_evidence_it_cut(dyn: Path) -> None:
    env = _callers(dyn, "log_line")
    [item] = env["result"]["stated"]
    assert (len(item["evidence"]), item["evidence_total"]) == (20, 23)
    assert any("1 item(s) list 20 of their evidence lines; 3 more" in x for x in env["limits"])
    out = invoke("-C", dyn, "query", "callers", "log_line", check=True).stdout
    assert "at src/util.php:10  (+3 more lines)" in out


# -- better guesses (issue 41 §5) ----------------------------------------------------------
def test_a_member_the_declared_class_lacks_is_its_subclass_s_before_call(dyn: Path) -> None:
    """``$table->inline_edit()`` on a ``ListTable`` (which has ``__call``): the subclass
    that declares ``inline_edit`` (derived, via subclass), not ``__call``."""
    r = _callers(dyn, "Prec\\TermsListTable::inline_edit")["result"]
    assert _items(r, "derived") == [("Prec\\edit_terms", "src/precision.php:17", 0.6, "subclass")]
    magic = _callers(dyn, "Prec\\ListTable::__call")["result"]
    assert magic["stated"] == magic["derived"] == []


def test_an_explicit_parent_call_is_no_caller_of_the_override(dyn: Path) -> None:
    """``parent::save()`` calls Base's ``save``: Child's override is reached by dispatch
    from ``$b->save()`` only."""
    r = _callers(dyn, "Prec\\Child::save")["result"]
    assert [i["symbol"]["fqn"] for i in r["stated"] + r["derived"]] == ["Prec\\store"]


def test_a_filtered_object_keeps_its_class(dyn: Path) -> None:
    """``$w = apply_filters('prec_widget', new Widget())``: a filter returns what it is given
    unless a callback replaces it, so ``$w->render()`` is Widget's (stated)."""
    r = _callers(dyn, "Prec\\Widget::render")["result"]
    assert _items(r, "stated") == [("Prec\\show_widget", "src/precision.php:46", 1.0, None)]


def test_a_capability_list_sharing_a_function_name_is_no_reference(dyn: Path) -> None:
    """``array('activate_plugins', 'edit_posts', ...)`` and ``'capability' =>
    'activate_plugins'`` name a capability; a list of function names names them."""
    r = _callers(dyn, "activate_plugins")["result"]
    assert (r["stated"], r["derived"], r.get("callbacks")) == ([], [], None)
    named = _callers(dyn, "my_handler_one")["result"]
    assert _items(named, "derived") == [("lists", "src/caps.php:11", 0.5, "named in a string")]


def test_a_pattern_fitting_too_many_is_listed_not_linked(dyn: Path) -> None:
    """``"get_{$type}_link"`` fits six functions (above ``max_heuristic_candidates``): no
    edge, the site is a dynamic one of each answer, with its pattern; an escaped
    ``'\\\\local_open'`` is the name ``local_open``."""
    r = _callers(dyn, "get_c_link")["result"]
    assert r["derived"] == []
    listed = [(s["evidence"], s["name"]) for s in r["unresolved"]["dynamic"]["sites"]]
    assert ("src/files.php:51", "get_*_link") in listed
    local = _callers(dyn, "local_open")["result"]
    assert [i["evidence"][0]["evidence"] for i in local["derived"]] == [
        "src/files.php:13",
        "src/files.php:51",
    ]


def test_a_string_passed_where_a_parameter_is_called_is_a_callable(dyn: Path) -> None:
    """``apply_cb('double_it', 3)`` where ``apply_cb`` calls ``$cb($x)``: a registration."""
    r = _callers(dyn, "double_it")["result"]
    assert _items(r, "stated") == [
        ("use_apply", "src/files.php:63", 1.0, "registered with apply_cb")
    ]


def test_a_vendor_interface_s_call_is_no_guess_at_a_corpus_implementation(dyn: Path) -> None:
    """``$r->getUri()`` on a PSR ``RequestInterface``: the vendor's object, not the corpus
    class that implements the interface (no ``subclass`` edge)."""
    r = _callers(dyn, "Prec\\Request::getUri")["result"]
    assert r["stated"] == r["derived"] == []


def test_a_method_name_of_a_loop_over_literals_is_each_of_them(dyn: Path) -> None:
    """``foreach ($kinds as $kind) { $m = 'render_' . $kind; $this->$m(); }`` over a list
    of literals (a comment inside) calls ``render_page`` and ``render_post`` (0.4 each);
    ``{'render_' . $kind}`` with ``$kind`` a parameter fits both too, the confidence
    shared."""
    for fqn in ("Dyn\\Plugin::render_page", "Dyn\\Plugin::render_post"):
        r = _callers(dyn, fqn)["result"]
        assert _items(r, "derived") == [
            ("Dyn\\Page::all", "src/plugins.php:45", 0.4, "dynamic-method"),
            ("Dyn\\Page::show", "src/plugins.php:33", 0.2, "dynamic-method"),
        ], fqn
