"""WordPress's plugin API: a callback added to a hook (``add_action`` / ``add_filter``) is
called where the hook runs (``do_action`` / ``apply_filters``), and ``callers`` says where a
callback is added to a hook nothing in the corpus runs (``ragraf.lang.php.hooks``), on
fixtures/wphooks, a plugin-shaped project without WordPress in it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ragraf import config, facade
from ragraf.drift.scan import run_scan
from ragraf.indexing import indexer
from ragraf.lang import registry
from ragraf.lang.facts import CallableRef, CallbackRef, HookRef, Target
from ragraf.lang.typedesc import Cls
from tests.helpers import REPO, edit_file, fixture_facts, indexed_fixture, invoke, write

WPHOOKS = REPO / "fixtures" / "wphooks"


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(WPHOOKS, tmp_path_factory.mktemp("hooks") / "wphooks")


def _callers(root: Path, fqn: str) -> dict[str, Any]:
    return facade.run_op(root, "callers", {"fqn": fqn, "detail": "full"})


def _derived(r: dict[str, Any]) -> list[tuple[str, str, float, str | None, str | None]]:
    return [
        (
            it["symbol"]["fqn"],
            ev["evidence"],
            ev["confidence"],
            ev.get("via"),
            ev.get("hook"),
        )
        for it in r["derived"]
        for ev in it["evidence"]
    ]


def test_hook_references_are_read_from_the_calls() -> None:
    by_path = {f.path: f for f in fixture_facts("wphooks")}
    admin = by_path["includes/class-admin.php"]
    hooks = [r for r in admin.refs if isinstance(r, HookRef)]
    assert [(r.line, r.role, r.hook, r.call) for r in hooks] == [
        (9, "listen", "admin_menu", "add_action"),
        (10, "listen", "myplug_saved", "add_action"),
        (23, "fire", "myplug_save_*", "do_action"),  # "myplug_save_{$post->post_type}"
        (24, "fire", "myplug_saved", "do_action"),
        (25, "fire", "myplug_label", "apply_filters"),
    ]
    # [$this, 'm'] is closed over the class; the array is the listen's, not a CallableRef
    assert hooks[0].callback == Target("method", receiver=Cls("Myplug\\Admin"), method="menu")
    assert not [r for r in admin.refs if isinstance(r, CallableRef | CallbackRef)]
    main = [r for r in by_path["myplug.php"].refs if isinstance(r, HookRef)]
    assert [(r.hook, r.callback) for r in main] == [
        ("init", Target("function", candidates=("Myplug\\boot",))),
        ("myplug_saved", Target("function", candidates=("Myplug\\on_saved",))),
        ("myplug_save_page", Target("function", candidates=("Myplug\\on_page_saved",))),
        ("myplug_label", Target("method", receiver=Cls("Myplug\\Labels"), method="upper")),
        ("myplug_report", None),  # a closure: its calls are its scope's own
        (
            "wp_ajax_myplug_save",
            Target("method", receiver=Cls("Myplug\\Admin"), method="save"),
        ),
        ("wp_ajax_nopriv_myplug_ping", Target("function", candidates=("Myplug\\report",))),
        ("admin_post_myplug_export", None),
    ]


@pytest.mark.parametrize(
    ("source", "hook"),
    [
        ("do_action('a_b');", "a_b"),
        ('do_action("save_{$post->type}_after");', "save_*_after"),
        ("do_action('load-' . $page . '.php');", "load-*.php"),
        ("do_action($prefix . $name);", None),  # nothing literal
        ("do_action($hook);", None),
        ("$wp->do_action('a_b');", None),  # a method of that name is not the plugin API
    ],
)
def test_a_hook_named_at_run_time_is_a_pattern(source: str, hook: str | None) -> None:
    facts = registry.extract("x.php", "php", f"<?php\n{source}\n", 120)
    got = [r.hook for r in facts.refs if isinstance(r, HookRef)]
    assert got == ([hook] if hook else [])


def test_a_string_callable_names_its_function_fully_qualified() -> None:
    """PHP resolves a callable string at run time: neither the namespace nor the imports
    of the file apply (``'helper'`` in ``namespace App`` is the global ``helper``)."""
    src = (
        "<?php\nnamespace App;\nuse Lib\\Tools as T;\n"
        "usort($a, 'helper');\nusort($a, 'T::cmp');\nusort($a, ['Lib\\Tools', 'cmp']);\n"
    )
    facts = registry.extract("x.php", "php", src, 120)
    targets = [r.target for r in facts.refs if isinstance(r, CallbackRef)]
    assert targets == [
        Target("function", candidates=("helper",)),
        Target("method", receiver=Cls("T"), method="cmp"),
    ]
    arrays = [r for r in facts.refs if isinstance(r, CallableRef)]
    assert [(r.receiver, r.method) for r in arrays] == [(Cls("Lib\\Tools"), "cmp")]


def test_a_run_of_a_hook_calls_the_callbacks_added_to_it(plugin: Path) -> None:
    save = "Myplug\\Admin::save"
    expected = {
        "Myplug\\on_saved": (save, "includes/class-admin.php:24", 0.7, "hook", "myplug_saved"),
        "Myplug\\Admin::log_save": (
            save,
            "includes/class-admin.php:24",
            0.7,
            "hook",
            "myplug_saved",
        ),
        "Myplug\\Labels::upper": (save, "includes/class-admin.php:25", 0.7, "hook", "myplug_label"),
        # do_action("myplug_save_{$post->post_type}") may run myplug_save_page: less sure
        "Myplug\\on_page_saved": (
            save,
            "includes/class-admin.php:23",
            0.4,
            "hook",
            "myplug_save_page",
        ),
    }
    # Labels::upper is also handed over as a callable ('render_callback' => ...): an item
    registered = {
        "Myplug\\Labels::upper": [
            ("myplug.php", "myplug.php:30", "registered with register_setting")
        ]
    }
    for fqn, item in expected.items():
        r = _callers(plugin, fqn)
        assert _derived(r["result"]) == [item], fqn
        assert [
            (i["symbol"]["fqn"], i["evidence"][0]["evidence"], i.get("how"))
            for i in r["result"]["stated"]
        ] == registered.get(fqn, []), fqn
        (reg,) = r["result"]["hooks"]
        assert reg["hook"] == item[4] and reg["runs"] == 1, fqn
        assert not any("nothing in the corpus runs" in x for x in r["limits"]), fqn


def test_a_callback_of_a_hook_run_elsewhere_is_not_said_to_have_no_callers(plugin: Path) -> None:
    """WordPress runs ``init``, not the plugin: the answer lists where the callback is added
    and says the code around the corpus calls it."""
    r = _callers(plugin, "Myplug\\boot")
    assert r["result"]["derived"] == []
    # the registration is an item (it is how the target runs), counted in total
    [item] = r["result"]["stated"]
    assert (item["symbol"]["fqn"], item["how"], r["result"]["total"]) == (
        "myplug.php",
        "added to hook 'init' (run outside the corpus)",
        1,
    )
    (reg,) = r["result"]["hooks"]
    assert {k: reg[k] for k in ("hook", "call", "evidence", "from", "runs")} == {
        "hook": "init",
        "call": "add_action",
        "evidence": "myplug.php:13",
        "from": "myplug.php",
        "runs": 0,
    }
    assert reg["text"]["untrusted"] == "add_action('init', 'Myplug\\boot');"
    assert any("added to 1 hook(s) nothing in the corpus runs ('init'" in x for x in r["limits"]), (
        r["limits"]
    )
    out = invoke("-C", plugin, "query", "callers", "Myplug\\Admin::menu", check=True)
    assert "added to hook 'admin_menu' at includes/class-admin.php:9 (run outside the corpus)" in (
        out.stdout
    )


def test_hook_edges_follow_an_edit_of_another_file(plugin: Path, tmp_path: Path) -> None:
    """A callback added to a hook in one file: the unchanged file that runs the hook is
    linked again in a scoped reindex (the hook's listens are part of what the corpus-wide
    tables read of a file, so its question about the hook's callbacks is asked again)."""
    root = shutil.copytree(plugin, tmp_path / "p", ignore=shutil.ignore_patterns(".ragraf"))
    config.init_project(root)
    write(root, ".ragraf/config/project.yaml", "resolve:\n  scoped: true\n")
    cfg = config.load(root)
    indexer.build(cfg)
    page = "Myplug\\on_page_saved"
    assert [d[1:] for d in _derived(_callers(root, page)["result"])] == [
        ("includes/class-admin.php:23", 0.4, "hook", "myplug_save_page")
    ]
    # only the hook's name changed, on its line: what else the tables read stays the same
    edit_file(
        root,
        "myplug.php",
        "add_action('myplug_save_page', 'Myplug\\on_page_saved');",
        "add_action('myplug_saved', 'Myplug\\on_page_saved');",
    )
    run_scan(cfg)
    res = indexer.build(cfg, commit=True)
    assert res.status == "built"
    assert res.counts["resolve_files_reused"] > 0, res.counts
    assert [d[1:] for d in _derived(_callers(root, page)["result"])] == [
        ("includes/class-admin.php:24", 0.7, "hook", "myplug_saved")
    ]


def test_a_callback_handed_to_wordpress_is_listed_with_its_site(plugin: Path) -> None:
    """``add_menu_page(..., 'Myplug\\render_page')``: WordPress (not in the corpus) calls it
    later; the answer lists the site and says so, instead of "no callers"."""
    r = _callers(plugin, "Myplug\\render_page")
    assert r["result"]["derived"] == []
    [item] = r["result"]["stated"]
    assert (item["symbol"]["fqn"], item["how"], item["evidence"][0]["evidence"]) == (
        "myplug.php",
        "registered with add_menu_page",
        "myplug.php:20",
    )
    (site,) = r["result"]["callbacks"]
    assert (site["evidence"], site["from"]) == ("myplug.php:20", "myplug.php")
    assert any("passed as a callable at 1 site(s)" in x for x in r["limits"]), r["limits"]
    refs = facade.run_op(plugin, "references", {"fqn": "Myplug\\render_page", "detail": "full"})[
        "result"
    ]
    assert [s["evidence"] for s in refs["sites"]] == ["myplug.php:20"]


def test_a_callable_under_a_callback_key_is_listed_with_its_site(plugin: Path) -> None:
    """``'render_callback' => 'Myplug\\render_counter'`` in the array handed to
    ``register_block_type``: the key says the string is a callable, whatever takes the
    array (any key ending in ``callback``, in any case); a plain value names nothing."""
    r = _callers(plugin, "Myplug\\render_counter")
    assert [s["evidence"] for s in r["result"]["callbacks"]] == ["myplug.php:27"]
    assert any("passed as a callable at 1 site(s)" in x for x in r["limits"]), r["limits"]
    upper = _callers(plugin, "Myplug\\Labels::upper")["result"]["callbacks"]
    assert [s["evidence"] for s in upper] == ["myplug.php:30"]
    refs = facade.run_op(plugin, "references", {"fqn": "Myplug\\render_page", "detail": "full"})[
        "result"
    ]
    assert [s["evidence"] for s in refs["sites"]] == ["myplug.php:20"]  # not the 'title'


def test_a_string_naming_a_function_outside_a_call_is_a_derived_callback(plugin: Path) -> None:
    """``'apply' => 'Myplug\\apply_style'`` and ``return 'Myplug\\fallback_handler'``: code
    that calls them by that name later is not in the answer; the site is, derived."""
    at = "includes/functions.php"
    for fqn, line, owner in (
        ("Myplug\\apply_style", 36, "Myplug\\style_handlers"),
        ("Myplug\\register_style", 35, "Myplug\\style_handlers"),
        ("Myplug\\fallback_handler", 43, "Myplug\\die_handler"),
    ):
        r = _callers(plugin, fqn)
        got = [(c["evidence"], c["from"], c.get("via")) for c in r["result"]["callbacks"]]
        assert got == [(f"{at}:{line}", owner, "name_string")], fqn
        assert r["result"]["callbacks"][0]["confidence"] == 0.5
        assert any("named in a string at 1 site(s)" in x for x in r["limits"]), r["limits"]


def test_ajax_and_admin_post_actions_are_routes(plugin: Path) -> None:
    """``add_action('wp_ajax_myplug_save', cb)``: WordPress runs ``cb`` for a request to
    admin-ajax.php with ``action=myplug_save`` (``nopriv``: for visitors not logged in),
    admin-post.php likewise; a closure is handled by the code registering it."""
    routes = facade.run_op(plugin, "routes", {})["result"]["routes"]
    got = [
        (r["method"], r["route"], [h["fqn"] for h in r["handlers"]], r["evidence"])
        for r in routes
        if "action=" in r["route"]
    ]
    assert got == [
        (
            "GET|POST",
            "/wp-admin/admin-ajax.php?action=myplug_ping",
            ["Myplug\\report"],
            "myplug.php:22",
        ),
        (
            "GET|POST",
            "/wp-admin/admin-ajax.php?action=myplug_save",
            ["Myplug\\Admin::save"],
            "myplug.php:21",
        ),
        (
            "GET|POST",
            "/wp-admin/admin-post.php?action=myplug_export",
            ["myplug.php"],
            "myplug.php:23",
        ),
    ]


def test_a_symfony_subscriber_is_called_where_its_events_are_dispatched(tmp_path: Path) -> None:
    """``getSubscribedEvents()`` maps ``OrderPlaced::class`` to ``onPlaced`` and
    ``OrderShipped::class`` to two methods with priorities; ``$this->dispatcher->dispatch(new
    OrderPlaced($id))`` calls them (derived, via dispatch), and so does the dispatch of a
    variable holding an ``OrderPlaced``."""
    root = indexed_fixture(REPO / "fixtures" / "symfonyapp", tmp_path / "sf")
    sub = "App\\EventSubscriber\\OrderSubscriber"
    place = ("App\\Service\\Shop::place", "dispatch")
    expected = {
        "onPlaced": [
            (*place, "src/Service/Shop.php:15", "class:App\\Event\\OrderPlaced"),
            # $event = new OrderPlaced($id); ->dispatch($event): the variable's class
            (
                "App\\Service\\Shop::placeLater",
                "dispatch",
                "src/Service/Shop.php:22",
                "class:App\\Event\\OrderPlaced",
            ),
        ],
        "notify": [(*place, "src/Service/Shop.php:16", "class:App\\Event\\OrderShipped")],
        "log": [(*place, "src/Service/Shop.php:16", "class:App\\Event\\OrderShipped")],
        "onException": [],  # KernelEvents::EXCEPTION: a vendor constant, dispatched elsewhere
    }
    for method, want in expected.items():
        r = _callers(root, f"{sub}::{method}")["result"]
        got = [
            (it["symbol"]["fqn"], ev["via"], ev["evidence"], ev["hook"])
            for it in r["derived"]
            for ev in it["evidence"]
        ]
        assert got == want, method
    # the map registers each method: `callers` shows where, with the runs it links
    r = _callers(root, f"{sub}::notify")["result"]
    assert [(h["call"], h["hook"], h["runs"]) for h in r["hooks"]] == [
        ("getsubscribedevents", "class:App\\Event\\OrderShipped", 1)
    ]


def test_a_hook_pattern_never_matches_a_hook_named_by_a_class(tmp_path: Path) -> None:
    """``do_action("{$kind}_handler")`` may run any WordPress hook ending in ``_handler``,
    never the listeners of a class that happens to end so (Laravel's events are matched by
    their class alone)."""
    write(
        tmp_path / "src",
        "a.php",
        "<?php\nnamespace App;\n\nclass Listener\n{\n    public function handle(Foo_handler $e): void\n"
        "    {\n    }\n}\n\nfunction run(string $kind): void\n{\n"
        "    do_action(\"{$kind}_handler\");\n    add_action('save_handler', 'App\\saved');\n}\n\n"
        "function saved(): void\n{\n}\n",
    )
    root = indexed_fixture(tmp_path / "src", tmp_path / "p")
    assert _derived(_callers(root, "App\\Listener::handle")["result"]) == []
    assert [d[3:] for d in _derived(_callers(root, "App\\saved")["result"])] == [
        ("hook", "save_handler")
    ]


def test_drupal_hook_implementations_are_called_where_the_hook_runs(tmp_path: Path) -> None:
    """``myshop_cron`` in ``myshop.module`` (and a ``#[Hook('cron')]`` method) implement
    hook_cron: ``invokeAll('cron')`` calls them; ``alter(['form', ...])`` runs
    ``form_alter``; ``module_invoke_all("entity_{$op}")`` may run ``entity_insert``
    (a pattern: less sure); ``myshop_help``, which nothing here runs, says so."""
    root = indexed_fixture(REPO / "fixtures" / "drupalapp", tmp_path / "d")
    expected = {
        "myshop_cron": [("run_cron", "core/runner.php:7", 0.7, "hook", "drupal:cron")],
        "Drupal\\myshop\\Hook\\ShopHooks::cron": [
            ("run_cron", "core/runner.php:7", 0.7, "hook", "drupal:cron")
        ],
        "myshop_form_alter": [
            ("build_form", "core/runner.php:11", 0.7, "hook", "drupal:form_alter")
        ],
        "myshop_entity_insert": [
            ("save_entity", "core/runner.php:16", 0.4, "hook", "drupal:entity_insert")
        ],
        "myshop_help": [],
        "myshop_cleanup": [],  # a helper: called by myshop_cron, stated
    }
    for fqn, want in expected.items():
        assert _derived(_callers(root, fqn)["result"]) == want, fqn
    helped = _callers(root, "myshop_help")
    assert any("implements hook_help of Drupal's module myshop" in x for x in helped["limits"])
    cleanup = _callers(root, "myshop_cleanup")
    assert [i["symbol"]["fqn"] for i in cleanup["result"]["stated"]] == ["myshop_cron"]
    assert not any("implements hook_" in x for x in cleanup["limits"])


def test_mediawiki_handlers_registered_in_extension_json_are_called_where_the_hook_runs(
    tmp_path: Path,
) -> None:
    """extension.json's ``Hooks``: a ``HookHandlers`` entry (its class's ``on<Hook>``), a
    ``Class::method`` string, a function, a list, a ``{"handler": ...}`` object; runs by
    ``$this->hookContainer->run('<name>', ...)`` or ``$this->container->run(...)`` (what
    MediaWiki's HookRunner writes) and the old ``Hooks::run``."""
    root = indexed_fixture(REPO / "fixtures" / "mwext", tmp_path / "mw")
    demo = "MediaWiki\\Extension\\Demo\\Hooks"
    runner = "MediaWiki\\HookContainer\\HookRunner"
    at = "includes/HookRunner.php"
    expected = {
        f"{demo}::onPageSaveComplete": [(f"{runner}::onPageSaveComplete", f"{at}:21")],
        f"{demo}::onParserFirstCallInit": [(f"{runner}::onParserFirstCallInit", f"{at}:26")],
        "DemoLegacy::onParserInit": [(f"{runner}::onParserFirstCallInit", f"{at}:26")],
        f"{demo}::onSpecialPage_initList": [(f"{runner}::onSpecialPage_initList", f"{at}:31")],
        "efDemoArticleSaved": [("PageSaver::save", "includes/PageSaver.php:14")],
        # $wgHooks['PageSaveComplete'][] = 'efLogSave' (LocalSettings.php), 'Class::method'
        "efLogSave": [(f"{runner}::onPageSaveComplete", f"{at}:21")],
        "LocalParser::onInit": [(f"{runner}::onParserFirstCallInit", f"{at}:26")],
        f"{demo}::onBeforePageDisplay": [],  # nothing in the corpus runs it
    }
    for fqn, want in expected.items():
        r = _callers(root, fqn)
        got = [
            (it["symbol"]["fqn"], ev["evidence"])
            for it in r["result"]["derived"]
            for ev in it["evidence"]
            if ev.get("via") == "hook"
        ]
        assert got == want, fqn
        (reg,) = r["result"]["hooks"]
        assert reg["path"] in ("extensions/Demo/extension.json", "LocalSettings.php")
        assert reg["runs"] == len(want)
    r = _callers(root, f"{demo}::onBeforePageDisplay")
    assert any("'mediawiki:BeforePageDisplay'" in x for x in r["limits"]), r["limits"]
    # a handler made by a factory names no class: no listen, no edge
    facts = {f.path: f for f in fixture_facts("mwext")}
    listens = [r.hook for r in facts["extensions/Demo/extension.json"].refs]
    assert "mediawiki:SkinAfterContent" not in listens and len(listens) == 6


def test_a_manifest_that_is_not_json_is_partial_and_searchable(tmp_path: Path) -> None:
    from ragraf.lang import hook_manifest

    f = hook_manifest.extract("ext/extension.json", '{\n  "Hooks": {\n    "X": "y",\n  }\n}\n', 120)
    assert f.status == "partial" and f.note is not None and "line 4" in f.note
    assert f.refs == [] and f.chunks
    other = hook_manifest.extract("composer.json", '{"Hooks": {"X": "Foo::bar"}}', 120)
    assert other.status == "ok" and other.refs == []  # only a manifest's Hooks count


def test_a_method_of_a_class_with_a_parent_outside_the_corpus_says_so(plugin: Path) -> None:
    """``Counter_Widget extends \\WP_Widget``: WordPress calls ``widget()`` through its parent,
    which no edge of the corpus shows; the answer names the parent instead of a silent 0."""
    cases = {
        "Myplug\\Counter_Widget::widget": ["WP_Widget"],
        "Myplug\\Base_List::getIterator": ["IteratorAggregate"],  # foreach calls it
        "Myplug\\Counter_Widget::label": None,  # private: nothing outside calls it
        "Myplug\\Counter_Widget::__construct": None,
    }
    for fqn, parents in cases.items():
        r = _callers(plugin, fqn)
        assert r["result"].get("outside_parents") == parents, fqn
        said = [x for x in r["limits"] if "declared outside the corpus" in x]
        assert bool(said) == bool(parents), (fqn, r["limits"])


def test_a_magic_method_php_calls_itself_says_when(plugin: Path) -> None:
    r = _callers(plugin, "Myplug\\Counter_List::__toString")
    assert r["result"]["stated"] == [] and r["result"]["derived"] == []
    assert any(
        "PHP calls __toString itself when the object is used as a string" in x for x in r["limits"]
    )
    r = _callers(plugin, "Myplug\\Counter_Widget::widget")
    assert not any("PHP calls" in x for x in r["limits"])
