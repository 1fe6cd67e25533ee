"""The one vocabulary of kinds (architecture §5.1, §5.2, §8): node kinds, edge
kinds, and the named groups every layer uses.

Invariants a change must keep:
- A kind string is written in exactly one place: here. Other modules use the
  members (``NodeKind.METHOD``) or a group (``CALLABLE``); a new kind is added
  here and to the groups it belongs to, and every consumer follows.
- Members are ``StrEnum``: they compare equal to the strings stored in SQLite
  and serialise to them in JSON, so stored data and answers do not change.
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


class ChangeKind(StrEnum):
    """drift_entry.kind (§8). The first four are file-level changes."""

    ADD = "add"
    MODIFY = "modify"
    DELETE = "delete"
    RENAME = "rename"
    SCHEMA_CHANGE = "schema_change"
    SLICE_BOUNDARY = "slice_boundary"
    NOTE = "note"


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
