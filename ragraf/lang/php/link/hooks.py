"""Hooks (``ragraf.lang.php.hooks``: WordPress's plugin API, Laravel's and Symfony's events
and jobs, Drupal's and MediaWiki's hooks): a listen references the callback it adds, a run
calls every callback added to the hook.

Invariants a change must keep:
- A listen a call states (``add_action``, a registry map: ``REGISTRY_CALLS``) is a
  ``references`` edge to its callback, stated for one target; a listen by signature or by
  name (a class's hook, a Drupal hook) gives no edge, only the runs' calls.
- A run is a derived call (``calls_heuristic``) of each callback added to the hook
  (``via: hook``; ``dispatch`` for a class's hook), ``hook_pattern`` confidence for a name
  matched through a pattern (``save_post_{$type}``), divided among several targets.
- Patterns match only with ``MIN_HOOK_LITERAL`` literal characters or more, never another
  pattern (but the same one), never a name of another space (``hooks.space``), never a
  name a run states literally or a run's pattern with more literal characters matches.
- The runs' names are collected too (``collect``): a scoped build keeps every ``HookRef``.
- A listen whose name or callback was read of an expression's values (``HookRef.computed``:
  ``'wp_ajax_' . $action`` inside ``in_array($action, [...])``) is derived, ``hook_pattern``
  confidence divided among its targets, the expression as ``computed``.
- The listens are read of every file before linking and asked through the recorded
  lookup ``hook_listeners``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from ragraf.kinds import EdgeKind, HookRole
from ragraf.lang.facts import FileFacts, HookRef, Target
from ragraf.lang.linking import EdgeSpec, LinkContext, Linking
from ragraf.lang.php.hooks import CLASS_HOOK, DRUPAL_HOOK, space
from ragraf.lang.php.link import callees

#: the listens of class hooks that a registry states (``HookRef.call``), with a site of their own
REGISTRY_CALLS = frozenset({"$listen", "getsubscribedevents"})
#: the literal characters a hook pattern needs to match other names (``hook_listeners``)
MIN_HOOK_LITERAL = 4


def _literal_len(hook: str) -> int:
    return len(hook) - hook.count("*")


def _hook_pattern(hook: str) -> re.Pattern[str]:
    """A hook pattern as a regular expression: each ``*`` any run of characters."""
    return re.compile(".*".join(re.escape(p) for p in hook.split("*")), re.S)


class Hooks:
    def __init__(self, ctx: LinkContext) -> None:
        self.ctx = ctx
        #: hook name (or pattern, ``*`` for a run-time part) -> the callbacks added to it
        self.callbacks: dict[str, set[Target]] = defaultdict(set)
        self._cache: dict[str, list[tuple[str, Target]]] = {}
        self._split: tuple[list[str], list[tuple[str, re.Pattern[str]]]] | None = None
        #: the names of every run (``*`` for a run-time part), and the patterns among them
        self.runs: set[str] = set()
        self._run_patterns: list[tuple[str, int, re.Pattern[str]]] | None = None
        self.hook_listeners = ctx.lookup("hook_listeners", self._listeners)

    def collect(self, f: FileFacts, ref: HookRef) -> None:
        if ref.role == HookRole.LISTEN and ref.callback:
            self.callbacks[ref.hook].add(ref.callback)
        elif ref.role == HookRole.FIRE:
            self.runs.add(ref.hook)

    def _claimed(self, name: str, hook: str) -> bool:
        """Whether a listened ``name`` belongs to another run than the pattern ``hook``:
        a run states it literally (``pre_wp_unique_post_slug`` is not ``pre_{$field}``'s),
        or a pattern with more literal characters matches it (``pre_option_template_root``
        is ``pre_option_{$option}``'s, not ``pre_{$taxonomy}_{$field}``'s)."""
        if self._run_patterns is None:
            self._run_patterns = [
                (r, _literal_len(r), _hook_pattern(r)) for r in sorted(self.runs) if "*" in r
            ]
        if name in self.runs:
            return True
        mine = _literal_len(hook)
        return any(n > mine and r != hook and rx.fullmatch(name) for r, n, rx in self._run_patterns)

    def _listeners(self, hook: str) -> list[tuple[str, Target]]:
        """(the name it was added under, callback) of each callback added to a hook that a
        run of ``hook`` calls, sorted: for a name, those added to it and to the patterns
        matching it; for a pattern (``save_post_*``), those added to the names it matches
        that no other run claims (``_claimed``).
        Patterns match only with ``MIN_HOOK_LITERAL`` literal characters or more (``*_x``
        would match too much to mean anything); a pattern never matches a pattern, nor a
        name of another space (``hooks.space``: a class's, a Drupal hook)."""
        got = self._cache.get(hook)
        if got is not None:
            return got
        callbacks = self.callbacks
        if self._split is None:  # (exact names, patterns with their expressions)
            exact_names = sorted(n for n in callbacks if "*" not in n)
            patterns = [
                (n, _hook_pattern(n))
                for n in sorted(callbacks)
                if "*" in n and _literal_len(n) - len(space(n)) >= MIN_HOOK_LITERAL
            ]
            self._split = (exact_names, patterns)
        exact_names, patterns = self._split
        out: list[tuple[str, Target]] = []
        mine = space(hook)  # a pattern matches names of its own space only
        if "*" not in hook:
            out += [(hook, t) for t in callbacks.get(hook, ())]
            for name, rx in patterns:
                if space(name) == mine and rx.fullmatch(hook):
                    out += [(name, t) for t in callbacks[name]]
        elif _literal_len(hook) - len(mine) >= MIN_HOOK_LITERAL:
            rx = _hook_pattern(hook)
            for name in exact_names:
                if space(name) == mine and rx.fullmatch(name) and not self._claimed(name, hook):
                    out += [(name, t) for t in callbacks[name]]
            # the same pattern: a name built the same way ('wp_ajax_' . $action both)
            out += [(hook, t) for t in callbacks.get(hook, ())]
        out.sort(key=repr)
        self._cache[hook] = out
        return out

    def on_hook(self, f: FileFacts, src: str, ref: HookRef) -> None:
        """WordPress's plugin API (``ragraf.lang.php.hooks``). A listen: a ``references``
        edge to the callback it adds, with the hook's name (``callers`` shows where a
        function is added to a hook). A run of a hook: derived calls of every callback
        added to it (``hook_listeners``), via ``hook``; a name matched through a pattern
        (``save_post_{$type}``) is less sure (``hook_pattern``). Laravel's events and jobs
        are hooks named by a class (``hooks.CLASS_HOOK``): their runs are calls via
        ``dispatch`` of the handlers that listen to them; a listen a map registers
        (``REGISTRY_CALLS``: Laravel's ``$listen``, Symfony's ``getSubscribedEvents``) is a
        ``references`` edge like an ``add_action``, a listen by signature none."""
        ctx = self.ctx
        if ref.role == HookRole.LISTEN:
            if ref.callback is None or (
                ref.hook.startswith((CLASS_HOOK, DRUPAL_HOOK)) and ref.call not in REGISTRY_CALLS
            ):
                return  # a listen by signature or by name (Laravel, Drupal): no edge
            targets = callees(ctx.sym, ref.callback)
            props: dict[str, Any] = {"callable": True, "hook": ref.hook, "hook_call": ref.call}
            if len(targets) > 1:
                props["candidates"] = len(targets)
            one = len(targets) == 1
            conf = 1.0 if one else ctx.conf["heuristic_ambiguous"]
            if ref.computed:  # a name read of an expression's values: derived
                props["computed"] = ref.computed
                conf = round(ctx.conf["hook_pattern"] / len(targets), 4) if targets else 0.0
            spec = EdgeSpec(conf, not one or bool(ref.computed), props)
            for t in targets:
                ctx.add(src, t, EdgeKind.REFERENCES, f.path, ref.line, spec)
            return
        linked = 0
        for name, cb in self.hook_listeners(ref.hook):
            targets = callees(ctx.sym, cb)
            conf = ctx.conf["hook" if name == ref.hook and "*" not in name else "hook_pattern"]
            if len(targets) > 1:
                conf = round(conf / len(targets), 4)
            props = {"via": "dispatch" if name.startswith(CLASS_HOOK) else "hook", "hook": name}
            if name != ref.hook:
                props["run_as"] = ref.hook
            if len(targets) > 1:
                props["candidates"] = len(targets)
            spec = EdgeSpec(conf, True, props)
            for t in targets:
                ctx.add(src, t, EdgeKind.CALLS_HEURISTIC, f.path, ref.line, spec)
                linked += 1
        if linked:
            ctx.stats["hooks_linked"] += linked


def linking(ctx: LinkContext) -> Linking:
    h = Hooks(ctx)
    return Linking(handlers={HookRef: h.on_hook}, collect={HookRef: h.collect})
