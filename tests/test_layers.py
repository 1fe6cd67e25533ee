"""The architecture is visible in the imports: each part imports only parts below it
(docs/architecture.md §3). Lazy imports inside functions count too."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO

PKG = REPO / "ragraf"

#: lowest first; a module may import its own layer and the layers below it
LAYERS: list[tuple[str, ...]] = [
    (
        "ragraf",
        "ragraf.errors",
        "ragraf.ids",
        "ragraf.kinds",
        "ragraf.model",
        "ragraf.clock",
        "ragraf.globs",
        "ragraf.tokens",
        "ragraf.rank",
        "ragraf.logs",
        "ragraf.resources",
        "ragraf.failpoints",
        "ragraf.config",
        "ragraf.agent_guidance",
        "ragraf.agent_setup",
        "ragraf.limits",
    ),
    ("ragraf.sql", "ragraf.embed"),
    ("ragraf.store",),
    ("ragraf.lang",),
    ("ragraf.corpus",),
    ("ragraf.drift",),
    ("ragraf.indexing",),
    ("ragraf.facade",),
    ("ragraf.cli", "ragraf.__main__"),
]


def layer_of(module: str) -> int:
    best, best_len = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best_len:
                best, best_len = i, len(p)
    assert best >= 0, f"{module} is in no layer: add it to tests/test_layers.py"
    return best


def module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, module: str) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("ragraf"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: resolve against the module's package
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if path.name == "__init__.py" else 0)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target.startswith("ragraf"):
                out.add(target)
                # `from ragraf.drift import ledger` imports ragraf.drift.ledger
                for a in node.names:
                    out.add(f"{target}.{a.name}")
    return out


def test_no_import_runs_back_up() -> None:
    modules = {module_name(p): p for p in PKG.rglob("*.py")}
    assert len(modules) > 40
    violations = []
    for mod, path in sorted(modules.items()):
        mine = layer_of(mod)
        for target in sorted(imports_of(path, mod)):
            if target not in modules and target.rsplit(".", 1)[0] in modules:
                target = target.rsplit(".", 1)[0]  # `from pkg.mod import name`
            if target not in modules:
                continue
            if layer_of(target) > mine:
                violations.append(
                    f"{mod} (layer {mine}) imports {target} (layer {layer_of(target)})"
                )
    assert not violations, "\n".join(violations)


def test_the_check_catches_an_upward_import(tmp_path: Path) -> None:
    p = PKG / "kinds.py"
    assert layer_of("ragraf.kinds") < layer_of("ragraf.facade.ops")
    fake = tmp_path / "fake.py"
    fake.write_text("from ragraf.facade import ops\n")
    assert "ragraf.facade.ops" in imports_of(fake, "ragraf.kinds")
    assert p.exists()
