"""The language registry: which files are which language, who extracts them,
and what their facts depend on.

Scan, extraction, chunking, drift and resolution ask the registry; no other
module tests a language name. A language is one entry here plus, when it has
structure, one extractor module exposing ``extract(path, text, max_lines) ->
FileFacts`` (and its query files in ``ragraf/queries/``), and the modules of its
own folder its hooks name: ``prepare`` (the facts rewritten once every file is
known) and ``link`` (the resolver's handlers of the references only it produces,
``ragraf.lang.linking``).

Invariants a change must keep:
- A suffix belongs to one language (checked when the registry is built).
- ``facts_key`` changes whenever anything the facts of a file depend on
  changes: the facts format version, the language's extractor source (for a
  package, every module in it) and query files, the tree-sitter, tree-sitter-language-pack and sqlglot
  versions, the chunk size and the path. A cached FileFacts is reused only
  under an equal key. A language's ``link`` modules shape links, not facts: they
  are left out of it (the resolve memo's key covers them).
- Extraction never raises for bad input: a file the extractor cannot handle
  comes back ``failed`` with a note.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ragraf import failpoints, resources
from ragraf.kinds import Layer

if TYPE_CHECKING:
    from ragraf.lang.facts import FileFacts

#: version of the FileFacts format and of the extraction rules not visible in source
#: digests: bump it when FileFacts fields change meaning (an extractor's own source is in
#: ``fingerprint`` already); its history is docs/architecture.md §9.2, "Facts versions"
FACTS_VERSION = "ragraf-facts/48"
#: the words of a failed file's note when its extractor raised (``extract``)
EXTRACTOR_FAILED = "extractor failed"


@dataclass(frozen=True)
class Language:
    name: str
    suffixes: tuple[str, ...]
    #: module with ``extract(path, text, max_lines) -> FileFacts``; None: plain text windows
    extractor: str | None = None
    #: tree-sitter query files (package data in ragraf/queries/) the extractor runs
    queries: tuple[str, ...] = ()
    #: further modules (or packages: all their modules) whose code shapes the facts (their
    #: source is part of facts_key)
    depends_on: tuple[str, ...] = ()
    #: the tree-sitter grammar the extractor parses with (for the version stamp)
    grammar: str | None = None
    #: the analysers named in the ``sources`` of edges this language's files state
    sources: tuple[str, ...] = ("tree-sitter",)
    #: 'structural' code or 'text' (P6)
    layer: Layer = Layer.STRUCTURAL
    #: which ft_chunk column plain windows of this language fill: code | sql | text
    window_tokens: str = "code"
    #: whether drift diffs the file's declarations (functions, classes...)
    declares_symbols: bool = False
    #: the include globs that select this language's files when ``include`` is not set in
    #: project.yaml (``languages`` says which languages' globs apply)
    include: tuple[str, ...] = ()
    #: the method a class instantiation calls (``new C`` / ``C()``)
    constructor: str = "__construct"
    #: what separates a declaration's short name from its qualifier in a function fqn
    name_sep: str = "\\"
    #: module with ``prepare(files, all_files) -> files`` run on this language's facts once
    #: every file is known, before the linker (cross-file name resolution the file alone
    #: cannot do, e.g. Python's imports); None: the facts are linked as they are
    prepare: str | None = None
    #: modules with ``linking(ctx) -> Linking`` (``ragraf.lang.linking``): the resolver's
    #: handlers of the reference types only this language produces and what it knows at
    #: link time; a module several languages name is set up once
    link: tuple[str, ...] = ()
    #: tags-level languages (``ragraf.lang.tags``): the group whose declarations a use by
    #: name may match (C and C++ share one); None: the language's own name
    name_group: str | None = None
    #: build output of this language (a bundler's file): markers in the first
    #: ``BUILD_HEAD`` characters, or on the last line; such a file is recorded as skipped,
    #: not indexed (its source is the code, or it is a dependency's build)
    build_head: tuple[str, ...] = ()
    build_tail: tuple[str, ...] = ()
    #: whether its files' chunks get vectors (false: markup, found by its words only)
    embeds: bool = True
    #: names of files of other languages its ``prepare`` hook reads too (JavaScript's
    #: manifests: where a module specifier leads)
    prepare_reads: tuple[str, ...] = ()
    #: whether its extractor builds the data-flow layer (``FileFacts.flows``: slice, flow)
    dataflow: bool = False
    #: how the data-flow layer of this language writes a variable (issue 42): the sigil
    #: a local variable starts with (PHP's ``$``; none elsewhere) and the prefix of a field
    #: of the object a method runs on (``$this->``, ``self.``, ``this.``). The facade reads
    #: them through ``flow_naming`` only (a ``--variable`` as an agent types it, a
    #: parameter source ``f(x)``, which definitions of an entry are parameters)
    flow_sigil: str = ""
    flow_self: str = "this."
    #: reference types only this language's facts hold (``"<module>:<Name>"``, NamedTuples
    #: of plain values, references' parts and type descriptors), besides the shared
    #: ``ragraf.lang.facts.FACT_TYPES``: the facts cache writes and reads them too
    fact_types: tuple[str, ...] = ()
    #: whether a method's name is case-sensitive (a call by name alone matches only the
    #: methods of its exact name: Go's ``URL()`` is not ``url()``); false: PHP's rule
    case_sensitive: bool = False
    #: a call by name alone (an untyped receiver) links only to one method and the overrides
    #: below it (one hierarchy), never to methods of unrelated classes, nor when the
    #: language's own classes declare that name (``"module:NAME"`` of a frozenset of lower
    #: names: PHP's ``DateTime::format``); None: every method of the name may be the one
    builtin_methods: str | None = None


#: how much of a file's start ``build_output`` reads
BUILD_HEAD = 4096

_COMMON = (
    "ragraf.lang.facts",
    "ragraf.lang.typedesc",
    "ragraf.lang.chunking",
    "ragraf.lang.tstree",
    "ragraf.tokens",
    "ragraf.ids",
    "ragraf.kinds",
    "ragraf.sql.sqltext",  # chunking tests strings for SQL with it
    "ragraf.redact",  # the texts extracted are redacted: cached facts made before are not
)

#: the PHP files of a Drupal module, theme or profile besides ``.php``
DRUPAL_SUFFIXES = (".module", ".install", ".theme", ".profile", ".engine")
#: the data-flow core and the block-structured walk Go's and Java's flow layers subclass
_BLOCK_FLOW = ("ragraf.lang.flowcore", "ragraf.lang.flowblocks")
#: the JavaScript / TypeScript manifests' reader (the ``json`` language hands them over)
_JS_MANIFEST = "ragraf.lang.js.manifest"
_JS_MANIFESTS = ("package.json", "tsconfig.json", "jsconfig.json")
#: templates named by code and by templates (PHP's views, Twig, Mustache)
_TEMPLATE_LINKS = "ragraf.lang.php.link.templates"

LANGUAGES: tuple[Language, ...] = (
    Language(
        "php",
        # Drupal's code lives in .module, .install, .theme, .profile and .engine files
        (".php", ".phtml", ".inc", *DRUPAL_SUFFIXES),
        extractor="ragraf.lang.php",
        queries=("php-tags.scm",),
        depends_on=(
            *_COMMON,
            "ragraf.lang.templates",
            "ragraf.lang.template_calls",
            "ragraf.lang.flowcore",
        ),
        grammar="php",
        declares_symbols=True,
        dataflow=True,
        flow_sigil="$",
        flow_self="$this->",
        include=("**/*.php", *(f"**/*{x}" for x in DRUPAL_SUFFIXES)),
        builtin_methods="ragraf.lang.php.link.builtins:BUILTIN_METHODS",
        link=(
            "ragraf.lang.php.link",
            "ragraf.lang.php.link.callbacks",
            "ragraf.lang.php.link.hooks",
            "ragraf.lang.php.link.includes",
            "ragraf.lang.php.link.requests",
            _TEMPLATE_LINKS,
        ),
    ),
    Language(
        "json",
        (".json",),
        extractor="ragraf.lang.hook_manifest",  # MediaWiki's manifests register hook handlers
        # package.json, tsconfig.json: where JavaScript / TypeScript modules lead
        depends_on=(*_COMMON, "ragraf.lang.plain", "ragraf.lang.php.hooks", _JS_MANIFEST),
        sources=("json",),
        include=("**/extension.json", "**/skin.json"),
        link=("ragraf.lang.php.link.hooks",),  # the runs are PHP's
    ),
    Language(
        "twig",
        (".twig",),
        extractor="ragraf.lang.views",  # the templates a template includes or extends
        depends_on=(
            *_COMMON,
            "ragraf.lang.plain",
            "ragraf.lang.templates",
            "ragraf.lang.template_calls",
        ),
        sources=("twig",),
        include=("**/*.twig",),
        link=(_TEMPLATE_LINKS,),
        embeds=False,  # markup: its words are its meaning for search
        name_group="php",  # its calls by name are of the PHP methods it renders
    ),
    Language(
        "mustache",
        (".mustache",),
        extractor="ragraf.lang.views",  # the partials a template includes
        depends_on=(
            *_COMMON,
            "ragraf.lang.plain",
            "ragraf.lang.templates",
            "ragraf.lang.template_calls",
        ),
        sources=("mustache",),
        include=("**/*.mustache",),
        link=(_TEMPLATE_LINKS,),
        embeds=False,  # markup: its words are its meaning for search
    ),
    Language(
        "markdown",
        (".md",),
        extractor="ragraf.lang.markdown",
        depends_on=_COMMON,
        sources=("markdown",),
        layer=Layer.TEXT,
        window_tokens="text",
        include=("**/*.md",),
    ),
    Language(
        "sql",
        (".sql",),
        depends_on=_COMMON,
        window_tokens="sql",
        include=("**/*.sql",),  # db.schema_source auto picks the schema files among them
    ),
    Language(
        "python",
        # pyproject.toml / setup.cfg: where the project's packages are (lang.python.roots)
        (".py", ".toml", ".cfg"),
        extractor="ragraf.lang.python",
        queries=("python-tags.scm",),
        depends_on=(*_COMMON, "ragraf.lang.flowcore"),
        grammar="python",
        declares_symbols=True,
        dataflow=True,
        flow_self="self.",
        include=("**/*.py", "**/pyproject.toml", "**/setup.cfg"),
        constructor="__init__",
        name_sep=".",
        prepare="ragraf.lang.python.link",
        case_sensitive=True,
    ),
    Language(
        "go",
        (".go", ".mod"),  # go.mod: the module path its directory's import paths start with
        extractor="ragraf.lang.go",
        queries=("go-tags.scm",),
        depends_on=(*_COMMON, *_BLOCK_FLOW),
        grammar="go",
        declares_symbols=True,
        include=("**/*.go", "**/go.mod"),
        constructor="",  # Go has none: a composite literal instantiates only
        name_sep=".",
        prepare="ragraf.lang.go.link",
        case_sensitive=True,
        dataflow=True,
    ),
    Language(
        "java",
        (".java",),
        extractor="ragraf.lang.java",
        queries=("java-tags.scm",),
        depends_on=(*_COMMON, *_BLOCK_FLOW),
        grammar="java",
        declares_symbols=True,
        include=("**/*.java",),
        constructor="<init>",
        name_sep=".",
        prepare="ragraf.lang.java.link",
        case_sensitive=True,
        dataflow=True,
    ),
    *(
        Language(
            name,
            suffixes,
            extractor="ragraf.lang.js",  # one package for the three (grammar by suffix)
            queries=(f"{name}-tags.scm",),
            depends_on=(*_COMMON, "ragraf.lang.flowcore"),
            grammar=name,
            declares_symbols=True,
            dataflow=True,
            include=(*(f"**/*{s}" for s in suffixes), *(f"**/{m}" for m in _JS_MANIFESTS)),
            prepare_reads=_JS_MANIFESTS,
            constructor="constructor",
            name_sep=".",
            prepare="ragraf.lang.js.link",
            name_group="javascript",  # one family for calls by name (call_family)
            # webpack's runtime; a source map comment as the last line (bundlers, tsc, babel)
            build_head=("webpackBootstrap",),
            build_tail=("//# sourceMappingURL=",),
        )
        for name, suffixes in (
            ("javascript", (".js", ".mjs", ".cjs", ".jsx")),
            ("typescript", (".ts", ".mts", ".cts")),
            ("tsx", (".tsx",)),
        )
    ),
)


#: the extractor of the tags-level languages
TAGS_EXTRACTOR = "ragraf.lang.tags"


def _tags(
    name: str,
    suffixes: tuple[str, ...],
    sep: str = ".",
    grammar: str | None = None,
    group: str | None = None,
) -> Language:
    """A tags-level language (issue 14): ``ragraf.lang.tags`` driven by
    ``queries/<name>-tags.scm``; definitions, uses by name (derived), syntactic imports."""
    return Language(
        name,
        suffixes,
        extractor=TAGS_EXTRACTOR,
        queries=(f"{name}-tags.scm",),
        depends_on=_COMMON,
        grammar=grammar or name,
        declares_symbols=True,
        include=tuple(f"**/*{s}" for s in suffixes),
        name_sep=sep,
        prepare=TAGS_EXTRACTOR,
        name_group=group,
    )


LANGUAGES += (
    _tags("ruby", (".rb", ".rake"), "::"),
    _tags("csharp", (".cs",)),
    _tags("rust", (".rs",), "::"),
    _tags("kotlin", (".kt", ".kts")),
    _tags("c", (".c", ".h"), "::", group="c"),  # .h: C's (C++ headers: .hpp .hh .hxx)
    _tags("cpp", (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++"), "::", group="c"),
    _tags("swift", (".swift",)),
    _tags("scala", (".scala",)),
    _tags("lua", (".lua",)),
    _tags("bash", (".sh", ".bash")),
)

BY_NAME: dict[str, Language] = {lang.name: lang for lang in LANGUAGES}


def _suffix_map() -> dict[str, Language]:
    out: dict[str, Language] = {}
    for lang in LANGUAGES:
        for suffix in lang.suffixes:
            if suffix in out:
                raise RuntimeError(f"suffix {suffix} claimed by {out[suffix].name} and {lang.name}")
            out[suffix] = lang
    return out


BY_SUFFIX = _suffix_map()


def names() -> tuple[str, ...]:
    return tuple(BY_NAME)


def default_include(enabled: Iterable[str]) -> list[str]:
    """The include globs of these languages, in registry order, each once."""
    wanted = set(enabled)
    out: list[str] = []
    for lang in LANGUAGES:
        if lang.name in wanted:
            out.extend(g for g in lang.include if g not in out)
    return out


def language_of(path: str) -> Language | None:
    return BY_SUFFIX.get(os.path.splitext(path)[1].lower())


def build_output(lang_name: str | None, text: str) -> str | None:
    """Why a file of this language is build output (a note), or None when it is source."""
    lang = get(lang_name)
    if lang is None or not (lang.build_head or lang.build_tail):
        return None
    head = text[:BUILD_HEAD]
    for m in lang.build_head:
        if m in head:
            return f"build output ({m!r} in its first lines): not indexed"
    last = text[-BUILD_HEAD:].rstrip().rpartition("\n")[2]
    for m in lang.build_tail:
        if last.startswith(m):
            return f"build output (its last line is a {m.strip('=/# ')} comment): not indexed"
    return None


def lang_of(path: str) -> str | None:
    """The language name of a path by its suffix (None: not a known language)."""
    lang = language_of(path)
    return lang.name if lang else None


def get(name: str | None) -> Language | None:
    return BY_NAME.get(name) if name else None


def call_family(name: str | None) -> str:
    """The languages whose declarations a call by name alone may reach: a language's
    ``name_group`` (JavaScript, TypeScript and TSX share one; C and C++), else itself. A
    PHP ``$x->push()`` never names a JavaScript method, nor the other way round."""
    lang = get(name)
    if lang is None:
        return name or ""
    return lang.name_group or lang.name


@cache
def builtin_methods(name: str | None) -> frozenset[str] | None:
    """The lower-case method names a language's own classes declare, when its calls by
    name alone keep to one hierarchy (``Language.builtin_methods``); None: they do not."""
    lang = get(name)
    if lang is None or lang.builtin_methods is None:
        return None
    module, _sep, attr = lang.builtin_methods.partition(":")
    names: frozenset[str] = getattr(importlib.import_module(module), attr)
    return names


def name_group(name: str | None) -> str | None:
    """The group a tags-level language's uses by name are matched in (None: not a
    tags-level language: its uses resolve by its own rules)."""
    lang = get(name)
    if lang is None or lang.extractor != TAGS_EXTRACTOR:
        return None
    return lang.name_group or lang.name


@cache
def dataflow_languages() -> tuple[str, ...]:
    """The languages whose files get the data-flow layer (slice and flow answer there)."""
    return tuple(lang.name for lang in LANGUAGES if lang.dataflow)


@dataclass(frozen=True)
class FlowNaming:
    """How one language's data-flow layer writes variables (``Language.flow_sigil`` /
    ``flow_self``): what the facade needs to read an agent's variable name and a unit's
    entry the way the walk wrote them."""

    lang: str
    sigil: str
    self_prefix: str

    def var(self, name: str) -> str:
        """A variable as the walk writes it: ``total`` is ``$total`` in PHP; ``this.p``,
        ``self.p`` and ``$this->p`` stay as they are."""
        name = name.strip()
        if not self.sigil or name.startswith(self.sigil) or name.startswith(self.self_prefix):
            return name
        return self.sigil + name

    def is_field(self, name: str) -> bool:
        """Whether a definition is a field of the receiver (``$this->p``, ``self.p``)."""
        return bool(self.self_prefix) and name.startswith(self.self_prefix)

    def param_of(self, name: str) -> str:
        """The parameter a receiver's field set at entry comes from (PHP's promoted
        constructor parameter ``$this->db`` is ``$db``); any other name as it is."""
        if self.is_field(name):
            return self.sigil + name[len(self.self_prefix) :]
        return name


def flow_naming(lang: str | None) -> FlowNaming:
    """The variable naming of a language's data-flow layer (a language without the layer,
    or None: no sigil, ``this.``)."""
    x = get(lang)
    if x is None:
        return FlowNaming(lang or "", "", "this.")
    return FlowNaming(x.name, x.flow_sigil, x.flow_self)


def code_language(name: str | None) -> bool:
    """Whether a language is code with declarations (not markup, text or data)."""
    lang = get(name)
    return lang is not None and lang.declares_symbols


def markup_suffixes() -> tuple[str, ...]:
    """The suffixes of the languages whose chunks get no vector (``Language.embeds``)."""
    return tuple(x for lang in LANGUAGES if not lang.embeds for x in lang.suffixes)


def suffixes_of(name: str) -> tuple[str, ...]:
    lang = BY_NAME.get(name)
    return lang.suffixes if lang else ("." + name,)


def extract(
    path: str, lang_name: str | None, text: str, max_lines: int, like: FileFacts | None = None
) -> FileFacts:
    """The facts of one file: the language's extractor, or plain windows of text. ``like``:
    facts an earlier extraction of the file made under the same facts key (its SQL strings'
    analyses are taken where their fragments are the same: ``facts.known_sql``; the result
    is the same). An extractor that raises on the file (a bug of ragraf's) makes it a
    failed file with the error in its note; the build goes on."""
    lang = get(lang_name)
    if lang is not None and lang.extractor is not None:
        module = importlib.import_module(lang.extractor)
        try:
            failpoints.failpoint(f"extract@{path}")
            if like is not None:
                from ragraf.lang.facts import known_sql

                with known_sql(like.refs):
                    facts: FileFacts = module.extract(path, text, max_lines)
            else:
                facts = module.extract(path, text, max_lines)
        except RecursionError:
            from ragraf.kinds import ParseStatus
            from ragraf.lang.facts import FileFacts as Facts
            from ragraf.lang.plain import line_count

            return Facts(
                path, lang.name, ParseStatus.FAILED, "too deeply nested to parse", line_count(text)
            )
        except MemoryError:
            raise  # the machine's state, not the file's: not a fact of the file to keep
        except Exception as e:  # a bug of ours on one file must not cost the whole index
            from ragraf.kinds import ParseStatus
            from ragraf.lang.facts import FileFacts as Facts
            from ragraf.lang.plain import line_count

            note = f"not indexed: the {lang.name} {EXTRACTOR_FAILED} ({type(e).__name__}: {e})"
            return Facts(path, lang.name, ParseStatus.FAILED, note[:300], line_count(text))
        return facts
    from ragraf.lang.plain import extract as plain

    return plain(path, lang_name, text, max_lines, lang.window_tokens if lang else "code")


def prepare(files: list[FileFacts]) -> list[FileFacts]:
    """The facts as the linker takes them: each language with a ``prepare`` hook rewrites
    its own files (in place in the list, order kept), seeing every file."""
    by_lang: dict[str, list[int]] = {}
    for i, f in enumerate(files):
        lang = get(f.lang)
        if lang is not None and lang.prepare is not None:
            by_lang.setdefault(lang.name, []).append(i)
    if not by_lang:
        return files
    out = list(files)
    for name, idxs in sorted(by_lang.items()):
        hook = importlib.import_module(BY_NAME[name].prepare or "")
        done = hook.prepare([files[i] for i in idxs], files)
        for i, f in zip(idxs, done, strict=True):
            out[i] = f
    return out


def prepare_reads(path: str) -> bool:
    """Whether some language's ``prepare`` hook reads this file besides its own
    languages' files (``Language.prepare_reads``: by its name)."""
    name = path.rsplit("/", 1)[-1]
    return any(name in lang.prepare_reads for lang in LANGUAGES)


def link_modules() -> tuple[str, ...]:
    """Every language's ``link`` modules, each once, in registry order."""
    return tuple(dict.fromkeys(m for lang in LANGUAGES for m in lang.link))


def fact_types() -> tuple[type, ...]:
    """The NamedTuple types the languages' facts hold besides ``facts.FACT_TYPES``, in the
    order of ``LANGUAGES`` (each once): what ``ragraf.lang.codec`` writes and reads."""
    out: dict[str, type] = {}
    for lang in LANGUAGES:
        for spec in lang.fact_types:
            module, _, name = spec.partition(":")
            out.setdefault(spec, getattr(importlib.import_module(module), name))
    return tuple(out.values())


def warm(names: set[str | None]) -> None:
    """Import the extractors of these languages and let them load what they need once
    (a grammar, a compiled query), so that forked workers start ready."""
    for name in sorted(n for n in names if n):
        lang = get(name)
        if lang is None or lang.extractor is None:
            continue
        module = importlib.import_module(lang.extractor)
        prepare = getattr(module, "warm", None)
        if prepare is not None:
            prepare()


# -- what facts depend on ---------------------------------------------------------------
def _dist_name(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _dist_version(dist: str) -> str:
    """The installed version of a distribution ("absent" when it is not installed): from the
    name of its ``<name>-<version>.dist-info`` folder in the first ``sys.path`` entry that
    has one (the standard layout of an installed wheel, and the entry importlib.metadata
    would take), else from importlib.metadata, whose import and METADATA parsing (the email
    package) cost ~50 ms of every process that computes a facts key."""
    want = _dist_name(dist)
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found = {
            ver
            for n in names
            if n.endswith(".dist-info")
            for name, sep, ver in [n[: -len(".dist-info")].partition("-")]
            if sep and _dist_name(name) == want
        }
        egg = any(
            n.endswith(".egg-info") and _dist_name(n[: -len(".egg-info")].split("-")[0]) == want
            for n in names
        )
        if len(found) == 1 and not egg:
            return found.pop()
        if found or egg:
            break  # two versions side by side, or an egg: let importlib.metadata decide
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "absent"


@cache
def tool_versions() -> dict[str, str]:
    """Versions of the third-party code extraction depends on."""
    return {
        "tree-sitter": _dist_version("tree-sitter"),
        "tree-sitter-language-pack": _dist_version("tree-sitter-language-pack"),
        "sqlglot": _dist_version("sqlglot"),
    }


def _module_source(module: str) -> bytes:
    """The source a module's facts depend on: a module's file, or for a package every
    ``.py`` file below it (each named by its path inside the package, in path order) but
    the languages' ``link`` modules, so an edit to any submodule changes the fingerprint."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return module.encode()
    try:
        if spec.submodule_search_locations:
            return _package_source(spec.submodule_search_locations, module)
        with open(spec.origin, "rb") as fh:
            return fh.read()
    except OSError:
        return module.encode()


def _package_source(locations: Iterable[str], package: str) -> bytes:
    parts: list[bytes] = []
    links = set(link_modules())
    for location in locations:
        root = Path(location)
        files = sorted(
            (p for p in root.rglob("*.py") if "__pycache__" not in p.parts),
            key=lambda p: p.relative_to(root).as_posix(),
        )
        for path in files:
            # a link module (or a module of a link package) shapes no fact
            names = (package, *path.relative_to(root).with_suffix("").parts)
            if any(".".join(names[:i]) in links for i in range(2, len(names) + 1)):
                continue
            parts.append(b"\0" + path.relative_to(root).as_posix().encode() + b"\0")
            parts.append(path.read_bytes())
    return b"".join(parts)


@cache
def fingerprint(name: str | None) -> str:
    """A digest of everything the facts of a file of this language depend on besides
    the file itself and the chunk size."""
    lang = get(name)
    h = hashlib.sha1(FACTS_VERSION.encode())
    for k, v in sorted(tool_versions().items()):
        h.update(f"\0{k}={v}".encode())
    modules = ((lang.extractor,) if lang and lang.extractor else ("ragraf.lang.plain",)) + (
        lang.depends_on if lang else _COMMON
    )
    for module in modules:
        h.update(b"\0" + module.encode() + b"\0")
        h.update(_module_source(module))
    for q in lang.queries if lang else ():
        h.update(b"\0" + q.encode() + b"\0")
        h.update((resources.queries_dir() / q).read_bytes())
    return h.hexdigest()[:16]


def facts_key(
    path: str, lang_name: str | None, max_lines: int, budget_s: float | None = None
) -> str:
    """The cache key of a file's extraction besides its sha256 (a file that ran out of
    time under one budget may not under another, so the budget is part of it)."""
    return f"{FACTS_VERSION}|{fingerprint(lang_name)}|{max_lines}|{budget_s or 0:g}|{path}"


def corpus_fingerprint() -> str:
    """One digest over every language's fingerprint: equal means a build of an unchanged
    tree would produce the same facts (rev.json keeps it; `index` compares it)."""
    h = hashlib.sha1()
    for lang in LANGUAGES:
        h.update(f"{lang.name}={fingerprint(lang.name)};".encode())
    h.update(f"plain={fingerprint(None)}".encode())
    return h.hexdigest()[:16]


def versions() -> dict[str, str]:
    """The extractor stamp recorded with a revision."""
    return {"ragraf": FACTS_VERSION, "extractors": corpus_fingerprint(), **tool_versions()}
