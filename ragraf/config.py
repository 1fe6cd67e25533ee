"""Project discovery, the on-disk layout (architecture §4) and configuration.

Invariants a change must keep:
- The effective configuration is the packaged default (``config/*.yaml``)
  deep-merged with the project's own files; every key the project sets is
  validated against ``schemas/config/*.schema.json``: an unknown key, a wrong
  type or a bad glob is a ConfigError naming the file and the key.
- The configuration is read through one typed object (``Config``: a frozen
  dataclass per section), built once the files are validated; no reader goes
  by string key.
- ``config_hash`` covers the effective project and confidence configuration
  (the sections read at build time), so a change makes the index stale; it is
  the digest of the merged mappings as the files give them, not of the typed
  object (the same data and encoding as ever: existing indexes stay current);
  what the extractors themselves depend on is ``ragraf.lang.registry``'s
  fingerprint.
- Credentials are never part of the configuration files ragraf writes.
- ragraf never writes (nor reads its own state) through a symlink inside the project: a
  cloned repository can commit ``.gitignore``, ``AGENTS.md``, ``.ragraf/`` or anything
  under it as a link to a file elsewhere. ``load`` and ``init_project`` refuse a project
  whose ``.ragraf/`` holds one (``refuse_store_links``); the two files outside it are
  checked where they are written (``refuse_link``).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from ragraf import resources
from ragraf.errors import ConfigError, NoIndexError, RefusedError
from ragraf.globs import GlobError, GlobSet
from ragraf.linear_re import compile_linear

DOT = ".ragraf"
# sections read at query time only: changing them does not make the index stale
QUERY_TIME_KEYS = ("project", "root", "repo_map", "search", "drift", "dataflow")


@dataclass(frozen=True)
class Layout:
    """Every path under ``<project>/.ragraf/`` (architecture §4)."""

    root: Path

    @property
    def dot(self) -> Path:
        return self.root / DOT

    @property
    def index_dir(self) -> Path:
        return self.dot / "index"

    @property
    def rev_json(self) -> Path:
        return self.index_dir / "rev.json"

    @property
    def graph_db(self) -> Path:
        return self.index_dir / "graph" / "graph.sqlite"

    @property
    def lexvec_db(self) -> Path:
        return self.index_dir / "lex" / "lexvec.sqlite"

    @property
    def control_db(self) -> Path:
        return self.dot / "control.sqlite"

    @property
    def drift_dir(self) -> Path:
        return self.dot / "drift"

    @property
    def ledger_md(self) -> Path:
        return self.drift_dir / "LEDGER.md"

    @property
    def archive_dir(self) -> Path:
        return self.drift_dir / "archive"

    @property
    def config_dir(self) -> Path:
        return self.dot / "config"

    @property
    def project_yaml(self) -> Path:
        return self.config_dir / "project.yaml"

    @property
    def confidence_yaml(self) -> Path:
        return self.config_dir / "confidence.yaml"

    @property
    def logs_dir(self) -> Path:
        return self.dot / "logs"

    @property
    def lock_file(self) -> Path:
        return self.index_dir / ".build.lock"

    def ensure_dirs(self) -> None:
        for d in (
            self.index_dir / "graph",
            self.index_dir / "lex",
            self.archive_dir,
            self.config_dir,
            self.logs_dir,
        ):
            d.mkdir(parents=True, exist_ok=True)


def find_root(start: Path | None = None) -> Path:
    """The nearest folder at or above ``start`` holding ``.ragraf/`` (like git)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        try:
            if (folder / DOT / "config" / "project.yaml").is_file():
                return folder
        except OSError:  # a folder we may not look into is not our project
            continue
    raise NoIndexError(f"no RAGRAF project at or above {here}; run `ragraf init` there first")


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = v
    return out


@cache
def _schema(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (resources.schemas_dir() / "config" / f"{name}.schema.json").read_text(encoding="utf-8")
    )
    return data


def default_text(name: str) -> str:
    return (resources.config_dir() / f"{name}.yaml").read_text(encoding="utf-8")


#: a configuration file larger than this is refused (they are a few KB)
MAX_CONFIG_BYTES = 1 << 20


class _ConfigLoader(yaml.SafeLoader):
    """YAML without aliases: a configuration has no use for them, and expanding nested
    aliases (a "billion laughs" file) costs gigabytes before anything can be validated."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None,
                None,
                "aliases (*name) are not allowed in a ragraf configuration",
                event.start_mark,
            )
        return super().compose_node(parent, index)


def _parse_yaml(text: str) -> Any:
    """``text`` as YAML without aliases and without a key given twice in one mapping (YAML
    would keep the last silently: a second ``quantize:`` below the first would win unseen);
    libyaml's C parser when PyYAML has it (a configuration is read on every ``ragraf`` start:
    1-2 ms instead of ~25 ms), the pure-Python ``_ConfigLoader`` otherwise. Both are refused
    from the event stream, before anything is built."""
    loader = yaml.CSafeLoader if yaml.__with_libyaml__ else _ConfigLoader
    _check_events(yaml.parse(text, Loader=loader))
    return yaml.load(text, Loader=loader)  # noqa: S506 - safe, aliases refused above


def _check_events(events: Iterable[yaml.Event]) -> None:
    # one entry per open collection: (its keys so far, or None for a sequence; whether the
    # next item of a mapping is a key)
    stack: list[tuple[set[str] | None, list[bool]]] = []
    for event in events:
        mark = event.start_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        if isinstance(event, yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, f"aliases (*name) are not allowed in a ragraf configuration{where}"
            )
        if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            is_map = isinstance(event, yaml.MappingStartEvent)
            stack.append((set() if is_map else None, [True]))
            continue
        if isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            stack.pop()
        elif isinstance(event, yaml.ScalarEvent) and stack and stack[-1][0] is not None:
            keys, want_key = stack[-1]
            if want_key[0] and keys is not None:
                if event.value in keys:
                    raise yaml.composer.ComposerError(
                        None, None, f"the key {event.value!r} is given twice in one mapping{where}"
                    )
                keys.add(event.value)
        else:
            continue
        if stack and stack[-1][0] is not None:  # an item of a mapping ended: key <-> value
            stack[-1][1][0] = not stack[-1][1][0]


def _load_yaml(path: Path) -> tuple[dict[str, Any] | None, bytes]:
    """The mapping in ``path`` (None when the file does not exist) and its bytes."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return None, b""
    except OSError as e:
        raise ConfigError(f"{path}: cannot read ({e.strerror or e})") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"{path}: larger than {MAX_CONFIG_BYTES} bytes; not a ragraf configuration"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid UTF-8") from None
    try:
        data = _parse_yaml(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from None
    if data is None:
        return {}, raw
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of keys")
    return data, raw


#: the file (in the index folder) naming the configuration files that passed validation, by
#: the sha256 of their bytes and of the schema: jsonschema's import and first validation cost
#: ~60 ms, paid by every ``ragraf`` start otherwise. Only a cache: when it is missing, stale or
#: unwritable, the files are validated as before.
CHECKED_FILE = "config-checked"


def _fingerprint(name: str, raw: bytes) -> str:
    schema = json.dumps(_schema(name), sort_keys=True).encode()
    return f"{name}:" + hashlib.sha256(schema + b"\0" + raw).hexdigest()


def _checked(layout: Layout) -> set[str]:
    try:
        return set((layout.index_dir / CHECKED_FILE).read_text(encoding="ascii").split())
    except (OSError, UnicodeDecodeError):
        return set()


def _remember_checked(layout: Layout, prints: list[str]) -> None:
    target = layout.index_dir / CHECKED_FILE
    tmp = target.with_name(f"{CHECKED_FILE}.{os.getpid()}.tmp")
    try:
        tmp.write_text("\n".join(prints) + "\n", encoding="ascii")
        os.replace(tmp, target)
    except OSError:  # a read-only store or no index folder yet: validate again next time
        tmp.unlink(missing_ok=True)


def _non_finite(data: Any, key: str = "") -> str | None:
    """The key of the first infinite or NaN number in ``data`` (``.inf`` / ``.nan`` in
    YAML): a NaN passes every ``minimum`` / ``maximum`` of a schema, so it is refused
    before."""
    if isinstance(data, float) and not math.isfinite(data):
        return key or "(top)"
    items = (
        data.items()
        if isinstance(data, dict)
        else enumerate(data)
        if isinstance(data, list)
        else ()
    )
    for k, v in items:
        found = _non_finite(v, f"{key}.{k}" if key else str(k))
        if found is not None:
            return found
    return None


def _validate(data: dict[str, Any], name: str, path: Path) -> None:
    import jsonschema

    bad = _non_finite(data)
    if bad is not None:
        raise ConfigError(f"{path}: key '{bad}': not a finite number")

    # formats checked: "regex" (db.query_builders.receivers)
    validator = jsonschema.Draft202012Validator(
        _schema(name), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    if not errors:
        return
    e = errors[0]
    key = ".".join(str(p) for p in e.absolute_path)
    if e.validator == "additionalProperties":
        extra = sorted(set(e.instance) - set(e.schema.get("properties", {})))
        where = f"{key}." if key else ""
        raise ConfigError(f"{path}: unknown key '{where}{extra[0]}'")
    raise ConfigError(f"{path}: key '{key or '(top)'}': {e.message}")


# -- the typed configuration: one frozen object per section of project.yaml, built once the
# files are validated (``load``); every reader goes by attribute. Each field holds the value
# its readers read, converted as they converted it (``int`` / ``float``); the sections are
# complete because the packaged default is merged under the project's files.


@dataclass(frozen=True)
class CorpusConfig:
    """The top-level keys of project.yaml: which files are the corpus."""

    name: str  # project: a name for humans
    languages: tuple[str, ...] | None  # None: ``auto``, every language the registry knows
    include: tuple[str, ...] | None  # None: the enabled languages' default globs
    exclude: tuple[str, ...]
    secrets_exclude: tuple[str, ...]
    case_insensitive_globs: bool
    max_file_bytes: int


@dataclass(frozen=True)
class QueryBuildersConfig:
    """``db.query_builders``: a project's own query-builder calls."""

    methods: dict[str, str]  # method name -> select | insert | update | delete | replace
    receivers: tuple[str, ...]  # regular expressions on a call's receiver source


@dataclass(frozen=True)
class DbConfig:
    """``db``: the database schema and SQL in code (architecture §6.1, §6.2)."""

    dsn: str | None
    dsn_from: str | None  # a code file holding credentials: never opened
    schema_source: tuple[str, ...]
    dialect: str
    table_prefixes: dict[str, str]
    table_helpers: tuple[str, ...]
    query_builders: QueryBuildersConfig
    connect_timeout: float

    def connection(self) -> dict[str, Any]:
        """What ``ragraf.store.mysql_live.connect_params`` reads of the section."""
        return {"dsn": self.dsn, "connect_timeout": self.connect_timeout}


@dataclass(frozen=True)
class EmbeddingConfig:
    """``embedding``: the model of the vectors."""

    model: str
    dim: int
    path: str | None  # a folder with the model files; None: the packaged model
    max_tokens: int
    quantize: str  # int8 | none

    def as_mapping(self) -> dict[str, Any]:
        """The section as ``ragraf.embed`` takes it (a mapping: it crosses to the embedding
        helper's process as JSON)."""
        return {
            "model": self.model,
            "dim": self.dim,
            "path": self.path,
            "max_tokens": self.max_tokens,
            "quantize": self.quantize,
        }


@dataclass(frozen=True)
class ChunkingConfig:
    by_symbol: bool
    max_chunk_lines: int


@dataclass(frozen=True)
class IndexConfig:
    """``index``: revisions kept, parser processes, a file's extraction budget."""

    retain_revs: int
    workers: int  # 0: one per usable CPU (``Config.workers``)
    file_time_budget_s: float

    @property
    def time_budget(self) -> float | None:
        """The extraction budget of a file in seconds; None: no limit (0 in the file)."""
        return self.file_time_budget_s or None


@dataclass(frozen=True)
class ResolveConfig:
    max_heuristic_candidates: int
    max_ambiguous_candidates: int
    scoped: bool  # a reindex resolves and writes again only the files a change can affect


@dataclass(frozen=True)
class DriftConfig:
    slice_similarity: float


@dataclass(frozen=True)
class RepoMapConfig:
    """``repo_map`` (query time): the ranking of ``repo_map``."""

    alpha: float
    epsilon: float
    max_iter: int
    kcore_boost: float
    max_candidates: int
    knapsack_max_cells: int
    edge_weights: dict[str, float]  # edge kind -> weight


@dataclass(frozen=True)
class FlowRules:
    """One language's sources and sinks of ``flow`` (``dataflow`` for PHP,
    ``dataflow.languages.<name>`` for the others)."""

    sources: tuple[str, ...]
    sql_calls: tuple[str, ...]
    output_calls: tuple[str, ...]
    shell_calls: tuple[str, ...]
    code_calls: tuple[str, ...] = ()


@dataclass(frozen=True)
class DataflowConfig:
    """``dataflow`` (query time): the sources and sinks of ``flow``; the top-level keys are
    PHP's, ``languages`` holds the other languages' (``rules``)."""

    sources: tuple[str, ...]
    sql_calls: tuple[str, ...]
    output_calls: tuple[str, ...]
    shell_calls: tuple[str, ...]
    include: bool  # include / require of a tainted path is a sink
    languages: dict[str, FlowRules] = field(default_factory=dict)

    def rules(self, lang: str | None, family: str | None = None) -> FlowRules:
        """The sources and sinks of one language (PHP's: the top-level keys; a language
        without a section: its ``family``'s, TypeScript's JavaScript's, else none)."""
        if lang == "php" or lang is None:
            return FlowRules(self.sources, self.sql_calls, self.output_calls, self.shell_calls)
        got = self.languages.get(lang) or (self.languages.get(family) if family else None)
        return got or FlowRules((), (), (), ())

    def all_sources(self) -> tuple[str, ...]:
        """Every language's configured sources, PHP's first."""
        out = list(self.sources)
        for r in self.languages.values():
            out += [x for x in r.sources if x not in out]
        return tuple(out)


@dataclass(frozen=True)
class SearchConfig:
    """``search`` (query time): channels, fusion, re-ranking and abstention."""

    bm25_weights: dict[str, float]  # FTS column -> weight
    stopwords: tuple[str, ...]
    rrf_k: int
    candidates: int
    abstain_cosine: float
    promote_cosine: float
    generic_words: tuple[str, ...]
    min_term_coverage: float
    strong_z: float
    expansion_terms: int
    expansion_weight: float
    rerank_top: int
    rerank_weights: dict[str, float]  # feature -> weight
    vendored_paths: tuple[str, ...]
    name_weight: float
    strong_channels: tuple[str, ...]
    coverage_cosine: float
    near_band: float
    min_near_meet: float
    near_cosine: float
    function_words: tuple[str, ...]
    ui_weight: float = 0.5
    neighbour_seeds: int = 0
    neighbour_weight: float = 0.5
    agree_cosine: float = 1.01
    floor_margin: float = 0.07

    def floored(self, floor: dict[str, Any] | None) -> SearchConfig:
        """The section with its cosine thresholds raised to the corpus (issue 46):
        ``abstain_cosine`` is at least the best cosine nine in ten sentences of everyday
        English stay under in this corpus (``floor["q90"]``, measured at index time:
        ``ragraf.indexing.search_floor``; the max is one sentence's accident) plus
        ``floor_margin``, and ``promote_cosine``, ``coverage_cosine`` and ``near_cosine``
        rise by as much. A corpus where everyday words come nearer the code (a large one, one
        with much prose) needs more to call a query answered; the configured thresholds are
        the least (fitted where everyday English stays far: lowering them on a small corpus
        let near misses through). Unchanged without a floor or with ``floor_margin`` < 0."""
        if not floor or self.floor_margin < 0 or "q90" not in floor:
            return self
        shift = max(0.0, float(floor["q90"]) + self.floor_margin - self.abstain_cosine)
        if shift == 0.0:
            return self
        return dataclasses.replace(
            self,
            abstain_cosine=round(self.abstain_cosine + shift, 4),
            promote_cosine=round(self.promote_cosine + shift, 4),
            coverage_cosine=round(self.coverage_cosine + shift, 4),
            near_cosine=round(self.near_cosine + shift, 4),
        )

    def calibrated(self, params: dict[str, Any]) -> SearchConfig:
        """The section with the thresholds a calibration recorded in place (``ragraf
        calibrate``: abstain_cosine, min_term_coverage, min_near_meet)."""

        def given(key: str, now: float) -> float:
            return float(params[key]) if key in params else now

        return dataclasses.replace(
            self,
            abstain_cosine=given("abstain_cosine", self.abstain_cosine),
            min_term_coverage=given("min_term_coverage", self.min_term_coverage),
            min_near_meet=given("min_near_meet", self.min_near_meet),
        )


def _strs(v: Any) -> tuple[str, ...]:
    return tuple(str(x) for x in v)


def _floats(v: dict[str, Any]) -> dict[str, float]:
    return {str(k): float(x) for k, x in v.items()}


def _sections(p: dict[str, Any]) -> dict[str, Any]:
    """The typed sections of the effective (merged, validated) project configuration."""
    db, emb, idx, res = p["db"], p["embedding"], p["index"], p["resolve"]
    rm, flow, s = p["repo_map"], p["dataflow"], p["search"]
    langs = p.get("languages", "auto")
    qb = db.get("query_builders") or {}
    return {
        "corpus": CorpusConfig(
            name=str(p.get("project") or ""),
            languages=None if langs == "auto" else _strs(langs),
            include=None if p.get("include") is None else _strs(p["include"]),
            exclude=_strs(p["exclude"]),
            secrets_exclude=_strs(p["secrets_exclude"]),
            case_insensitive_globs=bool(p["case_insensitive_globs"]),
            max_file_bytes=int(p["max_file_bytes"]),
        ),
        "db": DbConfig(
            dsn=db.get("dsn"),
            dsn_from=db.get("dsn_from"),
            schema_source=_strs(db.get("schema_source") or ()),
            dialect=str(db.get("dialect") or "auto"),
            table_prefixes={str(k): str(v) for k, v in db["table_prefixes"].items()},
            table_helpers=_strs(db.get("table_helpers") or ()),
            query_builders=QueryBuildersConfig(
                {str(k): str(v) for k, v in (qb.get("methods") or {}).items()},
                _strs(qb.get("receivers") or ()),
            ),
            connect_timeout=float(db["connect_timeout"]),
        ),
        "embedding": EmbeddingConfig(
            model=str(emb["model"]),
            dim=int(emb["dim"]),
            path=emb.get("path"),
            max_tokens=int(emb["max_tokens"]),
            quantize=str(emb["quantize"]),
        ),
        "chunking": ChunkingConfig(
            bool(p["chunking"]["by_symbol"]), int(p["chunking"]["max_chunk_lines"])
        ),
        "index": IndexConfig(
            int(idx["retain_revs"]), int(idx["workers"]), float(idx["file_time_budget_s"])
        ),
        "resolve": ResolveConfig(
            int(res["max_heuristic_candidates"]),
            int(res["max_ambiguous_candidates"]),
            bool(res.get("scoped")),
        ),
        "drift": DriftConfig(float(p["drift"]["slice_similarity"])),
        "repo_map": RepoMapConfig(
            alpha=float(rm["alpha"]),
            epsilon=float(rm["epsilon"]),
            max_iter=int(rm["max_iter"]),
            kcore_boost=float(rm["kcore_boost"]),
            max_candidates=int(rm["max_candidates"]),
            knapsack_max_cells=int(rm["knapsack_max_cells"]),
            edge_weights=_floats(rm["edge_weights"]),
        ),
        "dataflow": DataflowConfig(
            sources=_strs(flow.get("sources") or ()),
            sql_calls=_strs(flow.get("sql_calls") or ()),
            output_calls=_strs(flow.get("output_calls") or ()),
            shell_calls=_strs(flow.get("shell_calls") or ()),
            include=bool(flow.get("include", True)),
            languages={
                str(name): FlowRules(
                    sources=_strs(r.get("sources") or ()),
                    sql_calls=_strs(r.get("sql_calls") or ()),
                    output_calls=_strs(r.get("output_calls") or ()),
                    shell_calls=_strs(r.get("shell_calls") or ()),
                    code_calls=_strs(r.get("code_calls") or ()),
                )
                for name, r in (flow.get("languages") or {}).items()
            },
        ),
        "search": SearchConfig(
            bm25_weights=_floats(s["bm25_weights"]),
            stopwords=_strs(s["stopwords"]),
            rrf_k=int(s["rrf_k"]),
            candidates=int(s["candidates"]),
            abstain_cosine=float(s["abstain_cosine"]),
            promote_cosine=float(s["promote_cosine"]),
            generic_words=_strs(s["generic_words"]),
            min_term_coverage=float(s["min_term_coverage"]),
            strong_z=float(s["strong_z"]),
            expansion_terms=int(s["expansion_terms"]),
            expansion_weight=float(s["expansion_weight"]),
            rerank_top=int(s["rerank_top"]),
            rerank_weights=_floats(s["rerank_weights"]),
            vendored_paths=_strs(s["vendored_paths"]),
            name_weight=float(s["name_weight"]),
            strong_channels=_strs(s["strong_channels"]),
            coverage_cosine=float(s["coverage_cosine"]),
            near_band=float(s["near_band"]),
            min_near_meet=float(s["min_near_meet"]),
            near_cosine=float(s["near_cosine"]),
            function_words=_strs(s["function_words"]),
            ui_weight=float(s["ui_weight"]),
            neighbour_seeds=int(s["neighbour_seeds"]),
            neighbour_weight=float(s["neighbour_weight"]),
            agree_cosine=float(s["agree_cosine"]),
            floor_margin=float(s["floor_margin"]),
        ),
    }


def config_hash(project: dict[str, Any], confidence: dict[str, Any]) -> str:
    """The digest of what a revision depends on in the configuration: the effective
    project configuration but its query-time sections, and the confidences, as the files
    give them (the same data and encoding as every revision before: a change of it would
    make every existing index stale)."""
    payload = {
        "project": {k: v for k, v in project.items() if k not in QUERY_TIME_KEYS},
        "confidence": confidence,
    }
    return hashlib.sha1(json.dumps(payload, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Config:
    """The effective configuration of a project, typed (``load`` builds it once the files
    are validated). ``config_hash`` is the digest of the files' merged data as loaded
    (``config_hash``); a copy made with ``dataclasses.replace`` keeps it."""

    root: Path
    corpus: CorpusConfig
    db: DbConfig
    embedding: EmbeddingConfig
    chunking: ChunkingConfig
    index: IndexConfig
    resolve: ResolveConfig
    drift: DriftConfig
    repo_map: RepoMapConfig
    dataflow: DataflowConfig
    search: SearchConfig
    #: confidence.yaml: how an edge was established -> its confidence (the linker's
    #: vocabulary, calibratable), as the files give them
    confidence: dict[str, float]
    config_hash: str
    project_file: Path | None = None

    @classmethod
    def of(
        cls,
        root: Path,
        project: dict[str, Any],
        confidence: dict[str, Any],
        project_file: Path | None = None,
    ) -> Config:
        """The typed configuration of the effective (merged, validated) mappings."""
        return cls(
            root=root,
            **_sections(project),
            confidence=confidence,
            config_hash=config_hash(project, confidence),
            project_file=project_file,
        )

    @property
    def layout(self) -> Layout:
        return Layout(self.root)

    def globset(self, key: str, patterns: Sequence[str]) -> GlobSet:
        """``patterns``, the globs of ``key`` (``include``: as ``ragraf.corpus.include_globs``
        resolves ``include: null``), compiled; a bad glob is a ConfigError naming the key."""
        try:
            return GlobSet(patterns, case_insensitive=self.corpus.case_insensitive_globs)
        except GlobError as e:
            raise ConfigError(
                f"{self.project_file or 'project.yaml'}: key '{key}': bad glob: {e}"
            ) from e

    def conf(self, key: str) -> float:
        return float(self.confidence[key])

    def workers(self) -> int:
        n = self.index.workers
        if n > 0:
            return n
        from ragraf import cpus

        return cpus.usable()


def refuse_link(path: Path) -> None:
    """RefusedError when ``path`` is a symlink: ragraf never writes through one."""
    if path.is_symlink():
        raise RefusedError(
            f"{path} is a symlink (to {os.readlink(path)}): ragraf never writes through a "
            "link inside the project; replace it with a plain file or folder"
        )


def refuse_store_links(layout: Layout) -> None:
    """RefusedError naming the first symlink at or under ``.ragraf/`` (none is ragraf's)."""
    refuse_link(layout.dot)
    if not layout.dot.is_dir():
        return
    for folder, dirs, files in os.walk(layout.dot):
        for name in sorted(dirs + files):
            refuse_link(Path(folder) / name)


def load(root: Path) -> Config:
    """The effective configuration of the project at ``root``."""
    layout = Layout(root)
    refuse_store_links(layout)
    defaults_p = _parse_yaml(default_text("project")) or {}
    defaults_c = _parse_yaml(default_text("confidence")) or {}
    user_p, raw_p = _load_yaml(layout.project_yaml)
    user_c, raw_c = _load_yaml(layout.confidence_yaml)
    user_p, user_c = user_p or {}, user_c or {}
    known = _checked(layout)
    prints = [_fingerprint("project", raw_p), _fingerprint("confidence", raw_c)]
    if not set(prints) <= known:
        _validate(user_p, "project", layout.project_yaml)
        _validate(user_c, "confidence", layout.confidence_yaml)
        if layout.index_dir.is_dir():
            _remember_checked(layout, prints)
    cfg = Config.of(
        root,
        _deep_merge(defaults_p, user_p),
        _deep_merge(defaults_c, user_c),
        project_file=layout.project_yaml,
    )
    corpus = cfg.corpus
    for key, patterns in (
        ("include", corpus.include),
        ("exclude", corpus.exclude),
        ("secrets_exclude", corpus.secrets_exclude),
    ):
        if patterns is not None:  # include: null = the languages' globs
            cfg.globset(key, patterns)  # validate globs now, with the file and key named
    globs = [("db.schema_source", g) for g in cfg.db.schema_source]
    globs += [("search.vendored_paths", g) for g in cfg.search.vendored_paths]
    for key, g in globs:
        if g not in ("information_schema", "auto"):
            try:
                GlobSet([g])
            except GlobError as e:
                raise ConfigError(f"{layout.project_yaml}: key '{key}': bad glob: {e}") from e
    for i, rx in enumerate(cfg.db.query_builders.receivers):
        try:
            compile_linear(rx)  # RE2: a pattern from the repository runs in linear time
        except ValueError as e:
            raise ConfigError(
                f"{layout.project_yaml}: key 'db.query_builders.receivers[{i}]': {e}"
            ) from None
    return cfg


def init_project(root: Path) -> list[Path]:
    """Write the default configuration files; existing files are kept. Returns written files."""
    if not root.is_dir():
        raise ConfigError(f"{root}: not a folder")
    layout = Layout(root)
    refuse_store_links(layout)
    ignored = ignore_store(root)  # first: a .gitignore that is a link refuses init whole
    layout.ensure_dirs()
    written = []
    for name, target in (("project", layout.project_yaml), ("confidence", layout.confidence_yaml)):
        if not target.exists():
            target.write_text(default_text(name), encoding="utf-8")
            written.append(target)
    if ignored:
        written.append(root / ".gitignore")
    load(root)  # an existing file that is invalid is reported now
    return written


#: what ``ignore_store`` appends to .gitignore (``ragraf uninit`` removes exactly this)
GITIGNORE_LINES = "# the RAGRAF index (local, rebuilt by `ragraf index`)\n.ragraf/\n"


def ignore_store(root: Path) -> bool:
    """Add ``.ragraf/`` to the project's .gitignore (created if missing); True when it
    changed. The store is local state: committed, a crafted one would travel with the
    repository, and it would churn on every build."""
    from ragraf import gitinfo

    if gitinfo.ignores(root / DOT):
        return False
    path = root / ".gitignore"
    refuse_link(path)
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read ({e})") from None
    if any(
        line.strip() in (".ragraf", ".ragraf/", "/.ragraf", "/.ragraf/")
        for line in text.splitlines()
    ):
        return False
    sep = "" if not text or text.endswith("\n") else "\n"
    path.write_text(f"{text}{sep}{GITIGNORE_LINES}", encoding="utf-8")
    return True
