"""WordPress's plugin API as facts: the callbacks added to a hook and the places that run it.

``add_action('init', 'boot')`` adds ``boot`` to the hook ``init``; ``do_action('init')``
runs every callback added to it (``add_filter`` / ``apply_filters`` likewise). A call
graph without this says nothing calls ``boot``; with it the resolver links each run of a
hook to the callbacks added to it (``ragraf.lang.php.link.hooks``: derived calls, via
``hook``), and ``callers`` says where a callback is added to a hook that nothing in the
corpus runs (the application around a plugin runs it).

Invariants a change must keep:
- Only calls of the plain functions named here (any namespace: the short name counts, as
  WordPress's functions are global); a method of the same name is not the plugin API.
- The hook's name is read from the first argument: a string literal is the name; a string
  with interpolations or a concatenation is a pattern, each run-time part a ``*``
  (consecutive ones merged); anything else (a variable alone) gives no reference.
- A listen's callback is what ``Names.callable_target`` understands of the second
  argument (``'f'``, ``'C::m'``, ``[$this, 'm']``, ``[C::class, 'm']``); a closure gives
  a reference without a callback (the closure's calls are its scope's own).
- Laravel's events and jobs are hooks named ``class:<fqn>``: dispatching an object
  (``event(new E)``, ``dispatch(new J)``, ``E::dispatch()``, ``Bus::dispatch(new J)``, any
  ``->dispatch(new X)``: a controller's, Symfony's message and event buses; a variable
  whose class ``new`` or a declared type gives, ``->dispatch($event)``) runs
  the hook of its class; a ``handle`` / ``__invoke`` method listens to the hook of the class
  its first parameter's declared type names, and ``handle`` to its own class's (a job);
  Symfony's ``getSubscribedEvents()`` makes the methods it maps ``X::class`` to listeners.
  Such a listen is implicit: it gives no ``references`` edge, only the runs' calls.
- Drupal's hooks are named ``drupal:<hook>``: a function ``<module>_<hook>`` declared in
  ``<module>.module`` (``.install``, ``.theme``, ``.profile``, ``.engine``) listens to
  ``<hook>``, and so does a method with ``#[Hook('<hook>')]``; ``module_invoke_all``,
  ``module_invoke``, ``drupal_alter`` (``<hook>_alter``) and the module handler's
  ``invokeAll``, ``invokeAllWith``, ``invoke`` and ``alter`` run it (a list of alter types
  runs each). Implicit listens, like a class's.
- A pattern matches names of its own space only (``space``): a WordPress pattern never
  matches a class's or a Drupal hook, nor the other way round.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ragraf.lang.registry import DRUPAL_SUFFIXES

if TYPE_CHECKING:
    from tree_sitter import Node

#: functions that add a callback to a hook: its name is argument 0, the callback argument 1
LISTEN = frozenset({"add_action", "add_filter"})
#: functions that run a hook named by argument 0
FIRE = frozenset(
    {
        "do_action",
        "do_action_ref_array",
        "do_action_deprecated",
        "apply_filters",
        "apply_filters_ref_array",
        "apply_filters_deprecated",
    }
)
#: the longest hook name or pattern kept
MAX_HOOK_CHARS = 200
#: hooks WordPress runs for a request to one of its entry points, by the request's
#: ``action`` (``add_action('wp_ajax_save', cb)``: ``admin-ajax.php?action=save``): each a
#: route, prefix -> the entry point's path
REQUEST_HOOKS = (
    ("wp_ajax_nopriv_", "/wp-admin/admin-ajax.php"),
    ("wp_ajax_", "/wp-admin/admin-ajax.php"),
    ("admin_post_nopriv_", "/wp-admin/admin-post.php"),
    ("admin_post_", "/wp-admin/admin-post.php"),
)


def request_route(hook: str) -> str | None:
    """The route of a request hook (``wp_ajax_save`` -> ``/wp-admin/admin-ajax.php?action=save``),
    or None (another hook, or a name built at run time)."""
    if "*" in hook:
        return None
    for prefix, path in REQUEST_HOOKS:
        if hook.startswith(prefix) and len(hook) > len(prefix):
            return f"{path}?action={hook[len(prefix) :]}"
    return None


# -- Drupal's hooks: functions named <module>_<hook> -----------------------------------
#: the hooks Drupal invokes: ``DRUPAL_HOOK + name`` (``drupal:cron``)
DRUPAL_HOOK = "drupal:"
#: MediaWiki's hooks: handlers registered in extension.json / skin.json (``ragraf.lang.
#: manifest``), run by ``HookContainer::run('<name>', ...)`` (and the older ``Hooks::run``)
MEDIAWIKI_HOOK = "mediawiki:"
#: the methods that run a MediaWiki hook named by their first argument
MEDIAWIKI_RUN_METHODS = frozenset({"run", "runwithoutabort"})
#: functions that invoke a hook named by argument 0 (Drupal 7)
DRUPAL_INVOKE_FUNCTIONS = {"module_invoke_all": 0, "module_invoke": 1, "drupal_alter": 0}
#: methods of the module handler that invoke a hook, and the position of its name
DRUPAL_INVOKE_METHODS = {"invokeall": 0, "invokeallwith": 0, "invoke": 1, "alter": 0}
#: the calls whose hook is ``<name>_alter``
DRUPAL_ALTERS = frozenset({"drupal_alter", "alter"})


def drupal_module(path: str) -> str | None:
    """The module (theme, profile) whose hook implementations a file holds: the stem of a
    ``.module`` / ``.install`` / ``.theme`` / ``.profile`` / ``.engine`` file, else None."""
    name = path.rsplit("/", 1)[-1]
    stem, dot, suffix = name.rpartition(".")
    if dot and stem and f".{suffix}" in DRUPAL_SUFFIXES:
        return stem
    return None


# -- Laravel's events and jobs: hooks named by a class ---------------------------------
#: the hook a dispatched object of a class runs: ``CLASS_HOOK + fqn``. Laravel calls the
#: ``handle`` (or ``__invoke``) methods whose first parameter is typed by that class (its
#: event listeners) and, for a job, the class's own ``handle``
CLASS_HOOK = "class:"
#: helper functions that dispatch the object they are given: ``event(new OrderShipped($o))``
DISPATCH_HELPERS = frozenset({"event", "dispatch", "dispatch_sync", "dispatch_now", "broadcast"})
#: facade calls that do the same: ``Event::dispatch(new X)``, ``Bus::dispatch(new X)``
DISPATCH_FACADES = frozenset(
    {("event", "dispatch"), ("bus", "dispatch"), ("bus", "dispatchsync"), ("queue", "push")}
)
#: the methods of those facades (a static call of another method is no dispatch)
DISPATCH_FACADE_METHODS = frozenset(m for _cls, m in DISPATCH_FACADES)
#: static methods of Laravel's ``Dispatchable`` traits: ``OrderShipped::dispatch($order)``
DISPATCH_STATICS = frozenset(
    {
        "dispatch",
        "dispatchsync",
        "dispatchnow",
        "dispatchif",
        "dispatchunless",
        "dispatchafterresponse",
        "broadcast",
    }
)
#: the methods Laravel calls on a listener or a job
HANDLERS = frozenset({"handle", "__invoke"})


def space(hook: str) -> str:
    """The namespace of a hook's name (``class:``, ``drupal:``, ``mediawiki:``; "" for
    WordPress's): a pattern matches names of its own space only."""
    for prefix in (CLASS_HOOK, DRUPAL_HOOK, MEDIAWIKI_HOOK):
        if hook.startswith(prefix):
            return prefix
    return ""


def hook_name(n: Node | None, t: Callable[[Node], str]) -> str | None:
    """The hook a call's first argument names: its name, a pattern with ``*`` for the
    parts built at run time, or None (not a string: nothing literal to match)."""
    if n is None:
        return None
    parts = _parts(n, t)
    if parts is None or not any(p != "*" for p in parts):
        return None
    out: list[str] = []
    for p in parts:
        if p == "*" and out and out[-1].endswith("*"):
            continue
        out.append(p)
    name = "".join(out)
    return name if 0 < len(name) <= MAX_HOOK_CHARS else None


def _parts(n: Node, t: Callable[[Node], str]) -> list[str] | None:
    ty = n.type
    if ty in ("string", "encapsed_string"):
        out: list[str] = []
        for p in n.named_children:
            if p.type in ("string_content", "string_value"):
                out.append(t(p))
            elif p.type == "escape_sequence":
                out.append(_ESCAPES.get(t(p), t(p)))
            else:
                out.append("*")
        return out
    if ty == "binary_expression":
        op = n.child_by_field_name("operator")
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        if op is None or t(op) != "." or left is None or right is None:
            return None
        a = _parts(left, t)
        b = _parts(right, t)
        return (a if a is not None else ["*"]) + (b if b is not None else ["*"])
    if ty == "parenthesized_expression" and n.named_child_count == 1:
        return _parts(n.named_children[0], t)
    return None


_ESCAPES = {"\\\\": "\\", "\\'": "'", '\\"': '"', "\\$": "$"}


def is_exact(hook: str) -> bool:
    """Whether a hook name has no run-time part."""
    return "*" not in hook
