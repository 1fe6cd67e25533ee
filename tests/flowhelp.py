"""The data-flow tests' common set-up: an indexed copy of a fixture, ``slice`` and ``flow``
through the facade (each envelope checked against its schema and the ``dataflow``
capability), and reading a result's lines and edges; the ``price()`` golden's edges."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from ragraf import config, facade
from ragraf.indexing import indexer
from tests.schemacheck import check

#: The lines of the ``price()`` golden's back slice in the fixtures that mirror the PHP one.
PRICE_LINES = (2, 3, 4, 6, 8)


def indexed_copy(
    factory: pytest.TempPathFactory, fixture: Path, name: str, *, no_vectors: bool = False
) -> Path:
    """A copy of ``fixture`` in a fresh temporary folder ``name``/proj, initialised and indexed."""
    root = factory.mktemp(name) / "proj"
    shutil.copytree(fixture, root)
    config.init_project(root)
    if no_vectors:
        indexer.build(config.load(root), no_vectors=True)
    else:
        indexer.build(config.load(root))
    return root


def run(root: Path, op: str, **args: Any) -> dict[str, Any]:
    """The envelope of ``op``: valid against its schema, with the ``dataflow`` capability."""
    env = facade.run_op(root, op, args)
    check(env)
    assert env["capability"] == "dataflow"
    return env


def result(root: Path, op: str, **args: Any) -> dict[str, Any]:
    r: dict[str, Any] = run(root, op, **args)["result"]
    return r


def sl(root: Path, **args: Any) -> dict[str, Any]:
    """A slice's result; no limit may say the capability degraded."""
    env = run(root, "slice", **args)
    assert not any("capability degraded" in x for x in env["limits"])
    r: dict[str, Any] = env["result"]
    return r


def fl(root: Path, **args: Any) -> dict[str, Any]:
    return result(root, "flow", **args)


def lines(r: dict[str, Any], path: str | None = None) -> list[int]:
    return [s["line"] for s in r["statements"] if path is None or s["path"] == path]


def edges(r: dict[str, Any]) -> set[tuple[str, str, str | None, str]]:
    return {(e["from"], e["to"], e["var"], e["kind"]) for e in r["edges"]}


def price_edges(
    c: str, at: tuple[int, ...] = PRICE_LINES, sigil: str = ""
) -> set[tuple[str, str, str, str]]:
    """The six def-use edges of the ``price()`` golden: ``c`` is ``path:``, ``at`` the lines of
    the signature, base, tax, total and return, ``sigil`` the variables' prefix (``$`` in PHP)."""
    sig, base, tax, total, ret = (c + str(n) for n in at)
    v = sigil
    return {
        (sig, base, v + "qty", "def_use"),
        (sig, base, v + "unit", "def_use"),
        (base, tax, v + "base", "def_use"),
        (base, total, v + "base", "def_use"),
        (tax, total, v + "tax", "def_use"),
        (total, ret, v + "total", "def_use"),
    }
