"""Bare module specifiers by the corpus's manifests (``ragraf.lang.js.manifest``): a
``tsconfig.json`` / ``jsconfig.json`` ``paths`` pattern or ``baseUrl`` around the importing
file, then a corpus package by its ``package.json`` ``name`` (its ``exports`` subpath, else
``main`` / ``module``, else the subpath as a folder path).

Invariants a change must keep:
- Deterministic: manifests are taken in path order; the nearest ``tsconfig.json`` above the
  importer is asked first; of a subpath's targets the first that is a corpus module wins,
  a TypeScript or JavaScript source before a declaration file (``.d.ts``), so that
  ``"@x/source": "./src/index.ts"`` beside ``"import": "./dist/index.js"`` leads to the
  source.
- A specifier no manifest speaks of is left to ``link.Modules.bare`` (None here).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from ragraf.lang.facts import FileFacts
from ragraf.lang.js.manifest import PACKAGE, PATHS

Probe = Callable[[str], "str | None"]


class Manifests:
    def __init__(self, files: list[FileFacts]) -> None:
        self.packages: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        self.configs: list[tuple[str, dict[str, Any]]] = []
        for f in sorted(files, key=lambda x: x.path):
            if not f.nodes:
                continue
            props = f.nodes[0].props
            folder = posixpath.dirname(f.path)
            pkg = props.get(PACKAGE)
            if isinstance(pkg, dict) and isinstance(pkg.get("name"), str):
                self.packages.setdefault(pkg["name"], []).append((folder, pkg))
            conf = props.get(PATHS)
            if isinstance(conf, dict):
                self.configs.append((folder, conf))
        # the nearest config first (the longest folder)
        self.configs.sort(key=lambda c: (-len(c[0]), c[0]))

    def resolve(self, spec: str, importer: str, probe: Probe) -> str | None:
        return self.by_config(spec, importer, probe) or self.by_package(spec, probe)

    def by_config(self, spec: str, importer: str, probe: Probe) -> str | None:
        for folder, conf in self.configs:
            if folder and not importer.startswith(folder + "/"):
                continue
            base = _join(folder, conf.get("baseUrl") or ".")
            for pattern, targets in conf.get("paths") or []:
                star = _match(pattern, spec)
                if star is None:
                    continue
                for t in targets:
                    got = probe(_join(base, t.replace("*", star)))
                    if got is not None:
                        return got
            if conf.get("baseUrl"):
                got = probe(_join(base, spec))
                if got is not None:
                    return got
        return None

    def by_package(self, spec: str, probe: Probe) -> str | None:
        head, _, rest = spec.partition("/")
        if head.startswith("@") and rest:
            sub, _, rest = rest.partition("/")
            head = f"{head}/{sub}"
        for folder, pkg in self.packages.get(head, []):
            sub = f"./{rest}" if rest else "."
            exports = pkg.get("exports")
            if exports:
                for key, targets in exports:
                    star = _match(key, sub)
                    if star is not None:
                        got = _best([_join(folder, t.replace("*", star)) for t in targets], probe)
                        if got is not None:
                            return got
                continue  # a package with exports exposes those alone
            if rest:
                got = probe(_join(folder, rest))
            else:
                mains = [pkg[k] for k in ("main", "module") if isinstance(pkg.get(k), str)]
                got = _best([_join(folder, m) for m in mains], probe)
                got = got or probe(_join(folder, "index"))
            if got is not None:
                return got
        return None


def _match(pattern: str, spec: str) -> str | None:
    """What ``*`` of ``pattern`` stands for in ``spec`` ("" for an exact match; None: no
    match)."""
    if "*" not in pattern:
        return "" if pattern == spec else None
    pre, _, post = pattern.partition("*")
    if spec.startswith(pre) and spec.endswith(post) and len(spec) >= len(pre) + len(post):
        return spec[len(pre) : len(spec) - len(post)]
    return None


def _best(paths: list[str], probe: Probe) -> str | None:
    found = [g for p in paths if (g := probe(p)) is not None]
    for g in found:
        if not g.endswith((".d.ts", ".d.mts", ".d.cts")):
            return g
    return found[0] if found else None


def _join(folder: str, rel: str) -> str:
    return posixpath.normpath(posixpath.join(folder, rel)).lstrip("/")
