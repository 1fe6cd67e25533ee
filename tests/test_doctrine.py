"""Doctrine entities on fixtures/symfonyapp: an entity's mapping (attributes or docblock
annotations) is a ``references_table`` edge from the class to its table
(``ragraf.lang.php.doctrine``), so ``table_usage`` lists the entities of a table as
``models`` and ``impact --table`` reaches the code that uses them, with or without a
database schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ragraf import config, facade
from ragraf.drift.scan import run_scan
from ragraf.kinds import TableHow
from ragraf.lang.facts import OrmTableRef
from ragraf.lang.php.doctrine import snake_case, table_candidates
from ragraf.lang.php.walk import extract
from ragraf.lang.typedesc import Cls
from tests.helpers import REPO, edit_file, indexed_fixture, write

SYMFONY = REPO / "fixtures" / "symfonyapp"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(SYMFONY, tmp_path_factory.mktemp("doctrine") / "symfonyapp")


@pytest.mark.parametrize(
    ("cls", "table"),
    [
        ("User", "user"),
        ("BlogPost", "blog_post"),
        ("HTTPClient", "http_client"),
        ("Address2", "address_2"),
        ("OAuthToken", "o_auth_token"),
    ],
)
def test_the_table_doctrine_names_for_an_entity(cls: str, table: str) -> None:
    assert snake_case(cls) == table
    assert table_candidates(cls) == (table, cls)


def _orm_refs(rel: str) -> list[OrmTableRef]:
    f = extract(rel, (SYMFONY / rel).read_text(encoding="utf-8"))
    refs = [r for r in f.refs if isinstance(r, OrmTableRef)]
    for r in refs:
        assert f.nodes[r.owner].kind == "class"
    return refs


def test_an_entity_mapping_is_read_from_attributes_and_annotations() -> None:
    got = {
        rel: [(r.line, r.tables, r.how) for r in _orm_refs(rel)]
        for rel in (
            "src/Entity/User.php",
            "src/Entity/BlogPost.php",
            "src/Entity/Product.php",
            "src/Entity/BaseEntity.php",
            "src/Entity/Money.php",
            "src/Entity/Report.php",
            "src/Repository/UserRepository.php",
        )
    }
    assert got == {
        # the Table attribute's line: where the name is
        "src/Entity/User.php": [(9, ("app_user",), "table_attribute")],
        # no table named: Symfony's naming strategy first, then Doctrine's default
        "src/Entity/BlogPost.php": [(7, ("blog_post", "BlogPost"), "convention")],
        "src/Entity/Product.php": [(11, ("products",), "table_attribute")],  # @ORM\Table
        "src/Entity/BaseEntity.php": [],  # a mapped superclass has no table
        "src/Entity/Money.php": [],  # an embeddable neither
        "src/Entity/Report.php": [],  # a Table attribute of another library
        "src/Repository/UserRepository.php": [],
    }


def _models(root: Path, table: str) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
    env = facade.run_op(root, "table_usage", {"table": table})
    r = env["result"]
    models = [
        (m["fqn"], m["orm"], m["how"], m["mapping"], m["provenance"], m["uses"])
        for m in r["models"]
    ]
    return models, env


def test_table_usage_lists_the_entities_of_a_table_without_a_schema(app: Path) -> None:
    users, env = _models(app, "app_user")
    # without a schema every edge to a table known from code is derived (via no_schema)
    assert users == [
        ("App\\Entity\\User", "doctrine", "table_attribute", "src/Entity/User.php:9", "derived", 5)
    ]
    assert any("1 Doctrine entit(y/ies) map to this table" in x for x in env["limits"])
    # the entity is no SQL statement: not among the readers and writers, not in the total
    r = env["result"]
    # the migration's CREATE and DROP, the repository's two DQL, its query builders and
    # its own finder
    assert r["total"] == 7
    assert sorted(it["evidence"] for it in r["readers"] + r["writers"]) == [
        "migrations/Version20240101000000.php:14",
        "migrations/Version20240101000000.php:20",
        "src/Repository/UserRepository.php:18",
        "src/Repository/UserRepository.php:24",
        "src/Repository/UserRepository.php:32",
        "src/Repository/UserRepository.php:43",
        "src/Repository/UserRepository.php:52",
    ]
    posts, _ = _models(app, "blog_post")
    assert posts == [
        (
            "App\\Entity\\BlogPost",
            "doctrine",
            "convention",
            "src/Entity/BlogPost.php:7",
            "derived",
            1,  # the query builder's leftJoin(BlogPost::class, ...)
        )
    ]
    # no SQL names `products`: the entity's mapping alone makes the table known
    products, env = _models(app, "products")
    assert [m[0] for m in products] == ["App\\Entity\\Product"]
    assert [t["name"] for t in env["result"]["target"]] == ["products"]
    reports, env = _models(app, "reports")
    assert reports == [] and env["result"]["target"] == []


def test_impact_of_a_table_reaches_the_code_using_its_entity(app: Path) -> None:
    r = facade.run_op(app, "impact", {"detail": "full", "table": "app_user"})["result"]
    soft = {(s["fqn"], s["depth"]) for s in r["soft"]["symbols"]}
    assert {
        ("App\\Entity\\User", 1),
        ("App\\Repository\\UserRepository::__construct", 2),  # User::class
        ("App\\Service\\Signup::register", 2),  # new User()
    } <= soft


SCHEMA = """CREATE TABLE app_user (id INT NOT NULL, email VARCHAR(180) NOT NULL, PRIMARY KEY(id));
CREATE TABLE BlogPost (id INT NOT NULL, title VARCHAR(255) NOT NULL, PRIMARY KEY(id));
"""


def test_with_a_schema_a_declared_table_is_stated_and_a_convention_finds_the_known_name(
    tmp_path: Path,
) -> None:
    src = tmp_path / "src"
    subprocess.run(["cp", "-r", str(SYMFONY), str(src)], check=True)
    write(src, "schema.sql", SCHEMA)
    root = indexed_fixture(src, tmp_path / "app")
    users, _ = _models(root, "app_user")
    assert [(m[0], m[4]) for m in users] == [("App\\Entity\\User", "stated")]
    # the schema has Doctrine's default name, not Symfony's: the entity maps to that one
    posts, _ = _models(root, "BlogPost")
    assert [(m[0], m[2], m[4]) for m in posts] == [
        ("App\\Entity\\BlogPost", "convention", "derived")
    ]
    env = facade.run_op(root, "table_usage", {"table": "BlogPost"})
    edge_conf = env["result"]["models"][0]["confidence"]
    assert edge_conf == json.loads(json.dumps(config.load(root).confidence["orm_convention"]))
    impact = facade.run_op(root, "impact", {"detail": "full", "table": "app_user", "mode": "hard"})[
        "result"
    ]
    assert "App\\Entity\\User" in [s["fqn"] for s in impact["hard"]["symbols"]]
    # a table the schema does not have gets no edge (and no node)
    products, env = _models(root, "products")
    assert products == [] and env["result"]["target"] == []


def test_an_edited_entity_warns_and_a_scoped_reindex_keeps_its_table(
    app: Path, tmp_path: Path
) -> None:
    root = indexed_fixture(app, tmp_path / "app")
    edit_file(root, "src/Entity/User.php", "'app_user'", "'app_users'")
    run_scan(config.load(root))
    env = facade.run_op(root, "table_usage", {"table": "app_user"})
    assert [w["path"] for w in env["stale_warnings"]] == ["src/Entity/User.php"]
    # an edit elsewhere: the scoped reindex keeps the tables only entities name
    edit_file(root, "src/Service/Signup.php", "flush();", "flush();\n        // saved")
    subprocess.run(
        [sys.executable, "-m", "ragraf", "-C", str(root), "reindex", "--commit"],
        check=True,
        capture_output=True,
    )
    products, _ = _models(root, "products")
    assert [m[0] for m in products] == ["App\\Entity\\Product"]
    renamed, _ = _models(root, "app_users")
    assert [m[0] for m in renamed] == ["App\\Entity\\User"]
    assert _models(root, "app_user")[0] == []


def test_an_attribute_references_its_class(app: Path) -> None:
    r = facade.run_op(app, "references", {"detail": "full", "fqn": "App\\Attribute\\Audited"})[
        "result"
    ]
    got = [
        (it["line"], it["symbol"]["kind"], it["symbol"]["fqn"])
        for it in r["sites"]
        if it["kind"] == "references"
    ]
    file = "src/Service/Signup.php"
    assert sorted(got) == [
        (9, "file", file),  # the class's: a class body is no scope
        (12, "file", file),  # a property's
        (17, "method", "App\\Service\\Signup::register"),  # the method's
        (18, "method", "App\\Service\\Signup::register"),  # a parameter's
    ]


def test_a_comment_among_attributed_parameters_is_no_parameter() -> None:
    """A comment in a parameter list is one of its named children, with no children of its
    own: looking for its attributes must not fail (it did, on MediaWiki)."""
    src = """<?php
class A {
    public function f(
        // the secret
        #[\\SensitiveParameter] string $password, /* and a count */ #[\\App\\Audited] int $n
    ) {}
}
"""
    f = extract("a.php", src)
    assert f.status == "ok"
    refs = [r for r in f.refs if getattr(r, "member", None) == "class"]
    assert sorted((r.line, r.cls) for r in refs) == [
        (5, Cls("App\\Audited")),
        (5, Cls("SensitiveParameter")),  # linked only where the corpus declares it
    ]


@pytest.mark.parametrize(
    ("dql", "tables"),
    [
        ("SELECT u FROM App\\Entity\\User u WHERE u.email = :e", [("App\\Entity\\User", "read")]),
        # an association path (p.comments) is no class: no table
        ("SELECT p, c FROM App\\Entity\\Post p JOIN p.comments c", [("App\\Entity\\Post", "read")]),
        ("UPDATE App\\Entity\\User u SET u.active = 0", [("App\\Entity\\User", "write")]),
        ("DELETE App\\Entity\\User u WHERE u.id = :id", [("App\\Entity\\User", "write")]),
        ("DELETE FROM App\\Entity\\User u", [("App\\Entity\\User", "write")]),
    ],
)
def test_dql_names_entity_classes_not_tables(dql: str, tables: list[tuple[str, str]]) -> None:
    from ragraf.sql import sqltext

    info = sqltext.analyze(dql)
    assert info is not None
    assert [(t.name, t.role) for t in info.tables] == tables
    assert {t.how for t in info.tables} == {TableHow.ENTITY}
    assert sqltext.analyze("Delete the selected files") is None  # prose stays prose


def _usage(root: Path, table: str) -> list[tuple[str, str, list[str], str | None]]:
    r = facade.run_op(root, "table_usage", {"table": table})["result"]
    return sorted(
        (it["evidence"], it["symbol"]["fqn"], it["roles"], it.get("via"))
        for it in r["readers"] + r["writers"]
        if it.get("via") == "orm_entity"
    )


def test_dql_reads_and_writes_the_table_its_entity_maps_to(app: Path) -> None:
    repo = "src/Repository/UserRepository.php"
    assert _usage(app, "app_user") == [
        # the repository's own $this->findBy([...]): its constructor gives the parent User
        (f"{repo}:18", "App\\Repository\\UserRepository::findActive", ["read"], "orm_entity"),
        (f"{repo}:24", "App\\Repository\\UserRepository::findByEmail", ["read"], "orm_entity"),
        (f"{repo}:32", "App\\Repository\\UserRepository::purgeInactive", ["write"], "orm_entity"),
        # the query builder's from(User::class, 'u')
        (f"{repo}:43", "App\\Repository\\UserRepository::withPosts", ["read"], "orm_entity"),
        # ... and the repository's $this->createQueryBuilder('u')
        (f"{repo}:52", "App\\Repository\\UserRepository::newest", ["read"], "orm_entity"),
    ]
    # ... and its leftJoin(BlogPost::class, ...): the table BlogPost's convention names
    assert _usage(app, "blog_post") == [
        (f"{repo}:43", "App\\Repository\\UserRepository::withPosts", ["read"], "orm_entity"),
    ]
    # a class no entity of the corpus is (Vendor\Thing), and the namespace's first word,
    # are no tables: the schema of code has the migration's and the entities' tables only
    schema = facade.run_op(app, "schema", {})["result"]
    assert schema["files"]["code_tables"] == 3  # app_user, blog_post, products
    for name in ("App", "Vendor\\Thing", "App\\Entity\\User"):
        assert facade.run_op(app, "table_usage", {"table": name})["result"]["target"] == []


def test_dql_follows_an_edit_of_the_entity_in_a_scoped_reindex(app: Path, tmp_path: Path) -> None:
    root = indexed_fixture(app, tmp_path / "app")
    edit_file(root, "src/Entity/User.php", "'app_user'", "'members'")
    subprocess.run(
        [sys.executable, "-m", "ragraf", "-C", str(root), "reindex", "--commit"],
        check=True,
        capture_output=True,
    )
    # the repository did not change: the answer to its question (User's table) did
    assert [e[0] for e in _usage(root, "members")] == [
        "src/Repository/UserRepository.php:18",
        "src/Repository/UserRepository.php:24",
        "src/Repository/UserRepository.php:32",
        "src/Repository/UserRepository.php:43",
        "src/Repository/UserRepository.php:52",
    ]
    assert _usage(root, "app_user") == []
