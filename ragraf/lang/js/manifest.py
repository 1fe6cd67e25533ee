"""The JavaScript / TypeScript manifests that say where a module specifier leads:
``package.json`` (a package's ``name``, ``main`` and ``exports``) and ``tsconfig.json`` /
``jsconfig.json`` (``compilerOptions.baseUrl`` and ``paths``), read for
``ragraf.lang.js.link``.

A manifest is a JSON file (``ragraf.lang.hook_manifest`` hands these names here): its
facts are the file node and text windows of any JSON file, and what it says of modules as
the file node's ``js_package`` / ``js_paths`` prop, paths as written (relative to the
manifest's folder). ``exports`` is kept as ``[subpath, [target, ...]]`` pairs: a bare
string or a conditions object is the subpath ``.``; conditions (``import``,
``require``, ``types``, a custom one...) are flattened in the order written, nested ones
included. ``tsconfig.json`` is JSON with comments and trailing commas: both are dropped
before decoding.

Invariants a change must keep:
- A function of the file's text; text that does not decode is a ``partial`` file with a
  note, still searchable; a manifest that says nothing of modules has no prop.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ragraf.kinds import ParseStatus
from ragraf.lang.facts import FileFacts
from ragraf.lang.plain import extract as plain

#: the file names read here
MANIFESTS = frozenset({"package.json", "tsconfig.json", "jsconfig.json"})
#: the file node prop of a package.json / of a tsconfig.json
PACKAGE, PATHS = "js_package", "js_paths"
#: a comment or a trailing comma of JSON with comments (strings left alone)
_JSONC = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/|,(?=\s*[}\]])', re.S)


def is_manifest(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in MANIFESTS


def extract(path: str, text: str, max_lines: int) -> FileFacts:
    f = plain(path, "json", text, max_lines, "code")
    name = path.rsplit("/", 1)[-1]
    try:
        data = json.loads(text if name == "package.json" else _JSONC.sub(r"\1", text))
    except ValueError as e:
        f.status = ParseStatus.PARTIAL
        f.note = f"not JSON: {getattr(e, 'msg', e)} (line {getattr(e, 'lineno', '?')})"
        return f
    if not isinstance(data, dict):
        return f
    said = package(data) if name == "package.json" else paths(data)
    if said:
        node = f.nodes[0]
        f.nodes[0] = node._replace(props={**node.props, **said})
    return f


def package(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("name", "main", "module", "types"):
        if isinstance(data.get(key), str):
            out[key] = data[key]
    exports = data.get("exports")
    if exports is not None:
        if isinstance(exports, dict) and any(k.startswith(".") for k in exports):
            pairs = [[k, _targets(v)] for k, v in exports.items() if k.startswith(".")]
        else:
            pairs = [[".", _targets(exports)]]
        out["exports"] = [p for p in pairs if p[1]]
    return {PACKAGE: out} if out else {}


def _targets(v: Any, depth: int = 0) -> list[str]:
    """The targets of one subpath, conditions flattened in the order written."""
    if depth > 8:
        return []
    if isinstance(v, str):
        return [v]
    if isinstance(v, list):
        return [t for x in v for t in _targets(x, depth + 1)]
    if isinstance(v, dict):
        return [t for x in v.values() for t in _targets(x, depth + 1)]
    return []


def paths(data: dict[str, Any]) -> dict[str, Any]:
    opts = data.get("compilerOptions")
    if not isinstance(opts, dict):
        return {}
    out: dict[str, Any] = {}
    if isinstance(opts.get("baseUrl"), str):
        out["baseUrl"] = opts["baseUrl"]
    got = opts.get("paths")
    if isinstance(got, dict):
        out["paths"] = [
            [k, [t for t in v if isinstance(t, str)]]
            for k, v in got.items()
            if isinstance(k, str) and isinstance(v, list)
        ]
    return {PATHS: out} if out else {}
