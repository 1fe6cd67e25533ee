"""The live MySQL / MariaDB server: connection parameters and information_schema.

The one module that sends SQL to the project's database server (SQLite stores
have their own modules here). It fills the ``ragraf.sql.dbschema`` model.

Invariants a change must keep:
- The database password is read from ``RAGRAF_DB_PASSWORD`` or from the DSN
  and nowhere else. It is held by a ``Secret`` whose ``repr``/``str`` are
  masked; it never appears in a returned value's text, in a log record or in
  an exception message (messages are scrubbed of it before they are raised).
- A server that cannot be reached, refuses the login or does not answer in
  time is a ``SchemaUnavailable`` with a one-line reason, never another
  exception; the caller then builds the schema from migrations only (§15).
- ``mysql.connector`` is imported inside the functions that need it.
- A host named by ``db.dsn`` (a file of the repository: a cloned one can commit it) that
  is not this machine is never contacted, not even with the user name, until the user
  allows it outside the repository: ``RAGRAF_DB_ALLOW_HOSTS`` (comma-separated hosts, in
  the environment) names it. ``RAGRAF_DB_HOST`` is the user's own setting and needs no
  more. The connection takes TLS where the server offers it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from ragraf.errors import ConfigError, SchemaUnavailable
from ragraf.sql.dbschema import SOURCE_LIVE, Column, ForeignKey, Schema, Table

PASSWORD_ENV = "RAGRAF_DB_PASSWORD"
#: the hosts outside this machine a repository's ``db.dsn`` may name (the user's consent)
ALLOW_HOSTS_ENV = "RAGRAF_DB_ALLOW_HOSTS"
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "ip6-localhost"})
DEFAULT_PORT = 3306
DEFAULT_CONNECT_TIMEOUT = 3.0
#: why no live schema was read when the project names no database (a reason, not a fault)
NOT_CONFIGURED = "no database configured (db.dsn or RAGRAF_DB_HOST)"


class Secret:
    """A password. Its text form is masked; ``reveal()`` is the only way out."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self) -> Any:  # never pickle (and so never persist) a password
        raise TypeError("a Secret cannot be pickled")


# ------------------------------------------------------------ connect params


def connect_params(
    db_cfg: Mapping[str, Any] | None, env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Connection parameters from the ``db:`` configuration or the environment.

    ``db.dsn`` (``mysql://user@host:port/dbname``) wins when set; otherwise
    ``RAGRAF_DB_HOST`` / ``RAGRAF_DB_PORT`` / ``RAGRAF_DB_USER`` /
    ``RAGRAF_DB_NAME`` are used. The password is ``RAGRAF_DB_PASSWORD`` if
    set, else the DSN's password, else none; it is returned as a ``Secret``.
    Returns ``{host, port, user, database, password, connect_timeout, refused}``:
    ``refused`` is why the host may not be contacted (a repository's DSN naming a host
    outside this machine that ``RAGRAF_DB_ALLOW_HOSTS`` does not name), else None.
    Raises SchemaUnavailable when no database is configured at all and
    ConfigError when the configuration is malformed.
    """
    cfg = dict(db_cfg or {})
    env = os.environ if env is None else env
    timeout = _timeout(cfg.get("connect_timeout", DEFAULT_CONNECT_TIMEOUT))
    password: str | None = env.get(PASSWORD_ENV) or None
    dsn = cfg.get("dsn")
    if dsn:
        if not isinstance(dsn, str):
            raise ConfigError("db.dsn: expected a string mysql://user@host:port/dbname")
        host, port, user, database, dsn_password = _parse_dsn(dsn)
        if password is None:
            password = dsn_password
        refused = _unconsented(host, env)
    elif env.get("RAGRAF_DB_HOST"):
        host = env["RAGRAF_DB_HOST"]
        port_text = env.get("RAGRAF_DB_PORT") or str(DEFAULT_PORT)
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise ConfigError("RAGRAF_DB_PORT: expected a port number 1-65535")
        port = int(port_text)
        refused = None  # the user's own setting
        user = env.get("RAGRAF_DB_USER") or ""
        database = env.get("RAGRAF_DB_NAME") or ""
        if not user:
            raise ConfigError("RAGRAF_DB_USER: not set (RAGRAF_DB_HOST is)")
        if not database:
            raise ConfigError("RAGRAF_DB_NAME: not set (RAGRAF_DB_HOST is)")
    else:
        raise SchemaUnavailable(NOT_CONFIGURED)
    return {
        "host": host,
        "port": port,
        "user": user,
        "database": database,
        "password": Secret(password) if password else None,
        "connect_timeout": timeout,
        "refused": refused,
    }


def _is_local(host: str) -> bool:
    h = host.strip("[]").lower()
    return h in _LOCAL_HOSTS or h.startswith("127.")


def _unconsented(host: str, env: Mapping[str, str]) -> str | None:
    """Why a DSN host from the repository may not be contacted, or None."""
    if _is_local(host):
        return None
    allowed = {h.strip().lower() for h in env.get(ALLOW_HOSTS_ENV, "").split(",") if h.strip()}
    if host.lower() in allowed:
        return None
    return (
        f"db.dsn names {host}, a host outside this machine, in a file of the repository; "
        f"nothing is sent to it until you allow it: {ALLOW_HOSTS_ENV}={host}"
    )


def _timeout(value: Any) -> float:
    try:
        t = float(value)
    except (TypeError, ValueError):
        raise ConfigError("db.connect_timeout: expected a number of seconds") from None
    if t <= 0:
        raise ConfigError("db.connect_timeout: must be > 0")
    return t


def _parse_dsn(dsn: str) -> tuple[str, int, str, str, str | None]:
    # Messages never quote the DSN: it may hold the password.
    shape = "db.dsn: expected mysql://user@host:port/dbname"
    try:
        parts = urlsplit(dsn)
        port = parts.port or DEFAULT_PORT
    except ValueError:
        raise ConfigError(f"{shape} (bad host or port)") from None
    if parts.scheme.lower() not in ("mysql", "mariadb"):
        raise ConfigError(f"{shape} (scheme must be mysql:// or mariadb://)")
    if not parts.hostname:
        raise ConfigError(f"{shape} (no host)")
    if not parts.username:
        raise ConfigError(f"{shape} (no user)")
    database = unquote(parts.path.lstrip("/"))
    if not database or "/" in database:
        raise ConfigError(f"{shape} (no database name)")
    password = unquote(parts.password) if parts.password else None
    return parts.hostname, port, unquote(parts.username), database, password


# --------------------------------------------------------------- live schema

_LIVE_TABLE_TYPES = ("BASE TABLE", "SYSTEM VERSIONED")


def read_live_schema(params: Mapping[str, Any], timeout_s: float | None = None) -> Schema:
    """Read tables, columns, foreign keys and views of ``params['database']``.

    ``timeout_s`` (default ``params['connect_timeout']``) bounds the connect
    and every read. Any failure to get an answer is a SchemaUnavailable.
    """
    import mysql.connector

    timeout = float(
        timeout_s
        if timeout_s is not None
        else params.get("connect_timeout", DEFAULT_CONNECT_TIMEOUT)
    )
    secs = max(1, math.ceil(timeout))  # the connector takes whole seconds
    secret = params.get("password")
    password = secret.reveal() if isinstance(secret, Secret) else (secret or "")
    host, port, database = params["host"], int(params["port"]), params["database"]
    if params.get("refused"):
        raise SchemaUnavailable(str(params["refused"]))
    where = f"{host}:{port}"
    conn = None
    try:
        conn = mysql.connector.connect(
            host=host,
            port=port,
            user=params["user"],
            password=password,
            database=database,
            connection_timeout=secs,
            read_timeout=secs,
            write_timeout=secs,
            use_pure=True,
            ssl_disabled=False,  # TLS where the server offers it
        )
        cur = conn.cursor()
        return _read_information_schema(cur, database)
    except mysql.connector.Error as exc:
        reason = _reason(exc, where, params.get("user", ""), database, timeout)
        raise SchemaUnavailable(_scrub(reason, password)) from None
    except (OSError, TimeoutError) as exc:
        raise SchemaUnavailable(_scrub(f"cannot reach {where}: {exc}", password)) from None
    finally:
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - closing a broken link must not mask the answer
                pass


def _reason(exc: Any, where: str, user: str, database: str, timeout: float) -> str:
    errno = getattr(exc, "errno", None)
    msg = str(getattr(exc, "msg", "") or exc)
    if errno == 1045:
        return f"access denied for user '{user}' at {where}"
    if errno == 1044:
        return f"user '{user}' may not use database '{database}' at {where}"
    if errno == 1049:
        return f"unknown database '{database}' at {where}"
    if (
        errno in (3024, 2013)
        or "timed out" in msg.lower()
        or "timeout" in type(exc).__name__.lower()
    ):
        return f"no answer from {where} within {timeout:g}s"
    if errno in (2002, 2003, 2005, 2006):
        m = re.search(r"\((Errno [^)]*)\)", msg)
        return f"cannot connect to {where}" + (f" ({m.group(1)})" if m else "")
    return f"{where}: {msg}"


def _scrub(text: str, password: str) -> str:
    line = " ".join(text.split())
    if password:
        line = line.replace(password, "***")
    return line


def _text(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, (bytes, bytearray)):
        return v.decode("utf-8", "replace")
    return str(v)


def _read_information_schema(cur: Any, database: str) -> Schema:
    cur.execute(
        "SELECT TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_ROWS FROM information_schema.TABLES "
        "WHERE TABLE_SCHEMA = %s ORDER BY TABLE_NAME",
        (database,),
    )
    tables: dict[str, Table] = {}
    views: set[str] = set()
    view_names: dict[str, str] = {}
    for name, ttype, engine, rows in cur.fetchall():
        name, ttype = _text(name) or "", _text(ttype) or ""
        if ttype == "VIEW":
            views.add(name.lower())
            view_names[name.lower()] = name
        elif ttype in _LIVE_TABLE_TYPES:
            tables[name.lower()] = Table(
                name, _text(engine), None if rows is None else int(rows), [], SOURCE_LIVE
            )
    cur.execute(
        "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY "
        "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s "
        "ORDER BY TABLE_NAME, ORDINAL_POSITION",
        (database,),
    )
    for tname, cname, ctype, nullable, key in cur.fetchall():
        table = tables.get((_text(tname) or "").lower())
        if table is not None:  # view columns are not kept
            table.columns.append(
                Column(
                    _text(cname) or "",
                    (_text(ctype) or "").lower(),
                    _text(nullable) == "YES",
                    _text(key) or "",
                )
            )
    cur.execute(
        "SELECT k.TABLE_NAME, k.COLUMN_NAME, k.REFERENCED_TABLE_SCHEMA, "
        "k.REFERENCED_TABLE_NAME, k.REFERENCED_COLUMN_NAME "
        "FROM information_schema.KEY_COLUMN_USAGE k "
        "JOIN information_schema.REFERENTIAL_CONSTRAINTS r "
        "  ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA "
        " AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME AND r.TABLE_NAME = k.TABLE_NAME "
        "WHERE k.TABLE_SCHEMA = %s AND k.REFERENCED_TABLE_NAME IS NOT NULL "
        "ORDER BY k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION",
        (database,),
    )
    fks = []
    for tname, cname, rschema, rtable, rcol in cur.fetchall():
        to_table = _text(rtable) or ""
        if rschema is not None and _text(rschema) != database:
            to_table = f"{_text(rschema)}.{to_table}"
        fks.append(ForeignKey(_text(tname) or "", _text(cname) or "", to_table, _text(rcol) or ""))
    return Schema(tables, fks, views, SOURCE_LIVE, view_names=view_names)


def live_schema(db: Mapping[str, Any]) -> tuple[Schema | None, str | None]:
    """The live schema of the configured database, or (None, why not). Never raises:
    an unreachable server, a bad DSN or a failed read is a reason (without secrets)."""
    from ragraf.errors import ConfigError

    try:
        params = connect_params(dict(db))
    except SchemaUnavailable as e:
        return None, str(e)
    except ConfigError as e:
        return None, f"bad database configuration: {e}"
    try:
        return read_live_schema(params), None
    except SchemaUnavailable as e:
        return None, str(e)
    except Exception as e:  # noqa: BLE001 - never fail a build; the type only (no text that may hold secrets)
        return None, f"reading information_schema failed ({type(e).__name__})"
