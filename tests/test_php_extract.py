"""The PHP extractor package: its entry points, determinism, and a light import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ragraf.lang import php
from tests.helpers import REPO

FIXTURE_PHP = sorted((REPO / "fixtures").rglob("*.php"))


def _facts(path: Path, max_lines: int = 120) -> str:
    rel = path.relative_to(REPO).as_posix()
    return repr(php.extract(rel, path.read_text(encoding="utf-8"), max_lines))


def test_the_package_exposes_extract_and_pack_sql() -> None:
    assert callable(php.extract) and callable(php.pack_sql)
    assert php.pack_sql(None) is None
    facts = php.extract("t.php", "<?php\nfunction f() {}\n")
    assert [n.fqn for n in facts.nodes] == ["t.php", "f"]


def test_extraction_is_deterministic_and_keeps_no_state_between_files() -> None:
    assert FIXTURE_PHP
    first = {p: _facts(p) for p in FIXTURE_PHP}
    for p in reversed(FIXTURE_PHP):  # other order, other chunk size in between
        _facts(p, 7)
        assert _facts(p) == first[p], p


def test_importing_the_extractor_does_not_load_tree_sitter() -> None:
    code = "import sys, ragraf.lang.php; print('tree_sitter' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_resolution_does_not_load_the_extractor() -> None:
    """A reindex that parses nothing links from cached facts: importing resolution must not
    import the PHP walk, its SQL-in-strings analysis or the chunker (the package's
    ``extract`` / ``pack_sql`` are imported on first use)."""
    code = (
        "import sys, ragraf.indexing.resolve; from ragraf.lang import php;"
        " print(sorted(m for m in ('ragraf.lang.php.walk', 'ragraf.lang.php.strings',"
        " 'ragraf.lang.chunking') if m in sys.modules)); print(callable(php.extract))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "True"], out.stdout


def test_the_lines_that_name_a_class_reference_it() -> None:
    """A rename of a class changes every line that names it: static calls, instanceof,
    declared parameter, return and property types, catch types (``self``, ``static`` and
    ``parent`` name no class of their own)."""
    from ragraf.lang.facts import ClassConstRef
    from ragraf.lang.php.walk import extract
    from ragraf.lang.typedesc import Cls

    src = (
        "<?php\nnamespace App;\nuse Lib\\Db;\n"
        "class Repo {\n"
        "    public function load(Db $db, ?Row $row): Row|Missing {\n"  # 5
        "        if ($row instanceof Cached) { return $row; }\n"  # 6
        "        try { return Row::fromDb($db); }\n"  # 7
        "        catch (Gone|\\RuntimeException $e) { return self::none(); }\n"  # 8
        "    }\n"
        "    public static function none(): static { return new static(); }\n"  # 10
        "    private ?Db $db = null;\n"  # 11
        "    protected static self $one;\n"  # 12
        "}\n"
    )
    f = extract("src/Repo.php", src)
    got = sorted(
        (r.line, r.cls.fqn)
        for r in f.refs
        if isinstance(r, ClassConstRef) and isinstance(r.cls, Cls) and r.member == "class"
    )
    assert got == [
        (5, "App\\Missing"),
        (5, "App\\Row"),
        (5, "App\\Row"),
        (5, "Lib\\Db"),
        (6, "App\\Cached"),
        (7, "App\\Row"),
        (8, "App\\Gone"),
        (8, "RuntimeException"),
        (11, "Lib\\Db"),
    ]


def test_drupal_code_files_are_php_and_selected_by_default(tmp_path: Path) -> None:
    """A Drupal module's code is in ``<name>.module`` / ``.install`` / ``.theme`` (and
    ``.profile``, ``.engine``): indexed as PHP without any configuration."""
    from ragraf import config, corpus
    from ragraf.lang import registry

    for rel in ("m/shop.module", "m/shop.install", "t/olivero.theme", "p/std.profile"):
        assert registry.lang_of(rel) == "php", rel
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("<?php\nfunction shop_cron() {\n}\n")
    config.init_project(tmp_path)
    got = sorted(f.path for f in corpus.scan(config.load(tmp_path)).files if f.lang == "php")
    assert got == ["m/shop.install", "m/shop.module", "p/std.profile", "t/olivero.theme"]
