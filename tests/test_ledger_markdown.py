"""The ledger's Markdown (ragraf.drift.ledger_text) against the reference templates of its
format (tests/fixtures/ledger-format/, the jinja2 templates LEDGER.md was written with):
byte for byte, for entries and acks with every optional line on or off and with names that
carry control characters, backticks and non-ASCII text, so that ``verify`` keeps reading
ledgers written before. The archive's reference escapes repository-made names too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2
from hypothesis import given, settings
from hypothesis import strategies as st

from ragraf.drift import ledger_text
from ragraf.escape import escape
from ragraf.model import LedgerAck, LedgerEntry

FORMAT = Path(__file__).parent / "fixtures" / "ledger-format"
ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(FORMAT)),
    autoescape=False,
    keep_trailing_newline=True,
    trim_blocks=False,
)
ENV.filters["esc"] = lambda v: escape(str(v)).replace("`", "\\`")
ENV.filters["ctl"] = lambda v: escape(str(v))

names = st.text(
    alphabet=st.sampled_from(list("aZ09_$\\/.`*#-: ü→\n\r\t\x1b\x7f\u2028\u202e")), max_size=12
)
maybe = st.none() | st.text(alphabet="0123456789abcdef", min_size=0, max_size=64)
name_lists = st.lists(names, max_size=3)


def _json(xs: list[str]) -> str | None:
    return json.dumps(xs) if xs else None


@st.composite
def entries(draw: Any) -> LedgerEntry:
    return LedgerEntry(
        id=draw(st.integers(1, 10**6)),
        index_rev=draw(st.sampled_from(["rev-0001", "rev-0042"])),
        ts=draw(st.sampled_from(["2026-12-01T21:00:00Z", "t`x"])),
        path=draw(names),
        kind=draw(st.sampled_from(["modify", "add", "delete", "rename", "slice_boundary"])),
        old_hash=draw(maybe),
        new_hash=draw(maybe),
        symbols_added=_json(draw(name_lists)),
        symbols_removed=_json(draw(name_lists)),
        symbols_changed=_json(draw(name_lists)),
        edges_invalidated=_json(draw(st.lists(st.just("e"), max_size=3))),
        detected_by=draw(st.sampled_from(["compare", "git-diff", "watch"])),
        commit_sha=draw(maybe),
        note=draw(st.none() | names),
        dedupe_key="k",
        prev_hash="p",
        entry_hash=draw(st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)),
    )


@settings(max_examples=100, deadline=None)
@given(entries())
def test_an_entry_renders_as_its_reference_template(e: LedgerEntry) -> None:
    want = ENV.get_template("ledger_entry.md.j2").render(
        e=e,
        added=e.names("symbols_added"),
        removed=e.names("symbols_removed"),
        changed=e.names("symbols_changed"),
        edges=len(e.invalidated),
    )
    assert ledger_text.entry(e) == want


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 999), names, st.sampled_from(["2026-12-01T21:00:00Z"]), st.none() | names)
def test_an_ack_and_the_header_render_as_their_reference_templates(
    entry_id: int, by: str, ts: str, note: str | None
) -> None:
    a = LedgerAck(1, entry_id, by, ts, note, "p", "f" * 64)
    assert ledger_text.ack(a) == ENV.get_template("ledger_ack.md.j2").render(a=a)
    assert ledger_text.HEADER == ENV.get_template("ledger_header.md.j2").render()


@st.composite
def archives(draw: Any) -> dict[str, Any]:
    files = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "path": names,
                    "kinds": st.lists(st.sampled_from(["modify", "add"]), min_size=1, max_size=2),
                    "added": name_lists,
                    "removed": name_lists,
                    "changed": name_lists,
                }
            ),
            max_size=3,
        )
    )
    groups = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "kind": st.sampled_from(["calls", "reads_table"]),
                    "src": names,
                    "count": st.integers(1, 9),
                    "verdict": st.sampled_from(["not confirmed in rev-0002", "1 of 2 confirmed"]),
                }
            ),
            max_size=3,
        )
    )
    stale_total = draw(st.integers(0, 20))
    confirmed = draw(st.integers(0, stale_total))
    return {
        "from_rev": "rev-0001",
        "to_rev": "rev-0002",
        "archived_at": "2026-12-01T21:00:00Z",
        "entries": [None] * draw(st.integers(1, 5)),
        "files": files,
        "symbols_affected": draw(st.integers(0, 9)),
        "stale_total": stale_total,
        "confirmed": confirmed,
        "moved": draw(st.integers(0, confirmed)),
        "stale_groups": groups,
        "confirmed_groups": draw(st.integers(0, 3)),
        "confirmed_whole": draw(st.integers(0, 9)),
        "slices": draw(st.lists(st.fixed_dictionaries({"note": names}), max_size=2)),
        "first_id": 1,
        "last_id": draw(st.integers(1, 9)),
        "chain_head": "c" * 64,
        "acks": draw(st.integers(0, 3)),
    }


@settings(max_examples=100, deadline=None)
@given(archives())
def test_an_archive_renders_as_its_reference_template(d: dict[str, Any]) -> None:
    assert ledger_text.archive(d) == ENV.get_template("archive.md.j2").render(**d)


def test_no_name_forges_a_line_or_a_code_span() -> None:
    forged = "x`\n## #999 modify `evil.php`\n"
    e = LedgerEntry(
        7, "rev-0001", "t", forged, "modify", None, None, json.dumps([forged]), None, None,
        None, "compare", None, forged, "k", "p", "h" * 64,
    )  # fmt: skip
    text = ledger_text.entry(e)
    lines = text.splitlines()
    assert len(lines) == 6 and [x for x in lines if x.startswith("#")] == [lines[0]]
    assert "\\`" in text and "\\x0a" in text


def test_no_path_forges_a_line_of_the_archive() -> None:
    forged = "y`\n## Ledger\nEntries #1–#1; chain head: 0\n.php"
    d = {
        "from_rev": "rev-0001", "to_rev": "rev-0002", "archived_at": "t", "entries": [None],
        "files": [{"path": forged, "kinds": ["modify"], "added": [forged], "removed": [],
                   "changed": []}],
        "symbols_affected": 1, "stale_total": 1, "confirmed": 0, "moved": 0,
        "stale_groups": [{"kind": "calls", "src": forged, "count": 1, "verdict": "v"}],
        "confirmed_groups": 0, "confirmed_whole": 0, "slices": [{"note": forged}],
        "first_id": 1, "last_id": 1, "chain_head": "c", "acks": 0,
    }  # fmt: skip
    text = ledger_text.archive(d)
    lines = text.splitlines()
    assert [x for x in lines if x.startswith("## Ledger")] == ["## Ledger"]
    assert [x for x in lines if x.startswith("Entries")] == [
        "Entries #1–#1 of rev-0001; chain head: c"
    ]
