"""Where a Python project says its packages are: ``pyproject.toml`` and ``setup.cfg`` read as
setuptools, Poetry and Hatch read them, for ``ragraf.lang.python.link`` to import modules by.

A root is ``(prefix, folder)``, the folder relative to the corpus root: the modules below
``folder`` are imported as ``prefix`` + their path below it (``("", "lib")``: ``lib`` is on
``sys.path``, ``lib/alpha/core.py`` is ``alpha.core``; ``("alpha", "lib/a")``: the package
``alpha`` lives in ``lib/a``).

- pyproject ``[tool.setuptools] package-dir`` (``"" = "lib"``, ``pkg = "lib/pkg"``),
  ``[tool.setuptools.packages.find] where``, ``[tool.poetry] packages`` (``from``),
  ``[tool.hatch.build.targets.wheel] packages`` (each one's folder);
- setup.cfg ``[options] package_dir`` and ``[options.packages.find] where``.

Invariants a change must keep:
- Reading never raises: a file that does not parse states no root.
- Folders are normalised below the config file's folder; one leaving it is ignored.
"""

from __future__ import annotations

import configparser
import posixpath
import tomllib
from typing import Any

#: the config files read (by name)
CONFIG_FILES = ("pyproject.toml", "setup.cfg")

Root = tuple[str, str]


def _under(base: str, folder: str) -> str | None:
    got = posixpath.normpath(posixpath.join(base, folder.strip().strip("/") or "."))
    if got == ".":
        return ""
    if got.startswith("..") or got.startswith("/"):
        return None
    return got


def _add(out: list[Root], base: str, prefix: str, folder: str) -> None:
    d = _under(base, folder)
    if d is not None and (prefix, d) not in out:
        out.append((prefix.strip().replace("/", "."), d))


def package_roots(path: str, text: str) -> list[Root]:
    """The roots a ``pyproject.toml`` or ``setup.cfg`` at ``path`` states (none: [])."""
    base = posixpath.dirname(path)
    name = posixpath.basename(path)
    out: list[Root] = []
    try:
        if name == "pyproject.toml":
            _pyproject(tomllib.loads(text), base, out)
        elif name == "setup.cfg":
            cfg = configparser.ConfigParser(interpolation=None)
            cfg.read_string(text)
            _setup_cfg(cfg, base, out)
    except (tomllib.TOMLDecodeError, configparser.Error, TypeError, AttributeError, ValueError):
        return []
    return out


def _table(d: Any, *keys: str) -> Any:
    for k in keys:
        d = d.get(k) if isinstance(d, dict) else None
    return d


def _pyproject(doc: dict[str, Any], base: str, out: list[Root]) -> None:
    setuptools = _table(doc, "tool", "setuptools")
    pkg_dir = _table(setuptools, "package-dir")
    if isinstance(pkg_dir, dict):
        for prefix, folder in pkg_dir.items():
            if isinstance(folder, str):
                _add(out, base, str(prefix), folder)
    where = _table(setuptools, "packages", "find", "where")
    for folder in where if isinstance(where, list) else []:
        if isinstance(folder, str):
            _add(out, base, "", folder)
    poetry = _table(doc, "tool", "poetry", "packages")
    for p in poetry if isinstance(poetry, list) else []:
        if isinstance(p, dict) and isinstance(p.get("from"), str):
            _add(out, base, "", p["from"])
    hatch = _table(doc, "tool", "hatch", "build", "targets", "wheel", "packages")
    for p in hatch if isinstance(hatch, list) else []:
        if isinstance(p, str) and "/" in p.strip("/"):
            _add(out, base, "", posixpath.dirname(p.strip("/")))


def _setup_cfg(cfg: configparser.ConfigParser, base: str, out: list[Root]) -> None:
    if cfg.has_option("options", "package_dir"):
        for line in cfg.get("options", "package_dir").splitlines():
            prefix, sep, folder = line.partition("=")
            if sep:
                _add(out, base, prefix, folder)
    if cfg.has_option("options.packages.find", "where"):
        for folder in cfg.get("options.packages.find", "where").split():
            _add(out, base, "", folder)
