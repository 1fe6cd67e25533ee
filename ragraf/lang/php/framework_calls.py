"""Calls that are framework hooks, events and template renders, for ``Uses``: WordPress's
plugin API (``add_action`` / ``do_action``) and request actions, Drupal's
``module_invoke_all`` / ``->alter``, MediaWiki's ``$wgHooks`` and hook runs, Laravel's
``event`` / ``dispatch`` of an object, calls naming a template, and the entity a Doctrine
repository's constructor gives its parent.

Invariants a change must keep:
- A hook is a ``HookRef`` named by its framework's prefix (``ragraf.lang.php.hooks``):
  ``fire`` for a run, ``listen`` with the callable's target for a listener.
- A listen's callable array is remembered (``hook_arrays``) so it is no ``CallableRef``
  of its own; a dispatched variable's class waits for ``finish`` (``pending_dispatches``).
- A template is named only by a literal shaped like one (``templates.shaped``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragraf.kinds import HandlerKind, HookRole, TargetKind
from ragraf.lang import templates
from ragraf.lang.facts import Handler, HookRef, RouteRef, Target, TemplateRef, TypeDesc
from ragraf.lang.php import hooks
from ragraf.lang.php.assemble import call_args
from ragraf.lang.php.routes import Routes
from ragraf.lang.typedesc import Cls, Var

if TYPE_CHECKING:
    from tree_sitter import Node


class FrameworkCalls(Routes):
    """Handlers of the framework calls ``Uses`` meets (see the module docstring)."""

    if TYPE_CHECKING:  # ``StrVals``'s

        def hook_names(self, n: Node | None) -> list[str]: ...
        def hook_listens(
            self, names: list[str], hook: Node, cb: Node | None
        ) -> list[tuple[str, Target | None, str]]: ...

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
            given = exprs[position + 1] if not slugged and len(exprs) > position + 1 else None
            tvars = tuple(self.render_vars(given, 0))
            ref = TemplateRef(self.scope_index(), line, "render", name, names, tvars)
            self.raw_refs.append(ref)

    def render_vars(self, n: Node | None, depth: int) -> list[tuple[str, TypeDesc]]:
        """The variables a render passes the template with what each evaluates to (those
        that describe something): ``['index' => $index]``, ``compact('index')``,
        ``array_merge($a, [...])`` (its literal arrays)."""
        if n is None or depth > 2:
            return []
        out: list[tuple[str, TypeDesc]] = []
        if n.type == "array_creation_expression":
            for e in n.named_children:
                if e.type != "array_element_initializer" or len(e.named_children) != 2:
                    continue
                key = self.string_value(e.named_children[0])
                d = self.expr_desc(e.named_children[1])
                if key and d is not None:
                    out.append((key, d))
        elif n.type == "function_call_expression":
            fn = n.child_by_field_name("function")
            short = self.t(fn).rsplit("\\", 1)[-1].lower() if fn is not None else ""
            for a in call_args(n):
                if short == "compact":
                    key = self.string_value(a)
                    if key:
                        out.append((key, Var(key, a.start_byte)))
                elif short == "array_merge":
                    out.extend(self.render_vars(a, depth + 1))
        return out

    def on_hook(self, n: Node, short: str, line: int) -> bool:
        """``add_action('init', cb)`` / ``do_action('init')`` and the rest of WordPress's
        plugin API (``ragraf.lang.php.hooks``): a ``HookRef``, and True when it made one
        (the call's string arguments are then no ``CallbackRef``: a listen's callback is
        the ref's, and the arguments of a run are the callbacks' values, not callables)."""
        args = call_args(n)
        names = self.hook_names(args[0] if args else None)
        if not names:
            return False
        sc = self.scope_index()
        if short in hooks.FIRE:
            for name in names:
                self.raw_refs.append(HookRef(sc, line, HookRole.FIRE, name, short))
            return True
        cb = args[1] if len(args) > 1 else None
        if cb is not None and cb.type == "array_creation_expression":
            self.hook_arrays.add(cb.start_byte)
        for name, target, computed in self.hook_listens(names, args[0], cb):
            self.raw_refs.append(HookRef(sc, line, HookRole.LISTEN, name, short, target, computed))
            route = hooks.request_route(name)
            if route is None:
                continue
            # add_action('wp_ajax_save', cb): admin-ajax.php?action=save
            if target is None:
                handler = Handler(HandlerKind.CLOSURE)
            elif target.kind == TargetKind.METHOD:
                handler = Handler(HandlerKind.METHOD, target.receiver, target.method)
            else:
                handler = Handler(HandlerKind.FUNCTION, None, target.candidates[0])
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
                self.raw_refs.append(HookRef(self.scope_index(), line, HookRole.FIRE, hook, call))

    def mediawiki_run(self, n: Node, call: str, line: int) -> None:
        """``$hookContainer->run('PageSaveComplete', [...])``: a run of the MediaWiki hook
        its first argument names (its handlers: ``ragraf.lang.hook_manifest``)."""
        args = call_args(n)
        name = hooks.hook_name(args[0], self.t) if args else None
        if name is not None:
            hook = hooks.MEDIAWIKI_HOOK + name
            self.raw_refs.append(HookRef(self.scope_index(), line, HookRole.FIRE, hook, call))

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
        if isinstance(cls, Cls) and cls.fqn:
            hook = hooks.CLASS_HOOK + cls.fqn
            self.raw_refs.append(HookRef(self.scope_index(), line, HookRole.FIRE, hook, call))

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
                    HookRole.LISTEN,
                    hooks.MEDIAWIKI_HOOK + name,
                    "$wgHooks",
                    target,
                )
            )
