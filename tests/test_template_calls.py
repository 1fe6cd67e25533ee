"""Methods called from templates (issue 41 §2, fixtures/tplcalls): Twig's attribute accesses
and Blade's method calls are derived calls from the template, typed by the variables the
rendering code passes (through ``for`` loops, ``set``, ``|first``, an include ``with``
``only``, ``compact``), Twig's ``x.unique`` -> ``isUnique``; an access of an unknown value
matches the methods of its name (a call or a getter's name only); a macro call, an array's
key and a property link nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragraf import config, facade
from ragraf.lang import template_calls
from ragraf.lang.facts import TemplateCallRef
from tests.helpers import REPO, indexed_fixture
from tests.schemacheck import check

FIXTURES = REPO / "fixtures" / "tplcalls"

#: every method a template of the fixture calls -> (evidence, via, confidence) of its callers
GOLDEN = {
    "App\\Model\\Index::getName": {
        ("templates/structure/index.twig:4", "template-typed", 0.75),
        ("templates/structure/index.twig:12", "template-typed", 0.75),
    },
    "App\\Model\\Index::isUnique": {("templates/structure/index.twig:4", "template-typed", 0.75)},
    "App\\Model\\Index::hasPrimary": {
        ("templates/structure/index.twig:12", "template-typed", 0.75)
    },
    "App\\Model\\Index::getColumns": {
        ("templates/structure/index.twig:5", "template-typed", 0.75),
        ("templates/structure/index.twig:16", "template-typed", 0.75),
    },
    "App\\Model\\IndexColumn::getCardinality": {
        ("templates/structure/index.twig:6", "template-typed", 0.75),
        ("templates/structure/index.twig:15", "template-name", 0.6),  # the one of its name
    },
    "App\\Model\\IndexColumn::hasExpression": {
        ("templates/structure/index.twig:7", "template-typed", 0.75)
    },
    "App\\Model\\IndexColumn::getExpression": {
        ("templates/structure/index.twig:7", "template-typed", 0.75),
        ("templates/structure/_columns.twig:2", "template-typed", 0.75),  # include with only
        # mystery.getExpression(): of 3 classes declaring it, the one with getCardinality too
        ("templates/structure/index.twig:15", "template-name", 0.6),
        ("templates/macros.twig:1", "template-name", 0.4),  # a macro's parameter
    },
    "App\\Model\\Partition::getExpression": {
        ("templates/structure/partitions.twig:1", "template-typed", 0.75),  # compact()
        ("templates/macros.twig:1", "template-name", 0.4),
    },
    "App\\Model\\Trigger::getExpression": {
        ("templates/macros.twig:1", "template-name", 0.4),  # a parameter: any of the 3
    },
    "App\\Models\\Order::total": {
        ("resources/views/orders/show.blade.php:2", "template-typed", 0.75),
        ("resources/views/orders/show.blade.php:6", "template-typed", 0.75),
    },
    "App\\Models\\Order::lines": {
        ("resources/views/orders/show.blade.php:3", "template-typed", 0.75)
    },
    "App\\Models\\OrderLine::label": {
        ("resources/views/orders/show.blade.php:4", "template-typed", 0.75)
    },
    "App\\Template::render": set(),  # {{ forms.field() }} is a macro, not render()
}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(FIXTURES, tmp_path_factory.mktemp("tplcalls") / "app")


def _template_callers(root: Path, fqn: str) -> set[tuple[str, str, float]]:
    env = facade.run_op(root, "callers", {"detail": "full", "fqn": fqn})
    check(env)
    r = env["result"]
    return {
        (e["evidence"], e["via"], e["confidence"])
        for item in r["stated"] + r["derived"]
        for e in item["evidence"]
        if e["path"].endswith((".twig", ".blade.php"))
    }


@pytest.mark.parametrize("fqn", sorted(GOLDEN))
def test_template_calls_are_derived_callers_typed_by_the_render(app: Path, fqn: str) -> None:
    assert _template_callers(app, fqn) == GOLDEN[fqn]


def test_template_calls_are_counted_in_coverage(app: Path) -> None:
    from ragraf.store.graph import GraphStore

    with GraphStore(config.Layout(app).graph_db, readonly=True) as g:
        cov = {m: v for m, v, _n in g.coverage("rev-0001")}
    assert {k: v for k, v in cov.items() if k.startswith("templates.calls")} == {
        "templates.calls_total": 20.0,
        "templates.calls_typed": 15.0,  # GOLDEN's template-typed evidence lines
        "templates.calls_name_match": 3.0,  # mystery's two calls, the macro's name.getX()
        "templates.calls_untyped": 1.0,  # row.name: an array's key
        "templates.calls_unresolved": 1.0,  # forms.field(): an imported macro, no method
    }


def test_twig_scanner_steps_and_roots() -> None:
    text = (
        "{% for i in idx.all|sort %}{{ i.col[0].getX(a.b) }}{% endfor %}"
        "{% set one = idx|last %}{{ one.name }}{{ loop.index }}{{ f(x).y() }}"
    )
    got = [(r.root, r.steps, r.name, r.called) for r in template_calls.twig_calls(text)]
    assert got == [
        ("idx", (), "all", False),
        ("idx", ("a:all", "[]"), "col", False),
        ("a", (), "b", False),  # an argument: recorded before the call it is passed to
        ("idx", ("a:all", "[]", "a:col", "[]"), "getX", True),
        ("idx", ("[]",), "name", False),
        ("", (), "index", False),
        ("", (), "y", True),
    ]


def test_blade_scanner_reads_echoes_and_loops() -> None:
    text = "@foreach ($o->lines() as $k => $l) {{ $l->x() }} @endforeach {{ $l->y() }}"
    refs = template_calls.blade_calls(text)
    assert [(r.root, r.steps, r.name) for r in refs] == [
        ("o", (), "lines"),
        ("o", ("m:lines", "[]"), "x"),
        ("l", (), "y"),  # after the loop: a context variable again
    ]
    assert all(isinstance(r, TemplateCallRef) and r.php for r in refs)
