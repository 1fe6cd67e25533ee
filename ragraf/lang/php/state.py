"""Where a PHP extraction walk is, shared by the extractor's mixins.

Captures arrive in document order (start byte; an outer node before the nodes
inside it), so the walk keeps its position as a stack of the declarations it
is in and a stack of variable scopes:

- ``stack`` holds frames ``(end_byte, what, payload)``, popped by the walk as
  soon as a capture starts at or after ``end_byte``. ``what`` is a ``FrameKind``:
  ``NAMESPACE`` (a braced namespace; payload its node index), ``CLASS``
  (its ``ClassDecl``), ``FUNCTION`` (the node index of a function or
  method), ``ANON`` (an anonymous class: no class context inside) or
  ``SCOPE`` (a method of an anonymous class: a variable scope without a
  symbol of its own).
- ``scopes`` are the open variable scopes, innermost last; each
  ``FUNCTION`` or ``SCOPE`` frame opened one (``SCOPED_FRAMES``). Scope 0 is the file's.
  Closures open none: their parameters (bound inside the closure only) and
  assignments type the enclosing scope.
- ``seg`` is the namespace segment names resolve in (``global_seg`` outside
  any namespace and after a braced one).

Invariants a change must keep:
- Until ``finish()`` the owner of a ref is a scope index (into
  ``all_scopes``); ``finish()`` turns it into the scope's node index. Only a
  ``SqlRef`` carries a node index from the start.
- Node index 0 is the file node; ``decl_at`` maps the start byte of every
  declaration to its node index (docblocks find their owner through it).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, cast

from ragraf import ids
from ragraf.kinds import Layer, ParseStatus
from ragraf.lang.chunking import DEFAULT_MAX_LINES
from ragraf.lang.facts import BuilderCallRef, ClassDecl, FactNode, FileFacts, Ref, TypeDesc

if TYPE_CHECKING:
    from tree_sitter import Node

#: what a variable holds from a point on: ``(pos, block_start, block_end, desc, scoped)``: the
#: byte where the binding starts to hold (an assignment's end, a parameter's function, an
#: ``if`` body narrowing by ``instanceof``), the extent of the innermost block (branch) it is
#: made in, and whether it holds only inside that block (a narrowing) or also after it
Binding = tuple[int, int, int, TypeDesc, bool]


class FrameKind(StrEnum):
    """What a frame of the walk's ``stack`` is (see the module docstring)."""

    NAMESPACE = "namespace"
    CLASS = "class"
    FUNCTION = "function"
    ANON = "anon"
    SCOPE = "scope"


#: the frames that opened a variable scope (popped with it)
SCOPED_FRAMES = (FrameKind.FUNCTION, FrameKind.SCOPE)
#: the frames whose payload is a declaration's node (``container``)
_DECLARING_FRAMES = (FrameKind.CLASS, FrameKind.FUNCTION, FrameKind.NAMESPACE)
#: ``(end_byte, what, payload)`` of a declaration the walk is in (see the module docstring):
#: payload is the ``ClassDecl`` of a CLASS, the node index of a NAMESPACE or FUNCTION,
#: None for ANON and SCOPE
Frame = tuple[int, FrameKind, Any]


class Segment:
    """A namespace segment: its name and its `use` alias maps (lower alias -> fqn)."""

    __slots__ = ("ns", "classes", "functions", "consts", "end")

    def __init__(self, ns: str, end: int | None) -> None:
        self.ns = ns
        self.classes: dict[str, str] = {}
        self.functions: dict[str, str] = {}
        self.consts: dict[str, str] = {}
        self.end = end


class Scope:
    """A variable scope (file, function, method; a method of an anonymous class): what its
    variables may hold (``vars``: bindings in document order, from assignments, parameters,
    ``catch``, ``global``, ``@var``, ``instanceof``) and which of them are ``global``;
    ``node`` is the node index refs in it belong to."""

    __slots__ = (
        "node",
        "cls",
        "vars",
        "globals",
        "doc_globals",
        "closed",
        "closures",
        "end",
        "anon",
        "id",
    )

    def __init__(self, node: int, cls: str | None, end: int, anon: bool = False) -> None:
        self.node = node
        self.cls = cls
        self.vars: dict[str, list[Binding]] = {}
        self.globals: set[str] = set()
        #: ``@global T $name`` in the function's docblock: what its ``global $name`` holds
        self.doc_globals: dict[str, list[TypeDesc]] = {}
        #: (variable, use position) -> what it closed to (``Names.close`` memoizes)
        self.closed: dict[tuple[str, int], TypeDesc | None] = {}
        #: extents of the closures and arrow functions in the scope (they open none)
        self.closures: list[tuple[int, int]] = []
        self.end = end
        self.anon = anon
        self.id = -1


class State:
    """The walk's position and the file's facts so far (see the module docstring)."""

    def __init__(self, path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> None:
        self.max_chunk_lines = max_chunk_lines
        self.path = path
        self.text = text
        self.src = text.encode("utf-8", "surrogateescape")
        self.facts = FileFacts(path, "php", ParseStatus.OK, None, 0)
        self.seg = Segment("", None)
        self.global_seg = self.seg
        self.scopes: list[Scope] = []
        self.all_scopes: list[Scope] = []
        self.seg_node: int | None = None
        self.stack: list[Frame] = []
        self.decl_at: dict[int, int] = {}  # start byte of declaration -> node index
        self.raw_refs: list[Ref] = []  # owners are scope indexes until finish()
        #: start bytes of the callable arrays a hook's listen took (no CallableRef of its own)
        self.hook_arrays: set[int] = set()
        #: (scope, line, call, descriptor) of objects dispatched from a variable
        #: (``$bus->dispatch($event)``): their class is known once ``finish`` closes it
        self.pending_dispatches: list[tuple[int, int, str, TypeDesc]] = []
        self.route_prefixes: dict[str, list[str]] = {}  # class fqn -> its #[Route] paths
        self.comments: list[Node] = []
        self.sql_done: set[tuple[int, int]] = set()
        self.sql_lines: dict[tuple[int, int], int] = {}
        self.sql_pending: list[tuple[int, Node]] = []  # (owner node, string expression)
        self.sql_calls: list[tuple[int, Node]] = []  # (owner node, possible query-builder call)
        #: (call start byte, candidate): calls with a literal table-like first argument
        self.builder_pending: list[tuple[int, BuilderCallRef]] = []
        #: a Doctrine repository class -> the entity its constructor gives its parent
        #: (``parent::__construct($registry, User::class)``), and the repository's own
        #: finder calls (start byte, owner node, line, end line, class, method)
        self.repo_entities: dict[str, str] = {}
        self.repo_calls: list[tuple[int, int, int, int, str, str]] = []
        # variable / property types that wait for finish() to be closed over their scope
        self.pending_globals: list[tuple[int, str, TypeDesc]] = []
        self.pending_props: list[tuple[int, ClassDecl, str, TypeDesc]] = []
        #: (scope index, function node index, descriptor) of each ``return <expr>`` of a
        #: function without a declared or documented return type
        self.pending_returns: list[tuple[int, int, TypeDesc]] = []
        self.typed_returns: set[int] = set()  # function node indexes with a declared one
        #: inline ``/** @var T $x */`` comments: start byte -> variable -> descriptors (the
        #: assignment right after one takes its types)
        self.doc_vars: dict[int, dict[str, list[TypeDesc]]] = {}

    def t(self, n: Node) -> str:
        """The source text of a node."""
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "surrogateescape")

    def add_node(
        self,
        kind: str,
        name: str,
        fqn: str,
        n: Node,
        props: dict[str, Any],
        layer: str = Layer.STRUCTURAL,
    ) -> int:
        """Append a declaration node with its final id; returns its node index."""
        start = n.start_point[0] + 1
        end = n.end_point[0] + 1
        nid = ids.node_id(kind, fqn, self.path, start)
        self.facts.nodes.append(FactNode(nid, kind, name, fqn, start, end, props, layer))
        idx = len(self.facts.nodes) - 1
        self.decl_at[n.start_byte] = idx
        return idx

    def nid(self, idx: int) -> str:
        """The id of the node at an index."""
        return self.facts.nodes[idx].node_id

    def field(self, n: Node, name: str) -> Node:
        """A child the query's pattern requires (the name of a declaration, the function
        of a call), so it is never missing."""
        child = n.child_by_field_name(name)
        if child is None:
            raise ValueError(f"{n.type} without {name} at line {n.start_point[0] + 1}")
        return child

    def first_arg(self, call: Node) -> Node | None:
        """The expression of a call's first argument."""
        args = call.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        return first.named_children[0] if first is not None and first.named_children else None

    def string_value(self, n: Node | None) -> str | None:
        """The value of a plain string literal node (no interpolation)."""
        if n is None:
            return None
        if n.type in ("string", "encapsed_string"):
            parts = n.named_children
            if all(p.type in ("string_content", "string_value") for p in parts):
                return "".join(self.t(p) for p in parts)
        return None

    def docblock(self, n: Node) -> str | None:
        """The ``/** ... */`` right before a declaration, if any."""
        prev = n.prev_named_sibling
        if prev is not None and prev.type == "comment":
            txt = self.t(prev)
            if txt.startswith("/**"):
                return txt
        return None

    # -- scopes ---------------------------------------------------------
    def scope(self) -> Scope:
        """The innermost open scope."""
        return self.scopes[-1]

    def scope_index(self) -> int:
        """The index (into ``all_scopes``) of the innermost open scope: the owner of new refs."""
        return self.scopes[-1].id

    def push_scope(self, sc: Scope) -> None:
        """Open a scope, numbering it in ``all_scopes``."""
        sc.id = len(self.all_scopes)
        self.all_scopes.append(sc)
        self.scopes.append(sc)

    # -- the declaration stack ------------------------------------------
    def cur_class(self) -> str | None:
        """The fqn of the class the position is in, also inside its methods (None inside an
        anonymous class)."""
        decl = self.cur_class_decl_any()
        return decl.fqn if decl is not None else None

    def cur_class_decl(self) -> ClassDecl | None:
        """The class whose body directly holds the position (None inside a method or an
        anonymous class): where members are declared."""
        for _end, what, payload in reversed(self.stack):
            if what == FrameKind.CLASS:
                return cast(ClassDecl, payload)
            if what == FrameKind.ANON or what == FrameKind.FUNCTION:
                return None
        return None

    def cur_class_decl_any(self) -> ClassDecl | None:
        """The class the position is in, also inside its methods (None inside an anonymous
        class): where ``$this->x = ...`` types a property."""
        for _end, what, payload in reversed(self.stack):
            if what == FrameKind.CLASS:
                return cast(ClassDecl, payload)
            if what == FrameKind.ANON:
                return None
        return None

    def stack_has_function(self) -> bool:
        """Whether the position is inside a function, a method or an anonymous class's method."""
        return any(what in SCOPED_FRAMES for _e, what, _p in self.stack)

    def container(self) -> int:
        """Index of the innermost declaration node containing the position."""
        for _end, what, payload in reversed(self.stack):
            if what in _DECLARING_FRAMES:
                return (
                    cast(ClassDecl, payload).node if what == FrameKind.CLASS else cast(int, payload)
                )
        return 0
