"""JSON manifests that register code a framework calls: MediaWiki's ``extension.json`` and
``skin.json``, whose ``Hooks`` map a hook's name to its handlers.

A handler is the name of an entry of ``HookHandlers`` (a class: its ``on<Hook>`` method,
the hook's ``:`` and ``-`` written ``_``), a ``Class::method`` string, a function's name,
or an object ``{"handler": ...}``; a hook may have a list of them. Each is a ``HookRef``
listen of the hook ``mediawiki:<name>`` (``ragraf.lang.php.hooks.MEDIAWIKI_HOOK``), owned
by the file; the PHP extractor reads the runs (``HookContainer::run('<name>')``,
``Hooks::run``) and the old ``$wgHooks['<name>'][] = ...`` listens, and the linker makes
the calls.

Invariants a change must keep:
- A function of the file's text (FileFacts stay a function of path and content); any
  JSON file goes through here (a file node and plain text windows for search), and only
  a manifest's ``Hooks`` make references.
- Text that is not JSON is a ``partial`` file with the decoder's message and line; it is
  still searchable.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ragraf.kinds import HookRole, ParseStatus, TargetKind
from ragraf.lang.facts import FileFacts, HookRef, Target
from ragraf.lang.php.hooks import MEDIAWIKI_HOOK
from ragraf.lang.plain import extract as plain
from ragraf.lang.typedesc import Cls

LANG = "json"
#: what a hook's name becomes in its handler's method: ``on`` + the name, these written ``_``
_NOT_IN_METHOD = re.compile(r"[:\-]")
_CALLABLE = re.compile(r"\\?[A-Za-z_]\w*(?:\\[A-Za-z_]\w*)*(?:::[A-Za-z_]\w*)?")


def extract(path: str, text: str, max_lines: int) -> FileFacts:
    """A file node and text windows; a MediaWiki manifest's hook handlers as listens; a
    JavaScript manifest's modules (``ragraf.lang.js.manifest``)."""
    from ragraf.lang.js import manifest

    if manifest.is_manifest(path):
        return manifest.extract(path, text, max_lines)
    f = plain(path, LANG, text, max_lines, "code")
    if not path.rsplit("/", 1)[-1].endswith(("extension.json", "skin.json")):
        return f
    try:
        data = json.loads(text)
    except ValueError as e:
        f.status = ParseStatus.PARTIAL
        f.note = f"not JSON: {getattr(e, 'msg', e)} (line {getattr(e, 'lineno', '?')})"
        return f
    if not isinstance(data, dict) or not isinstance(data.get("Hooks"), dict):
        return f
    handlers = data.get("HookHandlers")
    handlers = handlers if isinstance(handlers, dict) else {}
    at = text.find('"Hooks"')
    for name, spec in data["Hooks"].items():
        if not isinstance(name, str) or not name:
            continue
        line = _line_of(text, f'"{name}"', at)
        for h in spec if isinstance(spec, list) else [spec]:
            target = _target(h, name, handlers)
            if target is not None:
                f.refs.append(
                    HookRef(0, line, HookRole.LISTEN, MEDIAWIKI_HOOK + name, "Hooks", target)
                )
    return f


def _target(h: Any, hook: str, handlers: dict[str, Any]) -> Target | None:
    """What a ``Hooks`` entry names: a handler of ``HookHandlers`` (its class's
    ``on<Hook>``), ``Class::method``, or a function."""
    if isinstance(h, dict):
        h = h.get("handler")
    if not isinstance(h, str) or not h:
        return None
    spec = handlers.get(h)
    if isinstance(spec, dict):
        cls = spec.get("class")
        if not isinstance(cls, str) or not _CALLABLE.fullmatch(cls):
            return None  # a factory: the class it makes is not written here
        method = "on" + _NOT_IN_METHOD.sub("_", hook)
        return Target(TargetKind.METHOD, receiver=Cls(cls.lstrip("\\")), method=method)
    if not _CALLABLE.fullmatch(h):
        return None
    if "::" in h:
        cls, _, method = h.partition("::")
        return Target(TargetKind.METHOD, receiver=Cls(cls.lstrip("\\")), method=method)
    return Target(TargetKind.FUNCTION, candidates=(h.lstrip("\\"),))


def _line_of(text: str, needle: str, start: int) -> int:
    """The line of the first ``needle`` at or after ``start`` (1 when absent)."""
    i = text.find(needle, max(start, 0))
    return text.count("\n", 0, i) + 1 if i >= 0 else 1
