"""Laravel on fixtures/laravelapp: Eloquent models as the tables they map to
(``ragraf.facade.orm``: ``table_usage`` and ``impact --table`` name the models whose
queries are calls, not SQL strings, instead of leaving them out in silence), and events and
jobs as hooks named by a class (``ragraf.lang.php.hooks``: a dispatch calls the listeners'
and the job's ``handle``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragraf import config, facade
from ragraf.drift.scan import run_scan
from ragraf.facade.orm import plural, table_by_convention
from tests.helpers import REPO, edit_file, indexed_fixture, invoke

LARAVEL = REPO / "fixtures" / "laravelapp"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(LARAVEL, tmp_path_factory.mktemp("eloquent") / "laravelapp")


def _models(root: Path, table: str) -> tuple[list[tuple[str, str, str, int]], list[str]]:
    env = facade.run_op(root, "table_usage", {"table": table})
    models = [(m["fqn"], m["evidence"], m["how"], m["uses"]) for m in env["result"]["models"]]
    return models, env["limits"]


@pytest.mark.parametrize(
    ("cls", "table"),
    [
        ("User", "users"),
        ("App\\Models\\BlogPost", "blog_posts"),
        ("Category", "categories"),
        ("Address", "addresses"),
        ("Person", "people"),
        ("Day", "days"),
        ("Media", "media"),
        ("OrderItemStatus", "order_item_statuses"),
    ],
)
def test_the_table_laravel_names_for_a_model(cls: str, table: str) -> None:
    assert table_by_convention(cls) == table


def test_plural_keeps_the_case_of_the_word() -> None:
    assert [plural(w) for w in ("Box", "city", "key")] == ["Boxes", "cities", "keys"]


def test_table_usage_names_the_models_of_a_table(app: Path) -> None:
    expected: dict[str, list[tuple[str, str, str, int]]] = {
        "users": [("App\\Models\\User", "app/Models/User.php:7", "convention", 1)],
        # through an abstract base model of the corpus
        "blog_posts": [("App\\Models\\BlogPost", "app/Models/BlogPost.php:5", "convention", 1)],
        # `new Category()` and Category::find(1)
        "categories": [("App\\Models\\Category", "app/Models/Category.php:7", "convention", 2)],
        "audit_log": [
            ("App\\Models\\AuditEntry", "app/Models/AuditEntry.php:7", "table_property", 1)
        ],
    }
    for table, models in expected.items():
        got, limits = _models(app, table)
        assert got == models, table
        assert any(
            "Eloquent model(s) map to this table" in x and models[0][0] in x for x in limits
        ), limits
    # App\Legacy\UserTable has a `$table` property but extends no model: not listed
    out = invoke("-C", app, "query", "table_usage", "users", check=True).stdout
    assert "  App\\Models\\User  app/Models/User.php:7  (by its name; 1 references)" in out
    assert "UserTable" not in out


def test_impact_of_a_table_reaches_through_its_models(app: Path) -> None:
    r: dict[str, Any] = facade.run_op(app, "impact", {"detail": "full", "table": "audit_log"})
    soft = [(s["fqn"], s["depth"]) for s in r["result"]["soft"]["symbols"]]
    assert soft == [
        ("App\\Models\\AuditEntry", 1),
        ("App\\Services\\Report::build", 2),
        ("App\\Jobs\\ProcessPodcast::handle", 3),  # the job's handle calls Report::build
    ]
    assert r["result"]["hard"]["symbols"] == []
    hard = facade.run_op(app, "impact", {"detail": "full", "table": "audit_log", "mode": "hard"})
    assert hard["result"]["soft"]["symbols"] == []
    assert any("`mode: hard` leaves them" in x for x in hard["limits"]), hard["limits"]


def test_an_edited_model_warns_its_table_answer(app: Path, tmp_path: Path) -> None:
    root = indexed_fixture(app, tmp_path / "app")
    edit_file(root, "app/Models/AuditEntry.php", "$table = 'audit_log'", "$table = 'audit_entries'")
    run_scan(config.load(root))
    env = facade.run_op(root, "table_usage", {"table": "audit_log"})
    assert [w["path"] for w in env["stale_warnings"]] == ["app/Models/AuditEntry.php"]


def _derived(root: Path, fqn: str) -> list[tuple[str, str, str | None, str | None]]:
    r = facade.run_op(root, "callers", {"detail": "full", "fqn": fqn})["result"]
    assert r["stated"] == [], fqn
    return [
        (it["symbol"]["fqn"], ev["evidence"], ev.get("via"), ev.get("hook"))
        for it in r["derived"]
        for ev in it["evidence"]
    ]


def test_a_dispatched_event_calls_its_listeners_and_a_job_its_handle(app: Path) -> None:
    ship = "App\\Http\\Controllers\\OrderController::ship"
    at = "app/Http/Controllers/OrderController.php"
    event = "class:App\\Events\\OrderShipped"
    job = "class:App\\Jobs\\ProcessPodcast"
    # event(new OrderShipped($id)) and OrderShipped::dispatch($id): the listener typed by it
    assert _derived(app, "App\\Listeners\\SendShipmentNotification::handle") == [
        (ship, f"{at}:13", "dispatch", event),
        (ship, f"{at}:14", "dispatch", event),
    ]
    # ProcessPodcast::dispatch($id) and Bus::dispatch(new ProcessPodcast($id)): the job's own
    # handle (whose parameter is a service Laravel injects, no event)
    assert _derived(app, "App\\Jobs\\ProcessPodcast::handle") == [
        (ship, f"{at}:15", "dispatch", job),  # by place: line 15 before line 21
        (ship, f"{at}:16", "dispatch", job),
        # $this->dispatch(new ProcessPodcast($id)) (a controller's DispatchesJobs)
        ("App\\Http\\Controllers\\OrderController::retry", f"{at}:21", "dispatch", job),
    ]
    # a middleware's handle(Request $request, ...): nothing dispatches a Request
    assert _derived(app, "App\\Http\\Middleware\\EnsureActive::handle") == []


def test_the_listen_map_of_a_provider_makes_untyped_listeners_listen(app: Path) -> None:
    ship = "App\\Http\\Controllers\\OrderController::ship"
    at = "app/Http/Controllers/OrderController.php"
    event = "class:App\\Events\\OrderShipped"
    runs = [(ship, f"{at}:13", "dispatch", event), (ship, f"{at}:14", "dispatch", event)]
    # LogShipment::class: its handle($event), untyped
    assert _derived(app, "App\\Listeners\\LogShipment::handle") == runs
    # [ArchiveOrder::class, 'onShipped']: that method, not its handle
    assert _derived(app, "App\\Listeners\\ArchiveOrder::onShipped") == runs
    assert _derived(app, "App\\Listeners\\ArchiveOrder::handle") == []
    # also in $listen by its name in a string, and typed: its calls are not doubled
    assert _derived(app, "App\\Listeners\\SendShipmentNotification::handle") == runs
    r = facade.run_op(
        app, "callers", {"detail": "full", "fqn": "App\\Listeners\\LogShipment::handle"}
    )["result"]
    assert [(h["hook"], h["evidence"]) for h in r["hooks"]] == [
        (event, "app/Providers/EventServiceProvider.php:15")
    ]
