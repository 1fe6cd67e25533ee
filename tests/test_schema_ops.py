"""schema / table_usage / impact by table against the real MariaDB on 127.0.0.1:3306 (issue 6).

Each test that needs the server creates its own database ``ragraf_s_<hex>`` from
fixtures/sqlapp's migrations plus live-only changes, and drops it afterwards.
Nothing is skipped: without the server these tests fail.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import secrets
import shutil
import socket
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from ragraf import config, facade
from ragraf.indexing import indexer
from ragraf.sql.dbschema import split_statements
from ragraf.store import manifest
from tests.helpers import SQLAPP
from tests.schemacheck import check

HOST, PORT, USER = "127.0.0.1", 3306, "root"
# what the live database has and the migrations do not
LIVE_ONLY = [
    "ALTER TABLE orders ADD COLUMN coupon VARCHAR(20) NULL",
    "ALTER TABLE users MODIFY name VARCHAR(150) NOT NULL",
    "CREATE TABLE audit_log (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, order_id INT UNSIGNED NOT NULL,"
    " note VARCHAR(200) NULL, CONSTRAINT fk_audit_order FOREIGN KEY (order_id) REFERENCES orders (id)) ENGINE=InnoDB",
    "CREATE VIEW open_orders AS SELECT id, user_id FROM orders WHERE status = 'new'",
]


def _server(database: str = "test") -> Any:
    import mysql.connector

    return mysql.connector.connect(
        host=HOST, port=PORT, user=USER, password="", database=database, connection_timeout=5
    )


@contextlib.contextmanager
def scratch_db(extra: Sequence[str] = ()) -> Iterator[str]:
    """A new database with the fixture's migrations applied, then ``extra``; dropped afterwards."""
    name = f"ragraf_s_{secrets.token_hex(6)}"
    conn = _server()
    try:
        cur = conn.cursor()
        cur.execute(f"CREATE DATABASE `{name}`")
        cur.execute(f"USE `{name}`")
        for f in sorted((SQLAPP / "db" / "migrations").glob("*.sql")):
            for _line, stmt in split_statements(f.read_text(encoding="utf-8")):
                cur.execute(stmt)
        for stmt in extra:
            cur.execute(stmt)
        conn.commit()
        yield name
    finally:
        cur = conn.cursor()
        cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
        conn.close()


@pytest.fixture(scope="module")
def live_db() -> Iterator[str]:
    """The fixture's migrations plus LIVE_ONLY, shared by the read-only tests of this module."""
    with scratch_db(LIVE_ONLY) as name:
        yield name


def make_project(root: Path, db: dict[str, Any]) -> Path:
    shutil.copytree(SQLAPP, root)
    config.init_project(root)
    config.Layout(root).project_yaml.write_text(
        yaml.safe_dump(
            {"db": {"schema_source": ["information_schema", "db/migrations/*.sql"], **db}}
        ),
        encoding="utf-8",
    )
    return root


def run(root: Path, op: str, **args: Any) -> dict[str, Any]:
    env = facade.run_op(root, op, args)
    check(env)
    return env


@pytest.fixture(scope="module")
def live_root(live_db: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_project(
        tmp_path_factory.mktemp("live") / "app",
        {"dsn": f"mysql://{USER}@{HOST}:{PORT}/{live_db}", "connect_timeout": 3},
    )
    indexer.build(config.load(root))
    return root


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- live schema -------------------------------------------------------------------------------


@pytest.mark.mariadb
def test_schema_comes_from_information_schema(live_root: Path) -> None:
    man = manifest.require(config.Layout(live_root).rev_json)
    assert man["schema"] == {"source": "information_schema", "incomplete": None}
    env = run(live_root, "schema")
    r = env["result"]
    assert r["source"] == "information_schema" and r["complete"] is True and r["incomplete"] is None
    assert not any("schema incomplete" in lim for lim in env["limits"])
    tables = {t["name"]: t for t in r["tables"]}
    assert sorted(tables) == ["audit_log", "order_items", "orders", "products", "users"]
    assert all(
        t["source"] == "information_schema" and t["engine"] == "InnoDB" for t in tables.values()
    )
    # evidence: the migration's CREATE when the migrations define the table, else the live database
    assert tables["users"]["evidence"] == "db/migrations/001_create_shop.sql:2"
    assert tables["audit_log"]["evidence"] == "db://schema:1"
    orders = tables["orders"]
    assert [c["name"] for c in orders["columns"]] == [
        "id",
        "user_id",
        "status",
        "total",
        "created_at",
        "shipped_at",
        "coupon",
    ]
    assert orders["columns"][0] == {
        "name": "id",
        "type": "int(10) unsigned",
        "nullable": False,
        "key": "PRI",
    }
    assert orders["primary_key"] == ["id"]
    assert orders["foreign_keys"] == [{"column": "user_id", "to_table": "users", "to_column": "id"}]
    assert {(x["from_table"], x["from_column"]) for x in orders["referenced_by"]} == {
        ("audit_log", "order_id"),
        ("order_items", "order_id"),
    }
    assert tables["users"]["columns"][3]["name"] == "active"  # AFTER name, as the ALTER said
    assert r["views"] == [
        {"name": "open_orders", "node_id": r["views"][0]["node_id"], "evidence": "db://schema:1"}
    ]
    assert r["total"] == 6 and r["problems"] == []


@pytest.mark.mariadb
def test_divergences_reported_and_recorded(live_root: Path) -> None:
    r = run(live_root, "schema")["result"]
    assert r["divergences"] == [
        {
            "kind": "table_only_live",
            "table": "audit_log",
            "column": None,
            "live_type": None,
            "migration_type": None,
        },
        {
            "kind": "column_only_live",
            "table": "orders",
            "column": "coupon",
            "live_type": "varchar(20)",
            "migration_type": None,
        },
        {
            "kind": "type_differs",
            "table": "users",
            "column": "name",
            "live_type": "varchar(150)",
            "migration_type": "varchar(100)",
        },
    ]
    one = run(live_root, "schema", table="ORDERS")["result"]
    assert [t["name"] for t in one["tables"]] == ["orders"] and len(one["divergences"]) == 1
    status = run(live_root, "index_status", detail="full")["result"]
    cov = json.dumps(status)
    assert "schema.divergence" in cov
    nf = run(live_root, "schema", table="ordres")["result"]
    assert nf["tables"] == [] and "orders" in nf["nearest"] and "not in the schema" in nf["hint"]


@pytest.mark.mariadb
def test_live_column_nodes_and_fk_edges(live_root: Path) -> None:
    from ragraf.store.graph import GraphStore
    from ragraf.store.ranges import rev_no

    layout = config.Layout(live_root)
    rev = manifest.require(layout.rev_json)["rev_id"]
    g = GraphStore(layout.graph_db, readonly=True)
    try:
        nodes = {
            r[0]: r
            for r in g.db.query(
                "SELECT node_id, kind, fqn, path, start_line FROM node WHERE rev_from <= ?1 AND rev_to > ?1",
                (rev_no(rev),),
            )
        }
        edges = g.db.query(
            "SELECT kind, src, dst, evidence_path, evidence_line, sources FROM edge"
            " WHERE rev_from <= ?1 AND rev_to > ?1 AND kind IN ('fk_to', 'contains')",
            (rev_no(rev),),
        )
    finally:
        g.close()
    cols = {n[2]: (n[3], n[4]) for n in nodes.values() if n[1] == "db_column"}
    assert cols["orders.coupon"] == ("db://schema", 1)
    assert cols["orders.shipped_at"] == ("db/migrations/002_alter_shop.sql", 4)
    assert cols["users.name"] == ("db/migrations/001_create_shop.sql", 2)
    fks = {
        (nodes[s][2], nodes[d][2], f"{p}:{ln}", src)
        for k, s, d, p, ln, src in edges
        if k == "fk_to"
    }
    assert fks == {
        ("audit_log.order_id", "orders.id", "db://schema:1", '["information_schema"]'),
        (
            "order_items.order_id",
            "orders.id",
            "db/migrations/001_create_shop.sql:29",
            '["information_schema"]',
        ),
        (
            "order_items.product_id",
            "products.id",
            "db/migrations/001_create_shop.sql:29",
            '["information_schema"]',
        ),
        (
            "orders.user_id",
            "users.id",
            "db/migrations/001_create_shop.sql:19",
            '["information_schema"]',
        ),
    }


# -- table_usage / impact ----------------------------------------------------------------------


@pytest.mark.mariadb
def test_table_usage_readers_writers_and_unknown_columns(live_root: Path) -> None:
    r = run(live_root, "table_usage", table="orders")["result"]
    assert r["target"][0]["kind"] == "db_table" and r["total"] == 3
    readers = [
        (x["sql"]["evidence"], x["symbol"]["fqn"], x["operation"], x["provenance"], x["confidence"])
        for x in r["readers"]
    ]
    writers = [
        (
            x["sql"]["evidence"],
            x["symbol"]["fqn"],
            x["operation"],
            x["provenance"],
            x["confidence"],
            x.get("via"),
        )
        for x in r["writers"]
    ]
    assert readers == [
        ("src/OrderService.php:20", "SqlApp\\OrderService::ordersByStatus", "select", "stated", 1.0)
    ]
    assert writers == [
        (
            "src/Admin/Maintenance.php:25",
            "SqlApp\\Admin\\Maintenance::purgeCancelled",
            "delete",
            "stated",
            1.0,
            None,
        ),
        (
            "src/OrderService.php:46",
            "SqlApp\\OrderService::ship",
            "update",
            "derived",
            0.4,
            "dynamic_table_name",
        ),
    ]
    assert (
        r["writers"][1]["runtime_parts"] == ["$this->prefix"]
        and r["writers"][1]["table_name"] == "dynamic"
    )
    assert r["readers"][0]["columns"] == ["id", "total", "email", "user_id", "status", "created_at"]
    assert r["readers"][0]["text"]["untrusted"] == "$sql = <<<SQL"
    assert r["files"] == ["src/Admin/Maintenance.php", "src/OrderService.php"]
    assert [(s["fqn"], s["reads"], s["writes"]) for s in r["symbols"]] == [
        ("SqlApp\\Admin\\Maintenance::purgeCancelled", 0, 1),
        ("SqlApp\\OrderService::ordersByStatus", 1, 0),
        ("SqlApp\\OrderService::ship", 0, 1),
    ]
    assert r["counts"] == {"delete": 1, "select": 1, "update": 1}
    products = run(live_root, "table_usage", table="products")["result"]
    star = next(x for x in products["readers"] if x["sql"]["evidence"] == "src/Catalog.php:17")
    assert star["columns"] == "unknown" and star["select_star"] and star["provenance"] == "derived"
    assert star["via"] == "select_star"
    # a live-only table: no SQL uses it
    audit = run(live_root, "table_usage", table="audit_log")["result"]
    assert audit["total"] == 0 and audit["target"][0]["evidence"] == "db://schema:1"


@pytest.mark.mariadb
def test_table_usage_role_lists_writers_or_readers_only(live_root: Path) -> None:
    """`role=write` answers "where is this table written" without the readers (issue 45:
    WordPress's readers were 11-18 KB of a 24-32 KB answer), and says what it left out."""
    env = run(live_root, "table_usage", table="orders", role="write")
    r = env["result"]
    assert r["role"] == "write" and r["readers"] == [] and r["total"] == 3
    assert [x["sql"]["evidence"] for x in r["writers"]] == [
        "src/Admin/Maintenance.php:25",
        "src/OrderService.php:46",
    ]
    assert [s["fqn"] for s in r["symbols"]] == [
        "SqlApp\\Admin\\Maintenance::purgeCancelled",
        "SqlApp\\OrderService::ship",
    ]
    assert r["counts"] == {"delete": 1, "select": 1, "update": 1}
    assert any("role=write): 1 statement(s) that only read it" in x for x in env["limits"])
    reads = run(live_root, "table_usage", table="orders", role="read")["result"]
    assert reads["writers"] == [] and [s["fqn"] for s in reads["symbols"]] == [
        "SqlApp\\OrderService::ordersByStatus"
    ]
    assert reads["files"] == ["src/OrderService.php"]


@pytest.mark.mariadb
def test_table_usage_stale_warning_after_an_edit(live_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(live_root, root)
    p = root / "src" / "OrderService.php"
    time.sleep(0.01)
    p.write_text(
        p.read_text(encoding="utf-8").replace("ORDER BY o.created_at DESC", "ORDER BY o.id"),
        encoding="utf-8",
    )
    env = run(root, "table_usage", table="orders")
    assert [w["path"] for w in env["stale_warnings"]] == ["src/OrderService.php"]


@pytest.mark.mariadb
def test_impact_by_table(live_root: Path) -> None:
    r = run(live_root, "impact", detail="full", table="users")["result"]
    hard = {(s["kind"], s["fqn"]) for s in r["hard"]["symbols"]}
    soft = {(s["kind"], s["fqn"]) for s in r["soft"]["symbols"]}
    for fqn in (
        "SqlApp\\UserRepository::find",
        "SqlApp\\UserRepository::register",
        "SqlApp\\UserRepository::rename",
        "SqlApp\\OrderService::ordersByStatus",
    ):
        assert ("method", fqn) in hard
    assert ("method", "SqlApp\\UserRepository::activeUsers") in soft  # derived: dynamic table name
    assert not any(
        k == "sql_literal" for k, _f in hard | soft
    )  # SQL strings are listed by table_usage
    # foreign keys: orders.user_id references users.id, so the referencing column is affected
    assert "orders.user_id" in {t["fqn"] for t in r["hard"]["tables"]}
    assert {"src/UserRepository.php", "src/OrderService.php", "public/index.php"} <= set(
        r["hard"]["files"]
    )
    assert "src/Catalog.php" not in r["hard"]["files"] + r["soft"]["files"]
    h = run(live_root, "impact", detail="full", table="users", mode="hard")["result"]
    assert ("method", "SqlApp\\UserRepository::activeUsers") not in {
        (s["kind"], s["fqn"]) for s in h["hard"]["symbols"] + h["soft"]["symbols"]
    }


# -- unreachable / misconfigured servers -----------------------------------------------------------


def test_unreachable_server_builds_from_migrations(tmp_path: Path) -> None:
    port = closed_port()
    root = make_project(
        tmp_path / "app", {"dsn": f"mysql://{USER}@127.0.0.1:{port}/shop", "connect_timeout": 2}
    )
    indexer.build(config.load(root))
    man = manifest.require(config.Layout(root).rev_json)
    assert man["schema"]["source"] == "migration"
    assert f"cannot connect to 127.0.0.1:{port}" in man["schema"]["incomplete"]
    assert "tables from migrations only" in man["schema"]["incomplete"]
    env = run(root, "schema")
    r = env["result"]
    assert r["complete"] is False and r["source"] == "migration" and r["divergences"] == []
    assert sorted(t["name"] for t in r["tables"]) == ["order_items", "orders", "products", "users"]
    assert any(
        lim.startswith("database schema incomplete: live schema not read") for lim in env["limits"]
    )
    usage = run(root, "table_usage", table="users")
    assert usage["result"]["total"] == 5 and any("incomplete" in lim for lim in usage["limits"])


@pytest.mark.mariadb
def test_passwords_never_reach_a_store(live_db: str, tmp_path: Path) -> None:
    secret = "Zq-" + secrets.token_hex(8)
    for name, dsn in (
        ("refused", f"mysql://{USER}:{secret}@127.0.0.1:{closed_port()}/shop"),
        ("denied", f"mysql://ragraf_nobody:{secret}@{HOST}:{PORT}/{live_db}"),
    ):
        root = make_project(tmp_path / name, {"dsn": dsn, "connect_timeout": 2})
        indexer.build(config.load(root))
        man = manifest.require(config.Layout(root).rev_json)
        assert man["schema"]["source"] == "migration"
        if name == "denied":
            assert "access denied for user 'ragraf_nobody'" in man["schema"]["incomplete"]
        env = run(root, "schema")
        assert secret not in json.dumps(env)
        dot = root / ".ragraf"
        for p in dot.rglob("*"):
            if p.is_file() and p.name != "project.yaml":
                assert secret.encode() not in p.read_bytes(), p


def test_not_configured_server(tmp_path: Path) -> None:
    root = make_project(tmp_path / "app", {})
    indexer.build(config.load(root))
    r = run(root, "schema")["result"]
    assert r["source"] == "migration" and not r["complete"]
    assert "no database configured" in r["incomplete"]


@pytest.mark.mariadb
def test_diff_live_against_the_revision(tmp_path: Path) -> None:
    """db-schema-diff: what changed in the live database since the revision was sealed."""
    from ragraf.drift.scan import diff_live
    from ragraf.store.graph import GraphStore

    with scratch_db() as name:
        conn = _server(name)
        cur = conn.cursor()
        root = make_project(tmp_path / "app", {"dsn": f"mysql://{USER}@{HOST}:{PORT}/{name}"})
        cfg = config.load(root)
        rev = indexer.build(cfg).rev_id
        g = GraphStore(config.Layout(root).graph_db, readonly=True)
        try:
            assert diff_live(cfg, g, rev) == ([], None)
            cur.execute("ALTER TABLE products ADD COLUMN weight_g INT NULL")
            cur.execute("DROP TABLE order_items")
            divs, why = diff_live(cfg, g, rev)
        finally:
            g.close()
        assert why is None
        assert [(d.kind, d.table, d.column) for d in divs] == [
            ("table_only_migrations", "order_items", None),
            ("column_only_live", "products", "weight_g"),
        ]
        dsn = f"mysql://{USER}@127.0.0.1:{closed_port()}/{name}"
        gone = dataclasses.replace(cfg, db=dataclasses.replace(cfg.db, dsn=dsn))
        g = GraphStore(config.Layout(root).graph_db, readonly=True)
        try:
            divs, why = diff_live(gone, g, rev)
        finally:
            g.close()
        assert divs is None and why is not None and why.startswith("cannot connect")
        conn.close()


@pytest.mark.mariadb
def test_live_schema_change_after_the_index_is_a_ledger_entry(tmp_path: Path) -> None:
    """db-schema-diff: the live database changes after the revision -> `drift --scan` records a
    schema_change; the read operations themselves never write (they only warn from the ledger)."""
    from ragraf.drift.scan import run_scan

    with scratch_db() as name:
        root = make_project(tmp_path / "p", {"dsn": f"mysql://{USER}@{HOST}:{PORT}/{name}"})
        indexer.build(config.load(root))
        rep0 = run_scan(config.load(root))
        assert rep0.written == [] and rep0.schema == "the live database matches the revision"
        conn = _server(name)
        conn.cursor().execute("ALTER TABLE products ADD COLUMN weight INT NULL")
        conn.commit()
        # read operations do not write: no entry until a scan registers the change
        assert run(root, "schema", table="products")["drift"]["entries"] == 0
        assert run(root, "table_usage", table="products")["drift"]["entries"] == 0
        rep = run_scan(config.load(root))
        assert [(e.kind, e.path, e.detected_by) for e in rep.written] == [
            ("schema_change", "db://schema", "db-schema-diff")
        ]
        env = run(root, "schema", table="products")
        assert env["drift"]["entries"] == 1
        warn = [w for w in env["stale_warnings"] if w["path"] == "db://schema"]
        assert warn and warn[0]["reason"].startswith("schema_change after rev-0001")
        assert "column_only_live products.weight" in warn[0]["reason"]
        # scanning again adds nothing (same live state: same dedupe key)
        assert run_scan(config.load(root)).written == []
        assert run(root, "table_usage", table="products")["drift"]["entries"] == 1
        usage = run(root, "impact", detail="full", table="products")
        assert any(w["path"] == "db://schema" for w in usage["stale_warnings"])
        conn.close()
