"""Templates named by code (``renders``) and by other templates (``imports``): Twig, Blade,
phpMyAdmin's suffixless names, WordPress's get_template_part, a name two themes share, and a
name no file has (fixtures/templates)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragraf import facade
from ragraf.lang import registry, templates
from tests.helpers import REPO, indexed_fixture, invoke, write
from tests.schemacheck import check

FIXTURES = REPO / "fixtures" / "templates"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(FIXTURES, tmp_path_factory.mktemp("tpl") / "app")


def _refs(root: Path, path: str) -> list[dict[str, Any]]:
    env = facade.run_op(root, "references", {"detail": "full", "fqn": path})
    check(env)
    return list(env["result"]["sites"])


def _edges(root: Path, path: str) -> set[tuple[str, str, int, float]]:
    return {
        (r["kind"], r["evidence"].split(":")[0], int(r["evidence"].split(":")[1]), r["confidence"])
        for r in _refs(root, path)
    }


def test_code_renders_the_template_its_name_matches(app: Path) -> None:
    blog = "src/Controller/BlogController.php"
    assert _edges(app, "templates/blog/index.html.twig") == {("renders", blog, 11, 0.8)}
    # phpMyAdmin's Template::render names the file without its suffix
    assert _edges(app, "templates/server/databases/index.twig") == {("renders", blog, 27, 0.8)}
    users = "app/Http/Controllers/UserController.php"
    # Laravel's dotted name, by view() and View::make
    assert _edges(app, "resources/views/users/index.blade.php") == {
        ("renders", users, 10, 0.8),
        ("renders", users, 15, 0.8),
    }
    # ->render('Author') names no view: the PHP file of a class is code
    assert {k for k, *_ in _edges(app, "src/Entity/Author.php")} <= {"references"}
    # the same name under a deeper folder is another loader's (or a copy): not linked
    assert _edges(app, "templates/admin/blog/index.html.twig") == set()
    r = _refs(app, "templates/blog/index.html.twig")[0]
    assert r["provenance"] == "derived"
    assert r["symbol"]["fqn"] == "App\\Controller\\BlogController::index"


def test_callees_name_the_templates_code_renders(app: Path) -> None:
    env = facade.run_op(
        app, "callees", {"detail": "full", "fqn": "App\\Controller\\BlogController::index"}
    )
    check(env)
    assert env["result"]["templates"] == [
        {
            "path": "templates/blog/index.html.twig",
            "template": "blog/index.html.twig",
            "confidence": 0.8,
            "provenance": "derived",
            "evidence": "src/Controller/BlogController.php:11",
        }
    ]
    env = facade.run_op(
        app, "callees", {"detail": "full", "fqn": "App\\Controller\\BlogController::missing"}
    )
    assert "templates" not in env["result"]
    text = invoke("-C", app, "query", "callees", "App\\Controller\\BlogController::index").stdout
    assert (
        "renders templates/blog/index.html.twig ('blog/index.html.twig') at"
        " src/Controller/BlogController.php:11  [derived 0.80]" in text
    ), text


def test_templates_import_the_templates_they_include_and_extend(app: Path) -> None:
    index = "templates/blog/index.html.twig"
    assert _edges(app, "templates/base.html.twig") == {("imports", index, 1, 0.8)}
    assert _edges(app, "templates/blog/_post.html.twig") == {("imports", index, 5, 0.8)}
    assert _edges(app, "templates/blog/_sidebar.html.twig") == {("imports", index, 7, 0.8)}
    blade = "resources/views/users/index.blade.php"
    assert _edges(app, "resources/views/layouts/app.blade.php") == {("imports", blade, 1, 0.8)}
    assert _edges(app, "resources/views/partials/nav.blade.php") == {("imports", blade, 4, 0.8)}


def test_wordpress_template_parts_and_a_name_two_themes_share(app: Path) -> None:
    index = "themes/one/index.php"
    # get_template_part('template-parts/content', 'page'): the slugged file first
    assert _edges(app, "themes/one/template-parts/content-page.php") == {("renders", index, 2, 0.8)}
    assert _edges(app, "themes/one/template-parts/content.php") == set()
    # header.php is in both themes: the theme's own (the other is not linked)
    assert _edges(app, "themes/one/header.php") == {("renders", index, 3, 0.8)}
    assert _edges(app, "themes/two/header.php") == set()
    # a name two equally near places hold: each is a candidate, at the ambiguous confidence
    shared = "shared/index.php"
    for theme in ("one", "two"):
        assert _edges(app, f"themes/{theme}/footer.php") == {("renders", shared, 2, 0.4)}


def test_mustache_templates_and_their_partials(app: Path) -> None:
    tpl = "skins/Vector/includes/templates"
    assert _edges(app, f"{tpl}/SearchBox.mustache") == {
        ("renders", "skins/Vector/includes/SkinVector.php", 9, 0.8)
    }
    assert _edges(app, f"{tpl}/SearchButton.mustache") == {
        ("imports", f"{tpl}/SearchBox.mustache", 1, 0.8)
    }


def test_a_template_change_reaches_the_code_that_renders_it(app: Path) -> None:
    env = facade.run_op(app, "impact", {"detail": "full", "path": "templates/blog/_post.html.twig"})
    check(env)
    soft = env["result"]["soft"]
    files = set(soft["files"])
    assert {"templates/blog/index.html.twig", "src/Controller/BlogController.php"} <= files
    assert "App\\Controller\\BlogController::index" in {s["fqn"] for s in soft["symbols"]}


def test_a_name_no_file_has_is_counted_not_linked(app: Path) -> None:
    env = facade.run_op(app, "index_status", {"detail": "full"})
    cov = env["result"]["coverage"]
    # blog/nowhere.html.twig and Author; the rest resolve
    assert cov["templates.unresolved"]["value"] == 2.0
    assert cov["templates.resolved"]["value"] == 14.0
    assert cov["templates.total"]["value"] == 16.0


@pytest.mark.parametrize(
    ("name", "slug", "names"),
    [
        ("blog/index.html.twig", None, ("blog/index.html.twig",)),
        ("@Admin/user/edit.html.twig", None, ("user/edit.html.twig",)),
        ("mail::welcome", None, ("welcome.twig", "welcome.blade.php", "welcome.php")),
        (
            "template-parts/content",
            "page",
            ("template-parts/content-page.php", "template-parts/content.php"),
        ),
    ],
)
def test_the_file_names_a_template_name_may_be(
    name: str, slug: str | None, names: tuple[str, ...]
) -> None:
    got = templates.file_names(name, slug)
    assert got[: len(names)] == names, got


def test_dotted_names_try_laravels_folders_first() -> None:
    got = templates.file_names("users.index")
    assert got[:2] == ("users/index.twig", "users/index.blade.php")
    assert "users.index.twig" in got


def test_template_refs_read_from_text() -> None:
    twig = "{% extends \"base.twig\" %}\n{%- include 'a.twig' -%}\n{% include var %}\n{{ source('s.twig') }}"
    assert templates.twig_refs(twig) == [
        (1, "extends", "base.twig"),
        (2, "include", "a.twig"),
        (4, "include", "s.twig"),
    ]
    # @livewire('counter') names a component class, not a view
    blade = "@extends('layouts.app')\n@includeIf('partials.x', [])\n@include($name)\n@livewire('c')"
    assert templates.blade_refs(blade) == [
        (1, "extends", "layouts.app"),
        (2, "include", "partials.x"),
    ]


def test_a_new_template_file_is_linked_on_the_next_build(tmp_path: Path) -> None:
    root = indexed_fixture(FIXTURES, tmp_path / "app")
    assert _edges(root, "templates/blog/nowhere.html.twig") == set()
    write(root, "templates/blog/nowhere.html.twig", "<p>{{ 'here now' }}</p>\n")
    from ragraf import config
    from ragraf.indexing import indexer

    indexer.build(config.load(root))
    assert _edges(root, "templates/blog/nowhere.html.twig") == {
        ("renders", "src/Controller/BlogController.php", 16, 0.8)
    }
    assert registry.lang_of("x.twig") == "twig"


def test_template_markup_gets_no_vector() -> None:
    from ragraf.indexing.vectors import skip_reason

    for path in ("templates/a.html.twig", "skins/x/templates/Box.mustache"):
        assert skip_reason(f"file {path} ({path}:1)\n<p>{{{{ msg }}}}</p>") == "markup"
    assert skip_reason("file views/a.php (views/a.php:1)\n<?php echo $title;") is None
