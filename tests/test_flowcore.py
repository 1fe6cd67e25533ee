"""The language-neutral core of the data-flow layer (ragraf/lang/flowcore.py): reaching
definitions over hand-made statements and control-flow edges, no grammar involved."""

from __future__ import annotations

from ragraf.lang.flowcore import Stmt, reaching


def _stmts(*specs: tuple[list[str], list[str], list[str]]) -> list[Stmt]:
    """One statement per (strong definitions, weak definitions, uses)."""
    out = []
    for i, (defs, weak, uses) in enumerate(specs):
        s = Stmt(i + 1, i + 1, "stmt", -1)
        s.defs, s.weak, s.uses = list(defs), list(weak), list(uses)
        out.append(s)
    return out


def test_a_strong_definition_kills_the_earlier_ones() -> None:
    stmts = _stmts((["$x"], [], []), (["$x"], [], []), ([], [], ["$x"]))
    edges, exposed = reaching(stmts, [(0, 1), (1, 2)], {})
    assert edges == [(1, 2, "$x")]
    assert exposed == []


def test_a_weak_definition_lets_the_earlier_ones_reach() -> None:
    stmts = _stmts((["$a"], [], []), ([], ["$a"], []), ([], [], ["$a"]))
    edges, _ = reaching(stmts, [(0, 1), (1, 2)], {})
    assert edges == [(0, 2, "$a"), (1, 2, "$a")]


def test_both_branches_reach_the_join() -> None:
    stmts = _stmts(([], [], []), (["$x"], [], []), (["$x"], [], []), ([], [], ["$x"]))
    edges, _ = reaching(stmts, [(0, 1), (0, 2), (1, 3), (2, 3)], {})
    assert edges == [(1, 3, "$x"), (2, 3, "$x")]


def test_a_loop_brings_the_body_s_definition_back_to_its_head() -> None:
    stmts = _stmts((["$i"], [], []), ([], [], ["$i"]), (["$i"], [], ["$i"]))
    edges, _ = reaching(stmts, [(0, 1), (1, 2), (2, 1)], {})
    assert edges == [(0, 1, "$i"), (0, 2, "$i"), (2, 1, "$i"), (2, 2, "$i")]


def test_a_use_no_definition_reaches_is_upward_exposed() -> None:
    stmts = _stmts((["$x"], [], []), ([], [], ["$y", "$x"]))
    edges, exposed = reaching(stmts, [(0, 1)], {})
    assert edges == [(0, 1, "$x")]
    assert exposed == [(1, "$y")]


def test_a_definition_of_an_alias_is_a_weak_definition_of_the_other_name() -> None:
    stmts = _stmts((["$b"], [], []), (["$a"], [], []), ([], [], ["$b"]))
    edges, _ = reaching(stmts, [(0, 1), (1, 2)], {"$a": {"$b"}, "$b": {"$a"}})
    assert edges == [(0, 2, "$b"), (1, 2, "$b")]


def test_the_shortcut_for_tiny_units_gives_what_the_fixed_point_gives() -> None:
    """An entry alone or followed by one statement takes a shortcut (most closures): the
    same edges and upward-exposed uses, in the same order, as the bit-set fixed point (which
    an unrelated alias forces)."""
    import random

    rng = random.Random(42)
    names = ["$a", "$b", "$c", "this.p"]
    for _ in range(300):
        n = rng.choice((1, 2))
        specs = [
            (rng.sample(names, rng.randint(0, 2)), rng.sample(names, rng.randint(0, 2)),
             [rng.choice(names) for _ in range(rng.randint(0, 4))])
            for _ in range(n)
        ]  # fmt: skip
        succ = [] if n == 1 else [(0, 1)]
        fast = reaching(_stmts(*specs), succ, {})
        slow = reaching(_stmts(*specs), succ, {"$zz": {"$yy"}, "$yy": {"$zz"}})
        assert fast == slow, specs
