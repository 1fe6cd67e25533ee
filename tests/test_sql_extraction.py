"""SQL in PHP strings -> sql_literal nodes and table edges (issue 6), on fixtures/sqlapp.

The expected edges are the ones fixtures/sqlapp/EXPECTED.md lists (read from that
file, so the fixture and the test cannot drift apart); the columns and the
owners below were checked by hand against the fixture's sources.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from ragraf import config
from ragraf.indexing import indexer
from ragraf.lang import php
from ragraf.lang.facts import SqlRef
from ragraf.store import manifest
from ragraf.store.graph import GraphStore
from ragraf.store.graph.cols import DEFAULT_SOURCES
from ragraf.store.ranges import rev_no
from tests.helpers import SQLAPP

# location -> (owner symbol, columns the text names or None for the "unknown" marker)
OWNERS_AND_COLUMNS: dict[str, tuple[str, list[str] | None]] = {
    "src/UserRepository.php:17": ("SqlApp\\UserRepository::find", ["id", "email", "name"]),
    "src/UserRepository.php:23": (
        "SqlApp\\UserRepository::register",
        ["email", "name", "created_at"],
    ),
    "src/UserRepository.php:28": ("SqlApp\\UserRepository::rename", ["name", "id"]),
    "src/UserRepository.php:34": ("SqlApp\\UserRepository::activeUsers", ["id", "email", "active"]),
    "src/OrderService.php:20": (
        "SqlApp\\OrderService::ordersByStatus",
        ["id", "total", "email", "user_id", "status", "created_at"],
    ),
    "src/OrderService.php:32": (
        "SqlApp\\OrderService::addItem",
        ["order_id", "product_id", "quantity", "unit_price"],
    ),
    "src/OrderService.php:46": ("SqlApp\\OrderService::ship", ["status", "shipped_at", "id"]),
    "src/OrderService.php:51": ("SqlApp\\OrderService::clearItems", ["order_id"]),
    "src/Catalog.php:17": ("SqlApp\\Catalog::bySku", None),
    "src/Catalog.php:23": ("SqlApp\\Catalog::takeFromStock", ["stock", "id"]),
    "src/Catalog.php:28": ("SqlApp\\Catalog::emptyMessage", None),
    "src/Admin/Maintenance.php:19": ("SqlApp\\Admin\\Maintenance::rowCount", []),
    "src/Admin/Maintenance.php:25": (
        "SqlApp\\Admin\\Maintenance::purgeCancelled",
        ["status", "created_at"],
    ),
}
# heredoc / nowdoc: the literal spans to its closing marker
END_LINES = {"src/OrderService.php:20": 26, "src/OrderService.php:32": 35}


def expected_rows() -> list[dict[str, str]]:
    rows = []
    for line in (SQLAPP / "EXPECTED.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and re.match(r"^src/\S+:\d+$", cells[0]):
            rows.append(
                dict(zip(("loc", "form", "op", "tables", "edge", "why"), cells, strict=True))
            )
    return rows


def expected_tables(cell: str) -> list[tuple[str, str, bool]]:
    """'orders (read), users (read)' / 'users (read, dynamic)' -> [(name, role, dynamic)]."""
    return [
        (m.group(1), m.group(2), bool(m.group(3)))
        for m in re.finditer(r"`?([\w$]+)`? \((read|write)(, dynamic)?\)", cell)
    ]


def index_sqlapp(root: Path, db: dict | None = None) -> str:
    shutil.copytree(SQLAPP, root)
    config.init_project(root)
    settings = {"schema_source": ["db/migrations/*.sql"], **(db or {})}
    config.Layout(root).project_yaml.write_text(yaml.safe_dump({"db": settings}), encoding="utf-8")
    return indexer.build(config.load(root), force=True).rev_id


class Graph:
    def __init__(self, root: Path) -> None:
        self.root = root
        layout = config.Layout(root)
        self.rev = manifest.require(layout.rev_json)["rev_id"]
        self.man = manifest.require(layout.rev_json)
        g = GraphStore(layout.graph_db, readonly=True)
        try:
            self.nodes = {
                r[0]: r
                for r in g.db.query(
                    "SELECT node_id, kind, name, fqn, path, start_line, end_line, props FROM node WHERE rev_from <= ?1 AND rev_to > ?1",
                    (rev_no(self.rev),),
                )
            }
            self.edges = g.db.query(
                "SELECT kind, src, dst, provenance, evidence_path, evidence_line, confidence,"
                # '' is how the store keeps the commonest list (issue 44)
                f" iif(sources = '', '{DEFAULT_SOURCES}', sources), props, edge_uid"
                " FROM edge WHERE rev_from <= ?1 AND rev_to > ?1",
                (rev_no(self.rev),),
            )
            self.coverage = g.coverage(self.rev)
            self.tables = g.db_tables(self.rev)
        finally:
            g.close()

    def fqn(self, nid: str) -> str:
        return self.nodes[nid][3]

    def of_kind(self, kind: str) -> list[tuple]:
        return [n for n in self.nodes.values() if n[1] == kind]

    def edges_of(self, kind: str) -> set[tuple]:
        """(src fqn, dst fqn, evidence, provenance, confidence)."""
        return {
            (self.fqn(e[1]), self.fqn(e[2]), f"{e[4]}:{e[5]}", e[3], e[6])
            for e in self.edges
            if e[0] == kind
        }


@pytest.fixture(scope="module")
def sqlapp(tmp_path_factory: pytest.TempPathFactory) -> Graph:
    root = tmp_path_factory.mktemp("sqlapp") / "sqlapp"
    index_sqlapp(root)
    return Graph(root)


def test_fixture_rows_cover_every_form() -> None:
    rows = expected_rows()
    assert [r["loc"] for r in rows] == list(OWNERS_AND_COLUMNS)
    forms = " ".join(r["form"] for r in rows)
    for form in (
        "single-quoted",
        "double-quoted",
        "concatenation",
        "heredoc",
        "nowdoc",
        "interpolation",
    ):
        assert form in forms


def test_sql_literal_nodes_exactly(sqlapp: Graph) -> None:
    got = {(n[4], n[5], n[6], n[3]) for n in sqlapp.of_kind("sql_literal")}
    want = set()
    for row in expected_rows():
        if row["op"].startswith("—"):
            continue  # prose: no node
        path, line = row["loc"].rsplit(":", 1)
        owner, _cols = OWNERS_AND_COLUMNS[row["loc"]]
        want.add((path, int(line), END_LINES.get(row["loc"], int(line)), f"{owner}#sql@{line}"))
    assert got == want
    # every literal is contained in its owner, with the string's line as evidence
    contains = sqlapp.edges_of("contains")
    for path, line, _end, fqn in want:
        owner = fqn.split("#sql@")[0]
        assert (owner, fqn, f"{path}:{line}", "stated", 1.0) in contains


def test_edges_match_expected_md(sqlapp: Graph) -> None:
    want_refs, want_queries = set(), set()
    for row in expected_rows():
        path, line = row["loc"].rsplit(":", 1)
        owner, _cols = OWNERS_AND_COLUMNS[row["loc"]]
        lit = f"{owner}#sql@{line}"
        if row["edge"] == "none":
            continue
        prov, conf = ("stated", 1.0) if row["edge"] == "stated" else ("derived", 0.4)
        for name, _role, _dyn in expected_tables(row["tables"]):
            want_refs.add((lit, name, row["loc"], prov, conf))
            want_queries.add((owner, name, row["loc"], prov, conf))
    assert sqlapp.edges_of("references_table") == want_refs
    assert sqlapp.edges_of("queries") == want_queries
    assert {e[3] for e in want_refs} == {"stated", "derived"}


def test_operations_roles_and_columns(sqlapp: Graph) -> None:
    by_loc = {f"{n[4]}:{n[5]}": json.loads(n[7]) for n in sqlapp.of_kind("sql_literal")}
    for row in expected_rows():
        if row["op"].startswith("—"):
            assert row["loc"] not in by_loc
            continue
        p = by_loc[row["loc"]]
        _owner, cols = OWNERS_AND_COLUMNS[row["loc"]]
        assert p["operation"] == row["op"], row["loc"]
        assert p["columns"] == cols, row["loc"]  # None = the "unknown" marker, never invented
        assert p["select_star"] == ("SELECT *" in row["why"]), row["loc"]
        assert p["parsed"] is True
        want = expected_tables(row["tables"])
        got = [
            (t["name"] or f"${t['expr'].lstrip('$')}", t["role"], t["how"] == "dynamic")
            for t in p["tables"]
        ]
        assert got == want, row["loc"]
        assert p["dynamic"] == any(d for _n, _r, d in want), row["loc"]


def test_derived_edges_say_why(sqlapp: Graph) -> None:
    via = {
        (sqlapp.fqn(e[1]), f"{e[4]}:{e[5]}"): json.loads(e[8])
        for e in sqlapp.edges
        if e[0] == "references_table"
    }
    assert via[("SqlApp\\Catalog::bySku#sql@17", "src/Catalog.php:17")] == {
        "operation": "select",
        "roles": ["read"],
        "via": "select_star",
    }
    assert via[("SqlApp\\OrderService::ship#sql@46", "src/OrderService.php:46")] == {
        "operation": "update",
        "roles": ["write"],
        "via": "dynamic_table_name",
    }
    assert via[("SqlApp\\UserRepository::find#sql@17", "src/UserRepository.php:17")] == {
        "operation": "select",
        "roles": ["read"],
    }
    sources = {
        json.loads(e[7])[-1] for e in sqlapp.edges if e[0] in ("queries", "references_table")
    }
    assert sources == {"sqlglot"}


def test_schema_from_migrations_with_evidence(sqlapp: Graph) -> None:
    assert sqlapp.man["schema"] == {
        "source": "migration",
        "incomplete": None,
    }  # migrations only, by choice
    assert [(t[1], t[4]) for t in sqlapp.tables] == [
        ("order_items", "migration"),
        ("orders", "migration"),
        ("products", "migration"),
        ("users", "migration"),
    ]
    tables = {n[3]: (n[4], n[5]) for n in sqlapp.of_kind("db_table")}
    assert tables == {
        "users": ("db/migrations/001_create_shop.sql", 2),
        "products": ("db/migrations/001_create_shop.sql", 9),
        "orders": ("db/migrations/001_create_shop.sql", 19),
        "order_items": ("db/migrations/001_create_shop.sql", 29),
    }
    cols = {n[3]: (n[4], n[5], json.loads(n[7])) for n in sqlapp.of_kind("db_column")}
    assert len(cols) == 20
    assert cols["users.active"][:2] == ("db/migrations/002_alter_shop.sql", 2)
    assert cols["products.title"] == (
        "db/migrations/002_alter_shop.sql",
        3,
        {"data_type": "varchar(255)", "nullable": False, "ordinal": 3},
    )
    assert cols["users.email"][2]["key"] == "UNI" and cols["orders.user_id"][2]["key"] == "MUL"
    assert sqlapp.edges_of("fk_to") == {
        ("orders.user_id", "users.id", "db/migrations/001_create_shop.sql:19", "stated", 1.0),
        (
            "order_items.order_id",
            "orders.id",
            "db/migrations/001_create_shop.sql:29",
            "stated",
            1.0,
        ),
        (
            "order_items.product_id",
            "products.id",
            "db/migrations/001_create_shop.sql:29",
            "stated",
            1.0,
        ),
    }
    assert (
        "users",
        "users.active",
        "db/migrations/002_alter_shop.sql:2",
        "stated",
        1.0,
    ) in sqlapp.edges_of("contains")
    for e in sqlapp.edges:
        if e[0] in ("fk_to",) or sqlapp.nodes[e[1]][1] == "db_table":
            assert json.loads(e[7]) == ["migration"]
    cov = {m: (v, n) for m, v, n in sqlapp.coverage if m.startswith("schema.")}
    assert (
        cov["schema.tables"][0] == 4
        and cov["schema.columns"][0] == 20
        and cov["schema.foreign_keys"][0] == 3
    )
    assert cov["schema.problems"][0] == 0 and cov["schema.divergences"][0] == 0
    assert "schema.incomplete" not in cov


def test_configured_prefixes_resolve_and_stay_derived(tmp_path: Path) -> None:
    index_sqlapp(tmp_path / "app", {"table_prefixes": {"$this->prefix": "", "$prefix": ""}})
    g = Graph(tmp_path / "app")
    refs = {(s, d, ev): (prov, conf) for s, d, ev, prov, conf in g.edges_of("references_table")}
    assert refs[("SqlApp\\OrderService::ship#sql@46", "orders", "src/OrderService.php:46")] == (
        "derived",
        0.4,
    )
    assert refs[
        ("SqlApp\\UserRepository::activeUsers#sql@34", "users", "src/UserRepository.php:34")
    ] == ("derived", 0.4)
    props = {n[3]: json.loads(n[7]) for n in g.of_kind("sql_literal")}
    ship = props["SqlApp\\OrderService::ship#sql@46"]
    assert ship["tables"] == [
        {"name": "orders", "how": "prefix_resolved", "role": "write", "expr": "$this->prefix"}
    ]
    assert ship["dynamic"] is False
    via = {
        json.loads(e[8]).get("via")
        for e in g.edges
        if e[0] == "references_table" and g.fqn(e[1]) == "SqlApp\\OrderService::ship#sql@46"
    }
    assert via == {"table_prefix"}
    # a prefix naming another table: the edge follows the resolved name
    index_sqlapp(tmp_path / "app2", {"table_prefixes": {"$this->prefix": "order_"}})
    g2 = Graph(tmp_path / "app2")
    assert not any(
        s == "SqlApp\\OrderService::ship#sql@46" for s, *_ in g2.edges_of("references_table")
    )
    assert (
        json.loads(
            next(
                n[7]
                for n in g2.of_kind("sql_literal")
                if n[3] == "SqlApp\\OrderService::ship#sql@46"
            )
        )["tables"][0]["name"]
        == "order_orders"
    )


def test_deterministic_ids(tmp_path: Path) -> None:
    index_sqlapp(tmp_path / "a")
    index_sqlapp(tmp_path / "b")
    a, b = Graph(tmp_path / "a"), Graph(tmp_path / "b")
    kinds = ("sql_literal", "db_table", "db_column")
    assert {n[0] for n in a.nodes.values() if n[1] in kinds} == {
        n[0] for n in b.nodes.values() if n[1] in kinds
    }
    assert {e[9] for e in a.edges} == {e[9] for e in b.edges}


def test_no_schema_means_tables_from_code(tmp_path: Path, sqlapp: Graph) -> None:
    """Without any schema every table a SQL string names is a db_table node of source
    `code`, linked exactly where the schema would link it, but derived (no_schema)."""
    index_sqlapp(tmp_path / "app", {"schema_source": []})
    g = Graph(tmp_path / "app")
    assert len(g.of_kind("sql_literal")) == 12
    assert (
        g.man["schema"]["source"] == "none" and "no schema source" in g.man["schema"]["incomplete"]
    )
    assert g.tables == []  # no schema rows: the tables are only nodes
    tables = {n[2]: n for n in g.of_kind("db_table")}
    assert sorted(tables) == ["order_items", "orders", "products", "users"]
    for kind in ("references_table", "queries"):
        with_schema = sqlapp.edges_of(kind)
        without = g.edges_of(kind)
        assert without == {(s, d, ev, "derived", min(c, 0.4)) for s, d, ev, _p, c in with_schema}
    stated = {
        (s, d, ev) for s, d, ev, p, _c in sqlapp.edges_of("references_table") if p == "stated"
    }
    vias = {
        (g.fqn(e[1]), g.fqn(e[2]), f"{e[4]}:{e[5]}"): json.loads(e[8])["via"]
        for e in g.edges
        if e[0] == "references_table"
    }
    assert stated and all(vias[k] == "no_schema" for k in stated)
    assert all(v != "no_schema" for k, v in vias.items() if k not in stated)  # kept their why
    for name, n in tables.items():
        props = json.loads(n[7])
        assert props["source"] == "code" and props["columns"] is None
        first = min((e[4], e[5]) for e in g.edges if e[0] == "references_table" and e[2] == n[0])
        assert (n[4], n[5]) == first, name
    cov = {m: (v, note) for m, v, note in g.coverage}
    assert cov["schema.code_tables"] == (
        4.0,
        "no schema found: tables named by SQL strings in code (derived, columns unknown)",
    )


def test_unparsable_migration_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    root = tmp_path / "app"
    shutil.copytree(SQLAPP, root)
    (root / "db" / "migrations" / "003_broken.sql").write_text(
        "-- a typo\nALTER TABLE users ADD COLUMN nickname VARCHAR(40) NULL;\n\nCREATE TABLE (oops;\n",
        encoding="utf-8",
    )
    config.init_project(root)
    config.Layout(root).project_yaml.write_text(
        yaml.safe_dump({"db": {"schema_source": ["db/migrations/*.sql"]}})
    )
    indexer.build(config.load(root))
    g = Graph(root)
    cov = [(m, v, n) for m, v, n in g.coverage if m.startswith("schema.problem")]
    assert ("schema.problems", 1.0, None) in cov
    [note] = [n for m, _v, n in cov if m == "schema.problem"]
    assert note.startswith("db/migrations/003_broken.sql:4 unparsable statement")
    assert "1 migration statement(s) not applied" in g.man["schema"]["incomplete"]
    cols = {n[3]: (n[4], n[5]) for n in g.of_kind("db_column")}
    assert cols["users.nickname"] == (
        "db/migrations/003_broken.sql",
        2,
    )  # the statements before still apply


def test_dsn_from_is_only_referenced(tmp_path: Path) -> None:
    root = tmp_path / "app"
    shutil.copytree(SQLAPP, root)
    (root / "config").mkdir()
    (root / "config" / "db.php").write_text(
        "<?php\nreturn ['password' => 'hunter2-not-read'];\n", encoding="utf-8"
    )
    (root / "src" / "Boot.php").write_text(
        "<?php\n$cfg = require __DIR__ . '/../config/db.php';\n", encoding="utf-8"
    )
    config.init_project(root)
    config.Layout(root).project_yaml.write_text(
        yaml.safe_dump(
            {
                "secrets_exclude": ["config/db.php"],
                "db": {"schema_source": ["db/migrations/*.sql"], "dsn_from": "config/db.php"},
            }
        )
    )
    indexer.build(config.load(root))
    g = Graph(root)
    [(value, note)] = [(v, n) for m, v, n in g.coverage if m == "schema.dsn_from"]
    assert (
        value == 1.0 and "config/db.php" in note and "src/Boot.php" in note and "never read" in note
    )
    layout = config.Layout(root)
    for store in (layout.graph_db, layout.lexvec_db, layout.control_db):
        assert b"hunter2-not-read" not in store.read_bytes()


# -- extraction unit checks (real tree-sitter, real sqlglot) -------------------------------------


def sql_refs(src: str) -> list[tuple]:
    f = php.extract("t.php", src)
    return [
        (
            f.nodes[r.owner].fqn,
            r.line,
            r.end_line,
            r.fragments,
            r.analysis.operation if r.analysis else None,
            r.ordinal,
        )
        for r in f.refs
        if isinstance(r, SqlRef)
    ]


def test_string_forms_become_fragments() -> None:
    src = (
        "<?php\nnamespace N;\nclass K {\n"
        "    const Q = 'SELECT a FROM consts';\n"
        "    function m($t, $db) {\n"
        '        $f = function () { return "SELECT a FROM in_closure"; };\n'
        "        $x = 'SELECT a FROM t1'; $y = 'SELECT b FROM t2';\n"
        "        $u = 'SELECT a, b ' . 'FROM t3 ' . ($t ? 'WHERE x=1' : '') . (' ORDER BY ' . 'a');\n"
        '        $v = "SELECT \\"q\\" AS z, a FROM t4 WHERE s = \'\\x41\\101\\$x\'";\n'
        "        $w = 'UPDATE t5 SET a = \\'it\\'\\'s\\' WHERE b = \\\\';\n"
        "        $h = <<<EOT\n      SELECT a\n        FROM t6\n      WHERE b = '{$db->x}' AND c = \"$t[0]\"\n      EOT;\n"
        "        $n = <<<'EOT'\n  DELETE FROM t7 WHERE a = '$not_a_var'\n  EOT;\n"
        "        $s = 'Select a product from the list.';\n"
        '    }\n}\n$top = "INSERT INTO top_t (a) VALUES ($v)";\n'
    )
    got = sql_refs(src)
    assert got == [
        ("N\\K", 4, 4, (("lit", "SELECT a FROM consts"),), "select", 1),
        ("N\\K::m", 6, 6, (("lit", "SELECT a FROM in_closure"),), "select", 1),
        ("N\\K::m", 7, 7, (("lit", "SELECT a FROM t1"),), "select", 1),
        ("N\\K::m", 7, 7, (("lit", "SELECT b FROM t2"),), "select", 2),
        (
            "N\\K::m",
            8,
            8,
            (
                ("lit", "SELECT a, b FROM t3 "),
                ("dyn", "($t ? 'WHERE x=1' : '')"),
                ("lit", " ORDER BY a"),
            ),
            "select",
            1,
        ),
        ("N\\K::m", 9, 9, (("lit", "SELECT \"q\" AS z, a FROM t4 WHERE s = 'AA$x'"),), "select", 1),
        ("N\\K::m", 10, 10, (("lit", "UPDATE t5 SET a = 'it''s' WHERE b = \\"),), "update", 1),
        (
            "N\\K::m",
            11,
            15,
            (
                ("lit", "SELECT a\n  FROM t6\nWHERE b = '"),
                ("dyn", "{$db->x}"),
                ("lit", "' AND c = \""),
                ("dyn", "$t[0]"),
                ("lit", '"'),
            ),
            "select",
            1,
        ),
        ("N\\K::m", 16, 18, (("lit", "DELETE FROM t7 WHERE a = '$not_a_var'"),), "delete", 1),
        (
            "t.php",
            22,
            22,
            (("lit", "INSERT INTO top_t (a) VALUES ("), ("dyn", "$v"), ("lit", ")")),
            "insert",
            1,
        ),
    ]


def test_concatenation_is_analysed_once_from_its_outermost_node() -> None:
    src = "<?php\nfunction f($p) {\n  return 'SELECT a ' .\n    'FROM ' . $p . 'users ' .\n    'WHERE (SELECT 1 FROM x) = 1';\n}\n"
    [(owner, line, end, frags, op, _o)] = sql_refs(src)
    assert (owner, line, end, op) == ("f", 3, 5, "select")
    assert frags == (
        ("lit", "SELECT a FROM "),
        ("dyn", "$p"),
        ("lit", "users WHERE (SELECT 1 FROM x) = 1"),
    )


def test_fragment_starting_at_run_time_is_not_sql() -> None:
    assert sql_refs("<?php\n$q = $select . ' FROM users';\n$r = 'Delete';\n") == []


def test_a_data_dump_in_a_string_stays_fast() -> None:
    rows = ", ".join(f"({i}, 'name {i}', NULL)" for i in range(12000))
    src = f'<?php\nfunction seed() {{\n  return "INSERT INTO users (id, name, note) VALUES {rows}";\n}}\n'
    assert len(src) > 250_000
    # a guard against a quadratic analysis (about 0.5 s of CPU), not a performance target:
    # CPU time of this process, so a loaded machine does not fail it
    t0 = time.process_time()
    f = php.extract("seed.php", src)
    assert time.process_time() - t0 < 3
    [ref] = [r for r in f.refs if isinstance(r, SqlRef)]
    assert ref.analysis is not None
    op, tables, columns, _star, _dyn, parsed, problems, _ddl, _by_table = ref.analysis
    assert (op, tables, columns, parsed) == (
        "insert",
        (("users", "exact", "write", None, None),),
        None,
        False,
    )
    assert "too long for the parser" in problems[0]


def test_glued_keyword_and_backquoted_placeholders_name_no_table() -> None:
    from ragraf.sql import sqltext

    info = sqltext.analyze(
        [("lit", "UPDATE "), ("dyn", "Util::backquote('db')"), ("lit", "SET Db = 'x'")]
    )
    assert [(t.name, t.how) for t in info.tables] == [("", "dynamic")]
    info = sqltext.analyze("SELECT `%s` FROM `%s`.`%s` WHERE %s")
    assert [(t.name, t.how, t.expr) for t in info.tables] == [
        ("", "dynamic", "%s . %s")
    ] and info.dynamic


def test_binary_string_prefixes() -> None:
    src = "<?php\n$a = b\"SELECT $x FROM t\";\n$b = B'DELETE FROM u WHERE a = \\'1\\'';\n"
    assert [(r[1], r[3]) for r in sql_refs(src)] == [
        (2, (("lit", "SELECT "), ("dyn", "$x"), ("lit", " FROM t"))),
        (3, (("lit", "DELETE FROM u WHERE a = '1'"),)),
    ]


# -- SQL as real code writes it (issue 12), on fixtures/sqlcode --------------------------------

SQLCODE = SQLAPP.parent / "sqlcode"


def sqlcode_rows() -> list[dict[str, str]]:
    rows = []
    for line in (SQLCODE / "EXPECTED.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and re.match(r"^[\w/]+\.php:\d+$", cells[0]):
            rows.append(
                dict(zip(("loc", "owner", "form", "op", "tables", "edge"), cells, strict=True))
            )
    return rows


def sqlcode_tables(cell: str) -> list[tuple[str, str, str, str | None]]:
    """'wp_options (write, code_resolved, table_property), users (read, exact)' ->
    [(name, role, how, via)]."""
    return [
        (m.group(1), m.group(2), m.group(3), m.group(4))
        for m in re.finditer(
            r"([\w$>()'\-]+?) \((read|write), (exact|code_resolved|dynamic)(?:, (\w+))?\)", cell
        )
    ]


def index_sqlcode(root: Path, db: dict | None = None) -> Graph:
    shutil.copytree(SQLCODE, root)
    config.init_project(root)
    settings = {"schema_source": ["db/migrations/*.sql"], **(db or {})}
    config.Layout(root).project_yaml.write_text(yaml.safe_dump({"db": settings}), encoding="utf-8")
    indexer.build(config.load(root), force=True)
    return Graph(root)


@pytest.fixture(scope="module")
def sqlcode(tmp_path_factory: pytest.TempPathFactory) -> Graph:
    return index_sqlcode(tmp_path_factory.mktemp("sqlcode") / "sqlcode")


def literal_tables(props: dict) -> list[tuple[str, str, str, str | None]]:
    return [(t["name"] or t["expr"], t["role"], t["how"], t.get("via")) for t in props["tables"]]


def test_sqlcode_literals_exactly(sqlcode: Graph) -> None:
    rows = sqlcode_rows()
    assert len(rows) == 35
    got = {f"{n[4]}:{n[5]}": (n[3], json.loads(n[7])) for n in sqlcode.of_kind("sql_literal")}
    assert sorted(got) == sorted(r["loc"] for r in rows)
    for r in rows:
        fqn, props = got[r["loc"]]
        assert fqn == f"{r['owner']}#sql@{r['loc'].rsplit(':', 1)[1]}", r["loc"]
        assert props["operation"] == r["op"], r["loc"]
        assert literal_tables(props) == sqlcode_tables(r["tables"]), r["loc"]
    # an assembled statement spans its pieces: from the first to the last append
    ends = {f"{n[4]}:{n[5]}": n[6] for n in sqlcode.of_kind("sql_literal")}
    assert ends["src/Reports.php:11"] == 18
    assert got["src/Options.php:8"][1]["call"] == "$wpdb->update"
    assert got["src/Options.php:34"][1]["call"] == "DB::table"
    assert "call" not in got["src/Options.php:14"][1]


def test_sqlcode_edges_exactly(sqlcode: Graph) -> None:
    want_refs, want_queries = set(), set()
    for r in sqlcode_rows():
        if r["edge"] == "none":
            continue
        prov, conf = ("stated", 1.0) if r["edge"] == "stated" else ("derived", 0.4)
        lit = f"{r['owner']}#sql@{r['loc'].rsplit(':', 1)[1]}"
        for name, _role, _how, _via in sqlcode_tables(r["tables"]):
            want_refs.add((lit, name, r["loc"], prov, conf))
            want_queries.add((r["owner"], name, r["loc"], prov, conf))
    assert sqlcode.edges_of("references_table") == want_refs
    assert sqlcode.edges_of("queries") == want_queries
    via = {
        (sqlcode.fqn(e[1]), sqlcode.fqn(e[2])): json.loads(e[8])
        for e in sqlcode.edges
        if e[0] == "references_table"
    }
    assert via[("SqlCode\\update_setting#sql@8", "wp_options")] == {
        "operation": "update",
        "roles": ["write"],
        "via": "table_property",
    }
    assert via[("SqlCode\\active_users#sql@34", "users")] == {
        "operation": "update",
        "roles": ["write"],
        "via": "query_builder",
    }
    assert via[("SqlCode\\Reports::withShipments#sql@38", "shipments")]["via"] == "sql_fragment"
    assert via[("SqlCode\\Reports::columns#sql@45", "orders")]["via"] == "sql_fragment"
    assert via[("SqlCode\\Reports::sources#sql@52", "order_lines")]["via"] == "sql_fragment"
    assert via[("SqlCode\\add_post#sql@22", "wp_posts")]["via"] == "discovered_prefix"
    assert via[("SqlCode\\active_users#sql@35", "sessions")]["via"] == "helper_call"
    sources = {
        json.loads(e[7])[-1]
        for e in sqlcode.edges
        if e[0] == "references_table"
        and sqlcode.fqn(e[1]).startswith("SqlCode\\active_users#sql@3")
    }
    assert sources == {"tree-sitter", "sqlglot"}  # calls: tree-sitter only; the string: sqlglot


def test_sqlcode_configured_helper(tmp_path: Path) -> None:
    g = index_sqlcode(tmp_path / "app", {"table_helpers": ["tbl"]})
    props = {n[3]: json.loads(n[7]) for n in g.of_kind("sql_literal")}
    assert literal_tables(props["SqlCode\\active_users#sql@36"]) == [
        ("counters", "write", "code_resolved", "helper_call")
    ]
    assert (
        "SqlCode\\active_users#sql@36",
        "counters",
        "src/Options.php:36",
        "derived",
        0.4,
    ) in g.edges_of("references_table")


def test_sqlcode_table_usage_lists_builder_writers(sqlcode: Graph) -> None:
    from ragraf import facade

    res = facade.run_op(sqlcode.root, "table_usage", {"table": "wp_options"})["result"]
    writers = {
        (w["sql"]["evidence"], w.get("call"), w["table_name"], w["via"]) for w in res["writers"]
    }
    assert writers == {
        ("install/schema.php:8", None, "code_resolved", "table_property"),
        ("src/Options.php:8", "$wpdb->update", "code_resolved", "table_property"),
        ("src/Options.php:15", "$wpdb->delete", "code_resolved", "table_property"),
    }
    assert [r["sql"]["evidence"] for r in res["readers"]] == ["src/Options.php:14"]
    assert {s["fqn"]: (s["reads"], s["writes"]) for s in res["symbols"]} == {
        "install_tables": (0, 1),
        "SqlCode\\delete_setting": (1, 1),
        "SqlCode\\update_setting": (0, 1),
    }


def test_sqlcode_configured_query_builders(tmp_path: Path) -> None:
    """db.query_builders: a configured method names its literal table; a configured
    receiver's insert/update/... call does; the same call on another receiver does not."""
    g = index_sqlcode(
        tmp_path / "app",
        {
            "query_builders": {
                "methods": {"fetchRow": "select", "saveRow": "insert"},
                "receivers": ["->repo$"],
            }
        },
    )
    props = {n[3]: json.loads(n[7]) for n in g.of_kind("sql_literal")}
    mine = {k: v for k, v in props.items() if k.startswith("SqlCode\\archive_order#")}
    assert {k: (v["operation"], v["call"], literal_tables(v)) for k, v in mine.items()} == {
        "SqlCode\\archive_order#sql@43": (
            "select",
            "$store->fetchRow",
            [("orders", "read", "exact", None)],
        ),
        "SqlCode\\archive_order#sql@44": (
            "insert",
            "$store->saveRow",
            [("archive_orders", "write", "exact", None)],
        ),
        "SqlCode\\archive_order#sql@45": (
            "update",
            "$app->repo->update",
            [("orders", "write", "exact", None)],
        ),
    }
    assert {e for e in g.edges_of("references_table") if "archive_order#" in e[0]} == {
        ("SqlCode\\archive_order#sql@43", "orders", "src/Options.php:43", "derived", 0.4),
        ("SqlCode\\archive_order#sql@44", "archive_orders", "src/Options.php:44", "derived", 0.4),
        ("SqlCode\\archive_order#sql@45", "orders", "src/Options.php:45", "derived", 0.4),
    }
    assert len(props) == 35 + 3  # nothing else became SQL


def test_sqlcode_query_builders_unconfigured(sqlcode: Graph) -> None:
    """Without configuration the project's own builder calls stay plain calls."""
    names = {n[3] for n in sqlcode.of_kind("sql_literal")}
    assert not any(n.startswith("SqlCode\\archive_order#") for n in names)


def test_query_builders_bad_receiver_names_the_key(tmp_path: Path) -> None:
    from ragraf.errors import ConfigError

    with pytest.raises(ConfigError, match=r"query_builders\.receivers"):
        index_sqlcode(tmp_path / "app", {"query_builders": {"receivers": ["(unclosed"]}})


def test_table_usage_text_says_columns_unknown(sqlcode: Graph) -> None:
    """A query-builder call lists no columns: the text says so (it once spelled the marker
    "unknown" letter by letter)."""
    from tests.helpers import invoke

    res = invoke("-C", str(sqlcode.root), "query", "table_usage", "--table", "orders", check=True)
    line = next(ln for ln in res.stdout.splitlines() if "src/Wiki.php:9" in ln)
    assert "columns unknown" in line
    assert "u, n, k" not in res.stdout


def test_ddl_of_a_postgres_alter_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """An ALTER that MySQL cannot spell (a PostgreSQL updater's ``SET NOT NULL``) is kept
    for the migrator to refuse, without sqlglot's 'Unsupported ALTER COLUMN syntax' warning
    on the user's terminal (MediaWiki's PostgreSQL updater printed it during `index`)."""
    from ragraf.sql import sqltext

    with caplog.at_level(logging.WARNING):
        info = sqltext.analyze("ALTER TABLE t ALTER COLUMN c SET NOT NULL")
    assert info is not None and info.ddl
    assert not [r for r in caplog.records if r.name.startswith("sqlglot")]


def test_an_extraction_like_an_earlier_one_analyses_only_the_sql_that_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``registry.extract(like=)``: the analyses of the SQL strings whose fragments an
    earlier extraction of the file saw are taken from its facts (no sqlglot for them), and
    the facts are byte for byte those of an extraction without it."""
    from ragraf.lang import codec, registry
    from ragraf.sql import sqltext

    path = "src/OrderService.php"
    before = (SQLAPP / path).read_text()
    first = registry.extract(path, "php", before, 120)
    sql = [r for r in first.refs if isinstance(r, SqlRef)]
    assert len(sql) >= 3
    # a line above everything (every line moves) and one new statement
    after = before.replace("<?php\n", "<?php\n// moved\n", 1).replace(
        "\n}\n",
        "\n    public function ragrafCount($db)\n    {\n"
        '        return $db->query("SELECT COUNT(*) FROM order_items");\n    }\n}\n',
        1,
    )
    sqltext.cache_clear()
    plain = codec.encode(registry.extract(path, "php", after, 120))
    analysed: list[str] = []
    real = sqltext._analyze_cached.__wrapped__

    def counting(frags: Any, pkey: Any, lead: str) -> Any:
        analysed.append("".join(t for _k, t in frags))
        return real(frags, pkey, lead)

    monkeypatch.setattr(sqltext, "_analyze_cached", counting)
    like = codec.encode(registry.extract(path, "php", after, 120, like=first))
    assert like == plain
    assert analysed == ["SELECT COUNT(*) FROM order_items"], analysed


def test_a_scan_analyses_no_unchanged_sql_string_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`drift --scan` extracts an edited file for the next reindex with the indexed
    version's facts at hand: an edit outside the SQL strings parses none of them again, and
    the facts it caches are those of a plain extraction."""
    from ragraf.drift.scan import run_scan
    from ragraf.sql import sqltext
    from tests.helpers import edit_file

    root = tmp_path / "app"
    shutil.copytree(SQLAPP, root)
    config.init_project(root)
    cfg = config.load(root)
    indexer.build(cfg)
    edit_file(root, "src/OrderService.php", "<?php\n", "<?php\n// moved\n")

    def no_parse(*a: Any, **k: Any) -> Any:
        raise AssertionError("an unchanged SQL string was analysed again")

    sqltext.cache_clear()
    with monkeypatch.context() as m:
        m.setattr(sqltext, "_from_sqlglot", no_parse)
        m.setattr(sqltext, "_from_regex", no_parse)
        report = run_scan(cfg)
    assert [e.path for e in report.written] == ["src/OrderService.php"], report
    import hashlib

    from ragraf.lang import codec, registry

    raw = (root / "src/OrderService.php").read_bytes()
    text = raw.decode()
    key = (
        hashlib.sha256(raw).hexdigest(),
        registry.facts_key("src/OrderService.php", "php", 120, 10.0),
    )
    with GraphStore(cfg.layout.graph_db, readonly=True) as g:
        cached = g.cached_facts([key])
    assert cached[key] == codec.encode(registry.extract("src/OrderService.php", "php", text, 120))
