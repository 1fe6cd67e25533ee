"""Reading the flow units of one file as its walk serialised them (the Go and Java walks'
tests): statements, control-flow and def-use edges, links, and a unit-level back slice."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragraf.lang.go.walk import extract as go_extract
from ragraf.lang.java.walk import extract as java_extract

_EXTRACT = {"go": go_extract, "java": java_extract}


@dataclass
class U:
    """One flow unit: its kind, lines, sources and serialised data."""

    kind: str
    start: int
    end: int
    sources: str
    data: dict[str, Any]

    @property
    def stmts(self) -> list[list[Any]]:
        return self.data["s"]

    def at(self, line: int) -> list[int]:
        return [i for i, s in enumerate(self.stmts) if s[0] == line]

    def edges(self) -> set[tuple[int, int, str]]:
        """Def-use edges as (def line, use line, variable)."""
        s = self.stmts
        return {(s[a][0], s[b][0], v) for a, b, v in self.data["d"]}

    def back(self, line: int) -> list[int]:
        """The lines of a back slice from ``line`` inside the unit: def-use and control."""
        todo = self.at(line)
        seen = set(todo)
        while todo:
            i = todo.pop()
            deps = [a for a, b, _v in self.data["d"] if b == i]
            ctrl = self.stmts[i][3]
            if ctrl >= 0:
                deps.append(ctrl)
            for d in deps:
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        return sorted({self.stmts[i][0] for i in seen})


def units(root: Path, rel: str, lang: str) -> list[U]:
    f = _EXTRACT[lang](rel, (root / rel).read_text())
    assert f.status == "ok", f.note
    return [U(x.kind, x.start_line, x.end_line, x.sources, json.loads(x.data)) for x in f.flows]


def unit_at(us: list[U], line: int) -> U:
    """The unit declared on ``line``."""
    return next(u for u in us if u.start == line)


def assert_price_twin(u: U) -> None:
    """The twin of PHP's ``price()`` golden, unit level: its statements' lines and kinds, its
    def-use edges (label's too) and the back slice of its return, not label."""
    assert [(s[0], s[2]) for s in u.stmts] == [
        (2, "entry"), (3, "assign"), (4, "assign"), (5, "assign"), (6, "assign"),
        (7, "expr"), (8, "return"),
    ]  # fmt: skip
    assert u.edges() == {
        (2, 3, "qty"), (2, 3, "unit"), (3, 4, "base"), (3, 6, "base"), (4, 6, "tax"),
        (5, 7, "label"), (6, 8, "total"),
    }  # fmt: skip
    assert u.back(8) == [2, 3, 4, 6, 8]
