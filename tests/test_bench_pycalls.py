"""The Python call oracle of bench/py_calls.py judges for real: correct for the edges the
pyapp golden states, wrong for another target at the same site (it must be able to fail)."""

from __future__ import annotations

from bench.py_calls import CORRECT, WRONG, Oracle
from tests.helpers import REPO

PYAPP = REPO / "fixtures" / "pyapp"


def _oracle() -> Oracle:
    paths = sorted(p.relative_to(PYAPP).as_posix() for p in PYAPP.rglob("*.py"))
    return Oracle(PYAPP, paths)


def test_stated_edges_of_the_golden_judge_correct() -> None:
    o = _oracle()
    for site, target in [
        ("app/service.py:13", "app.models.Invoice.create"),  # a class method through an import
        ("app/models.py:15", "app.base.Model.__init__"),  # super().__init__()
        ("app/base.py:7", "app.base.Model.log"),  # self.log()
        ("main.py:8", "app.util.fmt"),  # a module alias
        ("main.py:6", "app.service.Billing.__init__"),  # an instantiation
    ]:
        path, line = site.split(":")
        assert o.judge(path, int(line), target, "method")[0] == CORRECT, site


def test_another_target_at_the_same_site_judges_wrong() -> None:
    o = _oracle()
    assert o.judge("app/base.py", 7, "app.models.Invoice.save", "method")[0] == WRONG
    assert o.judge("app/service.py", 13, "app.base.Model.save", "method")[0] == WRONG
    verdict, why = o.judge("main.py", 8, "app.base.Model.log", "method")
    assert verdict == WRONG and why == "no call of that name on the line"
