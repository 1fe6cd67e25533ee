"""Derived edges that must not be guessed, and those that stay (issue 41 §5), on
fixtures/guesses: a PHP call by name alone links one method and its overrides only (not
unrelated classes' methods, nor a name PHP's own classes declare); a string naming a
function is no reference when it is a capability, a column or a hook name; a hook pattern
does not match a name another run claims."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragraf import config
from ragraf.store.graph import GraphStore
from tests.helpers import REPO, indexed_fixture

GUESSES = REPO / "fixtures" / "guesses"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_fixture(GUESSES, tmp_path_factory.mktemp("guesses") / "guesses")


def _edges(root: Path, path: str) -> list[tuple[int, str, str, str | None]]:
    """(line, kind, target fqn, via) of the derived edges with evidence in ``path``."""
    with GraphStore(config.Layout(root).graph_db, readonly=True) as g:
        rev = g.db.query("SELECT max(rev_id) FROM rev")[0][0]
        out = []
        for e in g.edges_with_evidence_in(rev, path):
            if e.provenance != "derived":
                continue
            [dst] = g.db.query("SELECT fqn FROM node WHERE node_id=?", (e.dst,))
            via = json.loads(e.props).get("via") if e.props else None
            out.append((int(e.evidence_line or 0), e.kind, dst[0], via))
    return sorted(set(out))


def _unresolved(root: Path, path: str) -> list[tuple[int, str, str, str | None]]:
    with GraphStore(config.Layout(root).graph_db, readonly=True) as g:
        rows = g.db.query(
            "SELECT line, name, reason, detail FROM unresolved_call WHERE path=? ORDER BY line",
            (path,),
        )
    return [(int(a), b, c, d) for a, b, c, d in rows]


def test_a_name_match_keeps_to_one_hierarchy_and_leaves_builtin_names(root: Path) -> None:
    """``$setting->preview()``: Setting's and the MenuSetting override, one hierarchy;
    ``$setting->save()``: Setting and Cache, unrelated; ``$when->format()``: Stamp's, but
    DateTime has ``format`` too. The last two are listed as sites not attached."""
    assert [e for e in _edges(root, "classes.php") if e[0] < 36] == [
        (26, "calls_heuristic", "MenuSetting::preview", "name-match"),
        (26, "calls_heuristic", "Setting::preview", "name-match"),
    ]
    assert _unresolved(root, "classes.php") == [
        (27, "save", "too_many_candidates", "2 in 2 hierarchies"),
        (33, "format", "too_many_candidates", "1 + builtin"),
    ]


def test_strings_that_name_data_are_no_references(root: Path) -> None:
    """A capability appended to ``$caps`` or held by a variable nothing runs, a map of
    column names (one of which names no function): no edge; a map whose values all name
    functions, a variable called as a function: derived references."""
    refs = [(ln, t) for ln, k, t, via in _edges(root, "strings.php") if via == "name_string"]
    assert refs == [(34, "get_home_template"), (35, "get_page_template"), (47, "meta_box_a")]


def test_a_hook_pattern_leaves_names_other_runs_claim(root: Path) -> None:
    """``pre_{$field}`` runs the callback added to ``pre_post_title``, not those of
    ``pre_option_root`` (``pre_option_{$option}``'s, more literal characters) nor of
    ``pre_unique_slug`` (run literally)."""
    hooks = [(ln, t) for ln, k, t, via in _edges(root, "hooks.php") if via == "hook"]
    assert hooks == [
        (12, "on_pre_option_root"),
        (17, "on_pre_title"),
        (22, "on_unique_slug"),
    ]


def test_a_method_pattern_on_this_reaches_the_subclasses(root: Path) -> None:
    """``[$this, 'col_' . $name]`` in Table: its own ``col_default`` and the subclass's
    ``col_email`` (the object may be a UsersTable)."""
    got = [(t, via) for ln, k, t, via in _edges(root, "classes.php") if ln == 42]
    assert got == [
        ("Table::col_default", "call_user_func"),
        ("UsersTable::col_email", "call_user_func"),
    ]


def test_a_string_naming_a_function_declared_twice_names_the_loaded_one(root: Path) -> None:
    """``array_map('helper', ...)`` in a/main.php, which includes a/helper.php: a
    reference to that declaration only (derived: a string names whichever is declared)."""
    with GraphStore(config.Layout(root).graph_db, readonly=True) as g:
        rev = g.db.query("SELECT max(rev_id) FROM rev")[0][0]
        got = []
        for e in g.edges_with_evidence_in(rev, "a/main.php"):
            if e.kind == "references":
                [dst] = g.db.query("SELECT path FROM node WHERE node_id=?", (e.dst,))
                got.append((dst[0], e.provenance))
    assert got == [("a/helper.php", "derived")]
