"""Credentials are redacted from every text ragraf keeps or serves (ragraf/redact.py): the
patterns on real shapes, what they leave alone, line numbers kept, and end to end through
index, search, code and live_read on a repository holding credentials in files no
exclusion names."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from ragraf import config, facade
from ragraf.indexing import indexer
from ragraf.redact import MARK, redact
from tests.helpers import copy_pilot, write

SECRETS = {
    "define('DB_PASSWORD', 'hunter22');": "hunter22",
    "define( 'AUTH_KEY',  'put your unique phrase here' );": "put your unique phrase here",
    "$cfg['Servers'][$i]['password'] = 'rootpw1';": "rootpw1",
    "$wgSecretKey = 'e8f0a1b2c3';": "e8f0a1b2c3",
    "'client_secret' => 'ab12cd34',": "ab12cd34",
    'password = "abcd1234"': "abcd1234",
    "const API_TOKEN = 'tok-3x';": "tok-3x",
    "DB_PASSWORD=supersecret": "supersecret",
    "export APP_KEY=base64:abc123==": "base64:abc123==",
    "aws = 'AKIAIOSFODNN7EXAMPLE'": "AKIAIOSFODNN7EXAMPLE",
    "gh = 'ghp_" + "a" * 36 + "'": "ghp_" + "a" * 36,
    '$wgDBpassword = "hunter";': "hunter",  # a plain word after a password's name
}
KEPT = [
    "'password' => 'Password',",  # a label
    "'passwordreset' => 'passwordreset-title',",  # a message key
    "$password = $_POST['password'];",  # no literal
    "'password' => env('DB_PASSWORD', ''),",
    "public const ROW_CACHE_KEY = 'revision-row-1.29';",  # a cache key, not a secret
    "foreach ( array( 'AUTH_KEY', 'SECURE_AUTH_KEY' ) as $k )",
    "define( 'PASS_COOKIE', 'wordpresspass_' . COOKIEHASH );",
    'token : "support.function.C99.c"',  # a lexer token
    "'key' => 'abc123!'",  # an array key
    "'password' => 'FTP_PASS',",  # a constant's name
    "$label = $new ? 'newpassword' : 'yourpassword';",  # words naming the credential
    "'/user-password' => 'App\\Controllers\\UserPasswordController',",  # a class
    "'password' => '[------]',",  # a mask
]


@pytest.mark.parametrize(("line", "secret"), sorted(SECRETS.items()))
def test_a_credential_is_redacted(line: str, secret: str) -> None:
    out, n = redact(line)
    assert n == 1 and secret not in out and MARK in out, out


@pytest.mark.parametrize("line", KEPT)
def test_what_is_no_credential_is_left_alone(line: str) -> None:
    assert redact(line) == (line, 0)


def test_a_private_key_block_keeps_its_lines() -> None:
    text = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAAAA\n-----END RSA PRIVATE KEY-----\nb é\n"
    out, n = redact(text)
    assert n == 1 and "MIIEow" not in out and out.count("\n") == text.count("\n")
    assert out.splitlines()[1] == "-----BEGIN RSA PRIVATE KEY-----" and out.endswith("b é\n")


def test_lines_and_other_text_are_kept() -> None:
    text = "<?php // ünïcode\n" + "\n".join(SECRETS) + "\n" + "\n".join(KEPT) + "\n"
    out, n = redact(text)
    assert n == len(SECRETS) and out.count("\n") == text.count("\n")
    assert out.splitlines()[0] == "<?php // ünïcode" and out.endswith("\n".join(KEPT) + "\n")


def test_nothing_of_a_credential_reaches_a_store_or_an_answer(tmp_path: Path) -> None:
    root = copy_pilot(tmp_path / "pilot")
    write(root, "wp-config.php", "<?php\ndefine('DB_PASSWORD', 'in-wp-config-9');\n")
    write(root, "secrets.env.php", "<?php\nreturn ['DB_PASSWORD' => 'in-env-copy-9'];\n")
    write(
        root,
        "src/Core/Settings.php",
        "<?php\nnamespace App\\Core;\n/** database settings */\nfunction settings(): array {\n"
        "    define('DB_PASSWORD', 'hunter22');\n    $api_key = 'k3y-w1th-d1g1ts';\n"
        "    return ['aws' => 'AKIAIOSFODNN7EXAMPLE'];\n}\n",
    )
    config.init_project(root)
    indexer.build(config.load(root))
    secrets = [
        "in-wp-config-9",
        "in-env-copy-9",
        "hunter22",
        "k3y-w1th-d1g1ts",
        "AKIAIOSFODNN7EXAMPLE",
    ]
    answers = [
        facade.run_op(root, "code", {"path": "src/Core/Settings.php"}),
        facade.run_op(root, "live_read", {"path": "src/Core/Settings.php"}),
        facade.run_op(root, "search", {"query": "database settings", "with_text": True}),
        facade.run_op(root, "symbol", {"name": "settings"}),
    ]
    text = json.dumps(answers)
    assert "settings" in text and MARK in text
    stored = b""
    for f in (root / ".ragraf").rglob("*"):
        if f.is_file():
            stored += f.read_bytes()
    from ragraf.store.graph import GraphStore

    with GraphStore(config.Layout(root).graph_db, readonly=True) as g:
        blob = g.file_text("rev-0001", "src/Core/Settings.php") or ""
        assert "hunter22" not in blob and blob.count("\n") == 8
        for (data,) in g.db.query("SELECT data FROM file_blob"):
            stored += zlib.decompress(data)
        for (data,) in g.db.query("SELECT data FROM flow_unit"):  # packed (issue 44)
            stored += zlib.decompress(data)
    from ragraf.store.lexvec import LexStore

    with LexStore(config.Layout(root).lexvec_db, readonly=True) as lex:
        for table, column in (("chunk_text", "text"), ("chunk_tokens", "tokens")):
            for (data,) in lex.db.query(f"SELECT {column} FROM {table}"):
                stored += zlib.decompress(data)
    assert b"database settings" in stored  # the packed texts are read
    for s in secrets:
        assert s not in text, s
        assert s.encode() not in stored, s


def test_a_blob_stored_before_redaction_is_redacted_on_read_and_written_again(
    tmp_path: Path,
) -> None:
    """A store from before (schemas/sql/graph/0006): its blob holds the text as it was;
    the text read from it is redacted, and the next build writes it again, redacted."""
    from ragraf.store.graph import GraphStore

    root = copy_pilot(tmp_path / "pilot")
    raw = "<?php\n$db_password = 'hunter22';\n"
    write(root, "src/old.php", raw)
    config.init_project(root)
    indexer.build(config.load(root))
    db_path = config.Layout(root).graph_db
    with GraphStore(db_path) as g:
        (sha,) = g.db.query_one("SELECT sha256 FROM file WHERE path = 'src/old.php'")
        with g.db.write():
            g.db.execute(
                "UPDATE file_blob SET data = ?, redacted = 0 WHERE sha256 = ?",
                (zlib.compress(raw.encode()), sha),
            )
    with GraphStore(db_path, readonly=True) as g:
        assert "hunter22" not in (g.file_text("rev-0001", "src/old.php") or "x hunter22")
    indexer.build(config.load(root), force=True)
    with GraphStore(db_path, readonly=True) as g:
        data, done = g.db.query_one("SELECT data, redacted FROM file_blob WHERE sha256 = ?", (sha,))
    assert done == 1 and b"hunter22" not in zlib.decompress(data)
