"""Identifiers (architecture §5.3) are the sha1 of their parts joined by ``|``, ``None``
as empty: a faster spelling of one of them must give the same id for every input."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ragraf import ids
from ragraf.kinds import EdgeKind

_text = st.text(st.characters(blacklist_categories=("Cs",)) | st.sampled_from(["\udcff", "|"]))


@given(
    _text,
    _text,
    st.sampled_from(list(EdgeKind)) | _text,
    st.none() | _text,
    st.none() | st.integers(-(2**40), 2**40),
)
def test_edge_uid_is_the_sha1_of_its_parts(
    src: str, dst: str, kind: str, path: str | None, line: int | None
) -> None:
    assert ids.edge_uid(src, dst, kind, path, line) == ids._sha1(src, dst, kind, path, line)


def test_edge_uid_of_a_known_edge() -> None:
    """A value computed once by hand (``sha1("a|b|calls|x.php|3")``): ids are stored and
    compared across builds and versions, so they never change."""
    import hashlib

    want = hashlib.sha1(b"a|b|calls|x.php|3").hexdigest()
    assert ids.edge_uid("a", "b", EdgeKind.CALLS, "x.php", 3) == want
    assert ids.edge_uid("a", "b", "calls", None, None) == hashlib.sha1(b"a|b|calls||").hexdigest()
