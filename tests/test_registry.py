"""The language registry's fingerprint covers all the code a language's facts depend on."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import pytest

from ragraf.lang import registry


def test_a_module_is_fingerprinted_by_its_own_source() -> None:
    source = Path(registry.__file__).read_bytes()
    assert registry._module_source("ragraf.lang.registry") == source


def test_every_module_of_an_extractor_package_is_fingerprinted() -> None:
    lang = registry.get("php")
    assert lang is not None and lang.extractor is not None
    spec = importlib.util.find_spec(lang.extractor)
    assert spec is not None and spec.origin is not None
    source = registry._module_source(lang.extractor)
    origin = Path(spec.origin)
    files = sorted(origin.parent.glob("*.py")) if spec.submodule_search_locations else [origin]
    for path in files:
        assert path.read_bytes() in source, path


def test_an_edit_to_a_submodule_changes_the_package_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = tmp_path / "fp_pkg_probe"
    (pkg / "inner").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from fp_pkg_probe.a import X\n")
    (pkg / "a.py").write_text("X = 1\n")
    (pkg / "inner" / "__init__.py").write_text("")
    (pkg / "inner" / "b.py").write_text("Y = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    first = registry._module_source("fp_pkg_probe")
    assert b"X = 1" in first and b"Y = 2" in first
    assert registry._module_source("fp_pkg_probe") == first  # stable
    (pkg / "inner" / "b.py").write_text("Y = 3\n")
    assert registry._module_source("fp_pkg_probe") != first
    (pkg / "inner" / "b.py").write_text("Y = 2\n")
    (pkg / "c.py").write_text("")  # a new module, even an empty one, counts
    assert registry._module_source("fp_pkg_probe") != first


def test_tool_versions_are_read_without_importlib_metadata() -> None:
    """The versions in the facts key come from the installed wheels' dist-info folder names:
    the same as importlib.metadata says, without its ~50 ms of imports in every process."""
    import subprocess
    import sys
    from importlib.metadata import version

    from ragraf.lang.registry import _dist_version

    for dist in ("tree-sitter", "tree-sitter-language-pack", "sqlglot", "typer"):
        assert _dist_version(dist) == version(dist), dist
    assert _dist_version("no-such-distribution-here") == "absent"
    code = (
        "import sys; from ragraf.lang import registry; registry.tool_versions();"
        " print('importlib.metadata' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
