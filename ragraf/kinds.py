"""The one vocabulary of kinds (architecture §5.1, §5.2, §8): node kinds, edge
kinds, and the named groups every layer uses.

Invariants a change must keep:
- A kind string is written in exactly one place: here. Other modules use the
  members (``NodeKind.METHOD``) or a group (``CALLABLE``); a new kind is added
  here and to the groups it belongs to, and every consumer follows. The same holds
  for every other vocabulary the layers share (reference fields, SQL in code, the
  data-flow layer, call outcomes...); a vocabulary of one language's extractor is a
  ``StrEnum`` in its package. tests/test_vocabulary.py fails on a vocabulary field
  compared with a string literal anywhere in ragraf/.
- Members are ``StrEnum``: they compare equal to the strings stored in SQLite
  and serialise to them in JSON, so stored data and answers do not change. A
  value read back from a store or a cache is the plain string; code must not tell
  the two apart (no ``is``, ``type() is``, ``repr``).
- Groups are tuples (ordered, hashable) of members; SQL ``IN`` lists are built
  from them by ``ragraf.store`` as literals (the planner needs literals).
"""

from __future__ import annotations

from enum import StrEnum


class NodeKind(StrEnum):
    FILE = "file"
    NAMESPACE = "namespace"
    MODULE = "module"  # a Python or JavaScript / TypeScript module (one per file)
    PACKAGE = "package"  # a Python package (the module of an __init__.py)
    CLASS = "class"
    INTERFACE = "interface"
    TRAIT = "trait"
    ENUM = "enum"
    FUNCTION = "function"
    METHOD = "method"
    PROPERTY = "property"
    CONSTANT = "constant"
    SQL_LITERAL = "sql_literal"
    DB_TABLE = "db_table"
    DB_COLUMN = "db_column"
    DB_VIEW = "db_view"
    WEB_ROUTE = "web_route"
    HTTP_ENDPOINT = "http_endpoint"
    DOC = "doc"
    DOC_SECTION = "doc_section"


#: the kind of a ``ClassDecl`` that only adds methods to a class-like declared in another
#: file (Go: methods of a type in another file of its package); its ``node`` is the file
#: and it is no declaration of its own (``SymbolTable.class_ids`` leaves it out)
CLASS_EXTENSION = "extension"


class EdgeKind(StrEnum):
    CONTAINS = "contains"
    DEFINES = "defines"
    IMPORTS = "imports"
    EXTENDS = "extends"
    IMPLEMENTS = "implements"
    OVERRIDES = "overrides"
    USES_TRAIT = "uses_trait"
    CALLS = "calls"
    CALLS_HEURISTIC = "calls_heuristic"
    INSTANTIATES = "instantiates"
    REFERENCES = "references"
    FLOWS_TO = "flows_to"
    QUERIES = "queries"
    REFERENCES_TABLE = "references_table"
    FK_TO = "fk_to"
    HANDLES = "handles"
    RENDERS = "renders"
    DOCUMENTED_BY = "documented_by"
    MENTIONS = "mentions"


class Provenance(StrEnum):
    """§5.2: stated = proven by a declaration or an exact line; derived = inferred."""

    STATED = "stated"
    DERIVED = "derived"


class Layer(StrEnum):
    """P6: free text is kept apart from structural facts."""

    STRUCTURAL = "structural"
    TEXT = "text"


class ParseStatus(StrEnum):
    OK = "ok"
    PARTIAL = "partial"
    FAILED = "failed"
    SKIPPED = "skipped"


class RevState(StrEnum):
    """rev.state / rev_history.state: where a revision's build is."""

    BUILDING = "building"
    READY = "ready"
    FAILED = "failed"
    ARCHIVED = "archived"  # its rows pruned (``retain_revs``); its history kept


class VectorStatus(StrEnum):
    """The ``status`` of a revision's vectors (rev.json ``vectors``, ``status``)."""

    READY = "ready"
    EMBEDDING = "embedding"  # a helper is filling them after the seal
    INTERRUPTED = "interrupted"  # the helper stopped before it was done
    UNAVAILABLE = "unavailable"  # no model
    DISABLED = "disabled"  # ``--no-vectors`` / the environment switch


class ChunkSource(StrEnum):
    """chunk_map.source_kind: what a search chunk was cut from."""

    SYMBOL = "symbol"
    FILE = "file"
    DOC = "doc"


class TextKind(StrEnum):
    COMMENT = "comment"
    DOCBLOCK = "docblock"
    MD = "md"


class Unresolved(StrEnum):
    """unresolved_call.reason: why a call site was not attached to a declaration."""

    TOO_MANY_CANDIDATES = "too_many_candidates"  # untyped receiver, the name is too common
    EXTERNAL_TYPE = "external_type"  # the receiver is a builtin or vendor class
    UNKNOWN_MEMBER = "unknown_member"  # a corpus class without that method (nor __call)
    DYNAMIC_NAME = "dynamic_name"  # $obj->$name(), $fn() with an unknown value


class CallKind(StrEnum):
    """unresolved_call.kind: the form of the call."""

    FUNCTION = "function"
    METHOD = "method"
    STATIC = "static"


class CallOutcome(StrEnum):
    """What became of one call site (the build counts ``calls_<outcome>``; ``calls.*``
    coverage rows are made of them)."""

    STATED = "stated"
    DERIVED = "derived"
    EXTERNAL = "external"  # a builtin or vendor callee
    UNRESOLVED_TOO_MANY_CANDIDATES = "unresolved_too_many_candidates"
    UNRESOLVED_UNKNOWN_MEMBER = "unresolved_unknown_member"
    UNRESOLVED_DYNAMIC_NAME = "unresolved_dynamic_name"


class NameMatch(StrEnum):
    """How a search query's words name a symbol (``name_match`` of a hit)."""

    EXACT = "exact"  # the words are the name's words
    PREFIX = "prefix"  # one word starts the name
    ORDERED = "ordered"  # the name's words in order, with others between
    WORDS = "words"  # some of the name's words


class ChangeKind(StrEnum):
    """drift_entry.kind (§8). The first four are file-level changes."""

    ADD = "add"
    MODIFY = "modify"
    DELETE = "delete"
    RENAME = "rename"
    SCHEMA_CHANGE = "schema_change"
    SLICE_BOUNDARY = "slice_boundary"
    NOTE = "note"


class LedgerBlock(StrEnum):
    """What a block of LEDGER.md renders (``ragraf.drift.ledger`` checks the file against rows)."""

    ENTRY = "entry"
    ACK = "ack"


# -- facts: the fields of the references an extractor writes (``ragraf.lang.facts``) ----
class TargetKind(StrEnum):
    """``Target.kind``: what a dynamic call or a callback string may name."""

    FUNCTION = "function"  # candidate fqns
    METHOD = "method"  # a receiver and a method name
    #: a string under an array key saying it is a callable (``'render_callback' => 'f'``;
    #: ``method`` is the key)
    KEYED = "key"
    #: a string no call takes that may name something called later by its name (an
    #: array's value, an assignment, a return value)
    NAMED = "named"
    #: ``$fn(...)``'s variable (``method`` its name) until the extractor knows what it holds
    VARIABLE = "variable"


class HandlerKind(StrEnum):
    """``Handler.kind``: what a route registration names as its handler."""

    CLASS = "class"
    METHOD = "method"
    CLOSURE = "closure"
    FUNCTION = "function"  # ``method`` is its fqn


class ImportKind(StrEnum):
    """``ImportRef.kind``: what an import names (a tags-level language's raw import is
    ``ragraf.lang.tags.RAW_IMPORT`` + how its text names a file, until ``prepare``)."""

    CLASS = "class"
    FUNCTION = "function"
    CONST = "const"
    MODULE = "module"  # fqn is the path of the module's file
    NAME = "name"  # Python's ``from m import x`` before ``prepare`` knows what x is
    JS = "jsimp"  # a JavaScript / TypeScript import key, until ``prepare``
    AMBIGUOUS = "ambiguous"  # Python: one of several corpus modules (fqn: its path), derived


class NameUse(StrEnum):
    """``NameRef.kind``: how a tags-level language uses a name."""

    CALL = "call"
    NEW = "new"


class Denotes(StrEnum):
    """``typedesc.Pending.use``: what of a name the file alone cannot resolve a
    descriptor stands for."""

    INSTANCE = "instance"  # an instance of the class it names
    RETURN = "return"  # what calling it returns
    VALUE = "itself"  # the value itself (a module, a class object, a typed value)


class BindKind(StrEnum):
    """What a name is bound to inside one file, as a tree-sitter language's walk keeps it
    (``Bind.kind`` of ``ragraf.lang.<x>.names``), and of a module-level binding another
    file may import (``typedesc.Export.kind``)."""

    CLASS = "class"  # name: the class's fqn
    FUNCTION = "func"  # name: the function's fqn (Go: a function value, no name)
    OBJECT = "obj"  # name: the fqn of an object literal (its methods are <fqn>.<key>)
    IMPORT = "import"  # name: an import key / dotted name
    EXPR = "expr"  # expr: the expression assigned and its scope
    ANNOTATION = "ann"  # expr: the annotation of a name and its scope (Python)
    DESC = "desc"  # desc: what the value is
    LOCAL = "local"  # a parameter or local of unknown value
    SELF = "self"  # name: the class of a method's ``self``
    CLS = "cls"  # name: the class of a classmethod's ``cls``
    RANGE = "range"  # expr: what a Go ``range`` iterates over
    NONE = "none"  # nothing known (Java)
    VALUE = "typed"  # an export: desc, what the value is
    STAR = "star"  # an export: name, the specifier of ``export * from``
    MODULE = "module"  # Go: name, a go.mod's module path (the row's name: its directory)
    PACKAGE = "package"  # Go: name, the fqn prefix of a directory's package
    ROOT = "root"  # Python: name, a package root's folder (the row's name: its import prefix)


class CalleeKind(StrEnum):
    """What a call's callee is, as a tree-sitter language's names see it in one file
    (``tstree.Callee.kind``)."""

    FUNCTION = "func"  # name: the function's fqn
    CLASS = "class"  # name: the class's fqn (a constructor call)
    IMPORT = "import"  # name: an import key (JavaScript)
    EXTERNAL = "ext"  # name: a dotted name through an import (Python)
    QUALIFIED = "qual"  # path, name: a name of another package (Go)
    GLOBAL = "global"  # name: a builtin global (JavaScript)
    BUILTIN = "builtin"  # name: a builtin function
    METHOD = "method"  # receiver, name: a method
    TYPE = "type"  # receiver: the type converted to (Go)
    UNBOUND = "unbound"  # name: a name the file does not bind
    DYNAMIC = "dynamic"  # a computed callee


class EntityKind(StrEnum):
    """``crossfile.Entity.kind``: what a name another file declares turns out to be."""

    MODULE = "module"  # name: the module (a path or a dotted name)
    CLASS = "class"  # name: its fqn
    FUNCTION = "function"  # name: its fqn
    OBJECT = "object"  # an object literal: name its fqn, where its module's path
    VALUE = "typed"  # a typed value: desc, where the module it is in
    EXTERNAL = "external"  # outside the corpus: name as the linker keeps it
    MISSING = "missing"  # nothing the corpus declares
    AMBIGUOUS = "ambiguous"  # one of several modules: name the dotted name, where its module


class HookRole(StrEnum):
    """``HookRef.role``: a callback added to a hook, or the hook run."""

    LISTEN = "listen"
    FIRE = "fire"


class DynamicHow(StrEnum):
    """``DynamicCallRef.how``: the form of a call whose callee is computed."""

    CALL_USER_FUNC = "call_user_func"
    VARIABLE = "variable"  # $fn(...)
    DYNAMIC_METHOD = "dynamic_method"  # $x->$m(...)
    AMBIGUOUS_IMPORT = "ambiguous_import"  # Python: through a name several corpus modules have


class OrmHow(StrEnum):
    """``OrmTableRef.how``: how the table an ORM class maps to is known."""

    TABLE_ATTRIBUTE = "table_attribute"  # declared by the mapping
    CONVENTION = "convention"  # the names the ORM's naming strategies give
    TABLE_PROPERTY = "table_property"  # Eloquent's ``$table`` (read by ``table_usage``)


# -- SQL in code -------------------------------------------------------------------------
class FragmentKind(StrEnum):
    """The first element of a ``(kind, text)`` part of a string built by code (SQL
    fragments, include paths, query-builder calls)."""

    LIT = "lit"  # literal text (the string's value)
    DYN = "dyn"  # computed at run time (the expression's source)
    DIR = "dir"  # an include path's directory part (``__DIR__``, ``dirname(__FILE__)``)
    CALL = "call"  # a query-builder call's ``<receiver>-><method>`` (first fragment only)
    RAW = "raw"  # source text not yet decoded (PHP's extractor, before it becomes ``lit``)


class TableHow(StrEnum):
    """``TableRef.how`` / ``SqlTable.how``: how a table name in SQL is known."""

    EXACT = "exact"
    PREFIX_RESOLVED = "prefix_resolved"  # a known table prefix made it whole
    CODE_RESOLVED = "code_resolved"  # the linker resolved a dynamic name from code
    DYNAMIC = "dynamic"
    LISTED = "listed"  # a name a list fragment gives (``list_fragment``)
    ENTITY = "entity"  # Doctrine DQL: the name is a class, its mapping the table


class TableRole(StrEnum):
    READ = "read"
    WRITE = "write"


class ColumnKey(StrEnum):
    """``db_column.column_key``, as MySQL's ``information_schema`` says it (or none: "")."""

    PRI = "PRI"
    UNI = "UNI"
    MUL = "MUL"


class DivergenceKind(StrEnum):
    """How the live database and the migrations disagree (``ragraf.sql.dbschema``)."""

    TABLE_ONLY_LIVE = "table_only_live"
    TABLE_ONLY_MIGRATIONS = "table_only_migrations"
    COLUMN_ONLY_LIVE = "column_only_live"
    COLUMN_ONLY_MIGRATIONS = "column_only_migrations"
    TYPE_DIFFERS = "type_differs"


# -- the data-flow layer (``FlowUnit``; ``ragraf.facade.flowops`` reads it) --------------
class UnitKind(StrEnum):
    """``FlowUnit.kind``: the code a flow unit walks."""

    FUNCTION = "function"
    METHOD = "method"
    CLOSURE = "closure"
    SCRIPT = "script"  # a file's top-level code


class StmtKind(StrEnum):
    """The kind of a statement of a flow unit (shown in ``slice`` / ``flow`` answers)."""

    ENTRY = "entry"  # a unit's entry: its parameters and captured variables
    EXPR = "expr"
    ASSIGN = "assign"
    THROW = "throw"
    ECHO = "echo"
    RETURN = "return"
    YIELD = "yield"  # a generator's value: leaves the unit as a return's does, control goes on
    IF = "if"
    ELSEIF = "elseif"
    WHILE = "while"
    DO_WHILE = "do_while"
    FOR = "for"
    FOREACH = "foreach"
    SWITCH = "switch"
    CASE = "case"
    DEFAULT = "default"
    BREAK = "break"
    CONTINUE = "continue"
    TRY = "try"
    CATCH = "catch"
    FINALLY = "finally"
    GLOBAL = "global"
    STATIC = "static"
    UNSET = "unset"
    EXIT = "exit"
    STMT = "stmt"  # any other statement


class FlowCallHow(StrEnum):
    """How a statement of a flow unit calls (its ``[name, how, args]`` calls)."""

    FUNCTION = "function"
    DYNAMIC = "dynamic"  # $fn(...)
    METHOD = "method"
    STATIC = "static"
    NEW = "new"


class SinkKind(StrEnum):
    """Where tainted data must not arrive: a statement's sinks (``flow``'s ``sink``)."""

    SQL = "sql"  # a call the configuration names a SQL sink
    SQL_STRING = "sql_string"  # a string the SQL analysis found
    OUTPUT = "output"
    INCLUDE = "include"
    SHELL = "shell"
    CODE = "code"  # a call running its argument as code (Python's eval / exec)
    DYNAMIC_VARIABLE = "dynamic_variable"  # $$name


class FlowStep(StrEnum):
    """The kind of a step of a slice or a flow: within a unit, across units of a file, or
    across functions along call edges."""

    DEF_USE = "def_use"
    CONTROL = "control"
    CAPTURE = "capture"  # a closure's ``use`` variable, from the statement creating it
    PROPERTY = "property"  # ``$this->x`` written by another method of the class (derived)
    ARGUMENT = "argument"
    RETURN = "return"


# -- node groups -------------------------------------------------------------------------
#: declarations with members (the class-like scopes of PHP)
CLASS_LIKE: tuple[NodeKind, ...] = (
    NodeKind.CLASS,
    NodeKind.INTERFACE,
    NodeKind.TRAIT,
    NodeKind.ENUM,
)
#: declarations with a body of statements
CALLABLE: tuple[NodeKind, ...] = (NodeKind.FUNCTION, NodeKind.METHOD)
#: named code declarations: what `symbol` nearest-name hints and drift symbol diffs cover
SYMBOL: tuple[NodeKind, ...] = (*CLASS_LIKE, *CALLABLE, NodeKind.PROPERTY, NodeKind.CONSTANT)
#: what repo_map ranks and shows
MAP: tuple[NodeKind, ...] = (*CLASS_LIKE, *CALLABLE)
#: nodes the repo_map ranking graph is built over (shown ones plus the files and constants linking them)
MAP_GRAPH: tuple[NodeKind, ...] = (*MAP, NodeKind.CONSTANT, NodeKind.FILE)
#: database objects a SQL string can name
DB_OBJECT: tuple[NodeKind, ...] = (NodeKind.DB_TABLE, NodeKind.DB_VIEW)
#: every database node
DB: tuple[NodeKind, ...] = (*DB_OBJECT, NodeKind.DB_COLUMN)
#: markdown nodes (layer text)
DOCS: tuple[NodeKind, ...] = (NodeKind.DOC, NodeKind.DOC_SECTION)
#: every node kind an agent may filter by
ALL_NODES: tuple[NodeKind, ...] = tuple(NodeKind)

# -- edge groups -------------------------------------------------------------------------
CALL_EDGES: tuple[EdgeKind, ...] = (EdgeKind.CALLS, EdgeKind.CALLS_HEURISTIC)
#: edges whose source uses the target: the sites `references` lists
USE_EDGES: tuple[EdgeKind, ...] = (
    *CALL_EDGES,
    EdgeKind.REFERENCES,
    EdgeKind.INSTANTIATES,
    EdgeKind.EXTENDS,
    EdgeKind.IMPLEMENTS,
    EdgeKind.USES_TRAIT,
    EdgeKind.IMPORTS,
    EdgeKind.OVERRIDES,
    EdgeKind.MENTIONS,
    EdgeKind.DOCUMENTED_BY,
    EdgeKind.HANDLES,
    EdgeKind.RENDERS,
    EdgeKind.FLOWS_TO,
)
#: edges along which a change propagates to dependents (`impact` walks them dst -> src)
IMPACT_EDGES: tuple[EdgeKind, ...] = (
    *CALL_EDGES,
    EdgeKind.REFERENCES,
    EdgeKind.INSTANTIATES,
    EdgeKind.EXTENDS,
    EdgeKind.IMPLEMENTS,
    EdgeKind.USES_TRAIT,
    EdgeKind.IMPORTS,
    EdgeKind.OVERRIDES,
    EdgeKind.HANDLES,
    EdgeKind.RENDERS,
    EdgeKind.QUERIES,
    EdgeKind.REFERENCES_TABLE,
    EdgeKind.FK_TO,
)
#: code links the k-core shells are computed over at index time
RANK_EDGES: tuple[EdgeKind, ...] = (
    *CALL_EDGES,
    EdgeKind.EXTENDS,
    EdgeKind.IMPLEMENTS,
    EdgeKind.USES_TRAIT,
    EdgeKind.INSTANTIATES,
    EdgeKind.REFERENCES,
    EdgeKind.IMPORTS,
    EdgeKind.OVERRIDES,
)
#: what top-level code of a file does when the file is an entry point
ENTRY_EDGES: tuple[EdgeKind, ...] = (*CALL_EDGES, EdgeKind.INSTANTIATES)
#: class hierarchy edges walked for inherited members
INHERIT_EDGES: tuple[EdgeKind, ...] = (EdgeKind.EXTENDS, EdgeKind.USES_TRAIT)

# -- ledger groups -----------------------------------------------------------------------
#: entries about a file's content (the last one per path is the file's ledger state)
FILE_CHANGES: tuple[ChangeKind, ...] = (
    ChangeKind.ADD,
    ChangeKind.MODIFY,
    ChangeKind.DELETE,
    ChangeKind.RENAME,
)
#: entries that warn about a path without saying its content changed
PATH_NOTES: tuple[ChangeKind, ...] = (
    ChangeKind.SLICE_BOUNDARY,
    ChangeKind.NOTE,
    ChangeKind.SCHEMA_CHANGE,
)
