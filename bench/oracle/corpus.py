"""The corpus as the oracle sees it, read independently of ragraf's extractor and resolver.

Every PHP file is parsed with tree-sitter (``tree_sitter_language_pack``); names resolve as PHP
resolves them (namespace, ``use`` aliases, fully qualified names); declarations give the class
hierarchy (parents, interfaces, traits and their aliases, duplicates kept side by side), method
lookup as PHP dispatches it, and the include graph (literal paths, ``__DIR__`` /
``dirname(__FILE__)``, constants folded from ``define``, suffix matching behind a run-time
prefix) from which the files loaded together are known.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from tree_sitter import Node, Query, QueryCursor, Tree
from tree_sitter_language_pack import get_language, get_parser

from bench.oracle.phpdoc import DocBlock, parse_docblock

PARSER = get_parser("php")
LANG = get_language("php")
CLASS_KINDS = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "trait_declaration": "trait",
    "enum_declaration": "enum",
}
INCLUDES = (
    "include_expression",
    "include_once_expression",
    "require_expression",
    "require_once_expression",
)
_DECLS = Query(
    LANG,
    "\n".join(f"({k}) @class" for k in CLASS_KINDS)
    + "\n(function_definition) @function\n(namespace_definition) @namespace"
    + "\n(namespace_use_declaration) @use\n(const_declaration) @const"
    + "\n(function_call_expression function: (name) @call)\n"
    + "\n".join(f"({k}) @include" for k in INCLUDES),
)


def text(node: Node | None) -> str:
    return "" if node is None else (node.text or b"").decode("utf-8", "replace")


def key(fqn: str) -> str:
    """The lookup key of a class or function name: lower case, no leading backslash."""
    return fqn.lstrip("\\").lower()


def _join(ns: str, name: str) -> str:
    return f"{ns}\\{name}" if ns else name


def doc_of(node: Node) -> DocBlock | None:
    """The docblock of a declaration or statement: the ``/**`` comment right before it (or
    inside it, after its attributes)."""
    prev = node.prev_named_sibling
    if prev is not None and prev.type == "comment" and text(prev).startswith("/**"):
        return parse_docblock(text(prev))
    for ch in node.named_children:
        if ch.type == "comment" and text(ch).startswith("/**"):
            return parse_docblock(text(ch))
        if ch.type != "attribute_list":
            break
    return None


@dataclass
class Region:
    """A namespace region of a file with the ``use`` imports that apply in it."""

    start: int
    end: int
    ns: str = ""
    classes: dict[str, str] = field(default_factory=dict)  # alias (lower) -> fqn
    functions: dict[str, str] = field(default_factory=dict)

    def resolve_class(self, name: str) -> str:
        """The fully qualified class name PHP makes of ``name`` here (no leading backslash)."""
        return self.resolve_class_how(name)[0]

    def resolve_class_how(self, name: str) -> tuple[str, bool]:
        """The fully qualified name and whether the code spelled it out (a leading backslash,
        ``namespace\\``, or a ``use`` import) rather than by the current namespace alone."""
        name = name.strip()
        if name.startswith("\\"):
            return name[1:], True
        if name.lower().startswith("namespace\\"):
            return _join(self.ns, name[10:]), True
        first, sep, rest = name.partition("\\")
        alias = self.classes.get(first.lower())
        if alias is not None:
            return alias + (sep + rest if sep else ""), True
        return _join(self.ns, name), False

    def function_candidates(self, name: str) -> list[str]:
        """The functions an unqualified call may reach, in PHP's order (namespace, then global)."""
        name = name.strip()
        if name.startswith("\\"):
            return [name[1:]]
        if name.lower().startswith("namespace\\"):
            return [_join(self.ns, name[10:])]
        if "\\" in name:
            first, _, rest = name.partition("\\")
            alias = self.classes.get(first.lower())
            return [f"{alias}\\{rest}" if alias else _join(self.ns, name)]
        alias = self.functions.get(name.lower())
        if alias is not None:
            return [alias]
        return [_join(self.ns, name), name] if self.ns else [name]


@dataclass(eq=False)
class Unit:
    """One parsed file."""

    path: str
    src: bytes = field(repr=False)
    tree: Tree = field(repr=False)
    regions: list[Region] = field(repr=False)

    @cached_property
    def lines(self) -> list[str]:
        return self.src.decode("utf-8", "replace").split("\n")

    def region_at(self, byte: int) -> Region:
        for r in self.regions:
            if r.start <= byte < r.end:
                return r
        return self.regions[-1]

    def line_text(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""


@dataclass(eq=False)
class MethodDecl:
    cls: ClassDecl
    name: str
    node: Node
    static: bool
    abstract: bool

    @property
    def fqn(self) -> str:
        return f"{self.cls.fqn}::{self.name}"

    @property
    def ident(self) -> tuple[str, str]:
        """(lower fqn, path): how a ragraf target node is matched."""
        return (self.fqn.lower(), self.cls.unit.path)

    @cached_property
    def doc(self) -> DocBlock | None:
        return doc_of(self.node)

    @property
    def line(self) -> int:
        return self.node.start_point[0] + 1


@dataclass(eq=False)
class PropDecl:
    name: str
    type_node: Node | None
    doc_type: str | None
    static: bool
    promoted: bool = False


@dataclass(eq=False)
class ClassDecl:
    fqn: str
    kind: str  # class | interface | trait | enum
    unit: Unit
    node: Node
    region: Region
    parent: str | None = None  # key
    interfaces: list[str] = field(default_factory=list)  # keys
    traits: list[str] = field(default_factory=list)  # keys
    trait_aliases: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    methods: dict[str, MethodDecl] = field(default_factory=dict)
    props: dict[str, PropDecl] = field(default_factory=dict)
    doc_props: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return key(self.fqn)


@dataclass(eq=False)
class FuncDecl:
    fqn: str
    unit: Unit
    node: Node
    region: Region

    @property
    def ident(self) -> tuple[str, str]:
        return (self.fqn.lower(), self.unit.path)

    @cached_property
    def doc(self) -> DocBlock | None:
        return doc_of(self.node)

    @cached_property
    def conditional(self) -> bool:
        """Declared inside an ``if`` (or another function): it may not exist in a request."""
        p = self.node.parent
        while p is not None:
            if p.type in (
                "if_statement",
                "else_clause",
                "else_if_clause",
                "function_definition",
                "method_declaration",
            ):
                return True
            p = p.parent
        return False


@dataclass(frozen=True)
class Lookup:
    """The methods a class's lookup of a name reaches; ``external`` when the chain leaves the
    corpus before the name is found (the method may be in a vendor or builtin class)."""

    found: frozenset[MethodDecl]
    external: bool


def _regions(unit_src: bytes, root: Node, nss: list[Node], uses: list[Node]) -> list[Region]:
    regions: list[Region] = []
    end = len(unit_src) + 1
    nss = sorted(nss, key=lambda n: n.start_byte)
    if not nss:
        regions.append(Region(0, end))
    else:
        if nss[0].start_byte > 0:
            regions.append(Region(0, nss[0].start_byte))
        for i, n in enumerate(nss):
            body = n.child_by_field_name("body")
            name = text(n.child_by_field_name("name"))
            if body is not None:
                regions.append(Region(n.start_byte, n.end_byte, name))
            else:
                stop = nss[i + 1].start_byte if i + 1 < len(nss) else end
                regions.append(Region(n.start_byte, stop, name))
    for u in uses:
        reg = next((r for r in regions if r.start <= u.start_byte < r.end), regions[-1])
        _add_use(reg, u)
    return regions


def _add_use(reg: Region, decl: Node) -> None:
    kind = "class"
    prefix = ""
    clauses: list[Node] = []
    for ch in decl.named_children:
        if ch.type == "namespace_use_clause":
            clauses.append(ch)
        elif ch.type == "namespace_name":
            prefix = text(ch)
        elif ch.type == "namespace_use_group":
            clauses.extend(c for c in ch.named_children if c.type == "namespace_use_clause")
    for ch in decl.children:
        if not ch.is_named and ch.type in ("function", "const"):
            kind = ch.type
    first_kind = None
    for c in clauses:
        ckind = None
        for ch in c.children:
            if not ch.is_named and ch.type in ("function", "const"):
                ckind = ch.type
        if ckind is None and first_kind is not None and not prefix:
            ckind = first_kind  # `use function A\b, A\c;`: the keyword is on the first clause
        first_kind = first_kind or ckind
        ckind = ckind or kind
        target = c.named_children[0] if c.named_children else None
        if target is None:
            continue
        full = text(target).lstrip("\\")
        if prefix:
            full = f"{prefix.lstrip(chr(92))}\\{full}"
        alias_node = c.child_by_field_name("alias")
        alias = text(alias_node) if alias_node is not None else full.rsplit("\\", 1)[-1]
        if ckind == "function":
            reg.functions[alias.lower()] = full
        elif ckind == "class":
            reg.classes[alias.lower()] = full


def _names(clause: Node | None) -> list[str]:
    if clause is None:
        return []
    return [text(c) for c in clause.named_children if c.type in ("name", "qualified_name")]


def _is_static(node: Node) -> bool:
    return any(ch.type == "static_modifier" for ch in node.children)


class Corpus:
    """All files of a corpus, parsed; the declarations, the hierarchy and the include graph."""

    def __init__(self, root: Path, paths: Iterable[str]) -> None:
        self.root = root
        self.units: dict[str, Unit] = {}
        self.classes: dict[str, list[ClassDecl]] = {}
        self.functions: dict[str, list[FuncDecl]] = {}
        self.subtypes: dict[str, set[str]] = {}
        self.trait_users: dict[str, set[str]] = {}
        self.constants: dict[str, list[tuple[Unit, Node]]] = {}
        self.class_at: dict[tuple[str, int], ClassDecl] = {}
        self._include_nodes: list[tuple[Unit, Node]] = []
        self._lookup_memo: dict[tuple[str, str], Lookup] = {}
        self._closures: dict[str, set[str]] = {}
        self._contexts: dict[tuple[str, int], set[frozenset[str]]] = {}
        self._full: dict[str, set[str]] = {}
        self._callees: dict[
            tuple[str, tuple[tuple[str, int], ...]], tuple[set[FuncDecl], bool]
        ] = {}
        for p in sorted(paths):
            f = root / p
            if f.is_file():
                self._add_file(p, f.read_bytes())
        for decls in self.classes.values():
            for d in decls:
                for sup in ([d.parent] if d.parent else []) + d.interfaces:
                    self.subtypes.setdefault(sup, set()).add(d.key)
                for t in d.traits:
                    self.trait_users.setdefault(t, set()).add(d.key)

    # -- reading ------------------------------------------------------------------
    def _add_file(self, path: str, src: bytes) -> None:
        tree = PARSER.parse(src)
        caps = QueryCursor(_DECLS).captures(tree.root_node)
        regions = _regions(src, tree.root_node, caps.get("namespace", []), caps.get("use", []))
        unit = Unit(path, src, tree, regions)
        self.units[path] = unit
        for n in caps.get("class", []):
            self._add_class(unit, n)
        for n in caps.get("function", []):
            name = text(n.child_by_field_name("name"))
            reg = unit.region_at(n.start_byte)
            fd = FuncDecl(_join(reg.ns, name), unit, n, reg)
            self.functions.setdefault(key(fd.fqn), []).append(fd)
        for n in caps.get("call", []):
            if text(n).lower() == "define":
                call = n.parent
                args = call.child_by_field_name("arguments") if call else None
                vals = [a for a in (args.named_children if args else []) if a.type == "argument"]
                if len(vals) >= 2:
                    cname = _string_value(vals[0].named_children[0])
                    if cname:
                        self.constants.setdefault(cname, []).append(
                            (unit, vals[1].named_children[0])
                        )
        for n in caps.get("const", []):
            for el in n.named_children:
                if el.type == "const_element" and el.named_child_count >= 2:
                    self.constants.setdefault(text(el.named_children[0]), []).append(
                        (unit, el.named_children[-1])
                    )
        self._include_nodes.extend((unit, n) for n in caps.get("include", []))

    def _add_class(self, unit: Unit, n: Node) -> None:
        name = n.child_by_field_name("name")
        if name is None:
            return
        reg = unit.region_at(n.start_byte)
        cd = ClassDecl(_join(reg.ns, text(name)), CLASS_KINDS[n.type], unit, n, reg)
        for ch in n.named_children:
            if ch.type == "base_clause":
                supers = [key(reg.resolve_class(s)) for s in _names(ch)]
                if cd.kind == "interface":
                    cd.interfaces.extend(supers)
                elif supers:
                    cd.parent = supers[0]
            elif ch.type == "class_interface_clause":
                cd.interfaces.extend(key(reg.resolve_class(s)) for s in _names(ch))
        doc = doc_of(n)
        if doc is not None:
            cd.doc_props = dict(doc.properties)
        body = n.child_by_field_name("body")
        for m in body.named_children if body is not None else []:
            if m.type == "use_declaration":
                cd.traits.extend(key(reg.resolve_class(s)) for s in _names(m))
                for ul in m.named_children:
                    if ul.type == "use_list":
                        for cl in ul.named_children:
                            self._trait_alias(cd, cl)
            elif m.type == "method_declaration":
                mname = text(m.child_by_field_name("name"))
                md = MethodDecl(
                    cd,
                    mname,
                    m,
                    _is_static(m),
                    any(c.type == "abstract_modifier" for c in m.children)
                    or m.child_by_field_name("body") is None,
                )
                cd.methods.setdefault(mname.lower(), md)
                if mname.lower() == "__construct":
                    self._promoted(cd, m)
            elif m.type == "property_declaration":
                tnode = m.child_by_field_name("type")
                pdoc = doc_of(m)
                for el in m.named_children:
                    if el.type == "property_element":
                        vn = text(el.child_by_field_name("name") or el.named_children[0])
                        pname = vn.lstrip("$")
                        dtype = None
                        if pdoc is not None:
                            dtype = next(
                                (t for t, v in pdoc.vars if v in (None, pname)),
                                None,
                            )
                        cd.props.setdefault(pname, PropDecl(pname, tnode, dtype, _is_static(m)))
        self.classes.setdefault(cd.key, []).append(cd)
        self.class_at[(unit.path, n.start_byte)] = cd

    def _trait_alias(self, cd: ClassDecl, cl: Node) -> None:
        if cl.type != "use_as_clause":
            return
        parts = [
            c for c in cl.named_children if c.type in ("name", "class_constant_access_expression")
        ]
        if len(parts) < 2:
            return
        src, alias = parts[0], parts[-1]
        if src.type == "class_constant_access_expression":
            t, meth = src.named_children[0], src.named_children[-1]
            cd.trait_aliases[text(alias).lower()] = (
                key(cd.region.resolve_class(text(t))),
                text(meth).lower(),
            )
        else:
            cd.trait_aliases[text(alias).lower()] = (None, text(src).lower())

    def _promoted(self, cd: ClassDecl, m: Node) -> None:
        params = m.child_by_field_name("parameters")
        doc = doc_of(m)
        for p in params.named_children if params is not None else []:
            if p.type == "property_promotion_parameter":
                pname = text(p.child_by_field_name("name")).lstrip("$")
                dtype = doc.params.get(pname) if doc is not None else None
                cd.props.setdefault(
                    pname,
                    PropDecl(pname, p.child_by_field_name("type"), dtype, False, promoted=True),
                )

    # -- the hierarchy ------------------------------------------------------------------
    def decls(self, k: str) -> list[ClassDecl]:
        return self.classes.get(k, [])

    def lookup(self, k: str, lname: str) -> Lookup:
        """The method(s) ``k->lname`` dispatches to: own, then traits, then the parent."""
        memo = self._lookup_memo.get((k, lname))
        if memo is None:
            memo = self._lookup(k, lname, frozenset())
            self._lookup_memo[(k, lname)] = memo
        return memo

    def _lookup(self, k: str, lname: str, seen: frozenset[str]) -> Lookup:
        decls = self.classes.get(k)
        if not decls:
            return Lookup(frozenset(), True)
        if k in seen:
            return Lookup(frozenset(), False)
        seen = seen | {k}
        found: set[MethodDecl] = set()
        ext = False
        for d in decls:
            own = d.methods.get(lname)
            if own is not None:
                found.add(own)
                continue
            tf, text_ext = self._in_traits(d, lname, seen)
            ext = ext or text_ext
            if tf:
                found |= tf
                continue
            if d.parent:
                r = self._lookup(d.parent, lname, seen)
                found |= r.found
                ext = ext or r.external
        return Lookup(frozenset(found), ext)

    def _in_traits(
        self, d: ClassDecl, lname: str, seen: frozenset[str]
    ) -> tuple[set[MethodDecl], bool]:
        found: set[MethodDecl] = set()
        ext = False
        alias = d.trait_aliases.get(lname)
        wanted = [(alias[0], alias[1])] if alias else []
        wanted.append((None, lname))
        for only, name in wanted:
            for t in d.traits:
                if only is not None and t != only:
                    continue
                r = self._lookup(t, name, seen)
                found |= r.found
                ext = ext or r.external
            if found:
                break
        return found, ext

    def supertypes(self, k: str) -> set[str]:
        """Every class and interface ``k`` extends or implements, transitively (``k`` excluded)."""
        out: set[str] = set()
        todo = [k]
        while todo:
            c = todo.pop()
            for d in self.classes.get(c, []):
                for s in ([d.parent] if d.parent else []) + d.interfaces:
                    if s not in out and s != k:
                        out.add(s)
                        todo.append(s)
        return out

    def descendants(self, k: str) -> set[str]:
        """Every class and interface extending or implementing ``k``, transitively."""
        out: set[str] = set()
        todo = [k]
        while todo:
            c = todo.pop()
            for s in self.subtypes.get(c, ()):
                if s not in out and s != k:
                    out.add(s)
                    todo.append(s)
        return out

    def users_of_trait(self, k: str) -> set[str]:
        """The classes using trait ``k`` (directly or through other traits) and their subclasses."""
        out: set[str] = set()
        todo = [k]
        seen = {k}
        while todo:
            t = todo.pop()
            for u in self.trait_users.get(t, ()):
                if u in seen:
                    continue
                seen.add(u)
                if any(d.kind == "trait" for d in self.classes.get(u, [])):
                    todo.append(u)
                else:
                    out.add(u)
                    out |= self.descendants(u)
        return out

    def is_trait(self, k: str) -> bool:
        return any(d.kind == "trait" for d in self.classes.get(k, []))

    def dispatch(self, k: str, lname: str, *, static: bool = False) -> set[MethodDecl]:
        """What a call of ``lname`` on an object of exactly class ``k`` runs (``__call`` /
        ``__callStatic`` when the name is not found in the corpus chain)."""
        r = self.lookup(k, lname)
        if r.found:
            return set(r.found)
        magic = "__callstatic" if static else "__call"
        return set(self.lookup(k, magic).found) if lname != magic else set()

    def interface_decls(self, k: str, lname: str) -> set[MethodDecl]:
        """Declarations of ``lname`` in the interfaces and abstract classes above ``k``: the
        contract a call on a ``k`` binds to statically."""
        out: set[MethodDecl] = set()
        for s in {k} | self.supertypes(k):
            for d in self.classes.get(s, []):
                m = d.methods.get(lname)
                if m is not None and (d.kind == "interface" or m.abstract):
                    out.add(m)
        return out

    def targets(self, k: str, lname: str, *, open_: bool, static: bool = False) -> set[MethodDecl]:
        """Every corpus method a call of ``lname`` on a ``k`` may run: ``k``'s own dispatch, the
        contract it binds to, and, when the object may be of a subclass (``open_``), every
        subclass's dispatch. For a trait: the dispatch in each class using it."""
        out = self.dispatch(k, lname, static=static) | self.interface_decls(k, lname)
        subs: set[str] = set()
        if self.is_trait(k):
            subs |= self.users_of_trait(k)
        if open_:
            subs |= self.descendants(k)
        for s in subs:
            out |= self.dispatch(s, lname, static=static)
        return out

    # -- includes ------------------------------------------------------------------------
    @cached_property
    def includes(self) -> dict[str, set[str]]:
        """path -> the paths its include / require expressions reach (anywhere in the file)."""
        return {p: self.top_includes[p] | self.function_includes[p] for p in self.units}

    @cached_property
    def top_includes(self) -> dict[str, set[str]]:
        """path -> the paths its file-level includes reach: loaded whenever the file is."""
        return self._edges(strict=True)

    @cached_property
    def function_includes(self) -> dict[str, set[str]]:
        """path -> the paths includes inside its functions and methods reach: loaded only when
        such a function runs."""
        return self._edges(strict=False)

    def _edges(self, strict: bool) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {p: set() for p in self.units}
        for unit, n in self._include_nodes:
            if _in_function(n) == strict:
                continue
            arg = n.named_children[0] if n.named_children else None
            if arg is None:
                continue
            target = self.include_target(unit, arg)
            if target is not None and target != unit.path:
                out[unit.path].add(target)
        return out

    @cached_property
    def _by_suffix(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for p in self.units:
            parts = p.split("/")
            for i in range(len(parts)):
                out.setdefault("/".join(parts[i:]), []).append(p)
        return out

    def include_target(self, unit: Unit, expr: Node) -> str | None:
        """The corpus file an include expression loads, when the oracle can tell."""
        parts = self.path_parts(unit, expr, 0)
        anchored = bool(parts) and parts[0][0] == "dir"
        if all(k != "dyn" for k, _ in parts):
            s = "".join(v for _, v in parts)
            if anchored:
                full = _norm(s)
                return full if full in self.units else None
            if not s.startswith("/"):
                for cand in (posixpath.join(posixpath.dirname(unit.path), s), s):
                    c = _norm(cand)
                    if c in self.units:
                        return c
        # a run-time prefix (ABSPATH with several definitions, an absolute install path):
        # the literal tail must name exactly one corpus file
        tail_parts: list[str] = []
        for k, v in reversed(parts):
            if k == "dyn":
                break
            tail_parts.append(v)
        tail = "".join(reversed(tail_parts)).lstrip("/")
        while tail.startswith("./"):
            tail = tail[2:]
        if "../" in tail or not re.search(r"\.\w+$", tail):
            return None
        hits = self._by_suffix.get(tail, [])
        return hits[0] if len(hits) == 1 else None

    def path_parts(self, unit: Unit, e: Node, depth: int) -> list[tuple[str, str]]:
        """A path expression as parts: ("lit", text), ("dir", folder relative to the root,
        ending with "/") or ("dyn", "")."""
        dyn = [("dyn", "")]
        if depth > 8:
            return dyn
        t = e.type
        if t == "parenthesized_expression" and e.named_children:
            return self.path_parts(unit, e.named_children[0], depth + 1)
        if t in ("string", "encapsed_string"):
            v = _string_value(e)
            return [("lit", v)] if v is not None else dyn
        if t == "binary_expression":
            op = e.child_by_field_name("operator")
            if text(op) == ".":
                left = e.child_by_field_name("left")
                right = e.child_by_field_name("right")
                if left is not None and right is not None:
                    return self.path_parts(unit, left, depth + 1) + self.path_parts(
                        unit, right, depth + 1
                    )
            return dyn
        if t == "name":
            n = text(e)
            if n == "__DIR__":
                d = posixpath.dirname(unit.path)
                return [("dir", d + "/" if d else "")]
            if n == "__FILE__":
                return [("dir", unit.path)]
            if n == "DIRECTORY_SEPARATOR":
                return [("lit", "/")]
            return self._constant_parts(n, depth)
        if t == "function_call_expression" and text(e.child_by_field_name("function")).lower() in (
            "dirname",
            "\\dirname",
        ):
            args = e.child_by_field_name("arguments")
            vals = [
                a.named_children[0]
                for a in (args.named_children if args else [])
                if a.named_children
            ]
            if not vals:
                return dyn
            levels = 1
            if len(vals) > 1:
                if vals[1].type != "integer":
                    return dyn
                levels = int(text(vals[1]))
            inner = self.path_parts(unit, vals[0], depth + 1)
            if len(inner) != 1 or inner[0][0] != "dir":
                # dirname() of a literal or dynamic path: not followed
                return dyn
            p = inner[0][1].rstrip("/")
            for _ in range(levels):
                if p in ("", "."):
                    return dyn  # above the corpus root
                p = posixpath.dirname(p)
            return [("dir", p + "/" if p else "")]
        return dyn

    def _constant_parts(self, name: str, depth: int) -> list[tuple[str, str]]:
        defs = self.constants.get(name)
        if not defs:
            return [("dyn", "")]
        vals = {tuple(self.path_parts(u, n, depth + 1)) for u, n in defs}
        if len(vals) == 1:
            return list(next(iter(vals)))
        return [("dyn", "")]

    @cached_property
    def entries(self) -> list[str]:
        """Files no file-level include reaches: a request may start there (they may also be
        loaded dynamically, or by a function's include)."""
        included = {t for ts in self.top_includes.values() for t in ts}
        return [p for p in sorted(self.units) if p not in included]

    def closure(self, start: str) -> set[str]:
        """``start`` and every file its file-level includes load, transitively."""
        hit = self._closures.get(start)
        if hit is not None:
            return hit
        out = {start}
        todo = [start]
        inc = self.top_includes
        while todo:
            for t in inc.get(todo.pop(), ()):
                if t not in out:
                    out.add(t)
                    todo.append(t)
        self._closures[start] = out
        return out

    def full_closure(self, start: str) -> set[str]:
        """``start`` and every file any of its includes may load, function-level ones too."""
        hit = self._full.get(start)
        if hit is not None:
            return hit
        out = {start}
        todo = [start]
        inc = self.includes
        while todo:
            for t in inc.get(todo.pop(), ()):
                if t not in out:
                    out.add(t)
                    todo.append(t)
        self._full[start] = out
        return out

    def contexts(self, path: str, depth: int = 0) -> set[frozenset[str]]:
        """The requests that load ``path``, each as the files whose file-level closures it
        surely loads.

        A request starting at entry E loads E's file-level closure. A function of a loaded file X
        that includes T loads T's closure as well, in each of X's requests; so a file only such
        an include reaches is loaded in X's requests together with T's closure (up to 4 such
        steps). A function-level include is not taken as always running when its file is
        loaded: that would mix a stub file one entry loads with the whole application.
        """
        k = (path, depth)
        hit = self._contexts.get(k)
        if hit is not None:
            return hit
        self._contexts[k] = set()  # a cycle adds nothing
        out: set[frozenset[str]] = set()
        for e in self.entries:
            if path in self.closure(e):
                out.add(frozenset({e}))
        if depth < 4:
            for x, ts in self.function_includes.items():
                for t in ts:
                    if path in self.closure(t):
                        for kx in self.contexts(x, depth + 1):
                            out.add(kx | {t})
        self._contexts[k] = out
        return out

    def function_callees(self, path: str, decls: list[FuncDecl]) -> tuple[set[FuncDecl], bool]:
        """Which of several declarations of one function a call in ``path`` may run, and whether
        any request the oracle knows loads one of them.

        In one request a function has one declaration. A request surely loading two
        unconditional ones would fail (``Cannot redeclare``): the oracle drops it as one its
        include model invented. With one unconditional declaration surely loaded, that one runs
        (a conditional one, ``if (! function_exists(...))``, then declares nothing). Otherwise
        every declaration the request may load (its function-level includes followed too) may
        be the one.
        """
        memo_key = (path, tuple(sorted((d.unit.path, d.node.start_byte) for d in decls)))
        hit = self._callees.get(memo_key)
        if hit is not None:
            return hit
        possible: set[FuncDecl] = set()
        seen = False
        for ctx in self.contexts(path):
            sure = [d for d in decls if any(d.unit.path in self.closure(r) for r in ctx)]
            uncond = [d for d in sure if not d.conditional]
            if len(uncond) >= 2:
                continue
            if uncond:
                possible.add(uncond[0])
                seen = True
                continue
            maybe = [d for d in decls if any(d.unit.path in self.full_closure(r) for r in ctx)]
            if maybe:
                possible |= set(maybe)
                seen = True
        self._callees[memo_key] = (possible, seen)
        return possible, seen


def _in_function(n: Node) -> bool:
    p = n.parent
    while p is not None:
        if p.type in (
            "function_definition",
            "method_declaration",
            "anonymous_function",
            "arrow_function",
        ):
            return True
        p = p.parent
    return False


def _norm(p: str) -> str:
    p = posixpath.normpath(p.lstrip("/")) if p else p
    return "" if p.startswith("..") else p


def _string_value(e: Node) -> str | None:
    """The value of a string literal without interpolation (None otherwise)."""
    if e.type not in ("string", "encapsed_string"):
        return None
    out = []
    for ch in e.named_children:
        if ch.type == "string_content":
            out.append(text(ch))
        elif ch.type == "escape_sequence":
            out.append(text(ch)[1:])
        else:
            return None
    return "".join(out)


def walk(node: Node, stop: frozenset[str] = frozenset()) -> Iterator[Node]:
    """Every node under ``node`` (itself included), not descending into types in ``stop``."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if n.type in stop and n is not node and n != node:
            continue
        todo.extend(reversed(n.children))
