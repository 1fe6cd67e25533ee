from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from ragraf import config
from ragraf.errors import ConfigError, NoIndexError


def test_init_writes_defaults_and_keeps_existing(tmp_path: Path) -> None:
    written = config.init_project(tmp_path)
    layout = config.Layout(tmp_path)
    assert set(written) == {layout.project_yaml, layout.confidence_yaml, tmp_path / ".gitignore"}
    assert layout.project_yaml.read_text() == config.default_text("project")
    layout.project_yaml.write_text("index: {retain_revs: 5}\n")
    assert config.init_project(tmp_path) == []
    assert config.load(tmp_path).index.retain_revs == 5


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
    assert config.load(tmp_path).index.retain_revs == 4
    checked.unlink()
    assert _imports_jsonschema(tmp_path)


def test_loading_without_an_index_folder_writes_nothing(tmp_path: Path) -> None:
    import shutil

    config.init_project(tmp_path)
    layout = config.Layout(tmp_path)
    shutil.rmtree(layout.index_dir)
    assert config.load(tmp_path).index.retain_revs >= 1
    assert not layout.index_dir.exists()  # the record is kept only beside an index


def test_config_hash_is_the_digest_of_the_files_data(tmp_path: Path) -> None:
    """The typed configuration changes nothing of what a revision records: ``config_hash``
    is the sha1 of the files' merged data, the query-time sections aside, encoded as every
    earlier version encoded it (an existing index stays current)."""
    user = (
        'include: ["**/*.php"]\nlanguages: [php]\nindex: {workers: 2, file_time_budget_s: 5}\n'
        'db: {table_prefixes: {"$wpdb->prefix": wp_}, query_builders: {receivers: ["->store$"]}}\n'
        "search: {rrf_k: 10}\n"
    )

    def merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
        out = dict(base)
        for k, v in over.items():
            both = isinstance(v, dict) and isinstance(out.get(k), dict)
            out[k] = merged(out[k], v) if both else v
        return out

    def digest(project: dict[str, Any]) -> str:
        query_time = ("project", "root", "repo_map", "search", "drift", "dataflow")
        payload = {
            "project": {k: v for k, v in project.items() if k not in query_time},
            "confidence": yaml.safe_load(config.default_text("confidence")),
        }
        return hashlib.sha1(json.dumps(payload, sort_keys=True).encode()).hexdigest()

    config.init_project(tmp_path)
    defaults = yaml.safe_load(config.default_text("project"))
    assert config.load(tmp_path).config_hash == digest(defaults)
    config.Layout(tmp_path).project_yaml.write_text(user)
    assert config.load(tmp_path).config_hash == digest(merged(defaults, yaml.safe_load(user)))


def test_the_configuration_is_typed(tmp_path: Path) -> None:
    """Every section is read by attribute, with the values its readers read."""
    config.init_project(tmp_path)
    config.Layout(tmp_path).project_yaml.write_text(
        "languages: [php, sql]\nindex: {file_time_budget_s: 0}\n"
        "db: {query_builders: {methods: {saveRow: insert}}}\n"
    )
    cfg = config.load(tmp_path)
    assert cfg.corpus.languages == ("php", "sql") and cfg.corpus.include is None
    assert cfg.index.time_budget is None and cfg.index.retain_revs == 3
    assert cfg.db.query_builders.methods == {"saveRow": "insert"}
    assert cfg.db.query_builders.receivers == ()
    assert cfg.db.connection() == {"dsn": None, "connect_timeout": 3.0}
    assert cfg.embedding.as_mapping()["model"] == cfg.embedding.model
    assert cfg.repo_map.edge_weights["calls"] == 1.0
    calibrated = cfg.search.calibrated({"abstain_cosine": 0.3, "other": 1})
    assert calibrated.abstain_cosine == 0.3
    assert calibrated.min_near_meet == cfg.search.min_near_meet
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.index.workers = 4  # type: ignore[misc]


def test_dataflow_rules_per_language_and_an_old_section_still_loads(tmp_path: Path) -> None:
    """issue 42: `dataflow.languages.<name>` holds each other language's sources and sinks;
    the top-level keys stay PHP's, and a project.yaml written before (no `languages`, a
    PHP-only list of sources) loads with the packaged rules of the other languages."""
    config.init_project(tmp_path)
    yml = config.Layout(tmp_path).project_yaml
    yml.write_text("dataflow:\n  sources: ['$_GET']\n  sql_calls: [query]\n  include: false\n")
    d = config.load(tmp_path).dataflow
    assert d.sources == ("$_GET",) and d.rules("php").sql_calls == ("query",)
    assert d.rules("php").code_calls == () and not d.include
    py = d.rules("python")
    assert "request.args" in py.sources and "os.environ" in py.sources
    assert {"execute", "executemany", "executescript"} <= set(py.sql_calls)
    assert {"subprocess.run", "os.system", "os.popen"} <= set(py.shell_calls)
    assert {"eval", "exec"} <= set(py.code_calls)
    assert d.rules("cobol").sources == ()
    assert d.all_sources()[0] == "$_GET" and "request.form" in d.all_sources()
    yml.write_text(
        "dataflow:\n  languages:\n    python: {sources: [request.args], sql_calls: [run_sql]}\n"
    )
    d = config.load(tmp_path).dataflow
    assert d.rules("python").sources == ("request.args",)
    assert d.rules("python").sql_calls == ("run_sql",)
    assert "$_POST" in d.sources  # PHP's defaults untouched
    yml.write_text("dataflow:\n  languages:\n    python: {sink_calls: [x]}\n")
    with pytest.raises(ConfigError, match="unknown key 'dataflow.languages.python.sink_calls'"):
        config.load(tmp_path)
