"""Python web routes (issue 14): Flask and FastAPI decorators (a Blueprint's / APIRouter's
literal prefix joined), Django ``urls.py`` patterns with views by name, dotted name through
an import, and ``as_view()``; fixture fixtures/pyroutes. Checked by hand against the
sources: an f-string path and ``include(...)`` are no routes; every ``handles`` edge is
derived (``router-call``, ``heuristic_single``) as PHP's routes are."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ragraf import config
from ragraf.indexing import indexer
from tests.helpers import REPO, invoke
from tests.test_pilot_golden import _graph

ROUTES = {
    ("web_route", "* ^product/(?P<pk>\\d+)/$", "shop/urls.py", 13, 13),
    ("web_route", "* catalog/", "shop/urls.py", 12, 12),
    ("web_route", "* checkout/", "shop/urls.py", 14, 14),
    ("web_route", "* old/", "shop/urls.py", 15, 15),
    ("web_route", "DELETE /items/{item_id}", "api.py", 17, 17),
    ("web_route", "GET /", "flask_app.py", 7, 7),
    ("web_route", "GET /admin/users/<int:uid>", "flask_app.py", 17, 17),
    ("web_route", "GET /health", "api.py", 7, 7),
    ("web_route", "GET|POST /login", "flask_app.py", 12, 12),
    ("web_route", "POST /items", "api.py", 12, 12),
    ("web_route", "WS /ws", "api.py", 22, 22),
}
HANDLES = {
    ("handles", "* ^product/(?P<pk>\\d+)/$", "shop.views.product", "shop/urls.py:13"),
    ("handles", "* catalog/", "shop.views.catalog", "shop/urls.py:12"),
    ("handles", "* checkout/", "shop.views.Checkout", "shop/urls.py:14"),
    ("handles", "* old/", "shop.urls.legacy", "shop/urls.py:15"),
    ("handles", "DELETE /items/{item_id}", "api.delete_item", "api.py:17"),
    ("handles", "GET /", "flask_app.index", "flask_app.py:7"),
    ("handles", "GET /admin/users/<int:uid>", "flask_app.user", "flask_app.py:17"),
    ("handles", "GET /health", "api.health", "api.py:7"),
    ("handles", "GET|POST /login", "flask_app.login", "flask_app.py:12"),
    ("handles", "POST /items", "api.create_item", "api.py:12"),
    ("handles", "WS /ws", "api.feed", "api.py:22"),
}


def test_routes_and_their_handlers_exactly(tmp_path: Path) -> None:
    root = tmp_path / "pyroutes"
    shutil.copytree(REPO / "fixtures" / "pyroutes", root)
    config.init_project(root)
    res = indexer.build(config.load(root), no_vectors=True)
    assert res.status == "built" and res.warnings == []
    nodes, edges, _struct = _graph(root)
    assert {n for n in nodes if n[0] == "web_route"} == ROUTES
    handles = {e for e in edges if e[0] == "handles"}
    assert {e[:4] for e in handles} == HANDLES
    assert {e[4:] for e in handles} == {("derived", 0.6)}
    # routes add rows, never call edges: the one call is ``Checkout.as_view()`` itself
    calls = {e[:3] for e in edges if e[0].startswith("calls")}
    assert calls == {("calls", "shop/urls.py", "shop.views.Checkout.as_view")}
    out = json.loads(invoke("query", "routes", "--json", cwd=root).stdout)["result"]["routes"]
    got = {(r["method"], r["route"], tuple(h["fqn"] for h in r["handlers"])) for r in out}
    assert ("GET|POST", "/login", ("flask_app.login",)) in got
    assert ("*", "checkout/", ("shop.views.Checkout",)) in got
    assert len(got) == len(ROUTES)
