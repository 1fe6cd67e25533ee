"""Every third-party package the library imports is declared in pyproject.toml."""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib

from tests.helpers import REPO

#: imports that are not distributions of their own (optional or found without importing)
NOT_A_DEPENDENCY = {"ragraf"}


def _imported_top_levels() -> set[str]:
    out: set[str] = set()
    for path in (REPO / "ragraf").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                out.add(node.module.split(".")[0])
    return out - set(sys.stdlib_module_names) - NOT_A_DEPENDENCY - {"__future__"}


def _declared() -> set[str]:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    return {re.split(r"[<>=!~ \[;]", d, maxsplit=1)[0].lower().replace("_", "-") for d in deps}


def test_every_import_is_a_declared_dependency() -> None:
    dists = md.packages_distributions()
    declared = _declared()
    missing = {}
    for mod in sorted(_imported_top_levels()):
        names = {d.lower().replace("_", "-") for d in dists.get(mod, [])}
        assert names, f"{mod} is imported but not installed"
        if not names & declared:
            missing[mod] = sorted(names)
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"
