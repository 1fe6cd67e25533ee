"""Python packages as Python sees them (issue 40 section 3); fixture fixtures/pypkg.

A ``src`` layout package ``shop`` (fqns are import paths: ``shop.core.Cart``, never
``src.shop...``), a test fixture module and a script named like the package (``import
shop`` still names the package), two loose ``helpers.py`` an import cannot choose between
(derived to both, never dropped), ``@overload`` signatures (callers link to the
implementation only), a ``ContextVar[Cart]`` whose ``get()`` is a Cart, and Flask's
``add_url_rule`` routes. Checked by hand against the sources.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ragraf.lang.python import roots
from tests.helpers import REPO
from tests.test_pilot_golden import _graph
from tests.test_python import indexed_copy

PYPKG = REPO / "fixtures" / "pypkg"

DECLS = {
    ("class", "flask.views.View", None, None, None),
    ("class", "shop.core.Cart", "src/shop/core.py", 7, 18),
    ("class", "shop.web.ItemView", "src/shop/web.py", 14, 16),
    ("function", "main.main", "main.py", 4, 5),
    ("function", "scripts.shop.checkout", "scripts/shop.py", 1, 2),
    ("function", "shop.core.checkout", "src/shop/core.py", 36, 38),
    ("function", "shop.core.current_total", "src/shop/core.py", 41, 43),
    # the two @overload signatures are declarations too
    ("function", "shop.core.price", "src/shop/core.py", 22, 22),
    ("function", "shop.core.price", "src/shop/core.py", 26, 26),
    ("function", "shop.core.price", "src/shop/core.py", 29, 30),
    ("function", "shop.web.view_cart", "src/shop/web.py", 10, 11),
    ("function", "tests.apps.inner.shop.checkout", "tests/apps/inner/shop.py", 1, 2),
    ("function", "tests.test_shop.test_checkout", "tests/test_shop.py", 5, 6),
    ("function", "tools.a.helpers.run", "tools/a/helpers.py", 1, 2),
    ("function", "tools.b.helpers.run", "tools/b/helpers.py", 1, 2),
    ("method", "shop.core.Cart.add", "src/shop/core.py", 12, 12),
    ("method", "shop.core.Cart.add", "src/shop/core.py", 15, 15),
    ("method", "shop.core.Cart.add", "src/shop/core.py", 17, 18),
    ("method", "shop.core.Cart.total", "src/shop/core.py", 8, 9),
    ("method", "shop.web.ItemView.dispatch_request", "src/shop/web.py", 15, 16),
    # add_url_rule: literal rules only (not the f-string one), the Blueprint's prefix
    ("web_route", "GET /admin/stats", "src/shop/web.py", 21, 21),
    ("web_route", "GET /cart", "src/shop/web.py", 19, 19),
    ("web_route", "GET|POST /items", "src/shop/web.py", 20, 20),
}
MODULES = {
    ("module", "main", "main.py", 1, 5),
    ("module", "scripts.shop", "scripts/shop.py", 1, 2),
    ("module", "shop.core", "src/shop/core.py", 1, 43),
    ("module", "shop.web", "src/shop/web.py", 1, 22),
    ("module", "tests.apps.inner.shop", "tests/apps/inner/shop.py", 1, 2),
    ("module", "tests.test_shop", "tests/test_shop.py", 1, 6),
    ("module", "tools.a.helpers", "tools/a/helpers.py", 1, 2),
    ("module", "tools.b.helpers", "tools/b/helpers.py", 1, 2),
    ("package", "shop", "src/shop/__init__.py", 1, 3),
    ("package", "tests.apps", "tests/apps/__init__.py", 1, 1),
    ("package", "tests.apps.inner", "tests/apps/inner/__init__.py", 1, 1),
}
CORE = "src/shop/core.py"
EDGES = {
    # Cart.add and price: the implementation, once (not the @overload signatures)
    ("calls", "shop.core.Cart.add", "shop.core.Cart.total", f"{CORE}:18", "stated", 1.0),
    ("calls", "shop.core.checkout", "shop.core.Cart.add", f"{CORE}:37", "stated", 1.0),
    ("calls", "shop.core.checkout", "shop.core.Cart.total", f"{CORE}:38", "stated", 1.0),
    ("calls", "shop.core.checkout", "shop.core.price", f"{CORE}:38", "stated", 1.0),
    # _current: ContextVar[Cart]; _current.get() is a Cart
    ("calls", "shop.core.current_total", "shop.core.Cart.total", f"{CORE}:43", "stated", 1.0),
    ("calls", "shop.web.view_cart", "shop.core.current_total", "src/shop/web.py:11", "stated", 1.0),
    # `import shop` in tests/: the package, not tests/apps/inner/shop.py nor scripts/shop.py
    (
        "calls",
        "tests.test_shop.test_checkout",
        "shop.core.checkout",
        "tests/test_shop.py:6",
        "stated",
        1.0,
    ),
    (
        "instantiates",
        "tests.test_shop.test_checkout",
        "shop.core.Cart",
        "tests/test_shop.py:6",
        "stated",
        1.0,
    ),
    ("imports", "tests/test_shop.py", "shop.core.Cart", "tests/test_shop.py:2", "stated", 1.0),
    (
        "imports",
        "tests/test_shop.py",
        "src/shop/__init__.py",
        "tests/test_shop.py:1",
        "stated",
        1.0,
    ),
    # `import helpers` from main.py: tools/a or tools/b, neither nearer: both, derived
    ("calls_heuristic", "main.main", "tools.a.helpers.run", "main.py:5", "derived", 0.4),
    ("calls_heuristic", "main.main", "tools.b.helpers.run", "main.py:5", "derived", 0.4),
    ("imports", "main.py", "tools/a/helpers.py", "main.py:1", "derived", 0.4),
    ("imports", "main.py", "tools/b/helpers.py", "main.py:1", "derived", 0.4),
    ("extends", "shop.web.ItemView", "flask.views.View", "src/shop/web.py:14", "stated", 1.0),
    ("handles", "GET /cart", "shop.web.view_cart", "src/shop/web.py:19", "derived", 0.6),
    ("handles", "GET|POST /items", "shop.web.ItemView", "src/shop/web.py:20", "derived", 0.6),
    ("imports", "src/shop/__init__.py", "shop.core.Cart", "src/shop/__init__.py:3", "stated", 1.0),
    (
        "imports",
        "src/shop/__init__.py",
        "shop.core.checkout",
        "src/shop/__init__.py:3",
        "stated",
        1.0,
    ),
    (
        "imports",
        "src/shop/web.py",
        "shop.core.current_total",
        "src/shop/web.py:4",
        "stated",
        1.0,
    ),
}


@pytest.fixture(scope="module")
def pypkg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(PYPKG, tmp_path_factory.mktemp("pkg") / "pypkg")


def test_pypkg_declarations_and_edges_exactly(pypkg: Path) -> None:
    nodes, edges, _struct = _graph(pypkg)
    assert {n for n in nodes if n[0] not in ("file", "module", "package")} == DECLS
    assert {n for n in nodes if n[0] in ("module", "package")} == MODULES
    assert edges - EDGES == set(), "unexpected edges"
    assert EDGES - edges == set(), "missing edges"


PYROOTS_EDGES = {
    ("calls", "app.main", "lib.alpha.core.f", "app.py:5", "stated", 1.0),
    ("imports", "app.py", "lib.alpha.core.f", "app.py:1", "stated", 1.0),
    ("calls", "proj2.run.run", "proj2.source.beta.mod.g", "proj2/run.py:5", "stated", 1.0),
    ("imports", "proj2/run.py", "proj2/source/beta/mod.py", "proj2/run.py:1", "stated", 1.0),
}


def test_package_roots_a_config_file_states(tmp_path: Path) -> None:
    """fixtures/pyroots: ``alpha.core`` is in ``lib/`` and in ``copies/``, ``beta.mod`` in
    ``proj2/source/`` and ``proj2/other/`` (namespace packages, no ``__init__.py``): the
    pyproject's ``package-dir = {"" = "lib"}`` and setup.cfg's ``package_dir = =source``
    say which one is imported (stated); without them each import is ambiguous (derived to
    both copies, never dropped)."""
    root = indexed_copy(REPO / "fixtures" / "pyroots", tmp_path / "pyroots")
    _nodes, edges, _struct = _graph(root)
    assert edges == PYROOTS_EDGES
    bare = tmp_path / "bare"
    shutil.copytree(REPO / "fixtures" / "pyroots", bare / "src0")
    (bare / "src0" / "pyproject.toml").unlink()
    (bare / "src0" / "proj2" / "setup.cfg").unlink()
    _nodes, edges, _struct = _graph(indexed_copy(bare / "src0", tmp_path / "pyroots0"))
    assert {(e[0], e[2], e[4]) for e in edges if e[1] == "app.main"} == {
        ("calls_heuristic", "copies.alpha.core.f", "derived"),
        ("calls_heuristic", "lib.alpha.core.f", "derived"),
    }


@pytest.mark.parametrize(
    ("path", "text", "want"),
    [
        ("pyproject.toml", '[tool.setuptools]\npackage-dir = {"" = "lib"}\n', [("", "lib")]),
        (
            "sub/pyproject.toml",
            '[tool.setuptools.packages.find]\nwhere = ["src", "more"]\n',
            [("", "sub/src"), ("", "sub/more")],
        ),
        (
            "pyproject.toml",
            '[tool.poetry]\npackages = [{include = "pkg", from = "lib"}]\n',
            [("", "lib")],
        ),
        (
            "pyproject.toml",
            '[tool.hatch.build.targets.wheel]\npackages = ["code/pkg"]\n',
            [("", "code")],
        ),
        (
            "pyproject.toml",
            '[tool.setuptools.package-dir]\nalpha = "lib/a"\n',
            [("alpha", "lib/a")],
        ),
        ("setup.cfg", "[options]\npackage_dir =\n    =source\n", [("", "source")]),
        ("setup.cfg", "[options.packages.find]\nwhere = lib\n", [("", "lib")]),
        ("pyproject.toml", "not [ toml", []),
        ("pyproject.toml", '[tool.setuptools]\npackage-dir = {"" = "../out"}\n', []),
    ],
)
def test_package_roots_of_config_files(path: str, text: str, want: list[tuple[str, str]]) -> None:
    assert roots.package_roots(path, text) == want
