"""Output sanitisation (SEC-001): text that comes from the repository is untrusted.

Code, comments, docs and source lines reach an agent's context through the
facade. Every such text is returned as ``{"untrusted": <text>, "truncated":
<bool>}``: delimited by its key, stripped of control characters (C0 and C1;
newline and tab are kept) and capped in size. Every other string of an answer
(paths, names, evidence) keeps its characters but shows control characters as
visible escapes (``escape_tree``, applied to the whole envelope), so an agent
can pass a path back and a terminal is never repainted.
"""

from __future__ import annotations

import re
from typing import Any

from ragraf.escape import escape

_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
CODE_CAP = 20_000
LINE_CAP = 400


def clean(s: str) -> str:
    return _CTRL.sub("", s)


def untrusted(text: str, cap: int = CODE_CAP) -> dict[str, Any]:
    t = clean(text)
    truncated = len(t) > cap
    if truncated:
        t = t[:cap]
    return {"untrusted": t, "truncated": truncated}


_UNTRUSTED_KEYS = frozenset({"untrusted", "truncated"})


def escape_tree(v: Any) -> Any:
    """Every string of an answer outside an ``untrusted`` block with its control
    characters made visible (``ragraf.escape``): paths, names and evidence made by the
    repository cannot repaint a terminal or pass for structure.

    Dicts and lists are escaped in place (answers are built fresh per call, and
    ``escape`` is idempotent, so a dict shared with a cache stays correct); tuples become
    lists. Exact-type dispatch and ``str.isprintable`` keep this about a millisecond
    per 100 KB of answer."""
    t = type(v)
    if t is str:
        return v if v.isprintable() else escape(v)
    if t is dict:
        if "untrusted" in v and v.keys() <= _UNTRUSTED_KEYS:
            return v  # cleaned by untrusted(): newlines and tabs are its content
        odd_keys = False
        for k, x in v.items():
            tx = type(x)
            if tx is str:
                if not x.isprintable():
                    v[k] = escape(x)
            elif tx is not int and tx is not float and tx is not bool and x is not None:
                v[k] = escape_tree(x)
            if type(k) is not str or not k.isprintable():
                odd_keys = True
        if odd_keys:
            return {escape(k) if isinstance(k, str) else k: x for k, x in v.items()}
        return v
    if t is list:
        for i, x in enumerate(v):
            if type(x) is str:
                if not x.isprintable():
                    v[i] = escape(x)
            elif x is not None and type(x) is not int:
                v[i] = escape_tree(x)
        return v
    if isinstance(v, tuple):
        return escape_tree(list(v))
    if isinstance(v, str):  # a StrEnum member and the like
        return escape(v)
    if isinstance(v, dict):
        return escape_tree(dict(v))
    if isinstance(v, list):
        return escape_tree(list(v))
    return v


def name(s: str | None) -> str | None:
    """A repository-made name, capped (escaped with the rest of the envelope)."""
    return None if s is None else s[:MAX_NAME]


MAX_NAME = 1000
