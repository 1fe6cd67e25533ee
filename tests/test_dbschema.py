"""ragraf.sql.dbschema against a real MariaDB on 127.0.0.1:3306 (root, empty password).

Every test that needs the server creates its own database ``ragraf_t_<hex>`` and
drops it afterwards. Nothing is skipped: without the server these tests fail.
"""

from __future__ import annotations

import secrets
import socket
from collections.abc import Iterator

import pytest

from ragraf.errors import ConfigError, SchemaUnavailable
from ragraf.sql import dbschema
from ragraf.sql.dbschema import (
    Column,
    Divergence,
    ForeignKey,
    Problem,
    Schema,
    Table,
    diff_schemas,
    schema_from_migrations,
    split_statements,
    type_key,
)
from ragraf.store.mysql_live import Secret, connect_params, read_live_schema
from tests.helpers import SQLAPP

HOST, PORT, USER = "127.0.0.1", 3306, "root"
PASSWORD = "pw-Zq8!secret-77"


def _server():
    import mysql.connector

    return mysql.connector.connect(
        host=HOST, port=PORT, user=USER, password="", database="test", connection_timeout=5
    )


@pytest.fixture
def fresh_db() -> Iterator[str]:
    """A new empty database; dropped after the test."""
    name = f"ragraf_t_{secrets.token_hex(6)}"
    conn = _server()
    try:
        cur = conn.cursor()
        cur.execute(f"CREATE DATABASE `{name}`")
        yield name
    finally:
        cur = conn.cursor()
        cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
        conn.close()


def run_sql(database: str, statements: list[str]) -> None:
    conn = _server()
    try:
        cur = conn.cursor()
        cur.execute(f"USE `{database}`")
        for stmt in statements:
            cur.execute(stmt)
        conn.commit()
    finally:
        conn.close()


def params_for(database: str) -> dict:
    return connect_params(
        {"dsn": f"mysql://{USER}@{HOST}:{PORT}/{database}", "connect_timeout": 3}, {}
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------- connect_params


def test_connect_params_from_dsn_password_from_env_only_masked():
    p = connect_params(
        {"dsn": "mysql://app@db.example:3307/shop", "connect_timeout": 2},
        {"RAGRAF_DB_PASSWORD": PASSWORD},
    )
    assert (p["host"], p["port"], p["user"], p["database"]) == ("db.example", 3307, "app", "shop")
    assert p["connect_timeout"] == 2.0
    assert isinstance(p["password"], Secret) and p["password"].reveal() == PASSWORD
    for text in (repr(p), str(p), repr(p["password"]), str(p["password"]), f"{p}"):
        assert PASSWORD not in text
    assert PASSWORD not in str(list(p.values()))


def test_connect_params_dsn_password_and_env_precedence():
    p = connect_params({"dsn": "mysql://app:dsn%40pw@h/db"}, {})
    assert p["password"].reveal() == "dsn@pw" and p["port"] == 3306
    assert "dsn@pw" not in repr(p)
    p = connect_params({"dsn": "mysql://app:dsnpw@h/db"}, {"RAGRAF_DB_PASSWORD": "envpw"})
    assert p["password"].reveal() == "envpw"
    p = connect_params({"dsn": "mysql://app@h/db"}, {})
    assert p["password"] is None


def test_connect_params_from_environment():
    env = {
        "RAGRAF_DB_HOST": "10.0.0.5",
        "RAGRAF_DB_PORT": "3310",
        "RAGRAF_DB_USER": "ro",
        "RAGRAF_DB_NAME": "crm",
        "RAGRAF_DB_PASSWORD": PASSWORD,
    }
    p = connect_params({"dsn": None}, env)
    assert (p["host"], p["port"], p["user"], p["database"]) == ("10.0.0.5", 3310, "ro", "crm")
    assert p["password"].reveal() == PASSWORD and PASSWORD not in repr(p)
    # the DSN wins over the environment
    p = connect_params({"dsn": "mysql://u@dsnhost/d"}, env)
    assert p["host"] == "dsnhost" and p["password"].reveal() == PASSWORD


def test_connect_params_errors_never_show_the_password():
    with pytest.raises(SchemaUnavailable, match="no database configured"):
        connect_params({"dsn": None}, {})
    for bad in (
        f"postgres://u:{PASSWORD}@h/db",
        f"mysql://u:{PASSWORD}@h",
        f"mysql://u:{PASSWORD}@h:99999/db",
        f"mysql://:{PASSWORD}@h/db",
    ):
        with pytest.raises(ConfigError) as info:
            connect_params({"dsn": bad}, {})
        assert PASSWORD not in str(info.value) and "db.dsn" in str(info.value)
    with pytest.raises(ConfigError, match="RAGRAF_DB_PORT"):
        connect_params(
            {},
            {
                "RAGRAF_DB_HOST": "h",
                "RAGRAF_DB_PORT": "x",
                "RAGRAF_DB_USER": "u",
                "RAGRAF_DB_NAME": "d",
            },
        )
    with pytest.raises(ConfigError, match="RAGRAF_DB_NAME"):
        connect_params({}, {"RAGRAF_DB_HOST": "h", "RAGRAF_DB_USER": "u"})
    with pytest.raises(ConfigError, match="connect_timeout"):
        connect_params({"dsn": "mysql://u@h/d", "connect_timeout": 0}, {})


def test_secret_cannot_be_pickled():
    import pickle

    with pytest.raises(TypeError):
        pickle.dumps(Secret(PASSWORD))


# ----------------------------------------------------------------- live schema

LIVE_DDL = [
    "CREATE TABLE customers (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, "
    "email VARCHAR(190) NOT NULL UNIQUE, nick VARCHAR(40) NULL, vip BOOLEAN NOT NULL DEFAULT 0, "
    "meta JSON, KEY idx_nick (nick)) ENGINE=InnoDB",
    "CREATE TABLE invoices (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, "
    "customer_id INT UNSIGNED NOT NULL, amount DECIMAL(10,2) NOT NULL, status ENUM('open','paid') "
    "NOT NULL DEFAULT 'open', CONSTRAINT fk_inv_customer FOREIGN KEY (customer_id) "
    "REFERENCES customers (id)) ENGINE=InnoDB",
    "CREATE TABLE lines_ (invoice_id BIGINT UNSIGNED NOT NULL, pos SMALLINT NOT NULL, "
    "note TEXT, PRIMARY KEY (invoice_id, pos), FOREIGN KEY (invoice_id) REFERENCES invoices (id) "
    "ON DELETE CASCADE) ENGINE=InnoDB",
    "CREATE TABLE log_myisam (id INT NOT NULL, msg VARCHAR(200)) ENGINE=MyISAM",
    "CREATE VIEW open_invoices AS SELECT id, amount FROM invoices WHERE status = 'open'",
    "INSERT INTO log_myisam VALUES (1, 'a'), (2, 'b'), (3, 'c')",
]


@pytest.mark.mariadb
def test_read_live_schema_tables_columns_fks_views(fresh_db):
    run_sql(fresh_db, LIVE_DDL)
    schema = read_live_schema(params_for(fresh_db), 3)
    assert schema.source == "information_schema"
    assert set(schema.tables) == {"customers", "invoices", "lines_", "log_myisam"}
    assert schema.views == {"open_invoices"}

    cust = schema.tables["customers"]
    assert cust.engine == "InnoDB" and cust.source == "information_schema"
    assert isinstance(cust.row_estimate, int)
    assert [c.name for c in cust.columns] == ["id", "email", "nick", "vip", "meta"]
    by = {c.name: c for c in cust.columns}
    assert by["id"] == Column("id", "int(10) unsigned", False, "PRI")
    assert by["email"] == Column("email", "varchar(190)", False, "UNI")
    assert by["nick"] == Column("nick", "varchar(40)", True, "MUL")
    assert by["vip"].data_type == "tinyint(1)"  # BOOLEAN as MariaDB stores it
    assert by["meta"].data_type == "longtext"  # MariaDB's JSON is an alias of LONGTEXT
    inv = schema.table("INVOICES")
    assert inv is not None and inv.column("STATUS").data_type == "enum('open','paid')"
    assert inv.column("customer_id").key == "MUL"  # the index InnoDB adds for the FK
    lines = schema.tables["lines_"]
    assert [(c.name, c.key) for c in lines.columns] == [
        ("invoice_id", "PRI"),
        ("pos", "PRI"),
        ("note", ""),
    ]
    log = schema.tables["log_myisam"]
    assert log.engine == "MyISAM" and log.row_estimate == 3  # MyISAM counts exactly
    assert sorted(schema.fks, key=lambda f: f.from_table) == [
        ForeignKey("invoices", "customer_id", "customers", "id"),
        ForeignKey("lines_", "invoice_id", "invoices", "id"),
    ]


@pytest.mark.mariadb
def test_read_live_schema_empty_database(fresh_db):
    schema = read_live_schema(params_for(fresh_db), 3)
    assert schema.tables == {} and schema.fks == [] and schema.views == set()


def test_unreachable_port_fails_fast_without_password():
    port = free_port()
    p = connect_params(
        {"dsn": f"mysql://root@127.0.0.1:{port}/x"}, {"RAGRAF_DB_PASSWORD": PASSWORD}
    )
    with pytest.raises(SchemaUnavailable) as info:
        read_live_schema(p, 2)
    msg = str(info.value)
    assert PASSWORD not in msg and "\n" not in msg
    assert f"127.0.0.1:{port}" in msg and "cannot connect" in msg
    # the driver's exception is not chained into what the caller sees
    assert info.value.__cause__ is None and info.value.__suppress_context__


@pytest.mark.slow
def test_silent_server_times_out(tmp_path):
    # a socket that accepts TCP connections but never speaks the MySQL protocol
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        port = silent.getsockname()[1]
        p = connect_params({"dsn": f"mysql://root:{PASSWORD}@127.0.0.1:{port}/x"}, {})
        with pytest.raises(SchemaUnavailable) as info:
            read_live_schema(p, 1)
    assert "no answer" in str(info.value) and PASSWORD not in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.mariadb
def test_refused_login_and_unknown_database(fresh_db):
    p = connect_params(
        {"dsn": f"mysql://root@{HOST}:{PORT}/{fresh_db}"}, {"RAGRAF_DB_PASSWORD": PASSWORD}
    )
    with pytest.raises(SchemaUnavailable) as info:
        read_live_schema(p, 3)
    assert "access denied" in str(info.value) and PASSWORD not in str(info.value)
    with pytest.raises(SchemaUnavailable, match="unknown database"):
        read_live_schema(params_for(fresh_db + "_missing"), 3)


# ------------------------------------------------------------------ migrations

M1 = """\
-- 001: base tables
CREATE TABLE orgs (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT,
  name VARCHAR(100) NOT NULL COMMENT 'a comment; with a semicolon',
  PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

/* users: inline and table-level keys */
CREATE TABLE `users` (
  `id` INT(11) NOT NULL AUTO_INCREMENT PRIMARY KEY,
  `org_id` INT UNSIGNED REFERENCES orgs(id),
  email VARCHAR(190) NOT NULL UNIQUE,
  active BOOLEAN NOT NULL DEFAULT TRUE,
  score DECIMAL,
  bio TEXT,
  KEY idx_email_active (email, active),
  CONSTRAINT fk_users_org FOREIGN KEY (org_id) REFERENCES orgs (id) ON DELETE CASCADE
);
CREATE TABLE tmp_a (x INT);
CREATE TABLE tmp_b (y INT);
CREATE TABLE tmp_c (z INT);
INSERT INTO orgs (name) VALUES ('seed; data');
DELIMITER $$
CREATE TRIGGER trg_users BEFORE INSERT ON users FOR EACH ROW BEGIN SET NEW.score = 1; END$$
DELIMITER ;
CREATE VIEW active_users AS SELECT id, email FROM users WHERE active = 1;
"""

M2 = """\
ALTER TABLE users ADD COLUMN nickname VARCHAR(50) NULL AFTER email;
ALTER TABLE users ADD age TINYINT UNSIGNED, ADD COLUMN created_at DATETIME NOT NULL;
ALTER TABLE users MODIFY bio MEDIUMTEXT;
ALTER TABLE users MODIFY COLUMN score DECIMAL(8,2) NOT NULL;
ALTER TABLE users CHANGE nickname handle VARCHAR(60) NOT NULL;
ALTER TABLE users CHANGE COLUMN handle handle VARCHAR(64) NOT NULL;
ALTER TABLE users RENAME COLUMN age TO age_years;
ALTER TABLE users DROP COLUMN created_at;
CREATE TABLE posts (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, user_id INT NOT NULL,
  org_id INT UNSIGNED, title VARCHAR(200));
ALTER TABLE posts ADD FOREIGN KEY (user_id) REFERENCES users(id);
ALTER TABLE posts ADD CONSTRAINT fk_posts_org FOREIGN KEY (org_id) REFERENCES orgs(id);
ALTER TABLE posts DROP FOREIGN KEY fk_posts_org;
CREATE TABLE oops (id INT;
ALTER TABLE posts RENAME TO articles;
RENAME TABLE tmp_a TO tmp_x, tmp_b TO tmp_y;
DROP TABLE IF EXISTS tmp_x, never_existed;
DROP TABLE tmp_y;
ALTER TABLE articles ADD COLUMN summary VARCHAR(255);
CREATE UNIQUE INDEX ux_title ON articles (title);
CREATE OR REPLACE VIEW recent_articles AS SELECT id, title FROM articles;
ALTER TABLE tmp_c FROBNICATE EVERYTHING;
ALTER TABLE tmp_c ADD COLUMN w INT;
DROP TABLE no_such_table;
"""


def migrate() -> tuple[Schema, list[Problem]]:
    return schema_from_migrations(
        [("db/migrations/001_base.sql", M1), ("db/migrations/002_more.sql", M2)]
    )


def test_split_statements_lines_quotes_comments_delimiter():
    got = list(split_statements(M1))
    assert [line for line, _ in got] == [2, 9, 19, 20, 21, 22, 24, 26]
    assert got[0][1].startswith("CREATE TABLE orgs") and "a comment; with a semicolon" in got[0][1]
    assert got[5][1] == "INSERT INTO orgs (name) VALUES ('seed; data')"
    assert got[6][1].startswith("CREATE TRIGGER") and got[6][1].endswith("END")
    # executable comments keep their content, plain ones do not
    got = list(split_statements("/*!40101 SET NAMES utf8 */;\n# note\n/* x; y */ DROP TABLE t;"))
    assert [s.strip() for _, s in got] == ["SET NAMES utf8", "DROP TABLE t"]
    assert [line for line, _ in got] == [1, 3]


def test_schema_from_migrations_applies_every_statement_kind():
    schema, problems = migrate()
    assert schema.source == "migration"
    assert set(schema.tables) == {"orgs", "users", "articles", "tmp_c"}
    assert schema.views == {"active_users", "recent_articles"}

    users = schema.tables["users"]
    assert users.source == "migration" and users.row_estimate is None
    assert [(c.name, c.data_type, c.nullable, c.key) for c in users.columns] == [
        ("id", "int(11)", False, "PRI"),
        ("org_id", "int unsigned", True, "MUL"),
        ("email", "varchar(190)", False, "UNI"),
        ("handle", "varchar(64)", False, ""),  # ADD ... AFTER email, CHANGE twice
        ("active", "tinyint(1)", False, ""),
        ("score", "decimal(8,2)", False, ""),  # MODIFY COLUMN
        ("bio", "mediumtext", True, ""),  # MODIFY
        ("age_years", "tinyint unsigned", True, ""),  # RENAME COLUMN
    ]
    assert schema.tables["orgs"].engine == "InnoDB"
    articles = schema.tables["articles"]  # ALTER TABLE posts RENAME TO articles
    assert articles.name == "articles"
    assert [(c.name, c.key) for c in articles.columns] == [
        ("id", "PRI"),
        ("user_id", "MUL"),
        ("org_id", "MUL"),
        ("title", "UNI"),
        ("summary", ""),
    ]
    assert [c.name for c in schema.tables["tmp_c"].columns] == ["z", "w"]
    assert sorted(schema.fks, key=lambda f: (f.from_table, f.from_column)) == [
        ForeignKey("articles", "user_id", "users", "id"),  # ALTER ADD FOREIGN KEY, survives rename
        ForeignKey("users", "org_id", "orgs", "id"),  # inline REFERENCES
        ForeignKey("users", "org_id", "orgs", "id"),  # table-level CONSTRAINT
    ]

    assert [(p.path, p.line) for p in problems] == [
        ("db/migrations/002_more.sql", 14),
        ("db/migrations/002_more.sql", 22),
        ("db/migrations/002_more.sql", 24),
    ]
    assert "unparsable" in problems[0].message and "CREATE TABLE oops" in problems[0].message
    assert "unsupported" in problems[1].message
    assert "no_such_table" in problems[2].message
    assert str(problems[0]).startswith("db/migrations/002_more.sql:14: ")


@pytest.mark.mariadb
def test_migrations_match_the_server_that_ran_them(fresh_db):
    """The same scripts executed by MariaDB give the same tables, types, NULLs and keys."""
    runnable = [s for _, s in split_statements(M1)]
    runnable += [s for line, s in split_statements(M2) if line not in (14, 22, 24)]
    run_sql(fresh_db, runnable)
    live = read_live_schema(params_for(fresh_db), 3)
    migr, _ = migrate()
    assert diff_schemas(live, migr) == []
    assert live.views == migr.views
    for low, lt in live.tables.items():
        mt = migr.tables[low]
        assert [(c.name, c.nullable, c.key) for c in lt.columns] == [
            (c.name, c.nullable, c.key) for c in mt.columns
        ], low
    assert sorted(live.fks, key=repr) == sorted(migr.fks, key=repr)


@pytest.mark.mariadb
def test_column_keys_follow_mariadb_rules(fresh_db):
    ddl = [
        "CREATE TABLE p (id INT PRIMARY KEY)",
        # no PK: the first UNIQUE index with only NOT NULL columns is shown as PRI
        "CREATE TABLE k1 (m INT NOT NULL, n INT NOT NULL, o INT, UNIQUE (o), UNIQUE (m), UNIQUE (n))",
        # composite unique: first column MUL; an FK covered by an index adds none
        "CREATE TABLE k2 (a INT, b INT, c INT, d INT, PRIMARY KEY (d), UNIQUE KEY uab (a, b), "
        "KEY kcb (c, b), FOREIGN KEY (c) REFERENCES p (id), FOREIGN KEY (b) REFERENCES p (id))",
        "CREATE TABLE k3 (s SERIAL, v INT)",
        "CREATE TABLE k4 (x INT NOT NULL, y INT NOT NULL, UNIQUE (x, y))",
    ]
    run_sql(fresh_db, ddl)
    live = read_live_schema(params_for(fresh_db), 3)
    migr, problems = schema_from_migrations([("keys.sql", ";\n".join(ddl))])
    assert problems == []
    assert diff_schemas(live, migr) == []
    for low in ("k1", "k2", "k3", "k4"):
        assert [(c.name, c.nullable, c.key) for c in live.tables[low].columns] == [
            (c.name, c.nullable, c.key) for c in migr.tables[low].columns
        ], low


def test_problem_does_not_stop_the_file_and_lines_are_per_file():
    text = (
        "CREATE TABLE a (id INT);\n\n-- broken:\nALTER TABLE a ADD COLUMN;\n"
        "ALTER TABLE a ADD COLUMN b INT;\nCREATE TABLE c (x INT DEFAULT);\n"
        "ALTER TABLE missing ADD COLUMN q INT;\nALTER TABLE a ADD COLUMN b INT;\n"
    )
    schema, problems = schema_from_migrations(
        [("m/1.sql", "CREATE TABLE z (id INT);"), ("m/2.sql", text)]
    )
    assert [c.name for c in schema.tables["a"].columns] == ["id", "b"]
    # a CREATE TABLE sqlglot rejects keeps its table: the column without its bad DEFAULT
    assert set(schema.tables) == {"z", "a", "c"}
    assert [(c.name, c.data_type) for c in schema.tables["c"].columns] == [("x", "int")]
    assert [(p.path, p.line) for p in problems] == [
        ("m/2.sql", 4),
        ("m/2.sql", 6),
        ("m/2.sql", 7),
        ("m/2.sql", 8),
    ]
    assert "already exists" in problems[3].message
    assert problems[1].message == "CREATE TABLE c: column x: constraints not understood: DEFAULT"


@pytest.mark.mariadb
def test_fixture_migrations(fresh_db):
    files = sorted((SQLAPP / "db" / "migrations").glob("*.sql"))
    assert [f.name[:4] for f in files] == ["001_", "002_"]
    loaded = [(str(f.relative_to(SQLAPP)), f.read_text()) for f in files]
    migr, problems = schema_from_migrations(loaded)
    assert problems == []
    assert set(migr.tables) == {"users", "products", "orders", "order_items"}
    assert migr.tables["users"].column("active").data_type == "tinyint(1)"
    assert migr.tables["products"].column("title").data_type == "varchar(255)"
    assert migr.tables["orders"].column("shipped_at").nullable is True
    assert ForeignKey("orders", "user_id", "users", "id") in migr.fks
    run_sql(fresh_db, [s for _, text in loaded for _, s in split_statements(text)])
    live = read_live_schema(params_for(fresh_db), 3)
    assert diff_schemas(live, migr) == []


# ----------------------------------------------------------------------- diff


@pytest.mark.parametrize(
    ("live", "migr"),
    [
        ("int(11)", "int"),
        ("int(11)", "INTEGER"),
        ("int(10) unsigned", "INT UNSIGNED"),
        ("bigint(20) unsigned", "serial"),
        ("tinyint(1)", "BOOLEAN"),
        ("tinyint(4)", "tinyint"),
        ("decimal(10,0)", "DECIMAL"),
        ("decimal(8,0)", "numeric(8)"),
        ("decimal(10,2)", "DECIMAL(10, 2)"),
        ("char(1)", "CHAR"),
        ("year(4)", "YEAR"),
        ("longtext", "json"),
        ("double", "REAL"),
        ("double", "double precision"),
        ("int(5) unsigned zerofill", "int(5) zerofill"),
        ("enum('a','b c')", "ENUM('a', 'b c')"),
        ("timestamp", "timestamp(0)"),
        ("varchar(10)", "national varchar(10)"),
    ],
)
def test_type_key_equal(live, migr):
    assert type_key(live) == type_key(migr)


@pytest.mark.parametrize(
    ("live", "migr"),
    [
        ("varchar(100)", "varchar(255)"),
        ("int(11)", "bigint"),
        ("int(10) unsigned", "int"),
        ("text", "mediumtext"),
        ("decimal(10,2)", "decimal(10,3)"),
        ("datetime(6)", "datetime"),
        ("enum('a','b')", "enum('a','B')"),
        ("tinyint(1)", "smallint"),
    ],
)
def test_type_key_different(live, migr):
    assert type_key(live) != type_key(migr)


def test_diff_schemas_reports_each_kind():
    def table(name, *cols, source="information_schema"):
        return Table(name, "InnoDB", 0, [Column(n, t, True, "") for n, t in cols], source)

    live = Schema(
        {
            "users": table(
                "users",
                ("id", "int(11)"),
                ("email", "varchar(190)"),
                ("legacy_flag", "tinyint(1)"),
                ("score", "decimal(10,2)"),
            ),
            "audit": table("audit", ("id", "int(11)")),
        },
        [],
        set(),
        "information_schema",
    )
    migr = Schema(
        {
            "users": table(
                "Users",
                ("ID", "INT"),
                ("email", "varchar(255)"),
                ("score", "DECIMAL(10, 2)"),
                ("nickname", "varchar(40)"),
                source="migration",
            ),
            "orders": table("orders", ("id", "int"), source="migration"),
        },
        [],
        set(),
        "migration",
    )
    assert diff_schemas(live, migr) == [
        Divergence("table_only_live", "audit"),
        Divergence("table_only_migrations", "orders"),
        Divergence("type_differs", "users", "email", "varchar(190)", "varchar(255)"),
        Divergence("column_only_live", "users", "legacy_flag", "tinyint(1)", None),
        Divergence("column_only_migrations", "users", "nickname", None, "varchar(40)"),
    ]
    assert {d.kind for d in diff_schemas(live, migr)} == set(dbschema.DIVERGENCE_KINDS)
    assert diff_schemas(live, live) == []


@pytest.mark.mariadb
def test_diff_live_against_migrations_after_drift(fresh_db):
    migr, _ = schema_from_migrations(
        [
            (
                "001.sql",
                "CREATE TABLE t (id INT PRIMARY KEY, "
                "name VARCHAR(50), gone INT);\n"
                "CREATE TABLE only_migr (id INT);",
            )
        ]
    )
    run_sql(
        fresh_db,
        [
            "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(80), added DATE)",
            "CREATE TABLE only_live (id INT)",
        ],
    )
    live = read_live_schema(params_for(fresh_db), 3)
    assert diff_schemas(live, migr) == [
        Divergence("table_only_live", "only_live"),
        Divergence("table_only_migrations", "only_migr"),
        Divergence("type_differs", "t", "name", "varchar(80)", "varchar(50)"),
        Divergence("column_only_live", "t", "added", "date", None),
        Divergence("column_only_migrations", "t", "gone", None, "int"),
    ]


SERVER_DDL = [
    "CREATE TABLE places (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, "
    "pos POINT NOT NULL, area POLYGON NULL, ip INET6, ratio FLOAT(7,4) UNSIGNED, "
    "meta JSON, note TEXT CHARACTER SET latin1 COLLATE latin1_bin COMMENT 'a, point; x', "
    "updated TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, "
    "SPATIAL KEY sp_pos (pos), FULLTEXT KEY ft_note (note)) ENGINE=InnoDB COMMENT='places; all'",
    "CREATE TABLE visits (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, "
    "place_id INT UNSIGNED NOT NULL, at DATETIME(3) NOT NULL, "
    "CONSTRAINT fk_visit_place FOREIGN KEY (place_id) REFERENCES places (id))",
    "CREATE ALGORITHM=UNDEFINED SQL SECURITY INVOKER VIEW busy_places AS "
    "SELECT place_id, COUNT(*) AS n FROM visits GROUP BY place_id",
]


@pytest.mark.mariadb
def test_server_generated_ddl_round_trip(fresh_db):
    """What the server itself prints (SHOW CREATE TABLE/VIEW, as in dumps) reads back equal,
    including types sqlglot cannot parse (POINT, INET6, FLOAT UNSIGNED)."""
    run_sql(fresh_db, SERVER_DDL)
    conn = _server()
    try:
        cur = conn.cursor()
        cur.execute(f"USE `{fresh_db}`")
        parts = [
            "/*M!999999\\- enable the sandbox mode */",
            "/*!40101 SET NAMES utf8mb4 */;",
            "/*!40014 SET FOREIGN_KEY_CHECKS=0 */;",
        ]
        for table in ("places", "visits"):
            cur.execute(f"SHOW CREATE TABLE `{table}`")
            parts.append(f"DROP TABLE IF EXISTS `{table}`;\n{cur.fetchall()[0][1]};")
        cur.execute("SHOW CREATE VIEW busy_places")
        parts.append(f"/*!50001 {cur.fetchall()[0][1]} */;")
    finally:
        conn.close()
    dump = "\n".join(parts)
    migr, problems = schema_from_migrations([("dump.sql", dump)])
    assert problems == []
    live = read_live_schema(params_for(fresh_db), 3)
    assert diff_schemas(live, migr) == []
    assert migr.views == {"busy_places"}
    places = migr.tables["places"]
    assert [c.data_type for c in places.columns[1:5]] == [
        "point",
        "polygon",
        "inet6",
        "float(7,4) unsigned",
    ]
    for low in ("places", "visits"):
        assert [(c.name, c.nullable, c.key) for c in live.tables[low].columns] == [
            (c.name, c.nullable, c.key) for c in migr.tables[low].columns
        ], low
    assert migr.fks == live.fks == [ForeignKey("visits", "place_id", "places", "id")]


def test_masked_types_only_in_type_positions():
    schema, problems = schema_from_migrations(
        [
            (
                "m.sql",
                (
                    "CREATE TABLE t (id INT, point POINT, `linestring` LINESTRING NOT NULL, "
                    "c VARCHAR(30) DEFAULT 'x point y', SPATIAL KEY point (point));\n"
                    "ALTER TABLE t ADD COLUMN addr INET4 NULL, CHANGE point location POINT NOT NULL;"
                ),
            )
        ]
    )
    assert problems == []
    assert [(c.name, c.data_type, c.nullable) for c in schema.tables["t"].columns] == [
        ("id", "int", True),
        ("location", "point", False),
        ("linestring", "linestring", False),
        ("c", "varchar(30)", True),
        ("addr", "inet4", True),
    ]
