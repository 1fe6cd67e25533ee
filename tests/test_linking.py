"""The languages' link step (``Language.link``, ``ragraf.lang.linking``): every reference
type has one handler, the resolver's core names no language's module, and what a link
module asks of the corpus is recorded like the resolver's own lookups."""

from __future__ import annotations

import ast
import importlib
import typing

from ragraf.indexing.resolve.context import Context
from ragraf.indexing.resolve.inputs import ResolveInputs
from ragraf.indexing.resolve.linker import Linker
from ragraf.lang import facts, registry
from tests.helpers import REPO


def test_each_language_has_one_handler_of_each_type_its_files_produce() -> None:
    linker = Linker([], ResolveInputs({}))
    every = set(typing.get_args(facts.Ref))
    core = set(linker.handlers[None])
    assert set(linker.handlers["php"]) == every  # PHP produces every kind of reference
    for name, table in linker.handlers.items():
        assert core <= set(table) <= every, name
    # a language names the link modules of the reference types only it produces
    assert set(linker.handlers["twig"]) - core == {facts.TemplateRef, facts.TemplateCallRef}
    assert set(linker.handlers["json"]) - core == {facts.HookRef}
    assert linker.handlers["twig"][facts.TemplateRef] == linker.handlers["php"][facts.TemplateRef]
    assert "python" not in linker.handlers  # the resolver's own handlers only
    linker.release()


def test_each_link_module_is_named_once_and_gives_a_linking() -> None:
    mods = registry.link_modules()
    assert len(mods) == len(set(mods))
    for m in mods:
        assert callable(importlib.import_module(m).linking)
    # PHP's templates are Twig's and Mustache's too; a JSON manifest's hooks are PHP's
    for name in ("twig", "mustache"):
        assert set(registry.BY_NAME[name].link) <= set(registry.BY_NAME["php"].link)
    assert set(registry.BY_NAME["json"].link) <= set(registry.BY_NAME["php"].link)


def test_the_resolver_imports_no_language_module() -> None:
    for path in sorted((REPO / "ragraf" / "indexing").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                assert not (
                    parts[:2] == ["ragraf", "lang"] and len(parts) > 2 and parts[2] in _LANG_DIRS
                ), f"{path.relative_to(REPO)} imports {name}"


_LANG_DIRS = {p.name for p in (REPO / "ragraf" / "lang").iterdir() if p.is_dir()} - {"__pycache__"}


def test_link_modules_are_not_in_the_facts_key() -> None:
    source = registry._module_source("ragraf.lang.php")
    assert b"\0walk.py\0" in source
    assert b"\0link/" not in source


def test_a_registered_lookup_is_recorded_and_once_replays_what_it_asked() -> None:
    ctx = Context({}, 5, 50, record=True)
    calls: list[str] = []

    def double(x: str) -> str:
        calls.append(x)
        return x * 2

    ask = ctx.lookup("double", double)
    ctx.sym.log = {}
    assert ctx.once("k", lambda: ask("a")) == "aa"
    assert ctx.sym.log == {("double", ("a",)): "aa"}
    ctx.sym.log = {}  # another file asking the same value: no call, the same record
    assert ctx.once("k", lambda: ask("b")) == "aa"
    assert ctx.sym.log == {("double", ("a",)): "aa"}
    assert calls == ["a"]
    assert ctx.sym.fns["double"] is double
    ctx.sym.close()
