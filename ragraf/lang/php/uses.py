"""Uses: calls of every form, ``new``, class constants, callable arrays,
includes, ``global``, assignments, ``catch`` variables, superglobals.

Invariants a change must keep:
- Evidence lines are the line of the name at the use site.
- A use becomes a ref owned by the current scope index; receivers stay type
  descriptors (possibly ('var', ...)) until ``finish()`` closes them.
- Assignments only type variables, properties (``$this->p``, ``self::$p``) and
  globals. A variable's assignment binds it from the assignment's end on, in the
  block it is made in (``Names.close`` picks the bindings reaching each use);
  ``instanceof`` / ``is_a`` narrow a variable inside the branch they guard, and
  after an ``if (!$x instanceof C)`` whose body leaves (``return``, ``throw``,
  ``continue``, ``break``, ``exit``).
- ``return <expr>`` types a function only when it declares or documents no
  return type, and never from inside a closure.
- ``foreach ($xs as $v)`` binds ``$v`` to an element of ``$xs`` (an inline
  ``@var`` right before the loop instead); ``global $x`` binds the global, or
  what the function's ``@global T $x`` says.
- An include inside a condition, loop, ``try`` or a short-circuit expression
  of its scope is ``conditional``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ragraf.lang import templates
from ragraf.lang.facts import (
    KEYED_CALLBACK,
    NAMED_STRING,
    BuilderCallRef,
    CallableRef,
    CallbackRef,
    CallRef,
    ClassConstRef,
    DispatchRef,
    DynamicCallRef,
    Handler,
    HookRef,
    IncludeRef,
    LocalEdge,
    MethodCallRef,
    NewRef,
    RouteRef,
    StaticCallRef,
    SuperglobalRef,
    Target,
    TemplateRef,
    TypeDesc,
)
from ragraf.lang.php import hooks
from ragraf.lang.php.assemble import call_args
from ragraf.lang.php.routes import ROUTE_METHODS, Routes
from ragraf.lang.php.strings import MAX_SQL_DYN
from ragraf.limits import MAX_CONST_VALUE_CHARS

if TYPE_CHECKING:
    from tree_sitter import Node

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
#: functions whose first argument is a callable they call
_CALLABLE_CALLERS = frozenset(
    {"call_user_func", "call_user_func_array", "forward_static_call", "forward_static_call_array"}
)
# a literal that may be a table name: `orders`, `wp_options`, `#__users`, `db.table`
_TABLE_SHAPE = re.compile(r"^[A-Za-z_#][\w#$.`]{0,63}$")
_CONSTANT_NAME = re.compile(r"[A-Za-z_]\w*(\\\w+)*")  # define('NAME' or 'Ns\\NAME', ...)
#: a run-time part of an include path keeps this much of its PHP source (the resolver only
#: needs the literal parts to build a pattern; the rest is for humans)
MAX_INCLUDE_EXPR_CHARS = 80
#: ``dirname($path)`` goes up one level unless its second argument says otherwise
_DIRNAME_DEFAULT_LEVELS = 1


#: ``is_a($x, 'C')`` / ``is_subclass_of($x, C::class)`` narrow ``$x`` like ``instanceof``
_CLASS_TESTS = frozenset({"is_a", "is_subclass_of"})
#: the last statement of a body that leaves it (an early exit)
_EXITS = frozenset(
    {
        "return_statement",
        "throw_expression",
        "continue_statement",
        "break_statement",
        "exit_statement",
    }
)
_AND = frozenset({"&&", "and"})
_OR = frozenset({"||", "or"})


#: a Doctrine repository's own methods that read its entity's table (lower case)
REPOSITORY_READS = frozenset(
    {"createquerybuilder", "find", "findby", "findoneby", "findall", "count", "matching"}
)
#: an array key whose value is a callable (the query's ``@name.callback_key``)
_CALLBACK_KEY = re.compile(r"^['\"](?i:[a-z_]*callback)['\"]$")


class Uses(Routes):
    """Handlers of the ``@reference.*`` captures (``use`` imports aside)."""

    if TYPE_CHECKING:

        def sql_owner(self) -> int: ...  # ``Strings``: the node a SQL statement belongs to

    def on_call(self, n: Node) -> None:
        """``f(...)``, ``call_user_func(...)`` and friends, ``$fn(...)``, ``define(...)``."""
        f = self.field(n, "function")
        line = f.start_point[0] + 1
        sc = self.scope_index()
        if f.type in ("name", "qualified_name"):
            raw = self.t(f)
            low = raw.lower().lstrip("\\")
            if low in _CALLABLE_CALLERS:
                target = self.callable_target(self.first_arg(n))
                self.raw_refs.append(
                    DynamicCallRef(sc, line, "call_user_func", (target,) if target else ())
                )
                return
            if low == "define":
                self.on_define(n)
            elif low == "register_rest_route":
                self.on_rest_route(n, line)
            elif low in _CLASS_TESTS:
                self.on_class_test(n)
            candidates = self.function_candidates(raw)
            self.raw_refs.append(CallRef(sc, line, candidates, raw))
            short = low.rsplit("\\", 1)[-1]
            if (short in hooks.LISTEN or short in hooks.FIRE) and self.on_hook(n, short, line):
                return
            if short in templates.RENDER_FUNCTIONS:
                self.template_call(n, line, slugged=short == "get_template_part")
            if short in hooks.DISPATCH_HELPERS:
                self.on_dispatch_object(n, short, line)
            elif short in hooks.DRUPAL_INVOKE_FUNCTIONS:
                self.drupal_invoke(n, short, hooks.DRUPAL_INVOKE_FUNCTIONS[short], line)
            self.callback_args(n, Target("function", candidates=candidates))
        elif f.type == "variable_name":
            # the variable's name waits in the target until finish() closes it over the scope
            self.raw_refs.append(
                DynamicCallRef(
                    sc,
                    line,
                    "variable",
                    (
                        Target(
                            "variable",
                            receiver=("var", self.t(f)[1:], f.start_byte),
                            method=self.t(f)[1:],
                        ),
                    ),
                )
            )

    def on_define(self, n: Node) -> None:
        """``define('NAME', ...)`` with a literal name: a constant of the file (its ``value``
        prop when the value is a plain string literal: include paths read it)."""
        name = self.string_value(self.first_arg(n))
        if name and _CONSTANT_NAME.fullmatch(name):
            props: dict[str, object] = {"define": True}
            args = n.child_by_field_name("arguments")
            second = (
                args.named_children[1] if args is not None and args.named_child_count > 1 else None
            )
            value = self.string_value(
                second.named_children[0] if second is not None and second.named_children else None
            )
            if value is not None:
                props["value"] = value[:MAX_CONST_VALUE_CHARS]
            idx = self.add_node("constant", name.rsplit("\\", 1)[-1], name.lstrip("\\"), n, props)
            self.facts.edges.append(
                LocalEdge(self.nid(0), self.nid(idx), "contains", n.start_point[0] + 1)
            )

    def callback_args(self, call: Node, callee: Target) -> None:
        """Each string argument naming a function or ``Class::method``: a ``CallbackRef``
        (the resolver tells a callable, a dispatched method name and a plain string
        apart by what the callee's parameter takes)."""
        args = call.child_by_field_name("arguments")
        if args is None:
            return
        sc = self.scope_index()
        pos = 0
        for a in args.named_children:
            if a.type != "argument":
                continue
            if a.child_by_field_name("name") is not None:
                return  # named arguments: positions no longer say which parameter
            expr = a.named_children[-1] if a.named_children else None
            if expr is not None and expr.type in ("string", "encapsed_string"):
                target = self.callable_target(expr)
                if target is not None:
                    self.raw_refs.append(
                        CallbackRef(sc, expr.start_point[0] + 1, callee, pos, target)
                    )
            pos += 1

    def repository_entity(self, n: Node) -> None:
        """``parent::__construct($registry, User::class)`` in a class extending Doctrine's
        ``ServiceEntityRepository`` / ``EntityRepository``: the entity its finders read."""
        decl = self.cur_class_decl_any()
        if decl is None or not any(
            e.rsplit("\\", 1)[-1].lower().endswith("entityrepository") for e, _ in decl.extends
        ):
            return
        args = n.child_by_field_name("arguments")
        for a in args.named_children if args is not None else []:
            entity = self.class_literal(a.named_children[-1] if a.named_children else None)
            if entity is not None:
                self.repo_entities[decl.fqn] = entity
                return

    def template_call(
        self, n: Node, line: int, position: int = 0, slugged: bool = False, strict: str = ""
    ) -> None:
        """A call naming a template by a literal argument (``position``): a ``TemplateRef``
        (how ``render``). ``slugged``: WordPress's ``get_template_part($slug, $name)``;
        ``strict`` ``suffix``: only a name with a template's file name counts; ``path``: also
        one with a folder."""
        args = n.child_by_field_name("arguments")
        exprs = [
            a.named_children[-1] if a.named_children else None
            for a in (args.named_children if args is not None else [])
            if a.type == "argument"
        ]
        name = self.string_value(exprs[position]) if len(exprs) > position else None
        if name is None or not templates.shaped(name):
            return
        if strict and not (
            name.endswith(templates.TEMPLATE_SUFFIXES) or (strict == "path" and "/" in name)
        ):
            return
        slug = self.string_value(exprs[1]) if slugged and len(exprs) > 1 else None
        names = templates.file_names(name, slug if templates.shaped(slug) else None)
        if names:
            self.raw_refs.append(TemplateRef(self.scope_index(), line, "render", name, names))

    def dispatch(self, name: Node, obj: Node | None, line: int) -> None:
        """``$obj->$m()`` where ``$m`` is a parameter of the enclosing function: a
        ``DispatchRef`` (its callers' string arguments name the method)."""
        if name.type != "variable_name":
            return
        sc = self.scope()
        if sc.node == 0 or sc.anon:
            return
        params = self.facts.nodes[sc.node].props.get("parameters") or []
        var = self.t(name).lstrip("$")
        for i, p in enumerate(params):
            if p.get("name") == var:
                recv = self.expr_desc(obj) if obj is not None else None
                self.raw_refs.append(DispatchRef(self.scope_index(), line, i, recv))
                return

    def on_hook(self, n: Node, short: str, line: int) -> bool:
        """``add_action('init', cb)`` / ``do_action('init')`` and the rest of WordPress's
        plugin API (``ragraf.lang.php.hooks``): a ``HookRef``, and True when it made one
        (the call's string arguments are then no ``CallbackRef``: a listen's callback is
        the ref's, and the arguments of a run are the callbacks' values, not callables)."""
        args = call_args(n)
        name = hooks.hook_name(args[0] if args else None, self.t)
        if name is None:
            return False
        sc = self.scope_index()
        if short in hooks.FIRE:
            self.raw_refs.append(HookRef(sc, line, "fire", name, short))
            return True
        cb = args[1] if len(args) > 1 else None
        target = self.callable_target(cb)
        if cb is not None and cb.type == "array_creation_expression":
            self.hook_arrays.add(cb.start_byte)
        self.raw_refs.append(HookRef(sc, line, "listen", name, short, target))
        route = hooks.request_route(name)
        if route is not None:  # add_action('wp_ajax_save', cb): admin-ajax.php?action=save
            if target is None:
                handler = Handler("closure")
            elif target.kind == "method":
                handler = Handler("method", target.receiver, target.method)
            else:
                handler = Handler("function", None, target.candidates[0])
            self.raw_refs.append(RouteRef(sc, line, ("GET", "POST"), route, handler))
        return True

    def drupal_invoke(self, n: Node, call: str, position: int, line: int) -> None:
        """``module_invoke_all('cron')``, ``->invokeAll('cron')``, ``->alter('form', ...)``
        (``form_alter``; a list of types runs each): runs of Drupal hooks."""
        args = call_args(n)
        arg = args[position] if len(args) > position else None
        names = (
            [arg]
            if arg is None or arg.type != "array_creation_expression"
            else [e.named_children[-1] for e in arg.named_children if e.named_children]
        )
        tail = "_alter" if call in hooks.DRUPAL_ALTERS else ""
        for a in names:
            name = hooks.hook_name(a, self.t)
            if name is not None:
                hook = hooks.DRUPAL_HOOK + name + tail
                self.raw_refs.append(HookRef(self.scope_index(), line, "fire", hook, call))

    def mediawiki_run(self, n: Node, call: str, line: int) -> None:
        """``$hookContainer->run('PageSaveComplete', [...])``: a run of the MediaWiki hook
        its first argument names (its handlers: ``ragraf.lang.hook_manifest``)."""
        args = call_args(n)
        name = hooks.hook_name(args[0], self.t) if args else None
        if name is not None:
            hook = hooks.MEDIAWIKI_HOOK + name
            self.raw_refs.append(HookRef(self.scope_index(), line, "fire", hook, call))

    def on_dispatch_object(self, n: Node, call: str, line: int) -> None:
        """``event(new E(...))``, ``dispatch(new J)``, ``Bus::dispatch(new J)``: a run of
        the hook of the object's class (Laravel's events and jobs, ``ragraf.lang.php.hooks``);
        a variable's class is read when ``finish`` closes it (``pending_dispatches``)."""
        args = call_args(n)
        if args and args[0].type == "object_creation_expression":
            self.dispatch_class(self.expr_desc(args[0]), call, line)
        elif args and args[0].type == "variable_name":  # $event = new E(...); dispatch($event)
            d = self.expr_desc(args[0])
            if d is not None:
                self.pending_dispatches.append((self.scope_index(), line, call, d))

    def dispatch_class(self, cls: TypeDesc | None, call: str, line: int) -> None:
        """A run of the hook named by a class (``hooks.CLASS_HOOK``)."""
        if cls is not None and cls[0] == "class" and cls[1]:
            hook = hooks.CLASS_HOOK + str(cls[1])
            self.raw_refs.append(HookRef(self.scope_index(), line, "fire", hook, call))

    def on_array(self, n: Node) -> None:
        """A callable array ``[$obj, 'm']`` / ``[C::class, 'm']`` anywhere: a ``CallableRef``."""
        if n.start_byte in self.hook_arrays:
            return
        target = self.callable_array(n)
        if target is not None and target.receiver is not None:
            self.raw_refs.append(
                CallableRef(
                    self.scope_index(), n.start_point[0] + 1, target.receiver, target.method
                )
            )

    def on_keyed_callback(self, n: Node) -> None:
        """``'render_callback' => 'f'`` (any key ending in ``callback``): the string names a
        callable, whichever function the array goes to (a ``CallbackRef`` whose callee is
        the key, position -1)."""
        if n.named_child_count != 2:
            return
        key, value = n.named_children
        target = self.callable_target(value)
        if target is not None:
            name = (self.string_value(key) or "").lower()
            self.raw_refs.append(
                CallbackRef(
                    self.scope_index(),
                    value.start_point[0] + 1,
                    Target(KEYED_CALLBACK, method=name),
                    -1,
                    target,
                )
            )

    def on_name_string(self, n: Node) -> None:
        """A string shaped like a function or ``Class::method`` name that is an array's value,
        an assignment's right side or a return value: a ``CallbackRef`` whose callee is
        ``NAMED_STRING`` (the resolver links it only to a declaration of that name). A
        value under a ``...callback`` key is ``on_keyed_callback``'s, the method name of a
        callable array (``[$this, 'm']``) ``on_array``'s."""
        parent = n.parent
        if parent is not None and parent.type == "array_element_initializer":
            if parent.named_child_count == 2:
                key = parent.named_children[0]
                if key.type == "string" and _CALLBACK_KEY.match(self.t(key)):
                    return
            else:
                arr = parent.parent
                if arr is not None and self.callable_array(arr) is not None:
                    return  # [$this, 'm'] names a method: a CallableRef's
        target = self.callable_target(n)
        if target is not None:
            self.raw_refs.append(
                CallbackRef(
                    self.scope_index(), n.start_point[0] + 1, Target(NAMED_STRING), -1, target
                )
            )

    def on_method_call(self, n: Node) -> None:
        """``$x->m()`` / ``$x?->m()`` (``$x->$m()`` is dynamic); route registrations too."""
        name = self.field(n, "name")
        line = name.start_point[0] + 1
        if name.type != "name":
            self.raw_refs.append(DynamicCallRef(self.scope_index(), line, "dynamic_method", ()))
            self.dispatch(name, n.child_by_field_name("object"), line)
            return
        obj = n.child_by_field_name("object")
        recv = self.expr_desc(obj)
        mname = self.t(name)
        low = mname.lower()
        self.raw_refs.append(MethodCallRef(self.scope_index(), line, recv, mname))
        if low in REPOSITORY_READS and obj is not None and self.t(obj) == "$this":
            cls = self.cur_class()
            if cls:  # a Doctrine repository's $this->createQueryBuilder('u'), ->findBy([...])
                end = n.end_point[0] + 1
                self.repo_calls.append((n.start_byte, self.sql_owner(), line, end, cls, mname))
        self.builder_candidate(n, mname, line)
        self.callback_args(n, Target("method", receiver=recv, method=mname))
        if low in templates.RENDER_METHODS:
            # display('Name') is also a getter (WordPress's theme headers): a bare word is
            # no template name there
            self.template_call(n, line, strict="path" if low == "display" else "")
        elif low in templates.RENDER_METHODS_QUALIFIED and (low == "fetch" or _names(obj, b"view")):
            # $smarty->fetch('x.tpl'); $factory->make('users.index')
            self.template_call(n, line, strict="suffix" if low == "fetch" else "")
        if low in ROUTE_METHODS:
            self.on_route(n, low, line)
        elif low == "dispatch":  # $this->dispatch(new Job), $bus->dispatch(new Msg)
            self.on_dispatch_object(n, "->dispatch", line)
        elif low in hooks.DRUPAL_INVOKE_METHODS:  # ->invokeAll('cron')
            self.drupal_invoke(n, low, hooks.DRUPAL_INVOKE_METHODS[low], line)
        elif low in hooks.MEDIAWIKI_RUN_METHODS and _names(obj, b"container"):
            self.mediawiki_run(n, low, line)  # $this->container->run('X', [...])

    def builder_candidate(self, n: Node, method: str, line: int) -> None:
        """A method call whose first argument is a literal shaped like a table name: kept
        until ``finish_sql`` knows whether it was a recognised query builder's (then it is
        a SqlRef already), else a ``BuilderCallRef`` for ``db.query_builders``."""
        table = self.string_value(self.first_arg(n))
        if table is None or not _TABLE_SHAPE.match(table):
            return
        recv = n.child_by_field_name("object" if n.type != "scoped_call_expression" else "scope")
        rtext = self.t(recv)[-MAX_SQL_DYN:] if recv is not None else ""
        cand = BuilderCallRef(self.scope_index(), line, rtext, method, table)
        self.builder_pending.append((n.start_byte, cand))

    def on_static_call(self, n: Node) -> None:
        """``C::m()``, ``self::m()``, ``parent::m()``, ``static::m()``."""
        name = self.field(n, "name")
        line = name.start_point[0] + 1
        if name.type != "name":
            self.raw_refs.append(DynamicCallRef(self.scope_index(), line, "dynamic_method", ()))
            return
        scope = n.child_by_field_name("scope")
        cls = self.class_desc(scope)
        self.raw_refs.append(StaticCallRef(self.scope_index(), line, cls, self.t(name)))
        mlow = self.t(name).lower()
        if mlow in hooks.DISPATCH_STATICS and scope is not None and scope.type != "relative_scope":
            self.dispatch_class(cls, mlow, line)  # OrderShipped::dispatch($order)
        if mlow in hooks.DISPATCH_FACADE_METHODS and cls is not None and cls[0] == "class":
            facade = (str(cls[1]).rsplit("\\", 1)[-1].lower(), mlow)
            if facade in hooks.DISPATCH_FACADES:  # Event::dispatch(new OrderShipped($o))
                self.on_dispatch_object(n, f"{facade[0]}::{mlow}", line)
        if (
            mlow in hooks.MEDIAWIKI_RUN_METHODS
            and cls is not None
            and str(cls[1]).lower() in ("hooks", "mediawiki\\hookcontainer\\hooks")
        ):
            self.mediawiki_run(n, f"hooks::{mlow}", line)  # Hooks::run('X', [...]) (MW < 1.35)
        short_cls = str(cls[1]).rsplit("\\", 1)[-1].lower() if cls is not None else ""
        if short_cls == "view" and mlow in ("make", "first", "render"):
            self.template_call(n, line)  # View::make('users.index')
        elif short_cls == "route" and mlow == "view":
            self.template_call(n, line, position=1)  # Route::view('/welcome', 'welcome')
        if mlow == "__construct" and cls is not None and cls[0] == "parent":
            self.repository_entity(n)
        if cls is not None and scope is not None and scope.type in ("name", "qualified_name"):
            # the class is named here (a rename must change this line): a reference to it
            self.raw_refs.append(
                ClassConstRef(self.scope_index(), scope.start_point[0] + 1, cls, "class")
            )
        self.builder_candidate(n, self.t(name), line)
        self.callback_args(n, Target("method", receiver=cls, method=self.t(name)))
        if scope is not None and scope.type in ("name", "qualified_name"):
            self.on_static_route(n, self.t(scope), self.t(name).lower(), line)

    def on_new(self, n: Node) -> None:
        """``new C`` (anonymous classes and ``new $x`` aside)."""
        c = n.named_children[0] if n.named_children else None
        if c is None or c.type == "anonymous_class":
            return
        if c.type in ("name", "qualified_name"):
            d = self.class_desc(c)
            if d is not None:
                self.raw_refs.append(NewRef(self.scope_index(), c.start_point[0] + 1, d))

    def on_class_constant(self, n: Node) -> None:
        """``C::NAME`` and ``C::class``."""
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

    def on_include(self, n: Node) -> None:
        """``include`` / ``require`` (``_once``); ``conditional`` inside a condition, loop, ``try``
        or short-circuit expression of its scope."""
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

    def include_parts(self, n: Node | None) -> list[tuple[str, str]]:
        """An include path expression -> ``("lit" | "dir" | "dyn", text)`` parts; ``dir`` is the
        including file's folder (``__DIR__``, ``dirname(__FILE__)``)."""
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
                levels = _DIRNAME_DEFAULT_LEVELS
                if len(args.named_children) > 1:
                    lv = self.t(args.named_children[1]).strip()
                    levels = int(lv) if lv.isdigit() else _DIRNAME_DEFAULT_LEVELS
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
        return [("dyn", self.t(n)[:MAX_INCLUDE_EXPR_CHARS])]

    def on_global(self, n: Node) -> None:
        """``global $x``: ``$x`` is the global of that name in this scope (a class the
        function's docblock gives it with ``@global T $x`` instead)."""
        sc = self.scope()
        block = self.block_of(n)
        for c in n.named_children:
            if c.type == "variable_name":
                name = self.t(c)[1:]
                sc.globals.add(name)
                descs = sc.doc_globals.get(name) or [("global", name)]
                self.bind(sc, name, descs, n.end_byte, block)

    def on_assignment(self, n: Node) -> None:
        """Types from ``$x = ...``, ``$this->p = ...`` and ``$GLOBALS['x'] = ...``; a
        file-level or ``global`` variable's assignment also types the global."""
        left = n.child_by_field_name("left")
        right = n.child_by_field_name("right")
        if left is None:
            return
        sc = self.scope()
        lt = left.type
        if lt == "variable_name":
            name = self.t(left)[1:]
            d = self.expr_desc(n)  # `$x ??= new C`: the old value or a C
            if d is None and right is not None:
                d = self.callable_desc(right)
            doc = self.doc_before(n, name)
            if doc and (d is None or d[0] != "class"):
                d = doc[0] if len(doc) == 1 else ("any", tuple(doc))
            if d is not None:
                self.bind(sc, name, [d], n.end_byte, self.block_of(n))
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
        elif lt == "scoped_property_access_expression":  # `self::$instance = new static()`
            scope = left.child_by_field_name("scope")
            pname = left.child_by_field_name("name")
            decl = self.cur_class_decl_any()
            if scope is None or pname is None or decl is None:
                return
            word = self.t(scope).lower()
            if word in ("self", "static") or self.resolve_class(self.t(scope)) == decl.fqn:
                d = self.expr_desc(right)
                if d is not None:
                    self.pending_props.append(
                        (self.scope_index(), decl, self.t(pname).lstrip("$"), d)
                    )
        elif lt == "subscript_expression":
            d = self.expr_desc(left)
            if d is not None and d[0] == "global":
                rd = self.expr_desc(right)
                if rd is not None:
                    self.pending_globals.append((self.scope_index(), d[1], rd))
            self.wg_hook(left, right)

    def wg_hook(self, left: Node, right: Node | None) -> None:
        """MediaWiki's ``$wgHooks['BeforePageDisplay'][] = 'efHandler'`` (LocalSettings.php,
        older extensions): the callable listens to the hook ``mediawiki:<name>``."""
        inner = left.named_children[0] if left.named_child_count else None
        if inner is None or inner.type != "subscript_expression" or inner.named_child_count != 2:
            return
        var, key = inner.named_children
        if var.type != "variable_name" or self.t(var) != "$wgHooks":
            return
        name = self.string_value(key)
        target = self.callable_target(right)
        if name and target is not None:
            self.raw_refs.append(
                HookRef(
                    self.scope_index(),
                    left.start_point[0] + 1,
                    "listen",
                    hooks.MEDIAWIKI_HOOK + name,
                    "$wgHooks",
                    target,
                )
            )

    def doc_before(self, n: Node, name: str) -> list[TypeDesc]:
        """The types an inline ``/** @var T $name */`` right before the statement of
        assignment ``n`` gives ``$name`` (none when there is no such comment)."""
        if not self.doc_vars:
            return []
        stmt = n.parent
        if stmt is None or stmt.type != "expression_statement":
            return []
        return self.doc_before_statement(stmt, name)

    def doc_before_statement(self, stmt: Node, name: str) -> list[TypeDesc]:
        """The types an inline ``/** @var T $name */`` right before ``stmt`` gives."""
        if not self.doc_vars:
            return []
        prev = stmt.prev_named_sibling
        if prev is None or prev.type != "comment":
            return []
        return self.doc_vars.get(prev.start_byte, {}).get(name, [])

    def on_return(self, n: Node) -> None:
        """``return <expr>`` of a function or method without a declared or documented return
        type: one of the types it returns (``new static`` is the late-bound class)."""
        sc = self.scope()
        if sc.anon or sc.node == 0 or sc.node in self.typed_returns:
            return
        expr = n.named_children[0] if n.named_children else None
        if expr is None or expr.type == "comment":
            return
        p = n.parent
        while p is not None and p.type not in _FUNCTION_TYPES:
            p = p.parent
        if p is None or p.type not in ("function_definition", "method_declaration"):
            return  # a closure's return
        d: TypeDesc | None
        created = expr.named_children[0] if expr.named_children else None
        if (
            expr.type == "object_creation_expression"
            and created is not None
            and self.t(created).lower() == "static"
        ):
            d = ("static",) if self.cur_class() else None
        else:
            d = self.expr_desc(expr)
        if d is not None:
            self.pending_returns.append((self.scope_index(), sc.node, d))

    def on_instanceof(self, n: Node) -> None:
        """``$x instanceof C``: ``$x`` is a C where the test holds."""
        var = n.child_by_field_name("left")
        cls = n.child_by_field_name("right")
        if var is None or cls is None or var.type != "variable_name":
            return
        if cls.type not in ("name", "qualified_name"):
            return
        d = self.class_desc(cls)
        if d is not None and d[0] == "class":
            self.narrow(n, self.t(var)[1:], d)
            # ``instanceof C`` names the class: a reference to it
            self.raw_refs.append(
                ClassConstRef(self.scope_index(), cls.start_point[0] + 1, d, "class")
            )

    def on_class_test(self, n: Node) -> None:
        """``is_a($x, 'C')`` / ``is_subclass_of($x, C::class)``: like ``instanceof``."""
        args = n.child_by_field_name("arguments")
        if args is None or len(args.named_children) < 2:
            return
        a, b = (x.named_children[0] if x.named_children else None for x in args.named_children[:2])
        if a is None or b is None or a.type != "variable_name":
            return
        s = self.string_value(b)
        d: TypeDesc | None = None
        if s is not None:
            fq = self.resolve_class("\\" + s.lstrip("\\")) if s else None
            d = ("class", fq) if fq else None
        elif b.type == "class_constant_access_expression" and len(b.named_children) == 2:
            if self.t(b.named_children[1]).lower() == "class":
                d = self.class_desc(b.named_children[0])
        if d is not None and d[0] == "class":
            self.narrow(n, self.t(a)[1:], d)

    def narrow(self, test: Node, name: str, d: TypeDesc) -> None:
        """Bind ``$name`` to ``d`` where ``test`` holds: the rest of an ``&&`` chain, the
        ``if`` body or ternary branch it guards; negated, the ``else`` and, when the ``if``
        body leaves, the rest of the enclosing block."""
        sc = self.scope()
        node = test
        negated = False
        p = node.parent
        while p is not None:
            pt = p.type
            if pt == "parenthesized_expression":
                pass
            elif pt == "unary_op_expression" and self.t(p).lstrip().startswith("!"):
                negated = not negated
            elif pt == "binary_expression":
                op = p.child_by_field_name("operator")
                right = p.child_by_field_name("right")
                opt = self.t(op) if op is not None else ""
                if not negated and opt in _AND:
                    if right is not None and right.start_byte > node.start_byte:
                        self.bind(sc, name, [d], right.start_byte, _extent(right), True)
                elif not (negated and opt in _OR):
                    return
            elif pt in ("if_statement", "else_if_clause", "conditional_expression"):
                cond = p.child_by_field_name("condition")
                if cond is None or cond.start_byte != node.start_byte:
                    return
                body = p.child_by_field_name("body")
                if not negated:
                    if body is not None:
                        self.bind(sc, name, [d], body.start_byte, _extent(body), True)
                    return
                if pt == "conditional_expression":
                    alt = p.child_by_field_name("alternative")
                    if alt is not None:
                        self.bind(sc, name, [d], alt.start_byte, _extent(alt), True)
                    return
                for alt in p.children_by_field_name("alternative"):
                    if alt.type == "else_clause":
                        self.bind(sc, name, [d], alt.start_byte, _extent(alt), True)
                if body is not None and _leaves(body):
                    self.bind(sc, name, [d], p.end_byte, self.block_of(p), True)
                return
            else:
                return
            node = p
            p = p.parent

    def on_foreach(self, n: Node) -> None:
        """``foreach ($xs as $v)`` / ``($xs as $k => $v)``: ``$v`` is an element of ``$xs``."""
        kids = [c for c in n.named_children if c.type != "comment"]
        if len(kids) < 2:
            return
        src, val = kids[0], kids[1]
        if val.type == "pair":
            val = val.named_children[-1] if val.named_children else val
        if val.type == "by_ref":
            val = val.named_children[0] if val.named_children else val
        if val.type != "variable_name":
            return
        d = self.expr_desc(src)
        if d is not None:
            name = self.t(val)[1:]
            doc = self.doc_before_statement(n, name)
            self.bind(self.scope(), name, doc or [("elem", d)], val.end_byte, self.block_of(n))

    def on_catch(self, n: Node) -> None:
        """``catch (A | B $e)`` types ``$e``."""
        tnode = n.child_by_field_name("type")
        name = n.child_by_field_name("name")
        self.class_refs([tnode])  # the classes caught are named here
        if tnode is None or name is None:
            return
        descs: list[TypeDesc] = []
        for c in [tnode] if tnode.type != "type_list" else tnode.named_children:
            descs.extend(self.type_descs(c))
        if descs:
            sc = self.scope()
            self.bind(sc, self.t(name).lstrip("$"), descs, n.start_byte, self.block_of(n))

    def on_superglobal(self, n: Node) -> None:
        """``$_GET['id']`` and friends."""
        base = n.named_children[0]
        key_node = n.named_children[1] if n.named_child_count > 1 else None
        key = self.string_value(key_node) if key_node is not None else None
        self.raw_refs.append(
            SuperglobalRef(self.scope_index(), n.start_point[0] + 1, self.t(base), key)
        )


_FUNCTION_TYPES = frozenset(
    {"function_definition", "method_declaration", "anonymous_function", "arrow_function"}
)


def _names(obj: Node | None, word: bytes) -> bool:
    """Whether a receiver's text holds ``word`` (lower case), in any case."""
    return obj is not None and word in (obj.text or b"").lower()


def _extent(n: Node) -> tuple[int, int]:
    return n.start_byte, n.end_byte


def _leaves(body: Node) -> bool:
    """Whether a branch's last statement leaves it (return, throw, continue, break, exit)."""
    last = body
    if body.type in ("compound_statement", "colon_block"):
        stmts = [c for c in body.named_children if c.type != "comment"]
        if not stmts:
            return False
        last = stmts[-1]
    if last.type == "expression_statement" and last.named_children:
        last = last.named_children[0]
    if last.type == "function_call_expression":
        f = last.child_by_field_name("function")
        return f is not None and f.text is not None and f.text.lower() in (b"exit", b"die")
    return last.type in _EXITS
