"""Output sanitisation (SEC-001): text that comes from the repository is untrusted.

Code, comments, docs and source lines reach an agent's context through the
facade. Every such text is returned as ``{"untrusted": <text>, "truncated":
<bool>}``: delimited by its key, stripped of control characters (newline and
tab are kept) and capped in size. Names and paths are stripped too.
"""

from __future__ import annotations

import re
from typing import Any

_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
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


def name(s: str | None) -> str | None:
    return None if s is None else clean(s)[:MAX_NAME]


MAX_NAME = 1000
