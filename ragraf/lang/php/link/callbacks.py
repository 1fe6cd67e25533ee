"""Callables named by data: callable arrays, strings naming a function or
``Class::method``, and the dispatchers that call the method a string names.

Invariants a change must keep:
- A string is linked as a callable only where one goes: ``'Class::method'``, a parameter
  whose declared or documented type says ``callable``, a PHP builtin's or WordPress's
  callback argument, an array key ending in ``callback``; else, standing alone (an array
  value, an assignment, a return), a derived ``references`` edge (``name_string``) to at
  most ``max_candidates`` declarations; none in a list or map whose other values do not
  all name code, in a map whose other values say nothing and whose key names no code, under a key naming a capability, an option or a setting, in an
  assignment to a list element, or to a variable its function never runs (calls, hands
  to a function taking a callable, returns: ``uses._runs``).
- A string naming a function declared more than once names the declarations the include
  graph lets its file load (``LinkContext.reachable``), derived (``via:
  duplicate-function``) even when one is left: a guard's string (``function_exists``)
  names whichever is declared then.
- A string passed to a dispatcher (a function calling ``$obj->$param()`` on that
  parameter) is a derived call of the methods of that name its receiver may have
  (``via: dispatcher``); an untyped receiver's by name, up to ``max_candidates``.
- The dispatchers are read of every file before linking (``DispatchRef``) and asked
  through the recorded lookup ``dispatchers_of``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ragraf.kinds import EdgeKind, TargetKind
from ragraf.lang.facts import (
    CallableRef,
    CallbackRef,
    DispatchRef,
    FileFacts,
    TypeDesc,
)
from ragraf.lang.linking import EdgeSpec, LinkContext, Linking
from ragraf.lang.php.callables import WP_CALLBACKS
from ragraf.lang.php.link import callees
from ragraf.lang.php.link.builtins import builtin_callback_position
from ragraf.lang.typedesc import Cls

_CALLABLE = EdgeSpec(props={"callable": True})


def wp_callback_position(function: str, position: int) -> bool:
    """Does WordPress's ``function`` (lower, no namespace) take a callback at ``position``?"""
    return position in WP_CALLBACKS.get(function, ())


#: (parameter position, receiver, the dispatcher's fqn) of a ``$obj->$param()``
Dispatch = tuple[int, TypeDesc | None, str]


class Callbacks:
    def __init__(self, ctx: LinkContext) -> None:
        self.ctx = ctx
        #: function / method node id -> each ``$obj->$param()`` in it (``DispatchRef``)
        self.dispatchers: dict[str, list[Dispatch]] = defaultdict(list)
        self.dispatchers_of = ctx.lookup("dispatchers_of", self._dispatchers_of)

    def collect(self, f: FileFacts, ref: DispatchRef) -> None:
        self.dispatchers[f.node_id(ref.owner)].append(
            (ref.position, ref.receiver, f.nodes[ref.owner].fqn)
        )

    def _dispatchers_of(self, nid: str) -> list[Dispatch]:
        return self.dispatchers.get(nid) or []

    def on_dispatch(self, f: FileFacts, src: str, ref: DispatchRef) -> None:
        """Read up front (``collect``); nothing to link here."""

    def on_callable(self, f: FileFacts, src: str, ref: CallableRef) -> None:
        ctx = self.ctx
        targets = ctx.sym.methods_of(ref.receiver, ref.method)
        if len(targets) == 1:
            ctx.add(src, targets[0], EdgeKind.REFERENCES, f.path, ref.line, _CALLABLE)
        elif targets:
            ctx.link_targets(src, targets, EdgeKind.REFERENCES, f.path, ref.line, True, "ambiguous")

    def on_callback(self, f: FileFacts, src: str, ref: CallbackRef) -> None:
        """A string argument naming a function or ``Class::method``: a ``references`` edge
        when it is a callable (``'Class::method'``, the callee's parameter takes a
        callable: declared, documented or a PHP builtin's, or an array key says so:
        ``'render_callback' => 'f'``); calls of the method it names
        when the callee dispatches on that parameter (``$obj->$param()``)."""
        if ref.callee.kind == TargetKind.NAMED:
            self.named_string(f, src, ref)
            return
        ctx = self.ctx
        sym = ctx.sym
        keyed = ref.callee.kind == TargetKind.KEYED  # 'render_callback' => 'f': a callable
        called = [] if keyed else callees(sym, ref.callee)
        t = ref.target
        targets = callees(sym, t)  # what the string names
        twice = t.kind == TargetKind.FUNCTION and len(targets) > 1
        if twice:  # a function declared twice: those the file may have loaded, derived
            targets = ctx.reachable(f.path, targets)
        callable_here = (
            keyed
            or t.kind == TargetKind.METHOD
            or any(sym.takes_callable(c, ref.position) for c in called)
        )
        if not callable_here and not called and ref.callee.kind == TargetKind.FUNCTION:
            callable_here = any(
                builtin_callback_position(short, ref.position)
                or wp_callback_position(short, ref.position)
                for c in ref.callee.candidates[-1:]
                for short in [c.rsplit("\\", 1)[-1].lower()]
            )
        if targets and callable_here:
            if len(targets) == 1 and not twice:
                ctx.add(src, targets[0], EdgeKind.REFERENCES, f.path, ref.line, _CALLABLE)
            else:
                via = "duplicate-function" if twice else "ambiguous"
                ctx.link_targets(src, targets, EdgeKind.REFERENCES, f.path, ref.line, True, via)
            ctx.stats["callbacks_linked"] += 1
        if t.kind != TargetKind.FUNCTION or not t.candidates:
            return
        name = t.candidates[-1].rsplit("\\", 1)[-1]
        for c in called:
            for position, recv, through in self.dispatchers_of(c):
                if position == ref.position:
                    self.dispatched(src, f.path, ref.line, recv, name, through)

    def named_string(self, f: FileFacts, src: str, ref: CallbackRef) -> None:
        """A string naming a declared function or ``Class::method`` outside any call's
        arguments (``'apply' => 'wp_apply_border_support'``, ``return '_handler'``): it may
        be called later by that name, or only share it (a hook or option named like a
        function): a derived ``references`` edge (``name_string``), marked callable."""
        ctx = self.ctx
        targets = callees(ctx.sym, ref.target)
        if ref.target.kind == TargetKind.FUNCTION and len(targets) > 1:
            targets = ctx.reachable(f.path, targets)
        if not targets or len(targets) > ctx.max_candidates:
            return
        words = ref.callee.candidates  # the other values of its list or map
        if words and not all(_names_code(ctx, w) for w in words):
            return  # a list of capabilities, options, columns or settings that shares a name
        key = ref.callee.method  # a map value's key
        if not words and key and not _names_code(ctx, key):
            return  # 'section' => 'background_image': nothing says the value names code
        conf = round(ctx.conf["name_string"] / len(targets), 4)
        props: dict[str, Any] = {"callable": True, "via": "name_string"}
        if len(targets) > 1:
            props["candidates"] = len(targets)
        spec = EdgeSpec(conf, True, props)
        for tid in targets:
            ctx.add(src, tid, EdgeKind.REFERENCES, f.path, ref.line, spec)
        ctx.stats["callbacks_named"] += 1

    def dispatched(
        self, src: str, path: str, line: int, recv: TypeDesc | None, name: str, through: str
    ) -> None:
        """``name`` passed to a dispatcher that calls ``$obj->$param()``: derived calls of
        the methods of that name the receiver may have, with the string as evidence."""
        ctx = self.ctx
        sym = ctx.sym
        tys = sym.types(recv) if recv is not None else {}
        ml = name.lower()
        targets = sorted({t for cls in tys for t in sym.find_method(cls, ml)})
        if not targets and not tys:
            cands = sym.methods_named(ml, path)
            targets = cands if len(cands) <= ctx.max_candidates else []
        if not targets:
            return
        props: dict[str, Any] = {"via": "dispatcher", "through": through}
        if len(targets) > 1:
            props["candidates"] = len(targets)
        spec = EdgeSpec(ctx.conf["variable_function"], True, props)
        for t in targets:
            ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, path, line, spec)
        ctx.stats["calls_dispatched"] += 1


def _names_code(ctx: LinkContext, word: str) -> bool:
    """Whether a string of a list names a corpus function or ``Class::method``."""
    if "::" in word:
        cls, _, meth = word.partition("::")
        return bool(ctx.sym.methods_of(Cls(cls.lstrip("\\")), meth))
    return bool(ctx.sym.function_ids(word.lstrip("\\").lower()))


def linking(ctx: LinkContext) -> Linking:
    c = Callbacks(ctx)
    return Linking(
        handlers={
            CallableRef: c.on_callable,
            CallbackRef: c.on_callback,
            DispatchRef: c.on_dispatch,
        },
        collect={DispatchRef: c.collect},
    )
