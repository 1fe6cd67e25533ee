"""PHP extraction with tree-sitter (architecture §5, §6).

One query (``queries/php-tags.scm``) runs over the whole file in C; Python
then walks the captured nodes in document order. Declarations become nodes
with final ids; uses (calls, ``new``, includes, superglobals...) become
``refs`` that ``ragraf.build.resolve`` links once every file is known.

Invariants a change must keep:
- Names are resolved the way PHP resolves them, per file: namespace, ``use``
  aliases (class / function / const), fully qualified names. Unqualified
  function calls keep both candidates (namespaced, then global).
- Type descriptors (tuples, see ``ragraf.build.resolve.Resolver.types``) describe what a
  receiver expression evaluates to; variables are closed over the scope's
  assignments here, flow-insensitively, so no ('var', ...) leaves this module.
- Comments and docblocks go to ``texts`` (layer text), never into props of
  structural nodes (principle P6).
- Evidence lines are the line of the name at the use site.
- SQL in strings: a string whose text starts with a statement keyword (the
  query's predicate) is followed up to its outermost concatenation, which is
  turned into fragments (decoded literal text, ``("dyn", php)`` for the rest)
  and analysed once with ``ragraf.sql.sqltext`` *without* configured table
  prefixes; the resolver re-analyses the few whose run-time parts a prefix in
  ``db.table_prefixes`` names. The ref is a ``SqlRef``: its owner is the
  innermost function / method (a closure belongs to its enclosing one), else
  the class (constants, property defaults), else the file.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from ragraf import ids
from ragraf.kinds import Layer, NodeKind
from ragraf.lang.chunking import DEFAULT_MAX_LINES, make_chunks
from ragraf.lang.facts import (
    CallableRef,
    CallRef,
    ClassConstRef,
    ClassDecl,
    DynamicCallRef,
    FactNode,
    FileFacts,
    Handler,
    ImportRef,
    IncludeRef,
    LocalEdge,
    MethodCallRef,
    NewRef,
    Ref,
    RouteRef,
    SqlAnalysis,
    SqlRef,
    StaticCallRef,
    SuperglobalRef,
    Target,
    TextFact,
)
from ragraf.sql import sqltext

CLASS_KINDS = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "trait_declaration": "trait",
    "enum_declaration": "enum",
}
NOT_CLASSES = {
    "int",
    "integer",
    "float",
    "double",
    "string",
    "bool",
    "boolean",
    "array",
    "callable",
    "iterable",
    "object",
    "mixed",
    "void",
    "null",
    "never",
    "false",
    "true",
    "resource",
    "self",
    "static",
    "parent",
    "numeric",
    "scalar",
    "list",
}
ROUTE_METHODS = {
    "addroute",
    "get",
    "post",
    "put",
    "patch",
    "delete",
    "any",
    "map",
    "match",
    "options",
    "head",
}
COND_PARENTS = {
    "if_statement",
    "else_clause",
    "else_if_clause",
    "switch_statement",
    "case_statement",
    "conditional_expression",
    "try_statement",
    "catch_clause",
    "while_statement",
    "for_statement",
    "foreach_statement",
}
_SCOPE_TYPES = {
    "function_definition",
    "method_declaration",
    "anonymous_function",
    "arrow_function",
    "program",
}
_DOC_VAR = re.compile(r"@var\s+([\\\w|?\[\]]+)\s+\$(\w+)")
_DOC_VAR_PROP = re.compile(r"@var\s+([\\\w|?\[\]]+)")
_DOC_RETURN = re.compile(r"@return\s+([\\\w|?\[\]]+)")
# PHP escapes of double-quoted strings and heredocs (single quotes know only \\ and \')
_DQ_ESCAPE = re.compile(
    r'\\(?:([nrtvef\\$"])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u\{([0-9A-Fa-f]+)\})'
)
_DQ_SIMPLE = {
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "e": "\x1b",
    "f": "\f",
    "\\": "\\",
    "$": "$",
    '"': '"',
}
_SQ_ESCAPE = re.compile(r"\\([\\'])")
_STRINGS = frozenset({"string", "encapsed_string", "heredoc", "nowdoc"})
_TEXT_PARTS = frozenset({"string_content", "escape_sequence", "nowdoc_string", "string_value"})
MAX_SQL_DYN = 120  # characters of a run-time part kept in fragments


@cache
def _query() -> Any:
    from tree_sitter import Query
    from tree_sitter_language_pack import get_language

    from ragraf import resources

    src = (resources.queries_dir() / "php-tags.scm").read_text(encoding="utf-8")
    return Query(get_language("php"), src)


@cache
def _parser() -> Any:
    from tree_sitter_language_pack import get_parser

    return get_parser("php")


class _Segment:
    """A namespace segment: its name and its `use` alias maps (lower alias -> fqn)."""

    __slots__ = ("ns", "classes", "functions", "consts", "end")

    def __init__(self, ns: str, end: int | None) -> None:
        self.ns = ns
        self.classes: dict[str, str] = {}
        self.functions: dict[str, str] = {}
        self.consts: dict[str, str] = {}
        self.end = end


class _Scope:
    __slots__ = ("node", "cls", "vars", "globals", "end", "anon", "id")

    def __init__(self, node: int, cls: str | None, end: int, anon: bool = False) -> None:
        self.node = node
        self.cls = cls
        self.vars: dict[str, list[Any]] = {}
        self.globals: set[str] = set()
        self.end = end
        self.anon = anon
        self.id = -1


class _Extractor:
    def __init__(self, path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> None:
        self.max_chunk_lines = max_chunk_lines
        self.path = path
        self.text = text
        self.src = text.encode("utf-8", "surrogateescape")
        self.facts = FileFacts(path, "php", "ok", None, 0)
        self.seg = _Segment("", None)
        self.global_seg = self.seg
        self.scopes: list[_Scope] = []
        self.all_scopes: list[_Scope] = []
        self.seg_node: int | None = None
        self.stack: list[tuple[int, str, Any]] = []  # (end_byte, what, payload)
        self.decl_at: dict[int, int] = {}  # start byte of declaration -> node index
        self.raw_refs: list[Ref] = []  # owners are scope indexes until finish()
        self.comments: list[Any] = []
        self.sql_done: set[tuple[int, int]] = set()
        self.sql_lines: dict[tuple[int, int], int] = {}

    # -- helpers ----------------------------------------------------------
    def t(self, n: Any) -> str:
        return self.src[n.start_byte : n.end_byte].decode("utf-8", "surrogateescape")

    def add_node(
        self,
        kind: str,
        name: str,
        fqn: str,
        n: Any,
        props: dict[str, Any],
        layer: str = "structural",
    ) -> int:
        start = n.start_point[0] + 1
        end = n.end_point[0] + 1
        nid = ids.node_id(kind, fqn, self.path, start)
        self.facts.nodes.append(FactNode(nid, kind, name, fqn, start, end, props, layer))
        idx = len(self.facts.nodes) - 1
        self.decl_at[n.start_byte] = idx
        return idx

    def nid(self, idx: int) -> str:
        return self.facts.nodes[idx][0]

    def qualify(self, name: str) -> str:
        return f"{self.seg.ns}\\{name}" if self.seg.ns else name

    def resolve_class(self, raw: str) -> str | None:
        """A class name as written -> fully qualified (without leading '\\')."""
        raw = raw.strip()
        if not raw:
            return None
        if raw[0] == "\\":
            return raw[1:]
        low = raw.lower()
        if low in NOT_CLASSES:
            return None
        if low.startswith("namespace\\"):
            return self.qualify(raw[10:])
        first, sep, rest = raw.partition("\\")
        target = self.seg.classes.get(first.lower())
        if target:
            return f"{target}\\{rest}" if sep else target
        return self.qualify(raw)

    def function_candidates(self, raw: str) -> tuple[str, ...]:
        raw = raw.strip()
        if raw.startswith("\\"):
            return (raw[1:],)
        if "\\" in raw:
            first, _, rest = raw.partition("\\")
            if first.lower() == "namespace":
                return (self.qualify(rest),)
            target = self.seg.classes.get(first.lower())
            return (f"{target}\\{rest}",) if target else (self.qualify(raw),)
        alias = self.seg.functions.get(raw.lower())
        if alias:
            return (alias,)
        if self.seg.ns:
            return (self.qualify(raw), raw)
        return (raw,)

    def scope(self) -> _Scope:
        return self.scopes[-1]

    def cur_class(self) -> str | None:
        for _end, what, payload in reversed(self.stack):
            if what == "class":
                return payload.fqn
            if what == "anon":
                return None
        return None

    def cur_class_decl(self) -> ClassDecl | None:
        for _end, what, payload in reversed(self.stack):
            if what == "class":
                return payload
            if what in ("anon", "function"):
                return None
        return None

    def container(self) -> int:
        """Index of the innermost declaration node containing the position."""
        for _end, what, payload in reversed(self.stack):
            if what in ("class", "function", "namespace"):
                return payload.node if what == "class" else payload
        return 0

    def docblock(self, n: Any) -> str | None:
        prev = n.prev_named_sibling
        if prev is not None and prev.type == "comment":
            txt = self.t(prev)
            if txt.startswith("/**"):
                return txt
        return None

    # -- types ------------------------------------------------------------
    def type_descs(self, tnode: Any | None) -> list[Any]:
        """A type annotation node -> class descriptors (primitive types give none)."""
        if tnode is None:
            return []
        ty = tnode.type
        if ty in (
            "optional_type",
            "union_type",
            "intersection_type",
            "disjunctive_normal_form_type",
        ):
            out: list[Any] = []
            for c in tnode.named_children:
                out.extend(self.type_descs(c))
            return out
        if ty == "named_type":
            c = tnode.named_children[0] if tnode.named_children else None
            return self.type_descs(c) if c is not None else []
        if ty in ("name", "qualified_name"):
            raw = self.t(tnode)
            low = raw.lower()
            if low in ("self", "static"):
                cls = self.cur_class()
                return (
                    [("static",)] if low == "static" and cls else ([("class", cls)] if cls else [])
                )
            fq = self.resolve_class(raw)
            return [("class", fq)] if fq else []
        return []

    def doc_types(self, raw: str) -> list[Any]:
        out: list[Any] = []
        for part in raw.replace("?", "").split("|"):
            part = part.strip()
            if not part or part.endswith("[]"):
                continue
            low = part.lower()
            if low in ("self", "static", "$this"):
                cls = self.cur_class()
                if cls:
                    out.append(("static",) if low != "self" else ("class", cls))
                continue
            fq = self.resolve_class(part)
            if fq:
                out.append(("class", fq))
        return out

    def expr_desc(self, n: Any | None, depth: int = 0) -> Any:
        """What an expression evaluates to, as a type descriptor (or None)."""
        if n is None or depth > 6:
            return None
        ty = n.type
        if ty == "variable_name":
            name = self.t(n)[1:]
            if name == "this":
                cls = self.cur_class()
                return ("class", cls) if cls else None
            return ("var", name)
        if ty in ("member_access_expression", "nullsafe_member_access_expression"):
            name = n.child_by_field_name("name")
            if name is None or name.type != "name":
                return None
            recv = self.expr_desc(n.child_by_field_name("object"), depth + 1)
            return ("prop", recv, self.t(name)) if recv else None
        if ty in ("member_call_expression", "nullsafe_member_call_expression"):
            name = n.child_by_field_name("name")
            if name is None or name.type != "name":
                return None
            recv = self.expr_desc(n.child_by_field_name("object"), depth + 1)
            return ("call", recv, self.t(name)) if recv else None
        if ty == "scoped_call_expression":
            name = n.child_by_field_name("name")
            cls = self.class_desc(n.child_by_field_name("scope"))
            if name is None or name.type != "name" or cls is None:
                return None
            return ("scall", cls, self.t(name))
        if ty == "object_creation_expression":
            c = n.named_children[0] if n.named_children else None
            if c is None:
                return None
            return self.class_desc(c)
        if ty == "function_call_expression":
            f = n.child_by_field_name("function")
            if f is not None and f.type in ("name", "qualified_name"):
                return ("func", self.function_candidates(self.t(f)))
            return None
        if ty == "scoped_property_access_expression":
            cls = self.class_desc(n.child_by_field_name("scope"))
            name = n.child_by_field_name("name")
            if cls is None or name is None:
                return None
            return ("sprop", cls, self.t(name).lstrip("$"))
        if ty == "parenthesized_expression":
            return self.expr_desc(n.named_children[0] if n.named_children else None, depth + 1)
        if ty == "assignment_expression":
            return self.expr_desc(n.child_by_field_name("right"), depth + 1)
        if ty == "clone_expression":
            return self.expr_desc(n.named_children[0] if n.named_children else None, depth + 1)
        if ty == "subscript_expression":
            base = n.named_children[0] if n.named_children else None
            if base is not None and base.type == "variable_name" and self.t(base) == "$GLOBALS":
                key = self.string_value(n.named_children[1]) if n.named_child_count > 1 else None
                return ("global", key) if key else None
        return None

    def class_desc(self, n: Any | None) -> Any:
        """A class position (scope of ::, target of new) -> descriptor."""
        if n is None:
            return None
        ty = n.type
        if ty == "relative_scope":
            word = self.t(n).lower()
            cls = self.cur_class()
            if not cls:
                return None
            return ("parent", cls) if word == "parent" else ("class", cls)
        if ty in ("name", "qualified_name"):
            raw = self.t(n)
            low = raw.lower()
            if low in ("self", "static"):
                cls = self.cur_class()
                return ("class", cls) if cls else None
            if low == "parent":
                cls = self.cur_class()
                return ("parent", cls) if cls else None
            fq = self.resolve_class(raw)
            return ("class", fq) if fq else None
        if ty == "variable_name":
            return self.expr_desc(n)
        return None

    def string_value(self, n: Any) -> str | None:
        """The value of a plain string literal node (no interpolation)."""
        if n is None:
            return None
        if n.type in ("string", "encapsed_string"):
            parts = n.named_children
            if all(p.type in ("string_content", "string_value") for p in parts):
                return "".join(self.t(p) for p in parts)
        return None

    # -- declarations -----------------------------------------------------
    def on_namespace(self, n: Any) -> None:
        name_node = n.child_by_field_name("name")
        name = self.t(name_node) if name_node is not None else ""
        body = n.child_by_field_name("body")
        self.seg = _Segment(name, n.end_byte if body is not None else None)
        if name:
            idx = self.add_node("namespace", name.rsplit("\\", 1)[-1], name, n, {})
            self.facts.edges.append(
                LocalEdge(self.nid(0), self.nid(idx), "contains", n.start_point[0] + 1)
            )
            if body is not None:
                self.stack.append((n.end_byte, "namespace", idx))
            self.seg_node = idx
        else:
            self.seg_node = None

    def on_import(self, n: Any) -> None:
        line = n.start_point[0] + 1
        kind = "class"
        prefix = ""
        for c in n.children:
            if c.type in ("function", "const"):
                kind = "function" if c.type == "function" else "const"
            elif c.type == "namespace_name":
                prefix = self.t(c)
        group = n.child_by_field_name("body")
        clauses = (
            list(group.named_children)
            if group is not None
            else [c for c in n.named_children if c.type == "namespace_use_clause"]
        )
        for cl in clauses:
            if cl.type != "namespace_use_clause":
                continue
            ckind = kind
            for c in cl.children:
                if c.type in ("function", "const"):
                    ckind = "function" if c.type == "function" else "const"
            alias_node = cl.child_by_field_name("alias")
            name_nodes = [
                c
                for c in cl.named_children
                if c is not alias_node and c.type in ("name", "qualified_name")
            ]
            if not name_nodes:
                continue
            raw = self.t(name_nodes[0]).lstrip("\\")
            fqn = f"{prefix}\\{raw}" if prefix else raw
            fqn = fqn.lstrip("\\")
            alias = self.t(alias_node) if alias_node is not None else fqn.rsplit("\\", 1)[-1]
            table = {
                "class": self.seg.classes,
                "function": self.seg.functions,
                "const": self.seg.consts,
            }[ckind]
            table[alias.lower()] = fqn
            self.raw_refs.append(
                ImportRef(
                    self.scope_index(),
                    cl.start_point[0] + 1 if cl.start_point[0] != n.start_point[0] else line,
                    ckind,
                    fqn,
                )
            )

    def scope_index(self) -> int:
        return self.scopes[-1].id

    def push_scope(self, sc: _Scope) -> None:
        sc.id = len(self.all_scopes)
        self.all_scopes.append(sc)
        self.scopes.append(sc)

    def on_class(self, n: Any, kind: str) -> None:
        name = self.t(n.child_by_field_name("name"))
        fqn = self.qualify(name)
        mods = [
            self.t(c)
            for c in n.children
            if c.type in ("abstract_modifier", "final_modifier", "readonly_modifier")
        ]
        props: dict[str, Any] = {"signature": self.signature(n)}
        if mods:
            props["modifiers"] = mods
        idx = self.add_node(kind, name, fqn, n, props)
        decl = ClassDecl(idx, fqn, kind, abstract="abstract" in mods)
        for c in n.named_children:
            if c.type == "base_clause":
                for b in c.named_children:
                    fq = self.resolve_class(self.t(b))
                    if fq:
                        decl.extends.append((fq, b.start_point[0] + 1))
            elif c.type == "class_interface_clause":
                for b in c.named_children:
                    fq = self.resolve_class(self.t(b))
                    if fq:
                        decl.implements.append((fq, b.start_point[0] + 1))
        if kind == "interface":
            decl.implements, decl.extends = [], decl.extends  # interfaces "extend" interfaces
        self.facts.classes.append(decl)
        self.link_parent(idx, n)
        self.stack.append((n.end_byte, "class", decl))

    def link_parent(self, idx: int, n: Any) -> None:
        line = n.start_point[0] + 1
        parent = self.container()
        kind = self.facts.nodes[idx][1]
        if parent == 0 or self.facts.nodes[parent][1] == "namespace":
            self.facts.edges.append(LocalEdge(self.nid(0), self.nid(idx), "contains", line))
            ns_idx = self.seg_node
            if ns_idx is not None and kind not in ("namespace",):
                self.facts.edges.append(LocalEdge(self.nid(ns_idx), self.nid(idx), "defines", line))
        else:
            self.facts.edges.append(LocalEdge(self.nid(parent), self.nid(idx), "contains", line))

    def signature(self, n: Any) -> str:
        body = n.child_by_field_name("body")
        end = body.start_byte if body is not None else n.end_byte
        start = n.start_byte
        for c in n.children:  # skip attributes before the declaration
            if c.type == "attribute_list":
                start = c.end_byte
        sig = self.src[start:end].decode("utf-8", "surrogateescape")
        sig = " ".join(sig.split()).rstrip(" ;{")
        return sig[:300]

    def params(
        self, n: Any, scope: _Scope, decl: ClassDecl | None, is_ctor: bool
    ) -> list[dict[str, Any]]:
        plist = n.child_by_field_name("parameters")
        out: list[dict[str, Any]] = []
        if plist is None:
            return out
        for p in plist.named_children:
            if p.type not in (
                "simple_parameter",
                "variadic_parameter",
                "property_promotion_parameter",
            ):
                continue
            name_node = p.child_by_field_name("name")
            if name_node is None:
                continue
            pname = self.t(name_node).lstrip("&$")
            tnode = p.child_by_field_name("type")
            entry: dict[str, Any] = {"name": pname}
            if tnode is not None:
                entry["type"] = self.t(tnode)
            default = p.child_by_field_name("default_value")
            if default is not None:
                entry["default"] = self.t(default)[:60]
            if p.type == "variadic_parameter":
                entry["variadic"] = True
            descs = self.type_descs(tnode)
            if descs:
                scope.vars.setdefault(pname, []).extend(descs)
            if p.type == "property_promotion_parameter":
                entry["promoted"] = True
                if decl is not None and is_ctor:
                    decl.props.setdefault(pname, []).extend(descs)
                    vis = p.child_by_field_name("visibility")
                    pid = self.add_node(
                        "property",
                        "$" + pname,
                        f"{decl.fqn}::${pname}",
                        p,
                        {
                            "visibility": self.t(vis) if vis is not None else "public",
                            "promoted": True,
                            **({"type": entry["type"]} if "type" in entry else {}),
                        },
                    )
                    self.facts.edges.append(
                        LocalEdge(
                            self.nid(decl.node), self.nid(pid), "contains", p.start_point[0] + 1
                        )
                    )
            out.append(entry)
        return out

    def on_function(self, n: Any, method: bool) -> None:
        name = self.t(n.child_by_field_name("name"))
        decl = self.cur_class_decl() if method else None
        in_anon = any(what == "anon" for _e, what, _p in self.stack)
        if method and (decl is None or in_anon):
            # a method of an anonymous class: no symbol of its own; its calls
            # belong to the enclosing scope and `$this` is unknown
            sc = _Scope(self.scope().node, None, n.end_byte, anon=True)
            self.params(n, sc, None, False)
            self.push_scope(sc)
            self.stack.append((n.end_byte, "scope", None))
            return
        props: dict[str, Any] = {"signature": self.signature(n)}
        mods = {c.type: self.t(c) for c in n.children if c.type.endswith("_modifier")}
        if method:
            props["visibility"] = mods.get("visibility_modifier", "public")
            props["static"] = "static_modifier" in mods
            if "abstract_modifier" in mods:
                props["abstract"] = True
            if "final_modifier" in mods:
                props["final"] = True
            fqn = f"{decl.fqn}::{name}" if decl else name
            kind = "method"
        else:
            fqn = self.qualify(name)
            kind = "function"
        sc = _Scope(0, decl.fqn if decl else None, n.end_byte)
        idx = self.add_node(kind, name, fqn, n, props)
        sc.node = idx
        props["parameters"] = self.params(n, sc, decl, method and name.lower() == "__construct")
        rt = n.child_by_field_name("return_type")
        if rt is not None:
            props["return_type"] = self.t(rt)
        rdescs = self.type_descs(rt)
        if not rdescs:
            doc = self.docblock(n)
            m = _DOC_RETURN.search(doc) if doc else None
            if m:
                rdescs = self.doc_types(m.group(1))
        if rdescs:
            self.facts.returns[idx] = rdescs
        if decl is not None:
            decl.methods.setdefault(name.lower(), idx)
        else:
            self.facts.functions.append((fqn, idx))
        self.link_parent(idx, n)
        self.push_scope(sc)
        self.facts.scope_nodes.append(idx)
        self.stack.append((n.end_byte, "function", idx))

    def on_property(self, n: Any) -> None:
        decl = self.cur_class_decl()
        if decl is None:
            return
        tnode = n.child_by_field_name("type")
        descs = self.type_descs(tnode)
        if not descs:
            doc = self.docblock(n)
            m = _DOC_VAR_PROP.search(doc) if doc else None
            if m:
                descs = self.doc_types(m.group(1))
        mods = {c.type: self.t(c) for c in n.children if c.type.endswith("_modifier")}
        for el in n.named_children:
            if el.type != "property_element":
                continue
            vn = el.child_by_field_name("name")
            if vn is None:
                continue
            pname = self.t(vn).lstrip("$")
            props: dict[str, Any] = {
                "visibility": mods.get("visibility_modifier", "public"),
                "static": "static_modifier" in mods,
            }
            if tnode is not None:
                props["type"] = self.t(tnode)
            idx = self.add_node("property", "$" + pname, f"{decl.fqn}::${pname}", el, props)
            self.facts.edges.append(
                LocalEdge(self.nid(decl.node), self.nid(idx), "contains", el.start_point[0] + 1)
            )
            decl.props.setdefault(pname, []).extend(descs)
            default = el.child_by_field_name("default_value")
            d = self.expr_desc(default)
            if d is not None and d[0] == "class":
                decl.props[pname].append(d)

    def on_constant(self, n: Any) -> None:
        decl = self.cur_class_decl()
        in_function = any(what == "function" for _e, what, _p in self.stack)
        for el in n.named_children:
            if el.type != "const_element":
                continue
            name_node = next((c for c in el.named_children if c.type == "name"), None)
            if name_node is None:
                continue
            name = self.t(name_node)
            if decl is not None:
                fqn = f"{decl.fqn}::{name}"
            elif in_function:
                continue
            else:
                fqn = self.qualify(name)
            idx = self.add_node("constant", name, fqn, el, {})
            if decl is not None:
                decl.consts[name] = idx
                self.facts.edges.append(
                    LocalEdge(self.nid(decl.node), self.nid(idx), "contains", el.start_point[0] + 1)
                )
            else:
                self.link_parent(idx, el)

    def on_enum_case(self, n: Any) -> None:
        decl = self.cur_class_decl()
        name_node = n.child_by_field_name("name")
        if decl is None or name_node is None:
            return
        name = self.t(name_node)
        idx = self.add_node("constant", name, f"{decl.fqn}::{name}", n, {"enum_case": True})
        decl.consts[name] = idx
        self.facts.edges.append(
            LocalEdge(self.nid(decl.node), self.nid(idx), "contains", n.start_point[0] + 1)
        )

    def on_trait_use(self, n: Any) -> None:
        decl = self.cur_class_decl()
        if decl is None:
            return
        for c in n.named_children:
            if c.type in ("name", "qualified_name"):
                fq = self.resolve_class(self.t(c))
                if fq:
                    decl.traits.append((fq, c.start_point[0] + 1))

    # -- uses ---------------------------------------------------------------
    def on_call(self, n: Any) -> None:
        f = n.child_by_field_name("function")
        line = f.start_point[0] + 1
        sc = self.scope_index()
        if f.type in ("name", "qualified_name"):
            raw = self.t(f)
            low = raw.lower().lstrip("\\")
            if low in (
                "call_user_func",
                "call_user_func_array",
                "forward_static_call",
                "forward_static_call_array",
            ):
                args = n.child_by_field_name("arguments")
                first = args.named_children[0] if args is not None and args.named_children else None
                arg = (
                    first.named_children[0] if first is not None and first.named_children else None
                )
                target = self.callable_target(arg)
                self.raw_refs.append(
                    DynamicCallRef(sc, line, "call_user_func", (target,) if target else ())
                )
                return
            if low == "define":
                self.on_define(n)
            self.raw_refs.append(CallRef(sc, line, self.function_candidates(raw), raw))
        elif f.type == "variable_name":
            # the variable's name waits in the target until finish() closes it over the scope
            self.raw_refs.append(
                DynamicCallRef(sc, line, "variable", (Target("variable", method=self.t(f)[1:]),))
            )

    def on_define(self, n: Any) -> None:
        args = n.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        arg = first.named_children[0] if first is not None and first.named_children else None
        name = self.string_value(arg)
        if name and re.fullmatch(r"[A-Za-z_]\w*(\\\w+)*", name):
            idx = self.add_node(
                "constant", name.rsplit("\\", 1)[-1], name.lstrip("\\"), n, {"define": True}
            )
            self.facts.edges.append(
                LocalEdge(self.nid(0), self.nid(idx), "contains", n.start_point[0] + 1)
            )

    def callable_target(self, arg: Any) -> Target | None:
        """'name', 'Class::method', [Class::class, 'm'], [$this, 'm'] -> what they name."""
        if arg is None:
            return None
        s = self.string_value(arg)
        if s is not None:
            if "::" in s:
                cls, _, meth = s.partition("::")
                fq = self.resolve_class(cls)
                return Target("method", receiver=("class", fq), method=meth) if fq else None
            if re.fullmatch(r"\\?\w+(\\\w+)*", s):
                return Target("function", candidates=self.function_candidates(s))
            return None
        if arg.type == "array_creation_expression":
            return self.callable_array(arg)
        return None

    def callable_array(self, arr: Any) -> Target | None:
        """``[X, 'method']`` -> a method target (receiver None when X is not understood)."""
        els = [e for e in arr.named_children if e.type == "array_element_initializer"]
        if len(els) != 2 or any(e.named_child_count != 1 for e in els):
            return None
        a, b = els[0].named_children[0], els[1].named_children[0]
        meth = self.string_value(b)
        if not meth or not re.fullmatch(r"\w+", meth):
            return None
        if a.type == "class_constant_access_expression":
            parts = a.named_children
            if len(parts) == 2 and self.t(parts[1]).lower() == "class":
                cls = self.class_desc(parts[0])
                return Target("method", receiver=cls, method=meth) if cls else None
            return None
        s = self.string_value(a)
        if s:
            fq = self.resolve_class(s)
            return Target("method", receiver=("class", fq), method=meth) if fq else None
        d = self.expr_desc(a)
        return Target("method", receiver=d, method=meth) if d else None

    def on_array(self, n: Any) -> None:
        target = self.callable_array(n)
        if target is not None and target.receiver is not None:
            self.raw_refs.append(
                CallableRef(
                    self.scope_index(), n.start_point[0] + 1, target.receiver, target.method
                )
            )

    def on_method_call(self, n: Any) -> None:
        name = n.child_by_field_name("name")
        line = name.start_point[0] + 1
        if name.type != "name":
            self.raw_refs.append(DynamicCallRef(self.scope_index(), line, "dynamic_method", ()))
            return
        recv = self.expr_desc(n.child_by_field_name("object"))
        mname = self.t(name)
        self.raw_refs.append(MethodCallRef(self.scope_index(), line, recv, mname))
        if mname.lower() in ROUTE_METHODS:
            self.on_route(n, mname.lower(), line)

    def on_route(self, n: Any, mname: str, line: int) -> None:
        """Router registrations: ->get('/path', Handler::class), ->addRoute(['GET'], '/p', [C::class, 'm']),
        with the prefixes of enclosing ->addGroup('/prefix', function ...) calls."""
        args = n.child_by_field_name("arguments")
        vals = [
            a.named_children[0]
            for a in (args.named_children if args is not None else [])
            if a.type == "argument" and a.named_children
        ]
        if mname in ("addroute", "map", "match"):
            if len(vals) < 3:
                return
            mnode, pnode, hnode = vals[0], vals[1], vals[2]
            single = self.string_value(mnode)
            if single is not None:
                methods = [single.upper()]
            elif mnode.type == "array_creation_expression":
                methods = [
                    self.string_value(e.named_children[0]) or "?"
                    for e in mnode.named_children
                    if e.type == "array_element_initializer" and e.named_children
                ]
                methods = [m.upper() for m in methods]
            else:
                methods = ["*"]
        else:
            if len(vals) < 2:
                return
            pnode, hnode = vals[0], vals[1]
            methods = ["*" if mname in ("any", "map") else mname.upper()]
        route = self.string_value(pnode)
        if route is None or not (route == "" or route[0] in "/["):
            return
        handler: Handler | None = None
        if hnode.type == "class_constant_access_expression":
            parts = hnode.named_children
            if len(parts) == 2 and self.t(parts[1]).lower() == "class":
                handler = Handler("class", self.class_desc(parts[0]))
        elif hnode.type == "array_creation_expression":
            t = self.callable_array(hnode)
            if t is not None:
                handler = Handler("method", t.receiver, t.method)
        elif hnode.type in ("anonymous_function", "arrow_function"):
            handler = Handler("closure")
        else:
            sv = self.string_value(hnode)
            if sv and ("@" in sv or "::" in sv):
                cls, _, meth = sv.replace("@", "::").partition("::")
                fq = self.resolve_class(cls)
                handler = Handler("method", ("class", fq), meth) if fq else None
        if handler is None or (handler.kind != "closure" and handler.cls is None):
            return
        prefix = ""
        p = n.parent
        while p is not None:
            if p.type in ("member_call_expression", "scoped_call_expression"):
                pn = p.child_by_field_name("name")
                if pn is not None and self.t(pn).lower() in ("addgroup", "group", "prefix"):
                    pargs = p.child_by_field_name("arguments")
                    first = (
                        pargs.named_children[0]
                        if pargs is not None and pargs.named_children
                        else None
                    )
                    pv = (
                        self.string_value(first.named_children[0])
                        if first is not None and first.named_children
                        else None
                    )
                    if pv is not None:
                        prefix = pv + prefix
            p = p.parent
        self.raw_refs.append(
            RouteRef(self.scope_index(), line, tuple(methods), prefix + route, handler)
        )

    def on_static_call(self, n: Any) -> None:
        name = n.child_by_field_name("name")
        line = name.start_point[0] + 1
        if name.type != "name":
            self.raw_refs.append(DynamicCallRef(self.scope_index(), line, "dynamic_method", ()))
            return
        cls = self.class_desc(n.child_by_field_name("scope"))
        self.raw_refs.append(StaticCallRef(self.scope_index(), line, cls, self.t(name)))

    def on_new(self, n: Any) -> None:
        c = n.named_children[0] if n.named_children else None
        if c is None or c.type == "anonymous_class":
            return
        if c.type in ("name", "qualified_name"):
            d = self.class_desc(c)
            if d is not None:
                self.raw_refs.append(NewRef(self.scope_index(), c.start_point[0] + 1, d))

    def on_class_constant(self, n: Any) -> None:
        parts = n.named_children
        if len(parts) != 2:
            return
        if parts[0].type not in ("name", "qualified_name", "relative_scope"):
            return
        cls = self.class_desc(parts[0])
        if cls is None:
            return
        member = self.t(parts[1])
        self.raw_refs.append(
            ClassConstRef(self.scope_index(), parts[0].start_point[0] + 1, cls, member)
        )

    def on_include(self, n: Any) -> None:
        expr = n.named_children[0] if n.named_children else None
        parts = self.include_parts(expr)
        conditional = False
        p = n.parent
        while p is not None and p.type not in _SCOPE_TYPES:
            if p.type in COND_PARENTS or (
                p.type == "binary_expression"
                and p.child(1) is not None
                and self.t(p.child(1)).lower() in ("or", "and", "||", "&&", "??")
            ):
                conditional = True
                break
            p = p.parent
        kind = n.type.replace("_expression", "")
        self.raw_refs.append(
            IncludeRef(self.scope_index(), n.start_point[0] + 1, kind, tuple(parts), conditional)
        )

    def include_parts(self, n: Any) -> list[tuple[str, str]]:
        if n is None:
            return [("dyn", "")]
        ty = n.type
        if ty == "parenthesized_expression":
            return self.include_parts(n.named_children[0] if n.named_children else None)
        if ty == "binary_expression" and n.child(1) is not None and self.t(n.child(1)) == ".":
            return self.include_parts(n.child_by_field_name("left")) + self.include_parts(
                n.child_by_field_name("right")
            )
        s = self.string_value(n)
        if s is not None:
            return [("lit", s)]
        if ty == "name" and self.t(n) == "__DIR__":
            return [("dir", "")]
        if ty == "function_call_expression":
            f = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            if (
                f is not None
                and self.t(f).lower().lstrip("\\") == "dirname"
                and args is not None
                and args.named_children
            ):
                inner = (
                    args.named_children[0].named_children[0]
                    if args.named_children[0].named_children
                    else None
                )
                levels = 1
                if len(args.named_children) > 1:
                    lv = self.t(args.named_children[1]).strip()
                    levels = int(lv) if lv.isdigit() else 1
                if inner is not None and self.t(inner) in ("__FILE__",):
                    return [("dir", "")] + [("lit", "/..")] * (levels - 1)
                if inner is not None and self.t(inner) == "__DIR__":
                    return [("dir", "")] + [("lit", "/..")] * levels
        if ty == "encapsed_string":
            out: list[tuple[str, str]] = []
            for c in n.named_children:
                out.extend(
                    [("lit", self.t(c))] if c.type == "string_content" else [("dyn", self.t(c))]
                )
            return out
        return [("dyn", self.t(n)[:80])]

    def on_global(self, n: Any) -> None:
        sc = self.scope()
        for c in n.named_children:
            if c.type == "variable_name":
                name = self.t(c)[1:]
                sc.globals.add(name)
                sc.vars.setdefault(name, []).append(("global", name))

    def on_assignment(self, n: Any) -> None:
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        if left is None:
            return
        sc = self.scope()
        lt = left.type
        if lt == "variable_name":
            name = self.t(left)[1:]
            d = self.expr_desc(right)
            if d is None and right is not None:
                d = self.callable_desc(right)
            if d is not None:
                sc.vars.setdefault(name, []).append(d)
                if sc.node == 0 and not self.stack_has_function() or name in sc.globals:
                    self.pending_globals.append((self.scope_index(), name, d))
        elif lt == "member_access_expression":
            obj = left.child_by_field_name("object")
            pname = left.child_by_field_name("name")
            if (
                obj is not None
                and pname is not None
                and self.t(obj) == "$this"
                and pname.type == "name"
            ):
                decl = self.cur_class_decl_any()
                d = self.expr_desc(right)
                if decl is not None and d is not None:
                    self.pending_props.append((self.scope_index(), decl, self.t(pname), d))
        elif lt == "subscript_expression":
            d = self.expr_desc(left)
            if d is not None and d[0] == "global":
                rd = self.expr_desc(right)
                if rd is not None:
                    self.pending_globals.append((self.scope_index(), d[1], rd))

    def stack_has_function(self) -> bool:
        return any(what in ("function", "scope") for _e, what, _p in self.stack)

    def cur_class_decl_any(self) -> ClassDecl | None:
        for _end, what, payload in reversed(self.stack):
            if what == "class":
                return payload
            if what == "anon":
                return None
        return None

    def on_catch(self, n: Any) -> None:
        tnode = n.child_by_field_name("type")
        name = n.child_by_field_name("name")
        if tnode is None or name is None:
            return
        descs: list[Any] = []
        for c in [tnode] if tnode.type != "type_list" else tnode.named_children:
            descs.extend(self.type_descs(c))
        if descs:
            self.scope().vars.setdefault(self.t(name).lstrip("$"), []).extend(descs)

    def on_superglobal(self, n: Any) -> None:
        base = n.named_children[0]
        key_node = n.named_children[1] if n.named_child_count > 1 else None
        key = self.string_value(key_node) if key_node is not None else None
        self.raw_refs.append(
            SuperglobalRef(self.scope_index(), n.start_point[0] + 1, self.t(base), key)
        )

    def on_closure(self, n: Any) -> None:
        # parameters of closures type variables of the enclosing scope (flow-insensitive)
        self.params(n, self.scope(), None, False)

    def on_comment(self, n: Any) -> None:
        self.comments.append(n)
        txt = self.t(n)
        if "@var" in txt and "$" in txt:  # `/** @var Type $name */` types a local variable
            for m in _DOC_VAR.finditer(txt):
                descs = self.doc_types(m.group(1))
                if descs:
                    self.scope().vars.setdefault(m.group(2), []).extend(descs)

    # -- SQL in strings (issue 6) -------------------------------------------
    def on_sql(self, n: Any) -> None:
        """A string starting with a SQL keyword: analyse its outermost concatenation once."""
        outer = n
        p = outer.parent
        while p is not None:
            if not (
                _is_concat(p) or (p.type == "parenthesized_expression" and _is_concat(p.parent))
            ):
                break
            outer = p
            p = outer.parent
        key = (outer.start_byte, outer.end_byte)
        if key in self.sql_done:
            return
        self.sql_done.add(key)
        frags = self.sql_fragments(outer)
        if not sqltext.looks_like_sql(frags):
            return
        info = sqltext.analyze(frags)
        if info is None and not any(k == "dyn" for k, _t in frags):
            return
        owner = self.sql_owner()
        line = outer.start_point[0] + 1
        ordinal = self.sql_lines.get((owner, line), 0) + 1
        self.sql_lines[(owner, line)] = ordinal
        # owner is already a node index here (not a scope): finish() keeps it as is
        self.raw_refs.append(
            SqlRef(owner, line, outer.end_point[0] + 1, frags, pack_sql(info), ordinal)
        )

    def sql_owner(self) -> int:
        for _end, what, payload in reversed(self.stack):
            if what == "function":
                return int(payload)
            if what == "scope":
                return self.scope().node
            if what == "class":
                return int(payload.node)
        return 0

    def sql_fragments(self, n: Any) -> tuple[tuple[str, str], ...]:
        """A string expression -> ("lit", decoded text) / ("dyn", PHP expression) fragments."""
        out: list[tuple[str, str]] = []
        stack = [n]
        while stack:
            x = stack.pop()
            ty = x.type
            if ty == "binary_expression" and _is_concat(x):
                right, left = x.child_by_field_name("right"), x.child_by_field_name("left")
                if right is not None:
                    stack.append(right)
                if left is not None:
                    stack.append(left)
            elif (
                ty == "parenthesized_expression"
                and x.named_child_count == 1
                and (x.named_children[0].type in _STRINGS or _is_concat(x.named_children[0]))
            ):
                stack.append(x.named_children[0])
            elif ty == "string":
                out.append(("lit", self.single_quoted(x)))
            elif ty in ("encapsed_string", "heredoc", "nowdoc"):
                out.extend(self.interpolated(x))
            elif ty != "comment":
                out.append(("dyn", self.t(x)[:MAX_SQL_DYN]))
        merged: list[tuple[str, str]] = []
        for k, v in out:
            if k == "lit" and merged and merged[-1][0] == "lit":
                merged[-1] = ("lit", merged[-1][1] + v)
            elif k != "lit" or v:
                merged.append((k, v))
        return tuple(merged)

    def single_quoted(self, n: Any) -> str:
        raw = self.t(n)
        if raw[:1] in "bB":
            raw = raw[1:]
        if raw[:1] == '"':  # a double-quoted string without interpolation
            return _decode_dq(raw[1:-1])
        return _SQ_ESCAPE.sub(r"\1", raw[1:-1])

    def interpolated(self, n: Any) -> list[tuple[str, str]]:
        """Fragments of a double-quoted string, heredoc or nowdoc (heredoc indentation removed)."""
        src = self.src
        kids = n.children
        if n.type == "encapsed_string":
            # b"...": the grammar has no token for the opening b" (only for the closing quote)
            start = n.start_byte + (
                2 if src[n.start_byte : n.start_byte + 1] in (b"b", b"B") else 1
            )
            end = n.end_byte - 1 if src[n.end_byte - 1 : n.end_byte] == b'"' else n.end_byte
            if end <= start:
                return []
            return _decode_pieces(self.text_pieces(kids, start, end), dq=True)
        body = next((c for c in kids if c.type in ("heredoc_body", "nowdoc_body")), None)
        end_node = next((c for c in kids if c.type == "heredoc_end"), None)
        if body is None or end_node is None:
            return []
        start = body.start_byte
        if src[start : start + 2] == b"\r\n":
            start += 2
        elif src[start : start + 1] == b"\n":
            start += 1
        nl = src.rfind(b"\n", 0, end_node.start_byte)
        stop = nl - 1 if nl > 0 and src[nl - 1 : nl] == b"\r" else nl
        stop = max(stop, start)
        indent = src[nl + 1 : end_node.start_byte]
        if indent.strip(b" \t"):
            indent = b""
        pieces = self.text_pieces(body.children, start, stop)
        if indent:
            pieces = _dedent(pieces, indent.decode("utf-8", "surrogateescape"))
        return _decode_pieces(pieces, dq=n.type == "heredoc")

    def text_pieces(self, kids: list[Any], start: int, end: int) -> list[tuple[str, str]]:
        """("raw", source text) / ("dyn", PHP expression) pieces of [start, end)."""
        src = self.src
        out: list[tuple[str, str]] = []
        cur = start
        i = 0
        while i < len(kids):
            c = kids[i]
            i += 1
            if c.end_byte <= cur or c.start_byte >= end:
                continue
            if c.start_byte > cur:
                out.append(("raw", src[cur : c.start_byte].decode("utf-8", "surrogateescape")))
                cur = c.start_byte
            ty = c.type
            if ty in _TEXT_PARTS:
                stop = min(c.end_byte, end)
                out.append(("raw", src[cur:stop].decode("utf-8", "surrogateescape")))
                cur = stop
            elif ty == "{":  # complex interpolation {$expr}: one run-time part
                j = i
                while j < len(kids) and kids[j].type != "}":
                    j += 1
                stop = kids[j].end_byte if j < len(kids) else c.end_byte
                out.append(
                    (
                        "dyn",
                        src[c.start_byte : stop].decode("utf-8", "surrogateescape")[:MAX_SQL_DYN],
                    )
                )
                cur = stop
                i = j + 1
            else:
                out.append(("dyn", self.t(c)[:MAX_SQL_DYN]))
                cur = c.end_byte
        if cur < end:
            out.append(("raw", src[cur:end].decode("utf-8", "surrogateescape")))
        return out

    # -- main -------------------------------------------------------------
    def run(self) -> FileFacts:
        self.pending_globals: list[tuple[int, str, Any]] = []
        self.pending_props: list[tuple[int, ClassDecl, str, Any]] = []
        tree = _parser().parse(self.src)
        root = tree.root_node
        f = self.facts
        f.lines = self.text.count("\n") + (0 if self.text.endswith("\n") or not self.text else 1)
        fid = ids.node_id("file", self.path, self.path, 1)
        f.nodes.append(
            FactNode(
                fid,
                NodeKind.FILE,
                self.path.rsplit("/", 1)[-1],
                self.path,
                1,
                max(f.lines, 1),
                {"lang": "php"},
                Layer.STRUCTURAL,
            )
        )
        self.push_scope(_Scope(0, None, len(self.src) + 1))
        f.scope_nodes.append(0)
        if root.has_error:
            f.status = "partial"
            err = _first_error(root)
            f.note = f"syntax error near line {err}" if err else "syntax errors"

        from tree_sitter import QueryCursor

        caps = QueryCursor(_query()).captures(root)
        items: list[tuple[int, int, str, Any]] = []
        for cap, nodes in caps.items():
            if cap.startswith("name."):
                continue
            for node in nodes:
                items.append((node.start_byte, -node.end_byte, cap, node))
        items.sort(key=lambda x: (x[0], x[1], x[2]))
        handlers = {
            "definition.namespace": self.on_namespace,
            "reference.import": self.on_import,
            "definition.property": self.on_property,
            "definition.constant": self.on_constant,
            "definition.enum_case": self.on_enum_case,
            "reference.trait_use": self.on_trait_use,
            "reference.call": self.on_call,
            "reference.method_call": self.on_method_call,
            "reference.static_call": self.on_static_call,
            "reference.new": self.on_new,
            "reference.class_constant": self.on_class_constant,
            "reference.array": self.on_array,
            "reference.include": self.on_include,
            "reference.global": self.on_global,
            "reference.assignment": self.on_assignment,
            "reference.catch": self.on_catch,
            "reference.superglobal": self.on_superglobal,
            "definition.closure": self.on_closure,
            "text.comment": self.on_comment,
            "sql.string": self.on_sql,
        }
        last = None
        for start, negend, cap, node in items:
            key = (start, negend, cap)
            if key == last:
                continue
            last = key
            while self.stack and self.stack[-1][0] <= start:
                _e, what, _p = self.stack.pop()
                if what in ("function", "scope"):
                    self.scopes.pop()
            if self.seg.end is not None and start >= self.seg.end:
                self.seg = self.global_seg
                self.seg_node = None
            if cap in (
                "definition.class",
                "definition.interface",
                "definition.trait",
                "definition.enum",
            ):
                self.on_class(node, CLASS_KINDS[node.type])
            elif cap == "definition.function":
                self.on_function(node, False)
            elif cap == "definition.method":
                self.on_function(node, True)
            elif cap == "definition.anonymous_class":
                self.stack.append((node.end_byte, "anon", None))
            else:
                handlers[cap](node)
        while self.stack:
            _e, what, _p = self.stack.pop()
        self.finish()
        return f

    def finish(self) -> None:
        f = self.facts
        # close variable descriptors over each scope's (final) assignments
        all_scopes = self.all_scopes
        for sc_i, name, d in self.pending_globals:
            cd = self.close(d, all_scopes[sc_i])
            if cd is not None:
                f.global_assigns.append((name, cd))
        for sc_i, decl, pname, d in self.pending_props:
            cd = self.close(d, all_scopes[sc_i])
            if cd is not None:
                decl.props.setdefault(pname, []).append(cd)
        refs: list[Ref] = []
        for r in self.raw_refs:
            if isinstance(r, SqlRef):  # its owner is a node index already
                refs.append(r)
                continue
            sc = all_scopes[r.owner]
            node = sc.node
            if isinstance(r, MethodCallRef | CallableRef):
                refs.append(r._replace(owner=node, receiver=self.close(r.receiver, sc)))
            elif isinstance(r, StaticCallRef):
                refs.append(r._replace(owner=node, cls=self.close(r.cls, sc)))
            elif isinstance(r, RouteRef):
                h = r.handler
                if h.kind != "closure":
                    h = h._replace(cls=self.close(h.cls, sc))
                refs.append(r._replace(owner=node, handler=h))
            elif isinstance(r, DynamicCallRef):
                targets = r.targets
                if r.how == "variable":
                    targets = self.var_function_target(sc, targets[0].method)
                else:
                    targets = tuple(
                        t._replace(receiver=self.close(t.receiver, sc)) if t.kind == "method" else t
                        for t in targets
                    )
                refs.append(r._replace(owner=node, targets=targets))
            else:
                refs.append(r._replace(owner=node))
        f.refs = refs
        self.attach_texts()
        f.chunks = make_chunks(self.path, self.text, f, "php", self.max_chunk_lines)

    def close(self, d: Any, sc: _Scope, depth: int = 0, seen: frozenset[str] = frozenset()) -> Any:
        """Replace ('var', x) by the union of x's assignments in the scope."""
        if d is None or depth > 5:
            return None
        tag = d[0]
        if tag == "var":
            name = d[1]
            if name in seen:
                return None
            alts = [self.close(a, sc, depth + 1, seen | {name}) for a in sc.vars.get(name, [])]
            alts = [a for a in alts if a is not None]
            if not alts:
                return None
            uniq = list(dict.fromkeys(alts))
            return uniq[0] if len(uniq) == 1 else ("any", tuple(uniq))
        if tag in ("prop", "call"):
            inner = self.close(d[1], sc, depth + 1, seen)
            return (tag, inner, d[2]) if inner is not None else None
        if tag == "callable":
            inner = self.close(d[1], sc, depth + 1, seen)
            return (tag, inner, d[2]) if inner is not None else None
        if tag in ("scall", "sprop"):
            inner = self.close(d[1], sc, depth + 1, seen)
            return (tag, inner, d[2]) if inner is not None else None
        return d

    def callable_desc(self, n: Any) -> Any:
        """A string naming a function, or a callable array, as a descriptor."""
        s = self.string_value(n)
        if s is not None:
            if re.fullmatch(r"\\?[A-Za-z_]\w*(\\\w+)*", s):
                return ("fname", self.function_candidates(s))
            return None
        if n.type == "array_creation_expression":
            t = self.callable_array(n)
            return ("callable", t.receiver, t.method) if t is not None else None
        return None

    def var_function_target(self, sc: _Scope, name: str) -> tuple[Target, ...]:
        """`$fn()` where $fn was assigned a literal function name or callable array."""
        d = self.close(("var", name), sc)
        if d is None:
            return ()
        alts = d[1] if d[0] == "any" else (d,)
        out = []
        for a in alts:
            if a[0] == "fname":
                out.append(Target("function", candidates=a[1]))
            elif a[0] == "callable":
                out.append(Target("method", receiver=a[1], method=a[2]))
        return tuple(out)

    def attach_texts(self) -> None:
        f = self.facts
        spans = sorted(
            (
                (n[4], n[5], i)
                for i, n in enumerate(f.nodes)
                if i and n[1] in ("class", "interface", "trait", "enum", "function", "method")
            ),
        )
        merged: list[list[Any]] = []
        for c in self.comments:
            txt = self.t(c)
            start, end = c.start_point[0] + 1, c.end_point[0] + 1
            kind = "docblock" if txt.startswith("/**") else "comment"
            owner = None
            if kind == "docblock":
                nxt = c.next_named_sibling
                if nxt is not None and nxt.start_byte in self.decl_at:
                    owner = self.decl_at[nxt.start_byte]
                elif nxt is not None and nxt.type in ("property_declaration", "const_declaration"):
                    el = next(
                        (
                            e
                            for e in nxt.named_children
                            if e.type in ("property_element", "const_element")
                        ),
                        None,
                    )
                    if el is not None and el.start_byte in self.decl_at:
                        owner = self.decl_at[el.start_byte]
            if owner is None:
                owner = _innermost(spans, start)
            if (
                kind == "comment"
                and merged
                and merged[-1][2] == "comment"
                and merged[-1][1] + 1 >= start
                and merged[-1][4] == owner
            ):
                merged[-1][1] = end
                merged[-1][3] += "\n" + txt
                continue
            merged.append([start, end, kind, txt, owner])
        f.texts = [TextFact(m[0], m[1], m[2], m[3], m[4]) for m in merged]


def _is_concat(n: Any) -> bool:
    if n is None or n.type != "binary_expression":
        return False
    op = n.child_by_field_name("operator")
    return op is not None and op.type == "."


def _decode_dq(text: str) -> str:
    def one(m: re.Match[str]) -> str:
        simple, octal, hexa, uni = m.groups()
        if simple is not None:
            return _DQ_SIMPLE[simple]
        if octal is not None:
            return chr(int(octal, 8) & 0xFF)
        if hexa is not None:
            return chr(int(hexa, 16))
        try:
            return chr(int(uni, 16))
        except (ValueError, OverflowError):
            return m.group(0)

    return _DQ_ESCAPE.sub(one, text) if "\\" in text else text


def _merge_raw(pieces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for k, v in pieces:
        if k == "raw" and out and out[-1][0] == "raw":
            out[-1] = ("raw", out[-1][1] + v)
        else:
            out.append((k, v))
    return out


def _dedent(pieces: list[tuple[str, str]], indent: str) -> list[tuple[str, str]]:
    """Remove a closing-marker indentation from every line start (PHP >= 7.3 heredocs)."""
    out = []
    at_start = True
    for k, v in _merge_raw(pieces):
        if k != "raw":
            out.append((k, v))
            at_start = False
            continue
        lines = v.split("\n")
        for i, ln in enumerate(lines):
            if (i > 0 or at_start) and ln.startswith(indent):
                lines[i] = ln[len(indent) :]
        out.append(("raw", "\n".join(lines)))
        at_start = v.endswith("\n")
    return out


def _decode_pieces(pieces: list[tuple[str, str]], dq: bool) -> list[tuple[str, str]]:
    return [
        ("lit", _decode_dq(v) if dq else v) if k == "raw" else ("dyn", v)
        for k, v in _merge_raw(pieces)
    ]


def pack_sql(info: sqltext.SqlInfo | None) -> SqlAnalysis | None:
    """A SqlInfo as plain data (FileFacts cross process borders and are cached)."""
    return SqlAnalysis.of(info)


def _innermost(spans: list[tuple[int, int, int]], line: int) -> int | None:
    best = None
    for s, e, i in spans:
        if s > line:
            break
        if s <= line <= e:
            best = i
    return best


def _first_error(root: Any) -> int | None:
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return n.start_point[0] + 1
        if n.has_error:
            stack.extend(reversed(n.children))
    return None


def extract(path: str, text: str, max_chunk_lines: int = DEFAULT_MAX_LINES) -> FileFacts:
    return _Extractor(path, text, max_chunk_lines).run()
