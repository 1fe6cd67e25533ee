"""Schema discovery and robustness (issue 12): which SQL files of a corpus hold its schema
(fixtures/schemaapp, schemabase, pgapp, noschemaapp), how each is parsed, and what the
answers say when there is no schema at all."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from ragraf import config, facade
from ragraf.indexing import indexer
from ragraf.sql import dbschema, discover
from ragraf.sql.dbschema import ForeignKey
from ragraf.store import manifest
from tests import test_dbschema
from tests.helpers import REPO, invoke
from tests.schemacheck import check
from tests.test_sql_extraction import Graph

FIX = REPO / "fixtures"
PG_WHY = (
    "PostgreSQL version of the schema (dialect from the path); the MySQL files are used:"
    " one dialect, MySQL first"
)


def sql_files(root: Path) -> list[tuple[str, str]]:
    return sorted(
        (str(p.relative_to(root)), p.read_text(encoding="utf-8")) for p in root.rglob("*.sql")
    )


def plan_of(name: str, **kw: Any) -> discover.Plan:
    return discover.plan(sql_files(FIX / name), **kw)


def used(p: discover.Plan) -> list[tuple[str, str, str]]:
    return [(u.path, u.dialect, u.why) for u in p.used]


def rejected(p: discover.Plan) -> list[tuple[str, str]]:
    return [(r.path, r.why) for r in p.rejected]


def index(tmp_path: Path, name: str, db: dict[str, Any] | None = None) -> Path:
    root = tmp_path / name
    shutil.copytree(FIX / name, root)
    config.init_project(root)
    if db is not None:
        config.Layout(root).project_yaml.write_text(yaml.safe_dump({"db": db}), encoding="utf-8")
    indexer.build(config.load(root), force=True)
    return root


def run(root: Path, op: str, **args: Any) -> dict[str, Any]:
    env = facade.run_op(root, op, args)
    check(env)
    return env


# -- the discovery rule ----------------------------------------------------------------------


def test_numbered_migrations_one_dialect_seed_and_test_data_rejected() -> None:
    p = plan_of("schemaapp")
    assert p.dialect == "mysql"
    assert used(p) == [
        (
            "sql/mysql/001_init.sql",
            "mysql",
            "numbered migration: 2 DDL of 2 statements, applied in version order",
        ),
        (
            "sql/mysql/002_search.sql",
            "mysql",
            "numbered migration: 2 DDL of 2 statements, applied in version order",
        ),
        (  # 010 after 002: version order, not text order
            "sql/mysql/010_broken.sql",
            "mysql",
            "numbered migration: 3 DDL of 3 statements, applied in version order",
        ),
    ]
    assert rejected(p) == [
        (
            "install/seed.sql",
            "mostly DML (4 of 4 statements insert or change rows, no DDL): seed data",
        ),
        ("install/uninstall.sql", "a down, rollback or uninstall script (by name)"),
        ("sql/pgsql/001_init.sql", PG_WHY),
        ("sql/pgsql/002_search.sql", PG_WHY),
        ("sql/pgsql/010_broken.sql", PG_WHY),
        ("tests/fixtures/schema.sql", "test data (under a test folder); other schema files exist"),
    ]


def test_a_base_schema_wins_over_upgrades_history_and_other_dialects() -> None:
    p = plan_of("schemabase")
    assert used(p) == [
        ("maintenance/tables.sql", "mysql", "MySQL schema: 2 CREATE TABLE of 2 statements"),
        (
            "db/migrations/20240202_watchlist.sql",
            "mysql",
            "numbered migration: 1 DDL of 1 statements, applied after the bases in version order",
        ),
        (
            "db/migrations/20240303_watchlist_expiry.sql",
            "mysql",
            "numbered migration: 1 DDL of 1 statements, applied after the bases in version order",
        ),
    ]
    upgrade = (
        "an upgrade script (by name or folder); base schema files create the current tables"
        " (maintenance/tables.sql)"
    )
    assert rejected(p) == [
        (
            "db/migrations/20240101_revision_index.sql",
            "history of maintenance/tables.sql: every table it touches (1) is created there in"
            " its current form",
        ),
        (
            "db/migrations/20240303_watchlist_expiry.down.sql",
            "a down, rollback or uninstall script (by name)",
        ),
        ("maintenance/archives/patch-hitcounter.sql", upgrade),
        ("maintenance/archives/patch-page-page_touched.sql", upgrade),
        ("maintenance/postgres/tables.sql", PG_WHY),
    ]


def test_dialect_from_the_text_and_forced_by_config() -> None:
    p = plan_of("pgapp")
    assert p.dialect == "postgres"
    assert used(p) == [
        ("schema/app.sql", "postgres", "PostgreSQL schema: 2 CREATE TABLE of 7 statements")
    ]
    forced = plan_of("schemaapp", dialect="postgres")
    assert [u.path for u in forced.used] == [
        "sql/pgsql/001_init.sql",
        "sql/pgsql/002_search.sql",
        "sql/pgsql/010_broken.sql",
    ]
    assert {u.dialect for u in forced.used} == {"postgres"}
    assert (
        "sql/mysql/001_init.sql",
        "MySQL version of the schema (dialect from the path); the PostgreSQL files are used:"
        " one dialect, MySQL first",
    ) in rejected(forced)


def test_explicit_globs_override_discovery() -> None:
    files = sql_files(FIX / "schemaapp")
    explicit = {p for p, _t in files if p.startswith("tests/")}
    p = discover.plan(files, explicit, discover=False)
    assert used(p) == [("tests/fixtures/schema.sql", "mysql", "named by a db.schema_source glob")]
    assert all(r.why == "not named by db.schema_source (discovery off)" for r in p.rejected)
    assert len(p.rejected) == len(files) - 1


def test_sniff_reads_a_bounded_prefix() -> None:
    ddl = "CREATE TABLE t (id INT);\n"
    rows = "INSERT INTO t VALUES (1);\n" * (discover.SNIFF_BYTES // 26 + 10)
    # a dump: creates t, then fills it far beyond the prefix
    dump = discover.sniff("a.sql", ddl + rows)
    assert dump.is_dump and dump.is_schema
    assert dump.statements == discover.SNIFF_BYTES // 26  # the cut last one is dropped
    # seed data: fills a table another file creates
    seed = discover.sniff("s.sql", "CREATE TABLE log (id INT);\n" + rows)
    assert not seed.is_schema
    assert seed.reject_reason() == (
        f"mostly DML ({seed.dml} data statements, 1 DDL of {seed.statements}): seed data"
    )
    # rows first: the DDL beyond the prefix is never seen
    late = discover.sniff("b.sql", rows + ddl * 50)
    assert late.ddl == 0 and not late.is_schema
    assert late.reject_reason() == (
        f"mostly DML ({late.dml} of {late.statements} statements insert or change rows,"
        " no DDL): seed data"
    )


# -- parsing what was found ------------------------------------------------------------------


def test_postgres_file_parsed_with_its_dialect() -> None:
    p = plan_of("pgapp")
    texts = dict(sql_files(FIX / "pgapp"))
    schema, problems = dbschema.schema_from_migrations(
        [(u.path, texts[u.path]) for u in p.used], p.dialects
    )
    assert [(c.name, c.data_type, c.nullable, c.key) for c in schema.tables["posts"].columns] == [
        ("id", "bigserial", False, "PRI"),
        ("author_id", "bigint", False, "MUL"),
        ("title", "text", False, ""),
        ("body", "text", True, ""),
        ("search", "unknown", True, "MUL"),
        ("published_at", "timestamptz", True, ""),
    ]
    # declared on the column and at table level: the model keeps both, the rows merge them
    assert schema.fks == [ForeignKey("posts", "author_id", "authors", "id")] * 2
    # the $$ function body with its semicolons is one statement; CREATE EXTENSION, the
    # trigger and COMMENT ON have no effect on columns
    assert [str(x) for x in problems] == [
        "schema/app.sql:9: column posts.search: type tsvector not understood, kept as unknown"
    ]


def test_unknown_type_bad_options_and_unparsable_statement_keep_the_rest(tmp_path: Path) -> None:
    root = index(tmp_path, "schemaapp")
    g = Graph(root)
    tables = {t.table_name: t for t in g.tables}
    assert sorted(tables) == ["customers", "order_lines", "orders", "search_docs"]
    env = run(root, "schema", table="search_docs")
    [t] = env["result"]["tables"]
    assert t["engine"] == "InnoDB"  # the option sqlglot reads is kept, CHECKSUM is not
    assert [(c["name"], c["type"]) for c in t["columns"]] == [
        ("id", "int unsigned"),
        ("order_id", "int unsigned"),
        ("body", "text"),
        ("terms", "unknown"),
    ]
    r = run(root, "schema")["result"]
    assert r["problems"] == [
        {
            "evidence": "sql/mysql/002_search.sql:2",
            "message": "CREATE TABLE search_docs: column terms: type tsvector not understood,"
            " kept as unknown",
        },
        {
            "evidence": "sql/mysql/002_search.sql:2",
            "message": "CREATE TABLE search_docs: table options not understood, ignored:"
            " CHECKSUM=0",
        },
        {
            "evidence": "sql/mysql/010_broken.sql:4",
            "message": "unparsable statement (Expected table name but got '('): CREATE TABLE"
            " ((( this is not SQL",
        },
    ]
    orders = next(t for t in r["tables"] if t["name"] == "orders")
    # 002 and 010 applied after 001, the statement after the broken one too
    assert [c["name"] for c in orders["columns"]] == [
        "id",
        "customer_id",
        "total",
        "note",
        "placed_at",
        "status",
    ]
    # the duplicate FK (inline REFERENCES + table-level constraint) is one row and one edge
    assert orders["foreign_keys"] == [
        {"column": "customer_id", "to_table": "customers", "to_column": "id"}
    ]
    assert sorted(g.edges_of("fk_to")) == [
        ("order_lines.order_id", "orders.id", "sql/mysql/010_broken.sql:6", "stated", 1.0),
        ("orders.customer_id", "customers.id", "sql/mysql/001_init.sql:10", "stated", 1.0),
        ("search_docs.order_id", "orders.id", "sql/mysql/002_search.sql:2", "stated", 1.0),
    ]
    assert r["files"]["dialect"] == "mysql"
    assert [f["path"] for f in r["files"]["used"]] == [
        "sql/mysql/001_init.sql",
        "sql/mysql/002_search.sql",
        "sql/mysql/010_broken.sql",
    ]
    assert len(r["files"]["rejected"]) == 6 and r["files"]["code_tables"] == 0
    # SQL in code against the found schema: stated edges; a name it lacks is listed
    assert sorted((s, d) for s, d, _e, p, _c in g.edges_of("queries") if p == "stated") == [
        ("Shop\\Customers::byEmail", "customers"),
        ("Shop\\Customers::forget", "customers"),
        ("Shop\\Orders::addLine", "order_lines"),
        ("Shop\\Orders::forCustomer", "orders"),
        ("Shop\\Orders::search", "search_docs"),
    ]
    cov = {m: (v, n) for m, v, n in g.coverage}
    assert cov["schema.unknown_tables"] == (1.0, "archived_orders")
    st = run(root, "index_status", detail="full")["result"]["schema"]
    assert st["files"] == r["files"]["used"] and st["rejected_total"] == 6
    assert st["dialect"] == "mysql" and st["code_tables"] == 0


def test_status_and_explicit_glob_in_the_config(tmp_path: Path) -> None:
    root = index(tmp_path, "schemaapp", {"schema_source": ["sql/pgsql/*.sql"]})
    man = manifest.require(config.Layout(root).rev_json)
    assert man["schema"]["source"] == "migration"
    r = run(root, "schema", table="orders")["result"]
    assert [(u["path"], u["dialect"]) for u in r["files"]["used"]] == [
        ("sql/pgsql/001_init.sql", "postgres"),
        ("sql/pgsql/002_search.sql", "postgres"),
        ("sql/pgsql/010_broken.sql", "postgres"),
    ]
    assert r["files"]["rejected"] == []  # without auto nothing else is looked at
    [t] = r["tables"]
    assert [(c["name"], c["type"]) for c in t["columns"]] == [
        ("id", "serial"),
        ("customer_id", "int"),
        ("total", "decimal(10,2)"),
        ("placed_at", "timestamptz"),
        ("note", "varchar(255)"),
        ("status", "varchar(20)"),
    ]


# -- no schema at all ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def noschema(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index(tmp_path_factory.mktemp("noschema"), "noschemaapp")


NO_SCHEMA_LIMIT = (
    "database schema incomplete: live schema not read (no database configured (db.dsn or"
    " RAGRAF_DB_HOST)); no schema file found: none of the 1 .sql file(s) of the corpus holds"
    " mostly DDL (see schema.rejected)"
)


def test_no_schema_impact_of_a_table_from_code(noschema: Path) -> None:
    env = run(noschema, "impact", detail="full", table="wiki_pages", depth=2)
    r = env["result"]
    assert [(t["kind"], t["name"], t["evidence"]) for t in r["target"]] == [
        ("db_table", "wiki_pages", "src/Wiki.php:5")
    ]
    assert r["hard"]["symbols"] == []
    assert [(s["fqn"], s["depth"]) for s in r["soft"]["symbols"]] == [
        ("wiki_page", 1),  # by depth, then by place (src/Wiki.php:3, 10, 16)
        ("wiki_rename", 1),
        ("wiki_history", 1),
        ("admin_rename_all", 2),
    ]
    assert r["soft"]["files"] == ["src/Admin.php", "src/Wiki.php"]
    assert NO_SCHEMA_LIMIT in env["limits"]
    assert (
        "table 'wiki_pages' is known only from SQL strings in code: no database schema was"
        " found, its columns are unknown and its edges derived"
    ) in env["limits"]


def test_no_schema_a_table_is_where_code_creates_it(tmp_path: Path) -> None:
    """Without a schema, a table known from code is placed at the CREATE statement that
    defines it (an install script), not at the first query that happens to name it, and
    has the columns that statement defines."""
    root = tmp_path / "noschemaapp"
    shutil.copytree(FIX / "noschemaapp", root)
    (root / "src/Zinstall.php").write_text(
        "<?php\n\nfunction wiki_install(PDO $db): void\n{\n"
        "    $db->exec('CREATE TABLE wiki_pages (id INT PRIMARY KEY, title VARCHAR(255))');\n}\n"
    )
    config.init_project(root)
    indexer.build(config.load(root), force=True)
    r = run(root, "impact", detail="full", table="wiki_pages", depth=1)["result"]
    assert [(t["kind"], t["name"], t["evidence"]) for t in r["target"]] == [
        ("db_table", "wiki_pages", "src/Zinstall.php:5")
    ]
    # a table no code creates stays at its first use
    r = run(root, "impact", detail="full", table="wiki_log", depth=1)["result"]
    assert [t["evidence"] for t in r["target"]] == ["src/Wiki.php:13"]
    # the columns are those the CREATE TABLE defines; the others stay unknown
    env = run(root, "schema")
    [t] = env["result"]["tables"]
    assert (t["name"], t["source"], t["evidence"]) == ("wiki_pages", "code", "src/Zinstall.php:5")
    assert [(c["name"], c["type"], c["nullable"], c["key"]) for c in t["columns"]] == [
        ("id", "int", False, "PRI"),
        ("title", "varchar(255)", True, ""),
    ]
    assert t["primary_key"] == ["id"]
    assert (
        "table 'wiki_pages' is known only from SQL strings in code: no database schema was"
        " found, its columns are those the code creating it defines (the CREATE TABLE or"
        " migration at src/Zinstall.php:5, then the changes after it), its edges derived"
    ) in env["limits"]
    usage = run(root, "table_usage", table="wiki_pages")["result"]
    assert usage["total"] >= 3


def test_no_schema_table_usage(noschema: Path) -> None:
    env = run(noschema, "table_usage", table="wiki_log")
    r = env["result"]
    assert [
        (i["symbol"]["fqn"], i["operation"], i["provenance"], i["confidence"], i["via"])
        for i in r["readers"] + r["writers"]
    ] == [
        ("wiki_history", "select", "derived", 0.4, "no_schema"),
        ("wiki_rename", "insert", "derived", 0.4, "no_schema"),
    ]
    assert r["unlinked"] == [] and r["total"] == 2
    assert any("known only from SQL strings in code" in lim for lim in env["limits"])


def test_no_schema_schema_and_status_say_why(noschema: Path) -> None:
    r = run(noschema, "schema")["result"]
    assert r["source"] == "none" and r["tables"] == []
    assert r["files"] == {
        "dialect": None,
        "used": [],
        "rejected": [
            {
                "path": "data/demo.sql",
                "why": "mostly DML (2 of 2 statements insert or change rows, no DDL): seed data",
            }
        ],
        "code_tables": 2,
    }
    assert r["hint"].endswith("2 table(s) are known only from SQL in code (table_usage, impact)")
    one = run(noschema, "schema", table="wiki_pages")["result"]
    assert one["hint"] == (
        "table 'wiki_pages' is not in a schema: none was found, it is known only from SQL in"
        " code; table_usage and impact answer for it"
    )
    st = run(noschema, "index_status", detail="full")["result"]["schema"]
    assert st["source"] == "none" and st["code_tables"] == 2 and st["rejected_total"] == 1


# -- the live schema with discovered migrations --------------------------------------------


@pytest.fixture
def live_db() -> Iterator[str]:
    yield from test_dbschema.fresh_db.__wrapped__()  # type: ignore[attr-defined]


@pytest.mark.mariadb
def test_live_duplicate_fk_is_one_row_and_discovered_files_give_evidence(
    tmp_path: Path, live_db: str
) -> None:
    """MariaDB keeps both constraints of a foreign key declared twice; the revision has one
    relationship. The discovered migrations give the live tables their evidence lines."""
    init = (FIX / "schemaapp" / "sql" / "mysql" / "001_init.sql").read_text(encoding="utf-8")
    test_dbschema.run_sql(live_db, [s for _line, s in dbschema.split_statements(init)])
    root = index(
        tmp_path,
        "schemaapp",
        {
            "schema_source": ["information_schema", "auto"],
            "dsn": f"mysql://root@127.0.0.1:3306/{live_db}",
            "connect_timeout": 3,
        },
    )
    r = run(root, "schema", table="orders")["result"]
    assert r["source"] == "information_schema" and r["complete"] is True
    [t] = r["tables"]
    assert t["evidence"] == "sql/mysql/001_init.sql:10"
    assert t["foreign_keys"] == [
        {"column": "customer_id", "to_table": "customers", "to_column": "id"}
    ]
    g = Graph(root)
    assert sorted(g.edges_of("fk_to")) == [
        ("orders.customer_id", "customers.id", "sql/mysql/001_init.sql:10", "stated", 1.0)
    ]
    # the migrations go further than the live database: divergences, not errors
    kinds = {(d["kind"], d["table"]) for d in run(root, "schema")["result"]["divergences"]}
    assert ("table_only_migrations", "order_lines") in kinds
    assert ("table_only_migrations", "search_docs") in kinds


def test_no_schema_cli_text(noschema: Path) -> None:
    out = invoke("-C", noschema, "query", "schema", check=True).stdout.splitlines()
    assert out[:4] == [
        "no schema found: 0 tables",
        "left out 1 SQL file(s):",
        "  data/demo.sql: mostly DML (2 of 2 statements insert or change rows, no DDL): seed data",
        "2 table(s) known only from SQL in code",
    ]


LARAVEL_USERS = """<?php
use Illuminate\\Database\\Migrations\\Migration;
use Illuminate\\Database\\Schema\\Blueprint;
use Illuminate\\Support\\Facades\\Schema;

return new class extends Migration {
    public function up(): void
    {
        Schema::create('users', function (Blueprint $table) {
            $table->id();
            $table->string('name');
            $table->string('email')->unique();
            $table->decimal('balance', 10, 2)->default(0);
            $table->enum('role', ['admin', 'user']);
            $table->rememberToken();
            $table->timestamps();
        });
    }

    public function down(): void
    {
        Schema::dropIfExists('users');
    }
};
"""

LARAVEL_PHONE = """<?php
use Illuminate\\Database\\Schema\\Blueprint;
use Illuminate\\Support\\Facades\\Schema;

return new class extends Illuminate\\Database\\Migrations\\Migration {
    public function up(): void
    {
        Schema::table('users', function (Blueprint $table) {
            $table->string('phone', 32)->nullable();
            $table->dropColumn('remember_token');
        });
    }

    public function down(): void
    {
        Schema::table('users', function (Blueprint $table) {
            $table->dropColumn('phone');
        });
    }
};
"""


def test_laravel_migrations_give_the_tables_their_columns(tmp_path: Path) -> None:
    """Without a schema file, Laravel's migrations (Schema::create / Schema::table, applied
    in their date order; down() left out) define the tables and their columns."""
    root = tmp_path / "app"
    for rel, text in (
        ("database/migrations/2014_10_12_000000_create_users_table.php", LARAVEL_USERS),
        ("database/migrations/2024_01_02_000000_add_phone_to_users.php", LARAVEL_PHONE),
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    config.init_project(root)
    indexer.build(config.load(root), force=True)
    [t] = run(root, "schema")["result"]["tables"]
    assert (t["name"], t["source"]) == ("users", "code")
    assert t["evidence"] == "database/migrations/2014_10_12_000000_create_users_table.php:9"
    assert [(c["name"], c["type"], c["nullable"], c["key"]) for c in t["columns"]] == [
        ("id", "bigint unsigned", False, "PRI"),
        ("name", "varchar(255)", False, ""),
        ("email", "varchar(255)", False, "UNI"),
        ("balance", "decimal(10,2)", False, ""),
        ("role", "enum('admin','user')", False, ""),
        ("created_at", "timestamp", True, ""),
        ("updated_at", "timestamp", True, ""),
        ("phone", "varchar(32)", True, ""),
    ]
    # the answer rests on the later migration too: an edit of it is not served silently
    later = root / "database/migrations/2024_01_02_000000_add_phone_to_users.php"
    later.write_text(later.read_text().replace("'phone', 32", "'phone', 40"))
    from ragraf.drift.scan import run_scan

    run_scan(config.load(root))
    env = run(root, "schema", table="users")
    assert any(
        w["path"] == "database/migrations/2024_01_02_000000_add_phone_to_users.php"
        for w in env["stale_warnings"]
    ), env["stale_warnings"]


DOCTRINE_MIGRATION = """<?php
namespace DoctrineMigrations;

use Doctrine\\DBAL\\Schema\\Schema;
use Doctrine\\Migrations\\AbstractMigration;

final class Version20231201000000 extends AbstractMigration
{
    public function up(Schema $schema): void
    {
        $this->addSql('CREATE TABLE product (id INT AUTO_INCREMENT NOT NULL, name VARCHAR(255) NOT NULL, PRIMARY KEY(id)) DEFAULT CHARACTER SET utf8mb4 ENGINE = InnoDB');
        $this->addSql('ALTER TABLE product ADD price NUMERIC(10, 2) NOT NULL');
    }

    public function down(Schema $schema): void
    {
        $this->addSql('DROP TABLE product');
    }
}
"""


def test_doctrine_migrations_are_applied_but_not_upgrade_code(tmp_path: Path) -> None:
    """SQL strings of migration files (Doctrine's addSql) are applied in order, ALTER and DROP
    included, down() left out; an ALTER elsewhere (an upgrade routine for old databases)
    does not change the schema."""
    root = tmp_path / "app"
    for rel, text in (
        ("migrations/Version20231201000000.php", DOCTRINE_MIGRATION),
        (
            "src/Upgrade.php",
            "<?php\\nfunction upgrade_old(PDO $db): void\\n{\\n"
            "    $db->exec('ALTER TABLE product DROP COLUMN name');\\n}\\n",
        ),
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    config.init_project(root)
    indexer.build(config.load(root), force=True)
    [t] = run(root, "schema")["result"]["tables"]
    assert (t["name"], t["evidence"]) == ("product", "migrations/Version20231201000000.php:11")
    assert [(c["name"], c["type"], c["key"]) for c in t["columns"]] == [
        ("id", "int", "PRI"),
        ("name", "varchar(255)", ""),
        ("price", "decimal(10,2)", ""),
    ]


# -- the migrations' schema cache (issue 15: a reindex does not parse them again) -------------


def test_schema_data_round_trips() -> None:
    for name in ("schemaapp", "schemabase"):
        files = sql_files(FIX / name)
        schema, problems = dbschema.schema_from_migrations(files)
        assert schema.tables and schema.evidence
        assert dbschema.schema_from_data(dbschema.schema_to_data(schema, problems)) == (
            schema,
            problems,
        )
    with pytest.raises(ValueError, match="not a cached schema"):
        dbschema.schema_from_data({"tables": [[1, 2]]})


def _schema_rows(root: Path) -> list[Any]:
    g = Graph(root)
    return [g.tables, g.of_kind("db_column"), g.coverage]


def test_the_migrations_schema_is_cached_until_its_input_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragraf.indexing import schema as schema_build

    root = index(tmp_path, "schemaapp")
    cache = config.Layout(root).index_dir / schema_build.SCHEMA_CACHE
    assert cache.is_file()
    before = _schema_rows(root)

    def no_parse(*a: Any, **k: Any) -> Any:
        raise AssertionError("the migrations were parsed again")

    with monkeypatch.context() as m:  # the same input: the schema comes from the cache
        m.setattr(dbschema, "schema_from_migrations", no_parse)
        indexer.build(config.load(root), force=True)
    assert _schema_rows(root) == before
    cache.write_bytes(b"not zlib")  # damaged: parsed again, the same schema
    indexer.build(config.load(root), force=True)
    assert _schema_rows(root) == before
    init = root / "sql/mysql/001_init.sql"
    init.write_text(
        init.read_text().replace(
            "  email VARCHAR(190) NOT NULL,\n", "  email VARCHAR(190) NOT NULL,\n  nick TEXT,\n"
        )
    )
    indexer.build(config.load(root), force=True)
    env = run(root, "schema", table="customers")
    assert [c["name"] for c in env["result"]["tables"][0]["columns"]] == ["id", "email", "nick"]


def test_a_table_of_an_install_string_has_its_own_operation_and_columns(tmp_path: Path) -> None:
    """One string creates two tables (WordPress's wp_get_db_schema creates eleven): each
    table's usage names the columns of its own statement, not every table's."""
    root = tmp_path / "noschemaapp"
    shutil.copytree(FIX / "noschemaapp", root)
    (root / "src/Zinstall.php").write_text(
        "<?php\n\nfunction wiki_install(PDO $db): void\n{\n"
        '    $db->exec("CREATE TABLE wiki_pages (id INT PRIMARY KEY, title VARCHAR(255));\n'
        '        CREATE TABLE wiki_tags (tag VARCHAR(64), page_id INT)");\n}\n'
    )
    config.init_project(root)
    indexer.build(config.load(root), force=True)
    for table, columns in (("wiki_pages", ["id", "title"]), ("wiki_tags", ["tag", "page_id"])):
        usage = run(root, "table_usage", table=table)["result"]
        [made] = [w for w in usage["writers"] if w["sql"]["path"] == "src/Zinstall.php"]
        assert (made["operation"], made["columns"]) == ("create", columns), table


def test_sql_naming_its_table_at_run_time_is_listed_as_possible(tmp_path: Path) -> None:
    """phpMyAdmin names its own tables from the configuration (`$bookmarkFeature->bookmark`
    for pma__bookmark): table_usage found no statement and said nothing. Such SQL is now
    listed under `possible` when the run-time expression ends in the table's name, and a
    generic `$table` never is."""
    root = tmp_path / "app"
    (root / "sql").mkdir(parents=True)
    (root / "sql/create_tables.sql").write_text(
        "CREATE TABLE pma__bookmark (id INT PRIMARY KEY, label VARCHAR(64));\n"
    )
    (root / "src").mkdir()
    (root / "src/Bookmarks.php").write_text(
        "<?php\nclass Bookmarks\n{\n"
        "    public function save(PDO $db, $feature): void\n    {\n"
        "        $db->exec('INSERT INTO ' . $feature->database . '.' . $feature->bookmark\n"
        "            . ' (id, label) VALUES (1, 2)');\n    }\n\n"
        "    public function any(PDO $db, string $table): void\n    {\n"
        "        $db->exec('DELETE FROM ' . $table . ' WHERE id = 1');\n    }\n}\n"
    )
    config.init_project(root)
    indexer.build(config.load(root), no_vectors=True)
    env = run(root, "table_usage", table="pma__bookmark")
    r = env["result"]
    assert r["total"] == 0 and r["readers"] == r["writers"] == []
    assert [
        (p["symbol"]["fqn"], p["operation"], p["roles"], p["columns"], p["confidence"], p["via"])
        for p in r["possible"]
    ] == [("Bookmarks::save", "insert", ["write"], ["id", "label"], 0.3, "runtime_name")]
    assert any("listed under `possible`" in lim for lim in env["limits"])
    # impact walks edges only: it says what it leaves out
    imp = run(root, "impact", detail="full", table="pma__bookmark")
    assert any("1 SQL statement(s) name their table at run time" in x for x in imp["limits"])
