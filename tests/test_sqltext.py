"""ragraf.sql.sqltext on realistic SQL shapes found in PHP code, and on fixtures/sqlapp."""

from __future__ import annotations

import re

import pytest

from ragraf.sql import sqltext
from ragraf.sql.dbschema import schema_from_migrations
from ragraf.sql.sqltext import SqlInfo, TableRef, analyze, looks_like_sql
from tests.helpers import SQLAPP

WP = {"$wpdb->prefix": "wp_"}


def L(text: str) -> tuple[str, str]:
    return ("lit", text)


def D(text: str) -> tuple[str, str]:
    return ("dyn", text)


def tables(info: SqlInfo) -> list[tuple[str, str, str]]:
    return [(t.name, t.how, t.role) for t in info.tables]


# ------------------------------------------------------------ not SQL at all


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello world",
        "Select a file from the list",
        "Update your profile and set a password",
        "Delete",
        "DELETE",
        "SELECT",
        "select_option",
        "selected from",
        "desc",
        "ORDER BY id DESC",
        "update the plugin then set it up",
        "delete from the trash",
        "insert into your page",
        "SELECT command denied to user.",
        "Drop the file here",
        "SELECT NOW()",
        " WHERE id = 1",
        "create table of contents",
        "UPDATE SET",
    ],
)
def test_not_sql(text):
    assert analyze(text) is None
    assert analyze([L(text)], WP) is None


def test_text_starting_with_a_run_time_part_is_not_sql():
    assert analyze([D("$select"), L(" FROM users")]) is None
    assert analyze([]) is None


# ------------------------------------------------------------------ shapes


def test_plain_select_with_columns_and_placeholder():
    info = analyze("SELECT id, email, name FROM users WHERE id = ?")
    assert info == SqlInfo(
        "select",
        [TableRef("users", "exact", "read")],
        ["id", "email", "name"],
        False,
        False,
        True,
        [],
    )


def test_wordpress_prefix_interpolation_resolved_and_unresolved():
    frags = [L("SELECT * FROM "), D("{$wpdb->prefix}"), L("posts WHERE ID = %d")]
    info = analyze(frags, WP)
    assert tables(info) == [("wp_posts", "prefix_resolved", "read")]
    assert info.tables[0].expr == "$wpdb->prefix"
    assert info.select_star and info.columns is None
    assert info.parsed and not info.dynamic
    # the mapping key may be written with braces too
    assert tables(analyze(frags, {"{$wpdb->prefix}": "wp_"})) == [
        ("wp_posts", "prefix_resolved", "read")
    ]
    # no mapping: the literal rest of the name, marked dynamic
    info = analyze(frags, {})
    assert tables(info) == [("posts", "dynamic", "read")] and info.dynamic


def test_prefix_concatenation():
    frags = [L("SELECT id, email FROM "), D("$prefix"), L("users WHERE active = 1")]
    info = analyze(frags, {"$prefix": "pma_"})
    assert tables(info) == [("pma_users", "prefix_resolved", "read")]
    assert info.columns == ["id", "email", "active"] and not info.dynamic
    info = analyze(frags, {})
    assert tables(info) == [("users", "dynamic", "read")]
    assert info.dynamic and info.parsed and info.tables[0].expr == "$prefix"


def test_phpmyadmin_backquote_db_and_table_is_dynamic():
    frags = [L("SELECT * FROM "), D("Util::backquote($db)"), L("."), D("Util::backquote($table)")]
    info = analyze(frags, {"$prefix": "pma_"})
    assert info.operation == "select" and info.parsed and info.dynamic
    assert tables(info) == [("", "dynamic", "read")]  # no literal part: name unknown
    assert info.tables[0].expr == "Util::backquote($db) . Util::backquote($table)"
    assert info.select_star and info.columns is None


def test_backquoted_schema_qualified_names():
    info = analyze("SELECT `name` FROM `shop`.`products` AS p WHERE p.sku = :sku")
    assert info.tables == [TableRef("products", "exact", "read", "shop")]
    assert info.columns == ["name", "sku"]
    info = analyze([L("SELECT * FROM `"), D("$db"), L("`.`users`")])
    assert tables(info) == [("users", "dynamic", "read")] and info.tables[0].schema is None
    info = analyze([L("SELECT COUNT(*) AS n FROM `"), D("$table"), L("`")])
    assert tables(info) == [("", "dynamic", "read")] and info.columns == []


def test_joins_and_aliases_are_not_columns():
    info = analyze(
        "SELECT u.id, COUNT(o.id) AS n FROM users u LEFT JOIN orders o ON o.user_id = u.id "
        "INNER JOIN order_items i USING (order_id) GROUP BY u.id ORDER BY n DESC"
    )
    assert tables(info) == [
        ("users", "exact", "read"),
        ("orders", "exact", "read"),
        ("order_items", "exact", "read"),
    ]
    assert info.columns is not None and "n" not in info.columns
    assert set(info.columns) == {"id", "user_id", "order_id"}
    assert not info.select_star


def test_subqueries_union_cte_and_derived_tables():
    info = analyze(
        "SELECT name FROM users WHERE id IN (SELECT user_id FROM orders WHERE total > 10)"
    )
    assert tables(info) == [("users", "exact", "read"), ("orders", "exact", "read")]
    info = analyze("SELECT a FROM t1 UNION ALL SELECT b FROM t2")
    assert info.operation == "select" and {t.name for t in info.tables} == {"t1", "t2"}
    info = analyze(
        "WITH recent AS (SELECT id FROM orders) SELECT r.id FROM recent r JOIN users u ON u.id = r.id"
    )
    assert {t.name for t in info.tables} == {"orders", "users"}  # the CTE is not a table
    info = analyze("SELECT x.n FROM (SELECT COUNT(*) AS n FROM logs) AS x")
    assert tables(info) == [("logs", "exact", "read")]


def test_exists_star_and_show_columns():
    info = analyze("SELECT id FROM t WHERE EXISTS (SELECT * FROM u WHERE u.tid = t.id)")
    assert not info.select_star and info.columns == ["id", "tid"]
    assert tables(info) == [("t", "exact", "read"), ("u", "exact", "read")]
    info = analyze(
        [L("SHOW COLUMNS FROM "), D("$wpdb->posts"), L(" LIKE 'post_category'")],
        {"$wpdb->posts": "wp_posts"},
    )
    assert info.operation == "other" and tables(info) == [("wp_posts", "prefix_resolved", "read")]


def test_select_star_forms():
    assert analyze("SELECT * FROM t").select_star
    info = analyze("SELECT t.*, u.name FROM t JOIN u ON u.id = t.uid")
    assert info.select_star and info.columns is None
    info = analyze("SELECT COUNT(*) FROM t WHERE a = 1")
    assert not info.select_star and info.columns == ["a"]


def test_insert_forms():
    info = analyze("INSERT INTO users (email, name, created_at) VALUES (?, ?, NOW())")
    assert info.operation == "insert" and tables(info) == [("users", "exact", "write")]
    assert info.columns == ["email", "name", "created_at"]
    info = analyze("INSERT INTO users VALUES (1, 'a')")
    assert info.columns is None  # positional: which columns is not in the text
    info = analyze(
        "INSERT INTO archive (id, total) SELECT id, total FROM orders WHERE created_at < NOW()"
    )
    assert tables(info) == [("archive", "exact", "write"), ("orders", "exact", "read")]
    info = analyze("INSERT INTO counters (k, n) VALUES (%s, 1) ON DUPLICATE KEY UPDATE n = n + 1")
    assert tables(info) == [("counters", "exact", "write")] and info.parsed
    info = analyze("INSERT INTO opts SET name = 'a', value = 'b'")
    assert tables(info) == [("opts", "exact", "write")] and info.columns == ["name", "value"]
    info = analyze("REPLACE INTO cache (k, v) VALUES (:k, :v)")
    assert info.operation == "replace" and info.parsed
    assert tables(info) == [("cache", "exact", "write")]


def test_update_forms():
    info = analyze(
        [
            L("UPDATE users SET name = '"),
            D("$name"),
            L("', age = "),
            D("$age"),
            L(" WHERE id = "),
            D("$id"),
        ]
    )
    assert tables(info) == [("users", "exact", "write")]
    assert info.columns == ["name", "age", "id"] and not info.dynamic and info.parsed
    info = analyze(
        "UPDATE orders o JOIN users u ON u.id = o.user_id SET o.status = 'x' WHERE u.banned = 1"
    )
    assert tables(info) == [("orders", "exact", "write"), ("users", "exact", "read")]
    info = analyze("UPDATE a, b SET b.total = a.total WHERE a.id = b.id")
    assert tables(info) == [("b", "exact", "write"), ("a", "exact", "read")]
    info = analyze(
        "UPDATE products SET stock = stock - 1 WHERE id IN (SELECT product_id FROM order_items)"
    )
    assert tables(info) == [("products", "exact", "write"), ("order_items", "exact", "read")]


def test_delete_forms():
    info = analyze("DELETE FROM sessions WHERE expires < NOW() LIMIT 100")
    assert info.operation == "delete" and tables(info) == [("sessions", "exact", "write")]
    info = analyze("DELETE s FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.banned = 1")
    assert tables(info) == [("sessions", "exact", "write"), ("users", "exact", "read")]
    info = analyze("DELETE a, b FROM a INNER JOIN b ON a.id = b.aid WHERE a.x = 1")
    assert {(t.name, t.role) for t in info.tables} == {("a", "write"), ("b", "write")}
    info = analyze(
        [
            L("DELETE FROM orders WHERE status = 'cancelled' AND created_at < NOW() - INTERVAL "),
            D("$days"),
            L(" DAY"),
        ]
    )
    assert tables(info) == [("orders", "exact", "write")] and not info.dynamic


def test_ddl_forms():
    info = analyze(
        [
            L("CREATE TABLE "),
            D("$wpdb->prefix"),
            L("logs (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, msg TEXT, PRIMARY KEY (id))"),
        ],
        WP,
    )
    assert info.operation == "create" and tables(info) == [("wp_logs", "prefix_resolved", "write")]
    assert info.columns == ["id", "msg"]
    info = analyze("ALTER TABLE users ADD COLUMN nick VARCHAR(20), DROP INDEX idx_name")
    assert info.operation == "alter" and tables(info) == [("users", "exact", "write")]
    info = analyze([L("DROP TABLE IF EXISTS "), D("$table")])
    assert info.operation == "drop" and tables(info) == [("", "dynamic", "write")] and info.dynamic
    info = analyze("TRUNCATE TABLE sessions")
    assert info.operation == "other" and tables(info) == [("sessions", "exact", "write")]


def test_value_placeholders_are_tolerated():
    for text in (
        "SELECT id FROM t WHERE a = ? AND b = ?",
        "SELECT id FROM t WHERE a = :a AND b IN (:b1, :b2)",
        "SELECT id FROM t WHERE a = %s AND b = %d AND c = %f AND d = %1$s LIMIT %d, %d",
        "SELECT id FROM t WHERE a LIKE '%foo%' AND b = '%s'",
    ):
        info = analyze(text)
        assert info is not None and info.parsed and not info.dynamic, text
        assert tables(info) == [("t", "exact", "read")]
    frags = [
        L("SELECT id FROM t WHERE name LIKE '%"),
        D("$q"),
        L("%' AND id IN ("),
        D("$ids"),
        L(") ORDER BY id LIMIT "),
        D("$offset"),
        L(", "),
        D("$count"),
    ]
    info = analyze(frags)
    assert info.parsed and not info.dynamic and info.columns == ["id", "name"]


def test_run_time_identifiers_make_the_text_dynamic():
    info = analyze([L("SELECT "), D("$fields"), L(" FROM items WHERE id = "), D("$id")])
    assert info.dynamic and info.columns is None and tables(info) == [("items", "exact", "read")]
    info = analyze(
        [
            L("SELECT id FROM t WHERE 1=1 "),
            D("$where"),
            L(" ORDER BY "),
            D("$orderby"),
            L(" "),
            D("$order"),
        ]
    )
    assert info.parsed and info.dynamic and info.columns is None
    assert tables(info) == [("t", "exact", "read")]
    info = analyze("SELECT * FROM %i WHERE %i = %s")  # WordPress 6.2 identifier placeholder
    assert info.dynamic and tables(info) == [("", "dynamic", "read")]
    info = analyze("SELECT * FROM %s WHERE id = %d")  # sprintf() table name
    assert info.dynamic and tables(info) == [("", "dynamic", "read")]


def test_wordpress_clause_assembly_parses():
    frags = [
        L("SELECT "),
        D("$found_rows"),
        L(" "),
        D("$distinct"),
        L(" "),
        D("{$wpdb->posts}"),
        L(".ID FROM "),
        D("{$wpdb->posts}"),
        L(" "),
        D("$join"),
        L(" WHERE 1=1 "),
        D("$where"),
        L(" "),
        D("$groupby"),
        L(" "),
        D("$orderby"),
        L(" "),
        D("$limits"),
    ]
    info = analyze(frags, {"$wpdb->posts": "wp_posts"})
    assert info.parsed and info.dynamic
    assert tables(info) == [("wp_posts", "prefix_resolved", "read")]


def test_unparsable_falls_back_to_regex():
    # the first half of a concatenation that WordPress completes later
    info = analyze(
        [L("SELECT ID FROM "), D("{$wpdb->posts}"), L(" WHERE post_author IN( ")],
        WP | {"$wpdb->posts": "wp_posts"},
    )
    assert info.parsed is False and info.columns is None
    assert tables(info) == [("wp_posts", "prefix_resolved", "read")]
    assert any("regular expression" in p for p in info.problems)
    info = analyze(
        "SELECT COUNT(*) FROM wp_a, wp_b p1 WHERE p1.ID = wp_a.object_id AND ( post_status IN ('"
    )
    assert not info.parsed and [t.name for t in info.tables] == ["wp_a", "wp_b"]
    info = analyze("DELETE FROM comments WHERE comment_id IN ( ")
    assert not info.parsed and tables(info) == [("comments", "exact", "write")]
    info = analyze("INSERT DELAYED INTO hits VALUES (1)")
    assert not info.parsed and tables(info) == [("hits", "exact", "write")]


def test_heredoc_and_nowdoc_text():
    heredoc = [
        L(
            "SELECT o.id, o.total, u.email\nFROM orders o\nJOIN users u ON u.id = o.user_id\n"
            "WHERE o.status = '"
        ),
        D("{$status}"),
        L("'\nORDER BY o.created_at DESC"),
    ]
    info = analyze(heredoc)
    assert tables(info) == [("orders", "exact", "read"), ("users", "exact", "read")]
    assert not info.dynamic
    nowdoc = "  INSERT INTO order_items (order_id, product_id)\n  VALUES (:order_id, :product_id)\n"
    assert tables(analyze(nowdoc)) == [("order_items", "exact", "write")]


def test_results_are_cached_but_callers_get_their_own_lists():
    sqltext.cache_clear()
    a = analyze("SELECT id FROM t WHERE x = 1")
    a.tables.append(TableRef("junk", "exact", "read"))
    a.columns.append("junk")
    a.problems.append("junk")
    b = analyze("SELECT id FROM t WHERE x = 1")
    assert tables(b) == [("t", "exact", "read")] and b.columns == ["id", "x"] and b.problems == []
    assert sqltext._analyze_cached.cache_info().hits >= 1
    # a different prefix mapping is a different answer
    frags = [L("SELECT id FROM "), D("$p"), L("t")]
    assert analyze(frags, {"$p": "a_"}).tables[0].name == "a_t"
    assert analyze(frags, {"$p": "b_"}).tables[0].name == "b_t"


def test_the_pre_check_turns_prose_away_before_any_parse():
    prose = [f"Please select item number {i} from the menu below." for i in range(2000)]
    code = [f"wp_option_{i}" for i in range(2000)]
    assert not any(looks_like_sql(s) for s in prose + code)  # never reaches sqlglot
    assert sum(1 for s in prose + code if analyze(s, WP) is not None) == 0
    assert looks_like_sql("SELECT id FROM t") and not looks_like_sql("selected items")


# ------------------------------------------------------ fixtures/sqlapp

FIXTURE_FRAGMENTS: dict[str, list[tuple[str, str]]] = {
    "src/UserRepository.php:17": [L("SELECT id, email, name FROM users WHERE id = ?")],
    "src/UserRepository.php:23": [
        L("INSERT INTO users (email, name, created_at) VALUES (?, ?, NOW())")
    ],
    "src/UserRepository.php:28": [
        L("UPDATE users SET name = '"),
        D("$name"),
        L("' WHERE id = "),
        D("$id"),
    ],
    "src/UserRepository.php:34": [
        L("SELECT id, email FROM "),
        D("$prefix"),
        L("users WHERE active = 1"),
    ],
    "src/OrderService.php:20": [
        L(
            "SELECT o.id, o.total, u.email\nFROM orders o\n"
            "JOIN users u ON u.id = o.user_id\nWHERE o.status = '"
        ),
        D("{$status}"),
        L("'\nORDER BY o.created_at DESC"),
    ],
    "src/OrderService.php:32": [
        L(
            "INSERT INTO order_items (order_id, product_id, quantity, unit_price)\n"
            "VALUES (:order_id, :product_id, :quantity, :unit_price)"
        )
    ],
    "src/OrderService.php:46": [
        L("UPDATE "),
        D("{$this->prefix}"),
        L("orders SET status = 'shipped', shipped_at = NOW() WHERE id = "),
        D("{$orderId}"),
    ],
    "src/OrderService.php:51": [L("DELETE FROM order_items WHERE order_id = "), D("$orderId")],
    "src/Catalog.php:17": [L("SELECT * FROM products WHERE sku = ?")],
    "src/Catalog.php:23": [
        L("UPDATE products SET stock = stock - "),
        D("$quantity"),
        L(" WHERE id = "),
        D("$productId"),
        L(" AND stock >= "),
        D("$quantity"),
    ],
    "src/Catalog.php:28": [L("Select a product from the list to see its stock.")],
    "src/Admin/Maintenance.php:19": [L("SELECT COUNT(*) AS n FROM `"), D("$table"), L("`")],
    "src/Admin/Maintenance.php:25": [
        L("DELETE FROM orders WHERE status = 'cancelled' AND created_at < NOW() - INTERVAL "),
        D("$days"),
        L(" DAY"),
    ],
}


def expected_rows() -> list[dict[str, str]]:
    rows = []
    for line in (SQLAPP / "EXPECTED.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and re.match(r"^src/\S+:\d+$", cells[0]):
            rows.append(
                dict(zip(("loc", "form", "op", "tables", "edge", "why"), cells, strict=True))
            )
    return rows


def edge_kind(info: SqlInfo | None, known: set[str]) -> str:
    """The rule EXPECTED.md states (architecture §5.2/§6.2)."""
    if info is None or not any(t.name for t in info.tables):
        return "none"
    if info.dynamic or info.select_star or not info.parsed:
        return "derived"
    if all(t.how == "exact" and t.name.lower() in known for t in info.tables):
        return "stated"
    return "derived"


def test_fixture_expected_md_matches_the_analysis():
    files = sorted((SQLAPP / "db" / "migrations").glob("*.sql"))
    schema, problems = schema_from_migrations([(f.name, f.read_text()) for f in files])
    assert problems == []
    known = set(schema.tables)
    rows = expected_rows()
    assert [r["loc"] for r in rows] == list(FIXTURE_FRAGMENTS)
    forms = " ".join(r["form"] for r in rows)
    for form in ("single-quoted", "double-quoted", "concatenation", "heredoc", "nowdoc"):
        assert form in forms
    for row in rows:
        path, line = row["loc"].rsplit(":", 1)
        source = (SQLAPP / path).read_text().splitlines()
        source_line = source[int(line) - 1]
        frags = FIXTURE_FRAGMENTS[row["loc"]]
        if "heredoc" in row["form"] or "nowdoc" in row["form"]:  # the text starts below <<<
            assert "<<<" in source_line, row["loc"]
            assert source[int(line)].strip() == frags[0][1].splitlines()[0], row["loc"]
        else:  # the fragments are really on that line
            assert frags[0][1] in source_line.replace("\\'", "'"), row["loc"]
        info = analyze(frags, {})
        if row["op"].startswith("—"):
            assert info is None, row["loc"]
        else:
            assert info is not None and info.operation == row["op"], row["loc"]
            for t in info.tables:
                label = t.name or f"`{t.expr}`"
                assert f"{label} ({t.role}" in row["tables"], (row["loc"], t)
                assert ("dynamic" in row["tables"]) == (t.how == "dynamic"), row["loc"]
            assert len(info.tables) == row["tables"].count("(")
        assert edge_kind(info, known) == row["edge"], row["loc"]
    assert {r["edge"] for r in rows} == {"stated", "derived", "none"}
    assert {r["op"] for r in rows} >= {"select", "insert", "update", "delete"}


def test_fixture_prefix_resolves_when_configured():
    info = analyze(FIXTURE_FRAGMENTS["src/OrderService.php:46"], {"$this->prefix": ""})
    assert tables(info) == [("orders", "prefix_resolved", "write")] and not info.dynamic


# ------------------------------------------------- fragments, calls, names from code (issue 12)


@pytest.mark.parametrize(
    ("frags", "want"),
    [
        (
            " FROM orders o, order_lines l,",
            [("orders", "exact", "read"), ("order_lines", "exact", "read")],
        ),
        ("LEFT JOIN users u ON u.id = o.user_id", [("users", "exact", "read")]),
        ("AND o.id IN (SELECT order_id FROM refunds WHERE n > 0)", [("refunds", "exact", "read")]),
        ("NOT IN (SELECT id FROM banned)", [("banned", "exact", "read")]),
        ("WHERE EXISTS (SELECT 1 FROM x WHERE x.a = t.a)", [("x", "exact", "read")]),
        (
            [L("INNER JOIN "), D("{$wpdb->prefix}"), L("postmeta pm ON pm.post_id = p.ID")],
            [("postmeta", "dynamic", "read")],
        ),
    ],
)
def test_fragments_name_their_tables_as_read(frags: object, want: list) -> None:
    info = analyze(frags)  # type: ignore[arg-type]
    assert info is not None and info.operation == "fragment"
    assert tables(info) == want


@pytest.mark.parametrize(
    "text",
    ["from the list", "WHERE a = 1", " ORDER BY id", "From users", "or something from them."],
)
def test_not_fragments(text: str) -> None:
    assert analyze(text) is None and sqltext.fragment_lead(text) is None


def test_joomla_placeholder_is_a_run_time_prefix() -> None:
    info = analyze("SELECT * FROM #__users WHERE id = 1")
    assert info is not None
    assert [(t.name, t.how, t.expr) for t in info.tables] == [("users", "dynamic", "#__")]


def test_statement_forms_of_issue_12() -> None:
    cases = {
        "DELETE FROM a USING a JOIN b ON a.id = b.id": [
            ("a", "exact", "write"),
            ("a", "exact", "read"),
            ("b", "exact", "read"),
        ],
        "INSERT INTO t (a) SELECT x FROM s": [("t", "exact", "write"), ("s", "exact", "read")],
        "REPLACE INTO t (a) VALUES (1)": [("t", "exact", "write")],
        "INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = VALUES(a)": [
            ("t", "exact", "write")
        ],
        "UPDATE a, b SET a.x = b.y WHERE a.id = b.id": [
            ("a", "exact", "write"),
            ("b", "exact", "read"),
        ],
        "WITH c AS (SELECT id FROM o) DELETE FROM u WHERE id IN (SELECT id FROM c)": [
            ("u", "exact", "write"),
            ("o", "exact", "read"),
        ],
    }
    for sql, want in cases.items():
        info = analyze(sql)
        assert info is not None and tables(info) == want, sql
    info = analyze([L("SELECT a FROM t WHERE "), D("{$this->where}"), L(" LIMIT "), D("$limit")])
    assert info is not None and tables(info) == [("t", "exact", "read")] and info.dynamic


def test_analyze_call() -> None:
    info = sqltext.analyze_call("delete", "write", [D("$wpdb->options")])
    assert info is not None and info.operation == "delete" and not info.parsed
    assert [(t.name, t.how, t.role, t.expr) for t in info.tables] == [
        ("", "dynamic", "write", "$wpdb->options")
    ]
    info = sqltext.analyze_call("select", "read", [L("shop.users AS u")])
    assert info is not None and [(t.name, t.schema, t.how) for t in info.tables] == [
        ("users", "shop", "exact")
    ]
    info = sqltext.analyze_call("insert", "write", [D("$wpdb->prefix"), L("links")], WP)
    assert info is not None and tables(info) == [("wp_links", "prefix_resolved", "write")]
    assert sqltext.analyze_call("select", "read", [L("me@example.org")]) is None


def test_table_names_from_code() -> None:
    from ragraf.indexing.resolve.tablenames import TableNames
    from ragraf.lang.facts import SqlTable

    def dyn(name: str, expr: str) -> SqlTable:
        return SqlTable(name, "dynamic", "read", None, expr)

    names = TableNames({"wp_options", "users", "jos_content"}, ["wp_"], {"postmeta"})
    assert names.resolve(dyn("", "$wpdb->options")) == ("wp_options", "table_property")
    # a property a CREATE TABLE in code names, with the discovered prefix
    assert names.resolve(dyn("", "$wpdb->postmeta")) == ("wp_postmeta", "table_property")
    # anything else stays unknown: no guess
    assert names.resolve(dyn("", "$this->table")) is None
    assert names.resolve(dyn("", "$table")) is None
    assert names.resolve(dyn("options", "$wpdb->prefix")) == ("wp_options", "discovered_prefix")
    # the literal rest names a known table: sqltext's name stands
    assert names.resolve(dyn("users", "$prefix")) is None
    assert names.resolve(dyn("", "$db->quoteName('#__content')")) == (
        "jos_content",
        "schema_suffix",
    )
    assert names.resolve(dyn("", "$db->table_name('users')")) == ("users", "helper_call")
    assert names.resolve(dyn("", "$db->tbl('users')")) is None
    # no prefix discovered: a unique suffix match on the known tables
    bare = TableNames({"wp_options", "wp_posts", "xx_posts"})
    assert bare.resolve(dyn("", "$wpdb->options")) == ("wp_options", "schema_suffix")
    assert bare.resolve(dyn("", "$wpdb->posts")) is None  # two candidates
    assert bare.resolve(dyn("options", "{$wpdb->prefix}")) == ("wp_options", "schema_suffix")


def test_a_known_literal_rest_wins_over_a_suffix_match() -> None:
    from ragraf.indexing.resolve.tablenames import TableNames
    from ragraf.lang.facts import SqlTable

    names = TableNames({"orders", "open_orders"})
    assert names.resolve(SqlTable("orders", "dynamic", "write", None, "$this->prefix")) is None
    assert TableNames({"open_orders"}).resolve(
        SqlTable("orders", "dynamic", "write", None, "$this->prefix")
    ) == ("open_orders", "schema_suffix")


def test_a_specific_prefix_name_wins_over_a_bare_prefix_key() -> None:
    from ragraf.indexing.resolve.tablenames import TableNames
    from ragraf.lang import php

    cache = php.extract(
        "c.php", "<?php\n$o = ['prefix' => 'cache_'];\n$p = ['prefix' => 'cache_'];\n"
    )
    conf = php.extract("w.php", "<?php\n$table_prefix = 'wp_';\n")
    assert TableNames.of([cache, conf], []).prefixes == ["wp_", "cache_"]


def test_an_empty_schema_part_does_not_crash_the_analysis():
    # `a..b`: sqlglot leaves the schema a bare (empty) string; it raised AttributeError
    info = analyze("SELECT * FROM a..b")
    assert info is not None and info.operation == "select"
    assert [t.name for t in info.tables] == ["b"]


def test_each_table_of_several_statements_has_its_own_operation_and_columns() -> None:
    """An install string creates several tables: a's columns are not b's."""
    info = analyze(
        [
            (
                "lit",
                "CREATE TABLE a (x INT, y INT); CREATE TABLE b (z INT);"
                " INSERT INTO a (x) VALUES (1); DELETE FROM c; SELECT * FROM b",
            )
        ]
    )
    assert info is not None and info.operation == "create"
    refs = [(t.name, t.role) for t in info.tables]
    got = {refs[i]: (op, cols) for i, op, cols in info.by_table}
    assert got == {
        ("a", "write"): ("create", ["x", "y"]),
        ("b", "write"): ("create", ["z"]),
        ("c", "write"): ("delete", []),
        ("b", "read"): ("select", None),  # SELECT * reads columns the string does not name
    }
    # one statement, or one table: the string's own operation and columns say it all
    one = analyze([("lit", "SELECT a.x FROM a JOIN b ON a.id = b.id")])
    assert one is not None and one.by_table == []
