"""What the corpus declares, by name, and what a type descriptor evaluates to.

Invariants a change must keep:
- Names are keyed in lower case (PHP class and function names are
  case-insensitive); lists of ids are sorted, so lookups are deterministic.
- Hierarchy walks stop at ``HIERARCHY_DEPTH`` levels (a cycle in broken code
  must not recurse forever); descriptor evaluation stops at ``TYPE_DEPTH``.
- ``types`` returns, for each class a descriptor may evaluate to, whether the
  evaluation needed a guess (``True`` = derived: a global typed elsewhere).
  Arrays of a class are keys ``ArrayOf(class)`` inside the evaluation only
  (``_types``): ``types`` never returns one.
- The tables are made in one pass over the files; the references a language's
  link modules read up front (``collect``) are handed to them in that pass, no
  second one.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple, cast

from ragraf.kinds import CLASS_EXTENSION, NodeKind, TextKind
from ragraf.lang import registry
from ragraf.lang.facts import ClassDecl, FileFacts, TypeDesc
from ragraf.lang.linking import Collect
from ragraf.lang.typedesc import (
    AnyOf,
    Array,
    Call,
    Cls,
    Elem,
    Export,
    Func,
    Global,
    Parent,
    Prop,
    Static,
)
from ragraf.limits import HIERARCHY_DEPTH

#: how deep a descriptor is evaluated (prop of call of element of ...)
TYPE_DEPTH = 32


class ArrayOf(NamedTuple):
    """Inside ``SymbolTable._types``: an array of ``elem`` (a class, lower fqn, or an array)."""

    elem: ClassKey


#: what ``SymbolTable._types`` evaluates a descriptor to: classes and arrays of them
ClassKey = str | ArrayOf


_DOC_CALLABLE_PARAM = re.compile(r"@param\s+([^\s$]*callable[^\s$]*)\s+&?(?:\.\.\.)?\$(\w+)", re.I)


def _callable_params(f: FileFacts) -> dict[int, set[str]]:
    """Node index -> the parameters its docblock types ``callable`` (``@param callable $cb``)."""
    out: dict[int, set[str]] = {}
    for t in f.texts:
        if t.kind == TextKind.DOCBLOCK and t.owner is not None and "callable" in t.raw:
            names = {m.group(2) for m in _DOC_CALLABLE_PARAM.finditer(t.raw)}
            if names:
                out.setdefault(t.owner, set()).update(names)
    return out


def name_pattern(pattern: str) -> re.Pattern[str]:
    """A name pattern (``*`` a part built at run time: one character or more, else
    literal) as a regular expression."""
    return re.compile(".+".join(re.escape(p) for p in pattern.split("*")), re.S)


def bare_method(m: str) -> str:
    """A called method's name without the ``(N)`` arity an extractor may add."""
    return m.split("(", 1)[0] if m.endswith(")") else m


#: types no other type extends (a value of another type never fits a parameter of one)
FINAL_TYPES = frozenset(
    "String boolean char byte short int long float double"
    " Boolean Character Byte Short Integer Long Float Double".split()
)
#: numbers: one fits a parameter of another (widening, boxing)
NUMERIC = frozenset("byte short int long float double Byte Short Integer Long Float Double".split())
#: what a String is besides itself
STRING_SUPERS = frozenset({"CharSequence", "Comparable", "Serializable", "Object"})


def simple_type(t: str) -> str:
    """A declared parameter type by its simple name: ``java.util.Map<String, Object>`` ->
    ``Map``, ``final Foo`` -> ``Foo`` (arrays and varargs keep their brackets)."""
    t = t.replace("final ", "").strip()
    depth, out = 0, []
    for ch in t:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip().rsplit(".", 1)[-1].replace(" ", "")


class ClassDef:
    """One declaration of a class-like, with the file that declares it."""

    __slots__ = ("decl", "facts", "nid")

    def __init__(self, decl: ClassDecl, facts: FileFacts) -> None:
        self.decl = decl
        self.facts = facts
        self.nid = facts.node_id(decl.node)


_NONE: Mapping[Any, Any] = MappingProxyType({})


class SymbolTable:
    def __init__(
        self,
        files: list[FileFacts],
        collect: Mapping[str | None, Mapping[type, Collect]] = _NONE,
        spellings: Mapping[str, str] = _NONE,
    ) -> None:
        """The tables of ``files``; ``collect`` (language, None for any other -> reference
        type -> reader) reads the references of every file in the same pass (the link
        modules' tables, ``ragraf.lang.linking.Linking.collect``); ``spellings`` (lower
        fqn -> spelling) of classes outside the corpus the languages know (``display``)."""
        self.spellings = spellings
        self.classes: dict[str, list[ClassDef]] = defaultdict(list)
        self.functions: dict[str, list[str]] = defaultdict(list)
        self.methods_by_name: dict[str, list[str]] = defaultdict(list)
        #: method node id -> its language's call family (``registry.call_family``)
        self.family: dict[str, str] = {}
        self._named: dict[tuple[str, str], list[str]] = {}
        self._by_short: dict[str, list[str]] | None = None  # classes_by_short
        self._family: dict[str, str] = {}  # path -> its call family (methods_named)
        #: simple class name -> its declarations (``_ancestors``), made on first use
        self._by_simple: dict[str, list[ClassDef]] | None = None
        #: a function of a case-sensitive language -> its fqn as declared (function_ids)
        self.exact_fqns: dict[str, str] = {}
        #: a method of a case-sensitive language -> its name as declared (methods_named)
        self.exact_names: dict[str, str] = {}
        self.functions_by_name: dict[str, list[str]] = defaultdict(list)  # short name
        self.returns: dict[str, list[TypeDesc]] = {}
        self.globals: dict[str, list[TypeDesc]] = defaultdict(list)
        self.file_ids: dict[str, str] = {}
        #: function / method node id -> its ``parameters`` prop (name, type, ...)
        self.params: dict[str, list[dict[str, Any]]] = {}
        self.paths: list[str] = []
        #: the files that declare a class-like or a function (code, not a template)
        self.declaring: set[str] = set()
        #: function node id -> the path of the file declaring it
        self.function_paths: dict[str, str] = {}
        #: function node ids declared under ``if (!function_exists('f'))`` (fallbacks)
        self.guarded: set[str] = set()
        #: global constant fqn -> its literal string values (None: some definition is not
        #: a plain string literal)
        self.const_values: dict[str, set[str] | None] = {}
        #: method node id -> the class (lower fqn) declaring it
        self.method_classes: dict[str, str] = {}
        self._method_cache: dict[tuple[str, str], list[str]] = {}
        self._children: dict[str, set[str]] | None = None  # subclass_methods
        self._type_cache: dict[tuple[TypeDesc, str | None], dict[ClassKey, bool]] = {}
        for f in files:
            if not f.nodes:
                continue
            self.file_ids[f.path] = f.node_id(0)
            self.paths.append(f.path)
            if f.classes or f.functions:
                self.declaring.add(f.path)
            family = registry.call_family(f.lang)
            lang = registry.get(f.lang)
            exact = lang is not None and lang.case_sensitive
            for cd in f.classes:
                self.classes[cd.fqn.lower()].append(ClassDef(cd, f))
                for mname, idx in cd.methods.items():
                    self.methods_by_name[mname].append(f.node_id(idx))
                    self.family[f.node_id(idx)] = family
                    self.method_classes[f.node_id(idx)] = cd.fqn.lower()
                    if exact:
                        self.exact_names[f.node_id(idx)] = f.nodes[idx].name
            sep = lang.name_sep if lang else "\\"
            for fqn, idx in f.functions:
                fid = f.node_id(idx)
                if exact:
                    self.exact_fqns[fid] = fqn
                self.functions[fqn.lower()].append(fid)
                self.functions_by_name[fqn.rsplit(sep, 1)[-1].lower()].append(fid)
                self.function_paths[fid] = f.path
                if f.nodes[idx].props.get("guarded"):
                    self.guarded.add(fid)
            for idx, descs in f.returns.items():
                self.returns[f.node_id(idx)] = descs
            for name, d in f.global_assigns:
                if not isinstance(d, Export):  # a prepare hook's (it drops them)
                    self.globals[name].append(d)
            documented = _callable_params(f)
            for i, node in enumerate(f.nodes):
                if node.kind == NodeKind.CONSTANT and "::" not in node.fqn:
                    self._const_value(node.fqn, node.props.get("value"))
                if node.kind in (NodeKind.FUNCTION, NodeKind.METHOD) and "parameters" in node.props:
                    params = node.props["parameters"]
                    names = documented.get(i)
                    if names:
                        params = [
                            {**p, "doc_type": "callable"} if p.get("name") in names else p
                            for p in params
                        ]
                    self.params[node.node_id] = params
            mine = collect.get(f.lang) or collect.get(None) or _NONE
            for ref in f.refs:
                c = mine.get(type(ref))
                if c is not None:
                    c(f, ref)
        for lst in self.functions.values():
            lst.sort()
        for lst in self.methods_by_name.values():
            lst.sort()
        for lst in self.functions_by_name.values():
            lst.sort()
        self.path_set = set(self.paths)

    # -- lookups by key (what the linker asks; ``ragraf.indexing.resolve.link_memo`` records
    # them per file, so each must be a function of the corpus-wide tables alone) --------
    def function_ids(self, low: str, exact: str = "") -> list[str]:
        """The declarations of function ``low`` (lower fqn), sorted; [] when none. Given
        the name as written (``exact``), a function of a case-sensitive language only by
        its exact fqn (Go's ``New`` is not ``new``), unless none has it."""
        got = self.functions.get(low) or []
        if exact and len(got) > 1:
            names = self.exact_fqns
            same = [f for f in got if names.get(f, exact) == exact]
            return same or got
        return got

    def has_function_named(self, low: str) -> bool:
        """Whether some function has the short (lower) name ``low``."""
        return low in self.functions_by_name

    def has_class(self, low: str) -> bool:
        return low in self.classes

    def is_guarded(self, fid: str) -> bool:
        return fid in self.guarded

    def file_id(self, path: str) -> str | None:
        return self.file_ids.get(path)

    def in_corpus(self, path: str) -> bool:
        return path in self.path_set

    def doc_targets(self, name: str) -> tuple[list[str], bool]:
        """What a documentation name (``Class``, ``Class::member``, no leading ``\\`` nor
        ``()``) names: the declarations, and whether by its exact name (else by its short
        name)."""
        classes = self.classes
        if "::" in name:
            cls, _, member = name.partition("::")
            low_cls = cls.lower()
            cands = [low_cls] if low_cls in classes else self.classes_by_short().get(low_cls, [])
            targets = sorted({t for c in cands for t in self.find_method(c, member.lower())})
            return targets, low_cls in classes
        low = name.lower()
        if low in classes:
            return self.class_ids(name), True
        if "\\" not in low:
            return sorted(
                c.nid for k in self.classes_by_short().get(low, []) for c in classes[k]
            ), False
        return [], False

    def classes_by_short(self) -> dict[str, list[str]]:
        """Short (last ``\\`` part, lower) name -> the lower fqns of the class-likes of that
        name, in the order of ``classes``; made on first use (a documentation name looked
        up by its short name scanned every class)."""
        if self._by_short is None:
            by: dict[str, list[str]] = defaultdict(list)
            for k in self.classes:
                by[k.rsplit("\\", 1)[-1]].append(k)
            self._by_short = dict(by)
        return self._by_short

    def methods_named(self, low: str, path: str, exact: str = "") -> list[str]:
        """The methods of that (lower-case) name a call by name alone from ``path`` may
        reach: those of the caller's call family (sorted, as ``methods_by_name``); given the
        called name as written (``exact``), a method of a case-sensitive language only by
        its exact name (``Language.case_sensitive``)."""
        family = self._family.get(path)
        if family is None:
            family = self._family[path] = registry.call_family(registry.lang_of(path))
        key = (family, low)
        got = self._named.get(key)
        if got is None:
            got = [n for n in self.methods_by_name.get(low, []) if self.family.get(n) == family]
            self._named[key] = got
        if exact:
            names = self.exact_names
            return [n for n in got if names.get(n, exact) == exact]
        return got

    def _const_value(self, fqn: str, value: str | None) -> None:
        values = self.const_values.setdefault(fqn, set())
        if values is None:
            return
        if value is None:
            self.const_values[fqn] = None
        else:
            values.add(value)

    def method_class(self, node_id: str) -> str | None:
        """The class (lower fqn) declaring method ``node_id``, or None."""
        return self.method_classes.get(node_id)

    def const_value(self, name: str) -> str | None:
        """The value of global constant ``name`` when every definition of it in the corpus
        (``define()``, ``const``) is the same string literal; None when it has several values,
        a computed one or no definition."""
        values = self.const_values.get(name.lstrip("\\"))
        if values is None or len(values) != 1:
            return None
        return next(iter(values))

    # -- hierarchy ----------------------------------------------------------
    def class_ids(self, fqn: str) -> list[str]:
        """The declarations of a class-like (an extension, which only adds methods, is none)."""
        return [c.nid for c in self.classes.get(fqn.lower(), []) if c.decl.kind != CLASS_EXTENSION]

    def find_method(self, cls: str, m: str, depth: int = 0) -> list[str]:
        """Declarations of method ``m`` (lower) that class ``cls`` (lower fqn) has, inherited
        ones included: own methods, then traits, then parents; abstract classes and
        interfaces also through the interfaces they implement."""
        key = (cls, m)
        hit = self._method_cache.get(key)
        if hit is not None:
            return hit
        out: list[str] = []
        if depth < HIERARCHY_DEPTH:
            for cdef in self.classes.get(cls, []):
                d = cdef.decl
                idx = d.methods.get(m)
                if idx is not None:
                    out.append(cdef.facts.node_id(idx))
                    continue
                found: list[str] = []
                for t, _l in d.traits:
                    found = self.find_method(t.lower(), m, depth + 1)
                    if found:
                        break
                if not found:
                    for p, _l in d.extends:
                        found = self.find_method(p.lower(), m, depth + 1)
                        if found:
                            break
                if not found and (d.kind == NodeKind.INTERFACE or d.abstract):
                    for p, _l in d.implements:
                        found = self.find_method(p.lower(), m, depth + 1)
                        if found:
                            break
                out.extend(found)
        out = sorted(set(out))
        self._method_cache[key] = out
        return out

    def subclass_methods(self, cls: str, m: str) -> list[str]:
        """The declarations of method ``m`` (lower) in the classes below class ``cls``
        (``_subclass_methods``)."""
        return _subclass_methods(self, cls, m)

    def methods_matching(self, d: TypeDesc | None, pattern: str) -> list[str]:
        """The methods whose name a pattern (``render_*``) matches, that a receiver
        described by ``d`` has, inherited ones included, and those its classes' subclasses
        declare (the object may be one: ``[$this, 'column_' . $name]`` in a base list
        table runs its subclasses' ``column_*``), sorted."""
        rx = name_pattern(pattern)
        tys = self.types(d)
        own = {
            t
            for c in tys
            for n in _method_names(self, c)
            if rx.fullmatch(n)
            for t in self.find_method(c, n)
        }
        return sorted(own | {t for c in tys for t in _subclass_methods(self, c, rx)})

    def functions_matching(self, pattern: str) -> list[str]:
        """The functions whose lower fqn a pattern (``upgrade_to_*``) matches (sorted)."""
        rx = name_pattern(pattern)
        return sorted(
            fid for name, fids in self.functions.items() if rx.fullmatch(name) for fid in fids
        )

    def lookup_method(self, cls: str, m: str) -> list[str]:
        """``find_method`` for a called name as an extractor states it: ``name(N)`` (a call
        with N arguments, in a language with overloads) first finds the overloads of that
        arity (several of one arity are keyed ``name(N)``, ``name(N)+1``...: all of them,
        the caller cannot tell them apart by arity), else the name; a name first by its
        exact case (a case-sensitive language keys its methods by their exact names too),
        then in lower case (PHP's and Python's keys)."""
        if m.endswith(")") and "(" in m:
            head, _sep, types = m[:-1].partition(":")
            m = head + ")" if types else m
            got = self.find_method(cls, m)
            if got:
                k = 1
                while more := self.find_method(cls, f"{m}+{k}"):
                    got = sorted({*got, *more})
                    k += 1
                return self.fit_overloads(got, types.split(",")) if len(got) > 1 and types else got
            m = bare_method(m)
        low = m.lower()
        return (m != low and self.find_method(cls, m)) or self.find_method(cls, low)

    def fit_overloads(self, cands: list[str], args: list[str]) -> list[str]:
        """Among overloads of one arity, the ones the known argument types (simple names,
        ``?``: not known) fit: a type fits a parameter of its own name, ``Object``, a type
        variable, a number of any number type, a String CharSequence and the like, and an
        ancestor the corpus states (``_ancestors``); it does not fit a final type (String,
        the primitives and their boxes) of another name, nor, when all its ancestors are
        known, a class they do not name. Several fit: the ones matching most arguments by
        name, when that picks one; none fits: every candidate (the types may be wrong)."""
        fits: list[tuple[int, str]] = []
        for nid in cands:
            params = [simple_type(str(p.get("type", ""))) for p in self.params.get(nid, [])]
            if len(params) != len(args):
                fits.append((0, nid))
                continue
            exact, ok = 0, True
            for t, p in zip(args, params, strict=True):
                if t == "?" or not p:
                    continue
                if t == p:
                    exact += 1
                elif not self._fits(t, p):
                    ok = False
                    break
            if ok:
                fits.append((exact, nid))
        if not fits:
            return cands
        best = max(e for e, _n in fits)
        top = [n for e, n in fits if e == best]
        return top if len(top) == 1 else sorted(n for _e, n in fits)

    def _fits(self, t: str, p: str) -> bool:
        if p == "Object" or p.endswith("...") or p.endswith("]") or t.endswith("]"):
            return True
        if len(p) <= 2 and p[:1].isupper():  # a type variable (T, K, V, E1)
            return True
        if t in NUMERIC and p in NUMERIC:
            return True
        if t == "String":
            return p in STRING_SUPERS
        if t in FINAL_TYPES or p in FINAL_TYPES:
            return False
        known, names = self._ancestors(t)
        return p in names or not known

    def _ancestors(self, simple: str) -> tuple[bool, set[str]]:
        """The simple names of a corpus class's ancestors (itself included), and whether
        all are known (the chain ends in corpus classes only); a name no corpus class has:
        (False, {})."""
        if self._by_simple is None:
            by: dict[str, list[ClassDef]] = defaultdict(list)
            for defs in self.classes.values():
                for cdef in defs:
                    by[cdef.decl.fqn.rsplit(".", 1)[-1]].append(cdef)
            self._by_simple = dict(by)
        todo = list(self._by_simple.get(simple, []))
        if not todo:
            return False, set()
        names, known, seen = {simple}, True, set()
        while todo:
            cdef = todo.pop()
            if id(cdef) in seen:
                continue
            seen.add(id(cdef))
            for base, _l in (*cdef.decl.extends, *cdef.decl.implements):
                names.add(base.rsplit(".", 1)[-1])
                parents = self.classes.get(base.lower())
                if parents:
                    todo.extend(parents)
                else:
                    known = False
        return known, names

    def find_const(self, cls: str, name: str, depth: int = 0) -> list[str]:
        out: list[str] = []
        if depth > HIERARCHY_DEPTH:
            return out
        for cdef in self.classes.get(cls, []):
            d = cdef.decl
            idx = d.consts.get(name)
            if idx is not None:
                out.append(cdef.facts.node_id(idx))
                continue
            for p, _l in (*d.traits, *d.extends, *d.implements):
                found = self.find_const(p.lower(), name, depth + 1)
                if found:
                    out.extend(found)
                    break
        return sorted(set(out))

    def prop_levels(self, cls: str, name: str, depth: int = 0) -> list[list[TypeDesc]]:
        """What class ``cls`` (lower fqn) and then its traits and parents, nearest first, say
        property ``name`` holds (declared type, ``@var``, ``@property``, assignments): one
        list per declaration that says something."""
        if depth > HIERARCHY_DEPTH:
            return []
        out: list[list[TypeDesc]] = []
        for cdef in self.classes.get(cls, []):
            d = cdef.decl
            if d.props.get(name):
                out.append(d.props[name])
            for p, _l in (*d.traits, *d.extends):
                out.extend(self.prop_levels(p.lower(), name, depth + 1))
        return out

    def external_ancestor(self, cls: str, depth: int = 0) -> str | None:
        """The first class outside the corpus that corpus class ``cls`` (lower fqn) extends,
        directly or through its parents and traits (a builtin or vendor class), if any."""
        if depth > HIERARCHY_DEPTH:
            return None
        for cdef in self.classes.get(cls, []):
            for p, _l in (*cdef.decl.extends, *cdef.decl.implements):
                low = p.lower()
                if low not in self.classes:
                    return low
                found = self.external_ancestor(low, depth + 1)
                if found:
                    return found
        return None

    def external_root(self, d: TypeDesc, depth: int = 0) -> str | None:
        """For a receiver that evaluates to no class: the builtin or vendor class its value
        comes from, when it is a property, a method's result or an element of values of
        such classes only (``$stmt->options->has()`` on a vendor parser's statement), else
        None. A corpus class counts as outside for a member the corpus does not declare
        when the class extends one outside."""
        if depth > TYPE_DEPTH:
            return None
        if isinstance(d, AnyOf):
            roots = [self.external_root(a, depth + 1) for a in d.alts]
            return roots[0] if roots and all(roots) else None
        if not isinstance(d, Prop | Call | Elem):
            return None
        tys = self.types(d.of)
        if not tys:
            return self.external_root(d.of, depth + 1)
        first: str | None = None
        for cls in sorted(tys):
            if cls in self.classes:
                if isinstance(d, Elem):
                    return None
                known = (
                    self.prop_levels(cls, d.name)
                    if isinstance(d, Prop)
                    else self.find_method(cls, d.name.lower())
                )
                outside = None if known else self.external_ancestor(cls)
                if outside is None:
                    return None
                first = first or outside
            else:
                first = first or cls
        return first

    def display(self, cls: str) -> str:
        """A lower-case class name as its declaration (or its language) spells it."""
        for cdef in self.classes.get(cls, []):
            return cdef.decl.fqn
        return self.spellings.get(cls, cls)

    def parents(self, cls: str) -> list[str]:
        out: list[str] = []
        for cdef in self.classes.get(cls, []):
            out.extend(p.lower() for p, _l in cdef.decl.extends)
        return out

    # -- types --------------------------------------------------------------
    def types(self, d: TypeDesc | None, static_cls: str | None = None) -> dict[str, bool]:
        """Classes (lower fqn) a descriptor evaluates to -> derived flag (arrays left out)."""
        out = self._types(d, static_cls)
        if any(type(k) is ArrayOf for k in out):
            return {k: v for k, v in out.items() if isinstance(k, str)}
        return cast("dict[str, bool]", out)

    def _types(
        self,
        d: TypeDesc | None,
        static_cls: str | None = None,
        depth: int = 0,
        seen_globals: frozenset[str] = frozenset(),
    ) -> dict[ClassKey, bool]:
        """Classes (lower fqn) a descriptor evaluates to, arrays of them as ``ArrayOf``
        -> derived flag."""
        if d is None or depth > TYPE_DEPTH:
            return {}
        key = (d, static_cls)
        if not seen_globals:
            hit = self._type_cache.get(key)
            if hit is not None:
                return hit
        out: dict[ClassKey, bool] = {}

        def merge(items: dict[ClassKey, bool], derived: bool = False) -> None:
            for k, v in items.items():
                v = v or derived
                out[k] = out.get(k, True) and v

        match d:
            case Cls(fqn):
                if fqn:
                    out[fqn.lower()] = False
            case Static():
                if static_cls:
                    out[static_cls] = False
            case Parent(fqn):
                for p in self.parents(fqn.lower()):
                    out[p] = False
            case AnyOf(alts):
                for alt in alts:
                    merge(self._types(alt, static_cls, depth + 1, seen_globals))
            case Global(name):
                if name not in seen_globals:
                    for alt in self.globals.get(name, []):
                        merge(
                            self._types(alt, None, depth + 1, seen_globals | {name}), derived=True
                        )
            case Prop(of, name):
                # the nearest declaration whose types name a class wins (a subclass's narrower
                # `@property` over its parent's union; a parent's `@var` over an untyped child's)
                for cls, der in self._types(of, static_cls, depth + 1, seen_globals).items():
                    if not isinstance(cls, str):
                        continue
                    for level in self.prop_levels(cls, name):
                        found: dict[ClassKey, bool] = {}
                        for pd in level:
                            for k, v in self._types(pd, cls, depth + 1, seen_globals).items():
                                found[k] = found.get(k, True) and v
                        if found:
                            merge(found, derived=der)
                            break
            case Call(of, name):
                for cls, der in self._types(of, static_cls, depth + 1, seen_globals).items():
                    if not isinstance(cls, str):
                        continue
                    for mid in self.lookup_method(cls, name):
                        for rd in self.returns.get(mid, []):
                            merge(self._types(rd, cls, depth + 1, seen_globals), derived=der)
            case Array(of):
                for k, v in self._types(of, static_cls, depth + 1, seen_globals).items():
                    out[ArrayOf(k)] = v
            case Elem(of):
                for k, v in self._types(of, static_cls, depth + 1, seen_globals).items():
                    if isinstance(k, ArrayOf):
                        merge({k.elem: v})
                        continue
                    # an element of an object: what its ArrayAccess / Iterator method returns
                    for accessor in ("offsetget", "current"):
                        mids = self.find_method(k, accessor)
                        for mid in mids:
                            for rd in self.returns.get(mid, []):
                                merge(self._types(rd, k, depth + 1, seen_globals), derived=v)
                        if mids:
                            break
            case Func(candidates):
                for cand in candidates:
                    fids = self.functions.get(cand.lower())
                    if fids:
                        for fid in fids:
                            for rd in self.returns.get(fid, []):
                                merge(self._types(rd, None, depth + 1, seen_globals))
                        break
        if not seen_globals:
            self._type_cache[key] = out
        return out

    def takes_callable(self, node_id: str, position: int) -> bool:
        """Does parameter ``position`` of this function or method take a callable (its
        declared or documented type says ``callable``, or the body calls it: ``called``)? A
        variadic last one covers the rest."""
        params = self.params.get(node_id) or []
        if not params:
            return False
        p = params[position] if position < len(params) else params[-1]
        if position >= len(params) and not p.get("variadic"):
            return False
        types = f"{p.get('type', '')}|{p.get('doc_type', '')}".lower()
        return "callable" in types or "closure" in types or bool(p.get("called"))

    def methods_of(self, d: TypeDesc | None, method: str) -> list[str]:
        """Every declaration ``method`` (any case) may be on a receiver described by ``d``."""
        ml = method.lower()
        return sorted({t for cls in self.types(d) for t in self.find_method(cls, ml)})


def _subclass_methods(table: SymbolTable, cls: str, m: str | re.Pattern[str]) -> list[str]:
    """The declarations of method ``m`` (lower; or every name a pattern matches) in the
    classes that extend or implement class ``cls`` (lower fqn), ``HIERARCHY_DEPTH`` levels
    down, their own only (sorted): what ``$obj->m()`` may run when ``$obj``'s declared
    class lacks ``m``."""
    if table._children is None:
        children: dict[str, set[str]] = defaultdict(set)
        for key, cdefs in table.classes.items():
            for cdef in cdefs:
                for p, _l in (*cdef.decl.extends, *cdef.decl.implements):
                    children[p.lower()].add(key)
        table._children = dict(children)
    out: set[str] = set()
    seen = {cls}
    frontier = [cls]
    for _ in range(HIERARCHY_DEPTH):
        nxt: list[str] = []
        for c in frontier:
            for ch in sorted(table._children.get(c, ())):
                if ch in seen:
                    continue
                seen.add(ch)
                nxt.append(ch)
                for cdef in table.classes.get(ch, []):
                    if isinstance(m, str):
                        idx = cdef.decl.methods.get(m)
                        if idx is not None:
                            out.add(cdef.facts.node_id(idx))
                        continue
                    for name, idx in cdef.decl.methods.items():
                        if m.fullmatch(name.lower()):
                            out.add(cdef.facts.node_id(idx))
        frontier = nxt
    return sorted(out)


def _method_names(table: SymbolTable, cls: str, depth: int = 0) -> set[str]:
    """The (lower) names of the methods class ``cls`` has, inherited ones included
    (the walk of ``find_method``)."""
    out: set[str] = set()
    if depth >= HIERARCHY_DEPTH:
        return out
    for cdef in table.classes.get(cls, []):
        d = cdef.decl
        out.update(m.lower() for m in d.methods)
        for p, _l in (*d.traits, *d.extends, *d.implements):
            out |= _method_names(table, p.lower(), depth + 1)
    return out
