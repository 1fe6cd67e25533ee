"""Uses: calls of every form, ``new``, class constants, callable arrays,
includes, superglobals (what variables hold: ``bindings``; calls that are framework
hooks, events and template renders: ``framework_calls``).

Invariants a change must keep:
- Evidence lines are the line of the name at the use site.
- A use becomes a ref owned by the current scope index; receivers stay type
  descriptors (possibly ('var', ...)) until ``finish()`` closes them.
- An include inside a condition, loop, ``try`` or a short-circuit expression
  of its scope is ``conditional``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ragraf.kinds import DynamicHow, EdgeKind, FragmentKind, NodeKind, TargetKind
from ragraf.lang import templates
from ragraf.lang.facts import (
    BuilderCallRef,
    CallableRef,
    CallbackRef,
    CallRef,
    ClassConstRef,
    DispatchRef,
    DynamicCallRef,
    IncludeRef,
    LocalEdge,
    MethodCallRef,
    NewRef,
    StaticCallRef,
    SuperglobalRef,
    TableArgRef,
    TableForwardRef,
    TableListRef,
    Target,
)
from ragraf.lang.php import hooks
from ragraf.lang.php.bindings import Bindings
from ragraf.lang.php.callables import BUILTIN_CALLBACKS, WP_CALLBACKS
from ragraf.lang.php.framework_calls import FrameworkCalls
from ragraf.lang.php.routes import ROUTE_METHODS
from ragraf.lang.php.strings import MAX_SQL_DYN, MAX_TABLE_LIST, TABLE_WORD
from ragraf.lang.php.strvals import StrVals, function_targets, method_targets
from ragraf.lang.typedesc import Cls, Parent, TypeDesc, Var
from ragraf.limits import MAX_CONST_VALUE_CHARS

if TYPE_CHECKING:
    from collections.abc import Callable

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
#: a Doctrine repository's own methods that read its entity's table (lower case)
REPOSITORY_READS = frozenset(
    {"createquerybuilder", "find", "findby", "findoneby", "findall", "count", "matching"}
)
#: array keys whose string value names a capability, an option or a setting, not code
_NOT_CALLABLE_KEYS = frozenset(
    {
        "cap",
        "capability",
        "capabilities",
        "option",
        "option_name",
        "setting",
        "settings",
        "role",
        "permission",
        "meta_key",
        "theme_supports",
        "default",
    }
)
#: the other strings of a list kept with a name in it (``list_words``)
_LIST_WORDS = 8
#: an array key whose value is a callable (the query's ``@name.callback_key``)
#: a string shaped like a function's or ``Class::method``'s name (the tags query's test)
_NAME_SHAPED = re.compile(
    r"(?=[^'\"]*(?:[A-Za-z0-9]_|\\|::|[a-z][A-Z]))[A-Za-z_\\][A-Za-z0-9_\\]*(::[A-Za-z_]\w*)?"
)
_CALLBACK_KEY = re.compile(r"^['\"](?i:[a-z_]*callback)['\"]$")


class Uses(Bindings, FrameworkCalls, StrVals):
    """Handlers of the ``@reference.*`` captures (``use`` imports aside; assignments and
    the other typing captures: ``Bindings``)."""

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
                self.raw_refs.append(
                    DynamicCallRef(
                        sc,
                        line,
                        DynamicHow.CALL_USER_FUNC,
                        self.callable_targets(self.first_arg(n)),
                    )
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
            self.callback_args(n, Target(TargetKind.FUNCTION, candidates=candidates))
        elif f.type == "variable_name":
            self.raw_refs.append(
                DynamicCallRef(sc, line, DynamicHow.VARIABLE, self.callable_targets(f))
            )
        else:  # ($this->handler)(...), $handlers['x'](...): nothing known of the name
            self.raw_refs.append(
                DynamicCallRef(sc, line, DynamicHow.VARIABLE, function_targets(("*",)))
            )

    def callable_targets(self, arg: Node | None) -> tuple[Target, ...]:
        """What a callable expression may be: a literal name or callable array
        (``callable_target``); a variable's functions, callable arrays and objects, which
        wait in a ``VARIABLE`` target until ``finish()`` closes it over the scope, and the
        names its string values give (``StrVals``); ``[$obj, $m]`` with ``$m``'s values;
        ``UNKNOWN`` for what none of these tells."""
        if arg is None:
            return ()
        target = self.callable_target(arg)
        if target is not None:
            return (target,)
        out: list[Target] = []
        self.called_param(arg)
        if arg.type == "variable_name":
            # the variable's name waits in the target until finish() closes it over the scope
            name = self.t(arg)[1:]
            out.append(Target(TargetKind.VARIABLE, receiver=Var(name, arg.start_byte), method=name))
        elif arg.type == "array_creation_expression":
            els = [e for e in arg.named_children if e.type == "array_element_initializer"]
            if len(els) == 2 and all(e.named_child_count == 1 for e in els):
                obj, m = els[0].named_children[0], els[1].named_children[0]
                s = self.string_value(obj)
                recv = Cls(s.lstrip("\\")) if s else self.expr_desc(obj)
                return method_targets(self.str_values(m) or ("*",), recv)
            return ()
        values = self.str_values(arg)
        if values:
            out.extend(function_targets(values))
        elif values is None and arg.type != "variable_name":
            out.extend(function_targets(("*",)))
        return tuple(out)

    def called_param(self, arg: Node) -> None:
        """A parameter called (``$cb()``, ``call_user_func($cb)``): the function takes a
        callable there (its ``parameters`` prop says ``called``), so a string its callers
        pass there names one."""
        i = self.param_of(arg)
        sc = self.scope()
        if i < 0 or sc.node == 0 or sc.anon:
            return
        params = self.facts.nodes[sc.node].props.get("parameters") or []
        if i < len(params):
            params[i]["called"] = True

    def on_foreach(self, n: Node) -> None:
        """What ``Bindings`` reads of a ``foreach``, and the values of its variable when it
        walks a list of literals (``StrVals``)."""
        super().on_foreach(n)
        self.str_foreach(n)

    def on_assignment(self, n: Node) -> None:
        """What ``Bindings`` reads of an assignment, and its string values (``StrVals``)."""
        super().on_assignment(n)
        self.str_assign(n)
        self.list_assign(n)

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
            idx = self.add_node(
                NodeKind.CONSTANT, name.rsplit("\\", 1)[-1], name.lstrip("\\"), n, props
            )
            self.facts.edges.append(
                LocalEdge(self.nid(0), self.nid(idx), EdgeKind.CONTAINS, n.start_point[0] + 1)
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
        params: list[str] | None = None  # the function's parameters, read when needed
        for a in args.named_children:
            if a.type != "argument":
                continue
            if a.child_by_field_name("name") is not None:
                return  # named arguments: positions no longer say which parameter
            if not a.named_children:
                pos += 1
                continue
            expr = a.named_children[-1]
            ty = expr.type
            if ty == "variable_name" and callee.kind != TargetKind.NAMED:
                if params is None:
                    params = self.param_names()
                var = self.t(expr)[1:] if params else ""
                if var in params:  # the function's own parameter, passed on
                    line = expr.start_point[0] + 1
                    at = params.index(var)
                    self.raw_refs.append(TableForwardRef(sc, line, callee, pos, at))
            elif ty == "class_constant_access_expression":
                # self::HOOK_RENDER: a constant of the file's classes with a literal value
                vals = self.str_values(expr) or ()
                got = function_targets(vals) if len(vals) == 1 and "*" not in vals[0] else ()
                if got:
                    self.raw_refs.append(
                        CallbackRef(sc, expr.start_point[0] + 1, callee, pos, got[0])
                    )
            elif ty in ("string", "encapsed_string"):
                target = self.callable_target(expr)
                if target is not None:
                    line = expr.start_point[0] + 1
                    self.raw_refs.append(CallbackRef(sc, line, callee, pos, target))
                    word = target.candidates[0] if target.candidates else ""
                    if callee.kind != TargetKind.NAMED and TABLE_WORD.fullmatch(word):
                        # it may name the table of the callee's SQL (``TableParamRef``)
                        self.raw_refs.append(TableArgRef(sc, line, callee, pos, word))
            pos += 1

    def param_names(self) -> list[str]:
        """The parameters of the function or method the walk is in (none at file level or
        in a closure)."""
        sc = self.scope()
        if sc.node == 0 or sc.anon:
            return []
        return [str(p.get("name")) for p in self.facts.nodes[sc.node].props.get("parameters") or []]

    def dispatch(self, name: Node, obj: Node | None, line: int) -> None:
        """``$obj->$m()`` where ``$m`` is a parameter of the enclosing function, or a case
        change of one (``$m = strtolower($type)``): a ``DispatchRef`` (its callers' string
        arguments name the method)."""
        if name.type != "variable_name":
            return
        sc = self.scope()
        if sc.node == 0 or sc.anon:
            return
        i = self.param_of(name)
        if i >= 0:
            recv = self.expr_desc(obj) if obj is not None else None
            self.raw_refs.append(DispatchRef(self.scope_index(), line, i, recv))

    def table_list(self, n: Node) -> None:
        """An array of at least two literals shaped like table names, or a map keyed by
        them (``['users' => ['id', 'name'], ...]``): a ``TableListRef``."""
        els = [e for e in n.named_children if e.type == "array_element_initializer"]
        if not 2 <= len(els) <= MAX_TABLE_LIST or not els[0].named_children:
            return
        if els[0].named_children[0].type not in ("string", "encapsed_string"):
            return  # neither a list of strings nor a map keyed by them
        keyed = len(els[0].named_children) == 2
        names = []
        for e in els:
            kids = e.named_children
            if len(kids) != (2 if keyed else 1):
                return
            name = self.string_value(kids[0])
            if not name or not TABLE_WORD.fullmatch(name):
                return
            if keyed and kids[1].type not in ("array_creation_expression", "string"):
                return
            names.append(name)
        if len(set(names)) == len(names):
            self.raw_refs.append(
                TableListRef(self.scope_index(), n.start_point[0] + 1, tuple(names), keyed)
            )

    def on_array(self, n: Node) -> None:
        """A callable array ``[$obj, 'm']`` / ``[C::class, 'm']`` anywhere: a ``CallableRef``;
        an array of table names: a ``TableListRef``."""
        self.table_list(n)
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
                    Target(TargetKind.KEYED, method=name),
                    -1,
                    target,
                )
            )

    def on_name_string(self, n: Node) -> None:
        """A string shaped like a function or ``Class::method`` name that is an array's value,
        an assignment's right side or a return value: a ``CallbackRef`` whose callee is
        ``TargetKind.NAMED`` with the other values of its list or map (``list_words``) and a
        map value's key (``method``; ``?`` when it is no string), the resolver links it only
        to a declaration of that name. A
        value under a ``...callback`` key is ``on_keyed_callback``'s, the method name of a
        callable array (``[$this, 'm']``) ``on_array``'s."""
        parent = n.parent
        siblings: tuple[str, ...] = ()
        key_word = ""  # a map value's key
        if parent is not None and parent.type == "array_element_initializer":
            arr = parent.parent
            if parent.named_child_count == 2:
                key = parent.named_children[0]
                key_word = self.string_value(key) or "?"
                if key.type == "string" and _CALLBACK_KEY.match(self.t(key)):
                    return
                if (self.string_value(key) or "").lower() in _NOT_CALLABLE_KEYS:
                    return  # 'capability' => 'activate_plugins': a capability, not a call
            elif arr is not None and self.callable_array(arr) is not None:
                return  # [$this, 'm'] names a method: a CallableRef's
            siblings = self.list_words(arr, n) if arr is not None else ()
        elif parent is not None and parent.type == "assignment_expression":
            left = parent.child_by_field_name("left")
            if left is not None and left.type == "subscript_expression":
                return  # $caps[] = 'update_core', $args['code'] = 'wp_die': data in a list
            if left is not None and left.type == "variable_name" and not _runs(left, self.t):
                return  # $cap = 'update_core': the variable is never called nor handed over
        target = self.callable_target(n)
        if target is not None:
            self.raw_refs.append(
                CallbackRef(
                    self.scope_index(),
                    n.start_point[0] + 1,
                    Target(TargetKind.NAMED, candidates=siblings, method=key_word),
                    -1,
                    target,
                )
            )

    def list_words(self, arr: Node, n: Node) -> tuple[str, ...]:
        """The other values of a list or map shaped like names of code (``_NAME_SHAPED``:
        ``array('activate_plugins', 'edit_posts')``, ``'date' => 'comment_date'``; not a
        label like ``'Style'``), up to ``_LIST_WORDS``: the resolver links a name in it
        only when all of them name code too (else it is a list of capabilities, options,
        columns or settings that shares a name)."""
        out: list[str] = []
        for e in arr.named_children:
            if e.type != "array_element_initializer" or not e.named_child_count:
                continue
            v = e.named_children[-1]
            if v.start_byte == n.start_byte:
                continue
            if e.named_child_count == 2 and _CALLBACK_KEY.match(self.t(e.named_children[0])):
                continue  # 'active_callback' => 'f' is code by its key, not by its map
            word = self.string_value(v)
            if word is not None and _NAME_SHAPED.fullmatch(word):
                out.append(word)
                if len(out) >= _LIST_WORDS:
                    break
        return tuple(out)

    def on_method_call(self, n: Node) -> None:
        """``$x->m()`` / ``$x?->m()`` (``$x->$m()`` is dynamic); route registrations too."""
        name = self.field(n, "name")
        line = name.start_point[0] + 1
        if name.type != "name":
            obj = n.child_by_field_name("object")
            recv = self.expr_desc(obj)
            values = self.str_values(name) or ("*",)
            self.raw_refs.append(
                DynamicCallRef(
                    self.scope_index(),
                    line,
                    DynamicHow.DYNAMIC_METHOD,
                    method_targets(values, recv),
                )
            )
            self.dispatch(name, obj, line)
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
        self.callback_args(n, Target(TargetKind.METHOD, receiver=recv, method=mname))
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
        scope = n.child_by_field_name("scope")
        if name.type != "name":
            values = self.str_values(name) or ("*",)
            targets = method_targets(values, self.class_desc(scope))
            self.raw_refs.append(
                DynamicCallRef(self.scope_index(), line, DynamicHow.DYNAMIC_METHOD, targets)
            )
            return
        cls = self.class_desc(scope)
        self.raw_refs.append(StaticCallRef(self.scope_index(), line, cls, self.t(name)))
        mlow = self.t(name).lower()
        if mlow in hooks.DISPATCH_STATICS and scope is not None and scope.type != "relative_scope":
            self.dispatch_class(cls, mlow, line)  # OrderShipped::dispatch($order)
        if mlow in hooks.DISPATCH_FACADE_METHODS and isinstance(cls, Cls):
            facade = (cls.fqn.rsplit("\\", 1)[-1].lower(), mlow)
            if facade in hooks.DISPATCH_FACADES:  # Event::dispatch(new OrderShipped($o))
                self.on_dispatch_object(n, f"{facade[0]}::{mlow}", line)
        if mlow in hooks.MEDIAWIKI_RUN_METHODS and _spelled(cls).lower() in (
            "hooks",
            "mediawiki\\hookcontainer\\hooks",
        ):
            self.mediawiki_run(n, f"hooks::{mlow}", line)  # Hooks::run('X', [...]) (MW < 1.35)
        short_cls = _spelled(cls).rsplit("\\", 1)[-1].lower()
        if short_cls == "view" and mlow in ("make", "first", "render"):
            self.template_call(n, line)  # View::make('users.index')
        elif short_cls == "route" and mlow == "view":
            self.template_call(n, line, position=1)  # Route::view('/welcome', 'welcome')
        if mlow == "__construct" and isinstance(cls, Parent):
            self.repository_entity(n)
        if cls is not None and scope is not None and scope.type in ("name", "qualified_name"):
            # the class is named here (a rename must change this line): a reference to it
            self.raw_refs.append(
                ClassConstRef(self.scope_index(), scope.start_point[0] + 1, cls, "class")
            )
        self.builder_candidate(n, self.t(name), line)
        self.callback_args(n, Target(TargetKind.METHOD, receiver=cls, method=self.t(name)))
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
        """An include path expression -> ``(FragmentKind, text)`` parts (``lit``, ``dir`` or ``dyn``); ``dir`` is the
        including file's folder (``__DIR__``, ``dirname(__FILE__)``)."""
        if n is None:
            return [(FragmentKind.DYN, "")]
        ty = n.type
        if ty == "parenthesized_expression":
            return self.include_parts(n.named_children[0] if n.named_children else None)
        if ty == "binary_expression" and n.child(1) is not None and self.t(n.child(1)) == ".":
            return self.include_parts(n.child_by_field_name("left")) + self.include_parts(
                n.child_by_field_name("right")
            )
        s = self.string_value(n)
        if s is not None:
            return [(FragmentKind.LIT, s)]
        if ty == "name" and self.t(n) == "__DIR__":
            return [(FragmentKind.DIR, "")]
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
                up: list[tuple[str, str]] = [(FragmentKind.LIT, "/..")]
                if inner is not None and self.t(inner) in ("__FILE__",):
                    return [(FragmentKind.DIR, ""), *up * (levels - 1)]
                if inner is not None and self.t(inner) == "__DIR__":
                    return [(FragmentKind.DIR, ""), *up * levels]
        if ty == "encapsed_string":
            out: list[tuple[str, str]] = []
            for c in n.named_children:
                out.extend(
                    [(FragmentKind.LIT, self.t(c))]
                    if c.type == "string_content"
                    else [(FragmentKind.DYN, self.t(c))]
                )
            return out
        return [(FragmentKind.DYN, self.t(n)[:MAX_INCLUDE_EXPR_CHARS])]

    def on_superglobal(self, n: Node) -> None:
        """``$_GET['id']`` and friends."""
        base = n.named_children[0]
        key_node = n.named_children[1] if n.named_child_count > 1 else None
        key = self.string_value(key_node) if key_node is not None else None
        self.raw_refs.append(
            SuperglobalRef(self.scope_index(), n.start_point[0] + 1, self.t(base), key)
        )


def _names(obj: Node | None, word: bytes) -> bool:
    """Whether a receiver's text holds ``word`` (lower case), in any case."""
    return obj is not None and word in (obj.text or b"").lower()


def _spelled(d: TypeDesc | None) -> str:
    """The name a class position's descriptor (``Names.class_desc``) spells: the class, the
    class whose parent it is, or the variable; "" for none."""
    match d:
        case Cls(fqn) | Parent(fqn):
            return fqn
        case Var(name):
            return name
    return ""


#: functions that take a callable argument, and at which (0-based) positions (PHP's and
#: WordPress's, hooks' listens included)
_TAKES_CALLABLE: dict[str, tuple[int, ...]] = {
    **BUILTIN_CALLBACKS,
    **WP_CALLBACKS,
    "add_action": (1,),
    "add_filter": (1,),
}
_SCOPES = frozenset(
    {"function_definition", "method_declaration", "anonymous_function", "arrow_function", "program"}
)


def _runs(var: Node, text: Callable[[Node], str]) -> bool:
    """Whether the variable assigned at ``var`` is run in its function (the def-use
    layer's reach, read locally): called (``$fn()``), handed to a function where it takes a
    callable (``call_user_func($fn)``, ``usort($a, $fn)``, ``add_action('x', $fn)``, not
    ``add_action($fn, ...)``) or returned."""
    name = text(var)
    scope = var.parent
    while scope is not None and scope.type not in _SCOPES:
        scope = scope.parent
    if scope is None:
        return True
    todo = list(scope.named_children)
    while todo:
        node = todo.pop()
        if node.type in _SCOPES:
            continue  # another function's variable of that name
        if node.type == "variable_name" and text(node) == name and node.parent is not None:
            up = node.parent
            if up.type == "function_call_expression" or up.type == "return_statement":
                return True
            if up.type == "argument" and up.parent is not None and up.parent.parent is not None:
                fn = up.parent.parent.child_by_field_name("function")
                name = text(fn).lstrip("\\").lower() if fn is not None else ""
                at = [a for a in up.parent.named_children if a.type == "argument"].index(up)
                if at in _TAKES_CALLABLE.get(name, ()):
                    return True  # handed over as a callable, not as a hook's name
        todo.extend(node.named_children)
    return False
