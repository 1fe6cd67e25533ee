"""Every vocabulary is an enum, used by its members (issue 38 item 6): no code in ragraf/
compares a vocabulary field with a string literal that spells a member of a vocabulary
enum (``n.kind == "method"``); it compares with the member (``NodeKind.METHOD``) or a group.

The scan flags a string constant equal to a member's value, compared (``==``, ``!=``,
``in``, ``not in``) with a field named as vocabularies are (``FIELD``: ``kind``, ``how``,
``role``, ``what``, ``provenance``, ``status``...: an attribute, a variable, a subscript
``row["kind"]`` or ``row.get("kind")``). Other words of the code are not ours and spell
some of the same strings: SQL's and PHP's keywords (``op == "delete"``, ``low ==
"static"``), tree-sitter's node types (``n.type == "function"``), source text. Skipped
too: a name bound to a tuple's first item (``kind = e[0]``: a SQL fragment's kind).

``EXCEPTIONS`` lists the few comparisons of a field so named with a word of another thing.
"""

from __future__ import annotations

import ast
import enum
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

from tests.helpers import REPO

PKG = REPO / "ragraf"

#: the modules that define vocabulary enums (``StrEnum`` subclasses)
ENUM_MODULES = (
    "ragraf.kinds",
    "ragraf.lang.php.assemble",
    "ragraf.lang.php.link.includes",
    "ragraf.lang.php.state",
)

#: the names of the fields, variables and keys that hold a vocabulary's value
FIELD = re.compile(
    r"(?:^|_)(?:kind|kinds|how|role|roles|what|provenance|layer|status|state|sinks|key)$"
)

#: (file under ragraf/, the constant) -> why the word there is not the vocabulary's
EXCEPTIONS: dict[tuple[str, str], str] = {}


def vocabulary() -> dict[str, list[str]]:
    """Each member value -> the enums spelling it."""
    out: dict[str, list[str]] = {}
    for name in ENUM_MODULES:
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, enum.StrEnum)
                and obj is not enum.StrEnum
                and obj.__module__ == name
            ):
                for m in obj:
                    out.setdefault(m.value, []).append(obj.__name__)
    return out


def _field_name(e: ast.expr) -> str | None:
    """The name an operand reads: ``x.kind`` / ``kind`` / ``x["kind"]`` / ``x.get("kind")``."""
    if isinstance(e, ast.Attribute):
        return e.attr
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant):
        return e.slice.value if isinstance(e.slice.value, str) else None
    if (
        isinstance(e, ast.Call)
        and isinstance(e.func, ast.Attribute)
        and e.func.attr == "get"
        and e.args
        and isinstance(e.args[0], ast.Constant)
        and isinstance(e.args[0].value, str)
    ):
        return e.args[0].value
    return None


def _is_other_vocabulary(e: ast.expr, tagged: set[str], typed: set[str]) -> bool:
    """Whether ``e`` reads tree-sitter's words or a tagged tuple's tag."""
    if isinstance(e, ast.Attribute) and e.attr in ("type", "grammar_name", "text"):
        return True
    if isinstance(e, ast.Call):
        f = e.func
        if isinstance(f, ast.Attribute) and f.attr in ("t", "lower", "upper", "strip", "decode"):
            return True
    if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Constant) and e.slice.value == 0:
        return True
    return isinstance(e, ast.Name) and (e.id in tagged or e.id in typed)


def _bound_names(fn: ast.AST) -> tuple[set[str], set[str]]:
    """Names a function binds to a tuple's tag (``x[0]``, the first of an unpacking) and
    to a node's type (``t = n.type``)."""
    tagged: set[str] = set()
    typed: set[str] = set()
    for node in ast.walk(fn):
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.NamedExpr):
            targets, value = [node.target], node.value
        elif isinstance(node, ast.For | ast.comprehension):
            targets = [node.target]
        for t in targets:
            if isinstance(t, ast.Tuple | ast.List) and t.elts and isinstance(t.elts[0], ast.Name):
                tagged.add(t.elts[0].id)
            elif isinstance(t, ast.Name) and value is not None:
                if isinstance(value, ast.Subscript) and _is_other_vocabulary(value, set(), set()):
                    tagged.add(t.id)
                elif isinstance(value, ast.Attribute) and value.attr == "type":
                    typed.add(t.id)
    return tagged, typed


def _constants(e: ast.expr, op: ast.cmpop) -> Iterator[str]:
    if isinstance(e, ast.Constant) and isinstance(e.value, str):
        yield e.value
    elif isinstance(op, ast.In | ast.NotIn) and isinstance(e, ast.Tuple | ast.List | ast.Set):
        for x in e.elts:
            if isinstance(x, ast.Constant) and isinstance(x.value, str):
                yield x.value


def literal_comparisons(path: Path, rel: str, words: dict[str, list[str]]) -> list[str]:
    """The comparisons of the file ``rel`` (under ragraf/) with a vocabulary word."""
    tree = ast.parse(path.read_text(), str(path))
    found: list[str] = []
    scopes = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.Lambda)]
    bound = {id(s): _bound_names(s) for s in scopes}
    owner: dict[int, ast.AST] = {}
    for s in scopes:  # inner functions last: the innermost scope wins
        for n in ast.walk(s):
            owner[id(n)] = s
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        s = owner.get(id(node))
        tagged, typed = bound[id(s)] if s is not None else (set(), set())
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            if not isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn):
                continue
            left, right = operands[i], operands[i + 1]
            for const_side, other in ((right, left), (left, right)):
                for word in _constants(const_side, op):
                    if word not in words or (rel, word) in EXCEPTIONS:
                        continue
                    name = _field_name(other)
                    if name is None or not FIELD.search(name):
                        continue
                    if _is_other_vocabulary(other, tagged, typed):
                        continue
                    found.append(
                        f"{rel}:{node.lineno}: {ast.unparse(node)!r} spells "
                        f"{'/'.join(words[word])} {word!r}"
                    )
    return found


def test_no_kind_literal_is_compared_outside_the_enums() -> None:
    words = vocabulary()
    found: list[str] = []
    for path in sorted(PKG.rglob("*.py")):
        if path.name == "kinds.py" and path.parent == PKG:
            continue
        found += literal_comparisons(path, path.relative_to(PKG).as_posix(), words)
    assert not found, "compare with the enum's member, not its spelling:\n" + "\n".join(found)


def test_the_scan_sees_a_literal_and_not_the_grammar(tmp_path: Path) -> None:
    words = {"method": ["NodeKind"], "class": ["NodeKind"]}
    src = tmp_path / "probe.py"
    src.write_text(
        "def f(n, d, node):\n"
        "    t = node.type\n"
        "    tag = d[0]\n"
        "    a = n.kind == 'method'\n"
        "    b = node.type == 'method' or t in ('class', 'x') or tag == 'class'\n"
        "    return a, b\n"
    )
    found = literal_comparisons(src, "probe.py", words)
    assert len(found) == 1 and ":4:" in found[0], found


def test_the_exceptions_are_still_needed() -> None:
    words = vocabulary()
    for (rel, word), _why in EXCEPTIONS.items():
        assert word in words, f"{word!r} is no vocabulary word: drop its exception"
        text = (PKG / rel).read_text()
        assert f'"{word}"' in text or f"'{word}'" in text, f"{rel} no longer spells {word!r}"
