"""Answers sized for an agent (issue 43): a list an operation returns holds at most
``limit`` items, from ``offset``, in the order that matters; ``page`` says how many of how
many each list holds and how to get the rest.

Invariants a change must keep:
- Totals count every item (``total``, ``counts``, the call-site accounting); only the
  lists are cut, after they are ordered, and the same ``offset`` / ``limit`` apply to
  every list of one answer.
- An answer whose lists are all whole says so (``next_offset`` null, ``rest`` null); one
  that left items out names the next ``offset`` and the largest ``limit``.
- ``limit`` never exceeds ``MAX_ITEMS``: one answer stays a size an agent can read.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ragraf.facade.context import MAX_ITEMS
from ragraf.facade.params import Param

T = TypeVar("T")

#: the default ``limit`` of the lists of one answer (callers, references, impact...):
#: 20 items of ~0.8 KB each, an answer of ~16 KB instead of ~76 KB for phpMyAdmin's
#: ``DatabaseInterface::query`` (docs/PERFORMANCE.md, issue 43)
DEFAULT_LIMIT = 20
#: the largest ``offset`` (far beyond any list an answer holds)
MAX_OFFSET = 10_000_000


def limit_param(default: int = DEFAULT_LIMIT, what: str = "items") -> Param:
    """The ``limit`` argument of an operation that returns lists."""
    return Param(
        "limit",
        "int",
        f"Most {what} listed per list (totals count all; `page` says how to get the rest).",
        default,
        1,
        MAX_ITEMS,
    )


OFFSET = Param(
    "offset",
    "int",
    "Skip this many items of each list: the next page starts at `page.next_offset`.",
    0,
    0,
    MAX_OFFSET,
)


class Pager:
    """The lists of one answer cut to ``offset`` / ``limit``; ``page()`` describes the cut."""

    def __init__(self, args: dict[str, Any], order: str) -> None:
        self.offset = int(args.get("offset") or 0)
        self.limit = int(args.get("limit") or DEFAULT_LIMIT)
        self.order = order
        self.lists: dict[str, dict[str, int]] = {}

    def cut(self, name: str, items: list[T]) -> list[T]:
        """``items`` (already in order) from ``offset``, at most ``limit``."""
        shown = items[self.offset : self.offset + self.limit]
        self.lists[name] = {"listed": len(shown), "total": len(items)}
        return shown

    def page(self) -> dict[str, Any]:
        """``{limit, offset, order, lists: {name: {listed, total}}, next_offset, rest}``."""
        end = self.offset + self.limit
        out: dict[str, Any] = {
            "limit": self.limit,
            "offset": self.offset,
            "order": self.order,
            "lists": self.lists,
            "next_offset": end if any(v["total"] > end for v in self.lists.values()) else None,
        }
        out["rest"] = rest_of(out)
        return out


def rest_of(page: dict[str, Any], cli: bool = False) -> str | None:
    """What a page left out and how to get it ("20 of 97 symbols listed; next: offset 20,
    or limit 97 for all"), in the CLI's spelling with ``cli`` (``--offset 20``); None when
    every list is whole."""
    nxt = page["next_offset"]
    if nxt is None:
        return None

    def arg(name: str, value: int) -> str:
        return f"--{name} {value}" if cli else f"{name} {value}"

    short = {k: v for k, v in page["lists"].items() if v["total"] > nxt}
    what = ", ".join(
        f"{v['listed']} of {v['total']} {k.replace('.', ' ')}" for k, v in short.items()
    )
    bigger = ""
    if page["offset"] == 0:
        most = max(v["total"] for v in short.values())
        bigger = (
            f", or {arg('limit', most)} for all"
            if most <= MAX_ITEMS
            else f", or {arg('limit', MAX_ITEMS)} per page"
        )
    return f"{what} listed; next: {arg('offset', nxt)}{bigger}"
