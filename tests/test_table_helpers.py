"""Tables through helpers (issue 41 §4, fixtures/tablehelpers): a literal passed where a
corpus function names its SQL's table by that parameter is a derived use of the table by
the caller (read or write as the function's SQL is, ``via: helper_param``); a table ->
column map and a list of tables are derived reads (``table_map`` / ``table_list``) when
every name is a known table; ``table_usage`` lists them, with the call that passes the
name."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragraf import facade
from ragraf.lang import registry
from ragraf.lang.facts import TableArgRef, TableForwardRef, TableListRef, TableParamRef
from tests.helpers import REPO, indexed_fixture
from tests.schemacheck import check

FIXTURES = REPO / "fixtures" / "tablehelpers"

#: table -> (role, evidence, operation, provenance, via, call, symbol) of every use
GOLDEN = {
    "users": {
        ("read", "admin/orders.php:17", "other", "derived", "table_map", "table map", "export_columns"),
        ("read", "src/Repository.php:13", "select", "derived", "helper_param", "count() argument 1", "App\\Repository::users"),
        # insert_row() passes its $table on to save_record()
        ("write", "admin/orders.php:36", "insert", "derived", "helper_param", "insert_row() argument 1", "admin/orders.php"),
    },
    "orders": {
        ("read", "admin/orders.php:11", "select", "derived", "helper_param", "load_records() argument 1", "recent_orders"),
        ("read", "admin/orders.php:17", "other", "derived", "table_map", "table map", "export_columns"),
        ("read", "admin/orders.php:22", "other", "derived", "table_list", "table list", "reset_tables"),
    },
    "order_items": {
        ("read", "admin/orders.php:22", "other", "derived", "table_list", "table list", "reset_tables"),
        ("write", "admin/orders.php:6", "insert", "derived", "helper_param", "save_record() argument 2", "add_order_item"),
    },
    "audit_log": {
        ("write", "lib/db.php:26", "insert", "stated", None, None, "log_message"),
        ("write", "admin/orders.php:33", "alter", "derived", "helper_param", "install_add_index() argument 1", "admin/orders.php"),
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(FIXTURES, tmp_path_factory.mktemp("th") / "app")


@pytest.mark.parametrize("table", sorted(GOLDEN))
def test_table_usage_lists_tables_passed_to_helpers(app: Path, table: str) -> None:
    env = facade.run_op(app, "table_usage", {"table": table})
    check(env)
    r = env["result"]
    got = {
        (role, it["evidence"], it["operation"], it["provenance"], it.get("via"), it.get("call"),
         it["symbol"]["fqn"])
        for role, key in (("read", "readers"), ("write", "writers"))
        for it in r[key]
    }  # fmt: skip
    assert got == GOLDEN[table]  # not_tables()'s ['users', 'name', 'status'] is no list
    assert r["total"] == len({x[1] for x in GOLDEN[table]})
    for it in r["readers"] + r["writers"]:
        if it["provenance"] == "derived":
            assert it["confidence"] == 0.4


def test_helper_facts() -> None:
    text = (REPO / "fixtures/tablehelpers/lib/db.php").read_text()
    f = registry.extract("lib/db.php", "php", text, 200)
    params = {
        (f.nodes[r.owner].fqn, r.position, r.operation, str(r.role))
        for r in f.refs
        if isinstance(r, TableParamRef)
    }
    assert params == {
        ("save_record", 1, "insert", "write"),
        ("load_records", 0, "select", "read"),
        ("install_add_index", 0, "alter", "write"),
    }
    text = (REPO / "fixtures/tablehelpers/admin/orders.php").read_text()
    f = registry.extract("admin/orders.php", "php", text, 200)
    args = {
        (r.callee.candidates, r.position, r.table) for r in f.refs if isinstance(r, TableArgRef)
    }
    assert (("save_record",), 1, "order_items") in args
    assert (("install_add_index",), 1, "idx_message") in args  # not a table position
    lists = {(r.names, r.keyed) for r in f.refs if isinstance(r, TableListRef)}
    assert (("users", "orders"), True) in lists
    assert (("users", "name", "status"), False) in lists  # the linker finds no list of tables
    text = (REPO / "fixtures/tablehelpers/lib/db.php").read_text()
    f = registry.extract("lib/db.php", "php", text, 200)
    forwards = [
        (f.nodes[r.owner].fqn, r.param, r.callee.candidates, r.position)
        for r in f.refs
        if isinstance(r, TableForwardRef)
    ]
    assert ("insert_row", 0, ("save_record",), 1) in forwards


def test_a_table_the_schema_does_not_know_links_nothing(app: Path) -> None:
    env = facade.run_op(app, "table_usage", {"table": "sessions"})
    check(env)
    assert env["result"]["total"] == 0
