"""What an extractor produces for one file: the unit of caching and of work
shipped between processes.

Invariants a change must keep:
- FileFacts depend only on (path, file content, extractor version): nothing
  global, so they can be computed in any process, in any order, and reused
  by a later build for a file whose sha256 did not change
  (``ragraf.lang.registry.facts_key``).
- Node ids are final here (§5.3); cross-file links are not: they stay as
  references (the ``*Ref`` types) until ``ragraf.indexing.resolve`` sees every file.
- ``owner`` of a reference and ``node`` of a chunk or class are indexes into
  ``FileFacts.nodes`` (index 0 is the file node).
- Everything is built from tuples, lists, dicts and dataclasses of them
  (cheap to ship between processes and to store).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from ragraf.kinds import TargetKind, TextKind
from ragraf.lang import typedesc

# what an expression evaluates to (a typed union of hashable NamedTuples, evaluated by
# ``ragraf.indexing.resolve.symbols.SymbolTable.types``) and a module-level binding for a
# ``prepare`` hook: part of the facts' vocabulary, re-exported here
from ragraf.lang.typedesc import Export as Export
from ragraf.lang.typedesc import TypeDesc as TypeDesc

if TYPE_CHECKING:
    from ragraf.sql.sqltext import SqlInfo


class FactNode(NamedTuple):
    """A declaration of the file, with its final id (the path is the file's)."""

    node_id: str
    kind: str
    name: str
    fqn: str
    start_line: int
    end_line: int
    props: dict[str, Any]
    layer: str


class LocalEdge(NamedTuple):
    """A link inside the file, already final (contains, defines)."""

    src: str
    dst: str
    kind: str
    line: int


class TextFact(NamedTuple):
    """A comment, docblock or markdown section (layer text, P6)."""

    start_line: int
    end_line: int
    kind: str  # ragraf.kinds.TextKind
    raw: str
    owner: int | None  # the declaration it documents or sits in


# -- references: uses waiting for the resolver ---------------------------------------------
class CallRef(NamedTuple):
    """``f(...)``: candidate fqns in PHP's order (namespaced, then global)."""

    owner: int
    line: int
    candidates: tuple[str, ...]
    raw: str


class MethodCallRef(NamedTuple):
    """``$x->m(...)`` / ``$x?->m(...)`` with what ``$x`` evaluates to."""

    owner: int
    line: int
    receiver: TypeDesc | None
    method: str


class StaticCallRef(NamedTuple):
    """``C::m(...)``, ``self::`` / ``parent::`` / ``static::``."""

    owner: int
    line: int
    cls: TypeDesc | None
    method: str


class CallableRef(NamedTuple):
    """A callable array ``[$obj, 'm']`` / ``[C::class, 'm']`` outside a call."""

    owner: int
    line: int
    receiver: TypeDesc | None
    method: str


#: a dynamic call's name nothing is known of (``Target.candidates`` / ``Target.method``);
#: in a name, ``*`` stands for a part built at run time (``upgrade_to_*``)
UNKNOWN_NAME = "*"


class Target(NamedTuple):
    """One possible callee of a dynamic call: a function (candidate fqns) or a method."""

    kind: str  # ragraf.kinds.TargetKind
    candidates: tuple[str, ...] = ()
    receiver: TypeDesc | None = None
    method: str = ""


class DynamicCallRef(NamedTuple):
    """``$fn(...)``, ``call_user_func(...)``, ``$x->$m(...)``: what could be called."""

    owner: int
    line: int
    how: str  # ragraf.kinds.DynamicHow
    targets: tuple[Target, ...]


class CallbackRef(NamedTuple):
    """A string naming a function or ``Class::method`` passed as an argument
    (``usort($a, 'cmp')``, ``add_action('init', 'boot')``, ``run_hooks('save')``): the call
    it is passed to and the argument's position. The resolver decides what it is: a
    callable (the parameter takes one), a method name a dispatcher calls, or neither."""

    owner: int
    line: int
    callee: Target  # the function (candidates) or method (receiver, name) called
    position: int  # 0-based
    target: Target  # what the string names


class DispatchRef(NamedTuple):
    """``$obj->$name(...)`` in a function whose parameter ``position`` is ``$name``: a
    string passed there names the method called (the dispatcher pattern)."""

    owner: int  # the dispatching function or method
    line: int
    position: int
    receiver: TypeDesc | None


class HookRef(NamedTuple):
    """WordPress's plugin API: ``add_action('init', 'boot')`` / ``add_filter`` (``listen``:
    a callback added to a hook) and ``do_action('init')`` / ``apply_filters`` and their
    ``_ref_array`` / ``_deprecated`` forms (``fire``: the hook run, which calls every
    callback added to it). ``hook`` is the name, or a pattern with ``*`` for each part
    built at run time (``"save_post_{$post->post_type}"`` -> ``save_post_*``)."""

    owner: int
    line: int
    role: str  # ragraf.kinds.HookRole
    hook: str
    call: str  # the function called, its short name in lower case
    callback: Target | None = None  # listen: what it adds (None: a closure, not understood)
    #: the source of a name or callback read from the values an expression may take
    #: (``'wp_ajax_' . $action`` where ``$action`` is one of a list): a derived listen
    computed: str = ""


class NewRef(NamedTuple):
    owner: int
    line: int
    cls: TypeDesc


class ClassConstRef(NamedTuple):
    """``C::NAME`` and ``C::class``."""

    owner: int
    line: int
    cls: TypeDesc
    member: str


class IncludeRef(NamedTuple):
    """``include`` / ``require`` (``_once``): the path as (``FragmentKind``, text) parts
    (``lit``, ``dir`` or ``dyn``)."""

    owner: int
    line: int
    kind: str  # the statement: include | include_once | require | require_once
    parts: tuple[tuple[str, str], ...]
    conditional: bool


class TemplateRef(NamedTuple):
    """A template named by its loader name: rendered by code (``how`` ``render``:
    ``$this->render('blog/index.html.twig')``, ``view('users.index')``) or pulled in by
    another template (``include``, ``extends``, ``embed``, ``import``, ``use``,
    ``component``). ``names`` are the file names it may be, in the order a loader tries them
    (``ragraf.lang.templates.file_names``)."""

    owner: int
    line: int
    how: str
    name: str
    names: tuple[str, ...]
    #: a render's variables the template sees (``['index' => $index]``, ``compact('x')``):
    #: (name, what the value evaluates to), for the template's calls
    #: (``TemplateCallRef``)
    vars: tuple[tuple[str, TypeDesc], ...] = ()
    #: a template's include passing variables (Twig's ``with {'k': a.b}``): (name, the
    #: includer's variable its value starts from, the steps: ``TemplateCallRef``'s)
    passes: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    #: the include passes those variables only (Twig's ``only``), not its own context
    only: bool = False


class TemplateCallRef(NamedTuple):
    """A method a template may call (``ragraf.lang.template_calls``): Twig's
    ``{{ root.a.name }}`` / ``{{ root.a.name() }}``, Blade's ``{{ $root->a->name() }}``.
    ``root`` is the context variable the access starts from ("" unknown: a macro's
    parameter, a function's result), ``steps`` the way from it to the receiver (``a:x`` a
    Twig attribute, ``m:x`` a method call, ``p:x`` a property, ``[]`` an element);
    ``php``: Blade (a PHP method name, exactly), else Twig's attribute (``name``,
    ``getName``, ``isName``, ``hasName``)."""

    owner: int
    line: int
    root: str
    steps: tuple[str, ...]
    name: str
    called: bool
    php: bool


class SuperglobalRef(NamedTuple):
    """``$_GET['id']`` and friends read in the owner."""

    owner: int
    line: int
    name: str
    key: str | None


class Handler(NamedTuple):
    """What a route registration names as its handler."""

    kind: str  # ragraf.kinds.HandlerKind
    cls: TypeDesc | None = None
    method: str = ""


class RouteRef(NamedTuple):
    owner: int
    line: int
    methods: tuple[str, ...]
    route: str
    handler: Handler


class ImportRef(NamedTuple):
    """``use`` of a class, function or constant."""

    owner: int
    line: int
    kind: str  # ragraf.kinds.ImportKind
    fqn: str


class NameRef(NamedTuple):
    """A use by name only (tags-level languages, ``ragraf.lang.tags``): ``kind`` ``call``
    (``f(...)``, ``x.f(...)``) or ``new`` (``new C``, ``C.new``). The linker matches it
    against the declarations of that name in the language's group: derived edges only."""

    owner: int
    line: int
    kind: str  # ragraf.kinds.NameUse
    name: str


class SqlTable(NamedTuple):
    """A table a SQL string names (``ragraf.sql.sqltext.TableRef`` as plain data)."""

    name: str
    how: str  # ragraf.kinds.TableHow
    role: str  # ragraf.kinds.TableRole
    schema: str | None
    expr: str | None


class SqlAnalysis(NamedTuple):
    """``ragraf.sql.sqltext.SqlInfo`` as plain data (it is cached with the file's facts)."""

    operation: str
    tables: tuple[SqlTable, ...]
    columns: tuple[str, ...] | None
    select_star: bool
    dynamic: bool
    parsed: bool
    problems: tuple[str, ...]
    #: CREATE TABLE statements with columns: (index into ``tables``, MySQL text naming its
    #: table ``ragraf.sql.sqltext.DDL_TABLE``)
    ddl: tuple[tuple[int, str], ...] = ()
    #: a string of several statements naming different tables: (index into ``tables``, the
    #: operation of the first statement naming it, the columns of the statements naming it
    #: or None) per table (``ragraf.sql.sqltext.SqlInfo.by_table``)
    by_table: tuple[tuple[int, str, tuple[str, ...] | None], ...] = ()

    @classmethod
    def of(cls, info: SqlInfo | None) -> SqlAnalysis | None:
        if info is None:
            return None
        return cls(
            info.operation,
            tuple(SqlTable(t.name, t.how, t.role, t.schema, t.expr) for t in info.tables),
            None if info.columns is None else tuple(info.columns),
            info.select_star,
            info.dynamic,
            info.parsed,
            tuple(info.problems[:MAX_SQL_PROBLEMS]),
            tuple(info.ddl),
            tuple((i, op, None if cols is None else tuple(cols)) for i, op, cols in info.by_table),
        )


#: parse problems of one SQL string kept with its analysis
MAX_SQL_PROBLEMS = 5


class SqlRef(NamedTuple):
    """A string expression that is SQL (§6.2), analysed once by ``ragraf.sql.sqltext``;
    or a query-builder call (``$wpdb->update($wpdb->options, ...)``, ``DB::table('t')``):
    then ``fragments`` starts with ``("call", "<receiver>-><method>")`` followed by the
    table argument's fragments."""

    owner: int
    line: int
    end_line: int
    fragments: tuple[tuple[str, str], ...]
    analysis: SqlAnalysis | None
    ordinal: int  # 1, 2... for several on one line


class TableParamRef(NamedTuple):
    """A SQL string of a function naming its table by a parameter (``"INSERT INTO $table
    ..."`` in ``save_record($fields, $table)``): a literal its callers pass at ``position``
    names the table the string reads or writes (``TableArgRef``). ``prefix`` is the run-time
    part before the parameter (``DB_PREFIX . $table``: ``DB_PREFIX``), "" when none.
    ``owner`` is the function's node index."""

    owner: int
    line: int
    position: int  # 0-based
    operation: str
    role: str  # ragraf.kinds.TableRole
    prefix: str


class TableArgRef(NamedTuple):
    """A literal shaped like a table name passed to a call (``save_record($f, 'orders')``):
    a table when the callee names its SQL's table by that parameter (``TableParamRef``)."""

    owner: int
    line: int
    callee: Target  # the function (candidates) or method (receiver, name) called
    position: int  # 0-based
    table: str


class TableForwardRef(NamedTuple):
    """A function passing its own parameter ``param`` on to a call (``insert($table, $v)``
    calling ``insertBatch($table, $v)``): when the callee names its SQL's table by that
    argument, so does the function (``TableParamRef``, followed by the linker). ``owner``
    is the function's node index."""

    owner: int
    line: int
    callee: Target
    position: int  # 0-based, of the callee's argument
    param: int  # 0-based, of the owner's parameter


class TableListRef(NamedTuple):
    """An array of literals shaped like table names: a list (``['users', 'orders']``) or
    the keys of a map (``['users' => ['id', 'name'], ...]``, ``keyed``). The known tables
    among them are referenced when every name is one (the linker decides)."""

    owner: int
    line: int
    names: tuple[str, ...]
    keyed: bool


class TablePrefixRef(NamedTuple):
    """A literal assigned to a name that says it is the tables' prefix (``$table_prefix =
    'wp_'``, ``define('DB_PREFIX', 'oc_')``, ``'dbprefix' => 'ci_'``): a value the run-time
    prefix of table names in SQL may have (``ragraf.indexing.resolve.tablenames``)."""

    owner: int
    line: int
    name: str
    value: str


class OrmTableRef(NamedTuple):
    """A class an ORM maps to a table (Doctrine's ``#[ORM\\Entity]`` or ``@ORM\\Entity``):
    ``tables`` the name its ``#[ORM\\Table(name: ...)]`` / ``@ORM\\Table(name="...")``
    declares (``how`` ``table_attribute``), else the names Doctrine's naming strategies
    give its short name, Symfony's default (snake_case) first (``how`` ``convention``).
    ``owner`` is the class's node index."""

    owner: int
    line: int
    orm: str  # doctrine
    tables: tuple[str, ...]
    how: str  # ragraf.kinds.OrmHow


class BuilderCallRef(NamedTuple):
    """A method call not recognised as a query builder's whose first argument is a literal
    shaped like a table name (``$store->saveRow('orders', ...)``). It names a table only
    when ``db.query_builders`` names its method or its receiver: the linker decides, so
    the facts of a file stay independent of the configuration."""

    owner: int  # the calling function / method / file
    line: int
    receiver: str  # the receiver's source (its last MAX_SQL_DYN characters)
    method: str
    table: str


class DocLinkRef(NamedTuple):
    """A markdown link to a corpus file."""

    owner: int
    line: int
    target: str


class DocNameRef(NamedTuple):
    """A backticked name in markdown (a class, ``Class::method``...)."""

    owner: int
    line: int
    name: str


Ref = (
    CallRef
    | BuilderCallRef
    | MethodCallRef
    | StaticCallRef
    | CallableRef
    | DynamicCallRef
    | CallbackRef
    | DispatchRef
    | HookRef
    | NewRef
    | ClassConstRef
    | IncludeRef
    | SuperglobalRef
    | TemplateRef
    | TemplateCallRef
    | RouteRef
    | ImportRef
    | NameRef
    | SqlRef
    | TablePrefixRef
    | TableParamRef
    | TableArgRef
    | TableListRef
    | TableForwardRef
    | OrmTableRef
    | DocLinkRef
    | DocNameRef
)


#: every NamedTuple type a FileFacts may hold besides the plain ones (references, their
#: parts, type descriptors): the facts cache (``ragraf.lang.codec``) writes and reads these
#: and nothing else, so a new reference or descriptor type is listed here only
FACT_TYPES: tuple[type, ...] = (
    CallRef,
    MethodCallRef,
    StaticCallRef,
    CallableRef,
    Target,
    DynamicCallRef,
    CallbackRef,
    DispatchRef,
    HookRef,
    NewRef,
    ClassConstRef,
    IncludeRef,
    SuperglobalRef,
    TemplateRef,
    TemplateCallRef,
    Handler,
    RouteRef,
    ImportRef,
    NameRef,
    SqlTable,
    SqlAnalysis,
    SqlRef,
    TablePrefixRef,
    TableParamRef,
    TableArgRef,
    TableListRef,
    TableForwardRef,
    OrmTableRef,
    BuilderCallRef,
    DocLinkRef,
    DocNameRef,
    *typedesc.VARIANTS,
    Export,
)


def called_functions(r: Ref) -> tuple[str, ...] | None:
    """The function names a reference may call by name (a call, or a function passed as a
    callback), or None: what the include graph reads of a file (``Calls.loading``), and so
    what a file's interface keeps of its calls (``ragraf.indexing.extract.interface``)."""
    if isinstance(r, CallRef):
        return r.candidates
    if isinstance(r, CallbackRef) and r.target.kind == TargetKind.FUNCTION:
        return r.target.candidates
    if isinstance(r, HookRef) and r.callback is not None and r.callback.kind == TargetKind.FUNCTION:
        return r.callback.candidates
    return None


class FlowUnit(NamedTuple):
    """The data-flow layer of one function, method, closure or file-level script
    (``ragraf.lang.php.flow``): its statements, control-flow and def-use edges as the
    compact JSON stored in ``flow_unit.data`` (serialised once, in the worker)."""

    node: int  # index into FileFacts.nodes: the function / method, the enclosing one of a closure, 0 for the script
    kind: str  # ragraf.kinds.UnitKind
    start_line: int
    end_line: int
    data: str
    sources: str  # the taint sources its statements read ("$_GET php://input"), space-separated


@dataclass(slots=True)
class ClassDecl:
    node: int  # index into FileFacts.nodes
    fqn: str
    kind: str  # a CLASS_LIKE NodeKind, or ragraf.kinds.CLASS_EXTENSION
    extends: list[tuple[str, int]] = field(default_factory=list)  # (fqn, line)
    implements: list[tuple[str, int]] = field(default_factory=list)
    traits: list[tuple[str, int]] = field(default_factory=list)
    methods: dict[str, int] = field(default_factory=dict)  # lower name -> node index
    props: dict[str, list[TypeDesc]] = field(default_factory=dict)  # name -> type descs
    consts: dict[str, int] = field(default_factory=dict)  # name -> node index
    abstract: bool = False


@dataclass(slots=True)
class Chunk:
    source_kind: str  # ragraf.kinds.ChunkSource
    node: int | None  # index into FileFacts.nodes
    start_line: int
    end_line: int
    header: str  # line 0 of chunk_text
    code: str  # lines start_line..end_line
    symbol_tokens: str
    code_tokens: str
    sql_tokens: str
    text_tokens: str
    #: the tokens of its user-facing text (PHP: ``ragraf.lang.php.ui_strings``)
    ui_tokens: str = ""


@dataclass(slots=True)
class FileFacts:
    path: str
    lang: str | None
    status: str  # ok | partial | failed
    note: str | None
    lines: int
    nodes: list[FactNode] = field(default_factory=list)
    edges: list[LocalEdge] = field(default_factory=list)
    classes: list[ClassDecl] = field(default_factory=list)
    functions: list[tuple[str, int]] = field(default_factory=list)  # (fqn, node index)
    returns: dict[int, list[TypeDesc]] = field(default_factory=dict)  # node index -> descs
    refs: list[Ref] = field(default_factory=list)
    scope_nodes: list[int] = field(default_factory=list)  # scope index -> node index
    #: (name, what a global of that name is assigned), or (name, a module-level binding
    #: for a ``prepare`` hook)
    global_assigns: list[tuple[str, TypeDesc | Export]] = field(default_factory=list)
    texts: list[TextFact] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    flows: list[FlowUnit] = field(default_factory=list)  # the data-flow layer (PHP)

    def node_id(self, index: int) -> str:
        return self.nodes[index].node_id


def for_linking(f: FileFacts) -> FileFacts:
    """What linking a file reads of its facts (``ragraf.indexing.resolve``), the rest left
    out: every reference, declaration, class and local edge as they are; of its texts the
    docblocks that type a parameter ``callable`` (``symbols._callable_params``); of its
    flow units the data of those that read a taint source (``ragraf.lang.php.link.requests``),
    the others kept for their number and kind only; its chunks without their contents
    (their number, kinds and places stay: coverage counts them). Resolving these facts
    gives what resolving the whole ones gives (a scoped build links files whose content
    did not change from them: ``ragraf.indexing.extract.Facts.for_linking``)."""
    from dataclasses import replace

    return replace(
        f,
        texts=[t for t in f.texts if types_a_callable(t)],
        chunks=[
            Chunk(c.source_kind, c.node, c.start_line, c.end_line, "", "", "", "", "", "")
            for c in f.chunks
        ],
        flows=[u if u.sources else u._replace(data="") for u in f.flows],
    )


def types_a_callable(t: TextFact) -> bool:
    """A docblock the symbol table reads (it may type a parameter ``callable``)."""
    return t.kind == TextKind.DOCBLOCK and t.owner is not None and "callable" in t.raw


# -- analyses an earlier extraction made (``known_sql``) ------------------------------
#: fragments -> the analysis an earlier extraction of the same file made of them, while a
#: ``known_sql`` block runs (the scan's). Process-wide: two blocks at once in threads could
#: only lend each other analyses of equal fragments, which are equal analyses
_KNOWN_SQL: dict[tuple[tuple[str, str], ...], SqlAnalysis | None] | None = None


class known_sql:  # noqa: N801 - a context manager, named as what it gives
    """Within the block, an extractor takes the analysis of a SQL string from ``refs`` (the
    SqlRefs of facts an earlier extraction made with the same extractor key: the same code,
    grammar and sqlglot) when the string's fragments are the same, instead of analysing it
    again. The analysis is a function of the fragments alone, so the facts are the same
    either way; what it saves is sqlglot (imported on the first analysis of a process: ~0.07
    s of a ``drift --scan``) and the parses. Query-builder calls are not taken (their
    fragments name the call, and their analysis is not sqlglot's)."""

    def __init__(self, refs: Iterable[object]) -> None:
        self.known = {
            r.fragments: r.analysis
            for r in refs
            if isinstance(r, SqlRef) and not (r.fragments and r.fragments[0][0] == "call")
        }

    def __enter__(self) -> None:
        global _KNOWN_SQL
        _KNOWN_SQL = self.known or None

    def __exit__(self, *exc: object) -> None:
        global _KNOWN_SQL
        _KNOWN_SQL = None


#: what ``known_analysis`` returns for fragments no earlier extraction analysed
UNKNOWN = object()


def known_analysis(fragments: tuple[tuple[str, str], ...]) -> Any:
    """The analysis a ``known_sql`` block knows for these fragments, or ``UNKNOWN``."""
    known = _KNOWN_SQL
    if known is None:
        return UNKNOWN
    return known.get(fragments, UNKNOWN)
