from __future__ import annotations

from pathlib import Path

import pytest

from ragraf import config
from ragraf.errors import ConfigError, NoIndexError


def test_init_writes_defaults_and_keeps_existing(tmp_path: Path) -> None:
    written = config.init_project(tmp_path)
    layout = config.Layout(tmp_path)
    assert set(written) == {layout.project_yaml, layout.confidence_yaml, tmp_path / ".gitignore"}
    assert layout.project_yaml.read_text() == config.default_text("project")
    layout.project_yaml.write_text("index: {retain_revs: 5}\n")
    assert config.init_project(tmp_path) == []
    assert config.load(tmp_path).project["index"]["retain_revs"] == 5


def test_root_is_found_upward(tmp_path: Path) -> None:
    config.init_project(tmp_path)
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert config.find_root(deep) == tmp_path.resolve()
    with pytest.raises(NoIndexError, match="ragraf init"):
        config.find_root(Path("/"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("retain_revs: 3\n", "unknown key 'retain_revs'"),
        ("index:\n  retian_revs: 3\n", "unknown key 'index.retian_revs'"),
        ("index:\n  retain_revs: many\n", "key 'index.retain_revs'"),
        ("include: '**/*.php'\n", "key 'include'"),
        ("exclude: ['src/[abc']\n", "key 'exclude': bad glob"),
        ("exclude: ['/etc/**']\n", "key 'exclude': bad glob"),
        ("secrets_exclude: ['../x']\n", "key 'secrets_exclude': bad glob"),
        ("include: ['a**b']\n", "key 'include': bad glob"),
        ("search:\n  vendored_paths: ['lib/[x']\n", "key 'search.vendored_paths': bad glob"),
        (
            "search:\n  rerank_weights: {vendord: -1}\n",
            "unknown key 'search.rerank_weights.vendord'",
        ),
        ("embedding:\n  quantize: none\n  quantize: int8\n", "key 'quantize' is given twice"),
        ("embedding:\n  quantize: fp16\n", "key 'embedding.quantize'"),
        ("- just a list\n", "top level must be a mapping"),
        ("index: [\n", "not valid YAML"),
    ],
)
def test_bad_project_yaml_names_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    config.init_project(tmp_path)
    layout = config.Layout(tmp_path)
    layout.project_yaml.write_text(text)
    with pytest.raises(ConfigError) as exc:
        config.load(tmp_path)
    assert message in str(exc.value)
    assert str(layout.project_yaml) in str(exc.value)


def test_bad_confidence_yaml(tmp_path: Path) -> None:
    config.init_project(tmp_path)
    layout = config.Layout(tmp_path)
    layout.confidence_yaml.write_text("magic: 1.5\n")
    with pytest.raises(ConfigError, match="confidence.yaml: key 'magic'"):
        config.load(tmp_path)
    layout.confidence_yaml.write_text("magik: 0.3\n")
    with pytest.raises(ConfigError, match="unknown key 'magik'"):
        config.load(tmp_path)


def test_config_hash_follows_effective_config(tmp_path: Path) -> None:
    config.init_project(tmp_path)
    h1 = config.load(tmp_path).config_hash
    config.Layout(tmp_path).confidence_yaml.write_text("magic: 0.25\n")
    h2 = config.load(tmp_path).config_hash
    assert h1 != h2


def _imports_jsonschema(root: Path) -> bool:
    """Whether loading the configuration of ``root`` in a new process imports jsonschema."""
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; from ragraf import config;"
        f" config.load(Path({str(root)!r})); print('jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


def test_a_validated_configuration_is_not_validated_again(tmp_path: Path) -> None:
    config.init_project(tmp_path)  # validates and remembers the files
    layout = config.Layout(tmp_path)
    checked = layout.index_dir / config.CHECKED_FILE
    assert checked.is_file()
    assert not _imports_jsonschema(tmp_path)  # the same bytes: nothing to validate
    layout.project_yaml.write_text("index: {retain_revs: 4}\n")
    assert _imports_jsonschema(tmp_path)  # new bytes are validated (once)
    assert not _imports_jsonschema(tmp_path)
    # an edit that breaks the file is caught although the file passed before
    layout.project_yaml.write_text("index: {retain_revs: many}\n")
    with pytest.raises(ConfigError, match="key 'index.retain_revs'"):
        config.load(tmp_path)
    # the record is only a cache: damaged or gone, the files are validated again
    layout.project_yaml.write_text("index: {retain_revs: 4}\n")
    checked.write_bytes(b"\xff\xfe not ascii")
    assert config.load(tmp_path).project["index"]["retain_revs"] == 4
    checked.unlink()
    assert _imports_jsonschema(tmp_path)


def test_loading_without_an_index_folder_writes_nothing(tmp_path: Path) -> None:
    import shutil

    config.init_project(tmp_path)
    layout = config.Layout(tmp_path)
    shutil.rmtree(layout.index_dir)
    assert config.load(tmp_path).project["index"]["retain_revs"] >= 1
    assert not layout.index_dir.exists()  # the record is kept only beside an index
