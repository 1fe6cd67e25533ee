"""ranges.write_delta against real SQLite: after it, revision n sees exactly the rows given
(as a multiset: duplicates, NULLs, ints beside strings), the revision before still sees its
own, and the counts say what was kept, closed and added."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

from hypothesis import given, settings
from hypothesis import strategies as st

from ragraf.store import ranges
from ragraf.store.db import Database

_TABLE = (
    "0001_scratch",
    "CREATE TABLE scratch (rev_from INTEGER NOT NULL, rev_to INTEGER NOT NULL, a TEXT, b);"
    " CREATE INDEX scratch_open ON scratch(rev_to);",
)


class Row(NamedTuple):
    a: str | None
    b: Any


_value = st.one_of(st.none(), st.integers(-2, 2), st.sampled_from(["x", "y", "é"]))
_rows = st.lists(
    st.builds(Row, st.one_of(st.none(), st.sampled_from(["p", "q"])), _value), max_size=12
)


def _visible(db: Database, n: int) -> Counter[tuple[Any, ...]]:
    return Counter(
        tuple(r) for r in db.query(f"SELECT a, b FROM scratch WHERE {ranges.live()}", (n,))
    )


@settings(max_examples=60, deadline=None)
@given(old=_rows, new=_rows, as_plain=st.booleans())
def test_a_delta_makes_the_revision_exactly_the_rows_given(
    tmp_path_factory: Any, old: list[Row], new: list[Row], as_plain: bool
) -> None:
    path: Path = tmp_path_factory.mktemp("delta") / "scratch.sqlite"
    with Database(path, "lexvec", extra_migrations=[_TABLE]) as db:
        with db.write():
            first = ranges.write_delta(db, "scratch", "a, b", old, 1)
        given_rows = [list(r) for r in new] if as_plain else new  # sequences or NamedTuples
        with db.write():
            got = ranges.write_delta(db, "scratch", "a, b", iter(given_rows), 2)
        want_old, want_new = Counter(map(tuple, old)), Counter(map(tuple, new))
        assert _visible(db, 1) == want_old
        assert _visible(db, 2) == want_new
        both = sum((want_old & want_new).values())
        assert (first.kept, first.closed, first.added) == (0, 0, len(old))
        assert (got.kept, got.closed, got.added) == (both, len(old) - both, len(new) - both)
