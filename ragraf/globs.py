"""Glob patterns over project-relative POSIX paths.

Semantics (documented in config/project.yaml): patterns are anchored at the
project root; ``*`` and ``?`` stay inside one path segment; ``**`` crosses
segments and ``**/`` may match no segment at all; ``[...]`` is a character
class (``[!...]`` negated). A folder matched by a pattern matches everything
below it. Matching is case-sensitive unless ``case_insensitive`` is set
(architecture R-CORE-1).
"""

from __future__ import annotations

import re
from collections.abc import Sequence


class GlobError(ValueError):
    pass


def glob_to_regex(pattern: str) -> str:
    if not pattern or not pattern.strip():
        raise GlobError("empty pattern")
    if pattern.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", pattern):
        raise GlobError(f"{pattern!r} is absolute; patterns are relative to the project root")
    if any(part == ".." for part in pattern.split("/")):
        raise GlobError(f"{pattern!r} leaves the project root ('..')")
    if "\\" in pattern:
        raise GlobError(f"{pattern!r} contains a backslash; use '/' as the separator")
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                at_seg_start = i == 0 or pattern[i - 1] == "/"
                after = pattern[i + 2 : i + 3]
                if not at_seg_start or after not in ("", "/"):
                    raise GlobError(f"{pattern!r}: '**' must be a whole path segment")
                if after == "/":
                    out.append("(?:[^/]+/)*")
                    i += 3
                else:
                    out.append(".*")
                    i += 2
            else:
                out.append("[^/]*")
                i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "]") else i + 1)
            if j < 0:
                raise GlobError(f"{pattern!r}: unclosed '['")
            body = pattern[i + 1 : j]
            if body.startswith("!"):
                body = "^" + body[1:]
            if not body or body == "^":
                raise GlobError(f"{pattern!r}: empty character class")
            cls = "[" + body.replace("\\", "\\\\").replace("/", "") + "]"
            try:
                re.compile(cls)
            except re.error as e:  # a reversed range such as [z-a]
                raise GlobError(f"{pattern!r}: bad character class [{body}]: {e.msg}") from None
            out.append(cls)
            i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


_PLAIN = re.compile(r"[^*?\[\]/]+")


class GlobSet:
    """A compiled list of patterns; ``match(path)`` also matches ancestors.

    The most common patterns are tested without the regex: ``**/*<suffix>`` (the
    languages' default globs) as a suffix of the path and ``**/<name>`` as its last
    segment, both literal; a long alternation of them cost ~4 us a path."""

    def __init__(self, patterns: Sequence[str], *, case_insensitive: bool = False) -> None:
        self.patterns = list(patterns)
        self._fold = case_insensitive
        suffixes: list[str] = []
        names: set[str] = set()
        rest: list[str] = []
        for p in self.patterns:
            parts = [glob_to_regex(p)]  # validates every pattern, fast ones included
            if p.startswith("**/*") and _PLAIN.fullmatch(p[4:]):
                suffixes.append(p[4:].lower() if case_insensitive else p[4:])
            elif p.startswith("**/") and _PLAIN.fullmatch(p[3:]):
                names.add(p[3:].lower() if case_insensitive else p[3:])
            else:
                rest += parts
        self._suffixes = tuple(suffixes)
        self._names = frozenset(names)
        flags = re.IGNORECASE if case_insensitive else 0
        self._rx = re.compile("(?:" + "|".join(rest) + r")\Z", flags) if rest else None
        self._empty = not self.patterns

    def _hit(self, path: str) -> bool:
        key = path.lower() if self._fold else path
        if self._suffixes and key.endswith(self._suffixes):
            return True
        if self._names and key.rpartition("/")[2] in self._names:
            return True
        return bool(self._rx is not None and self._rx.match(path))

    def match_exact(self, path: str) -> bool:
        return not self._empty and self._hit(path)

    def match(self, path: str) -> bool:
        """True when the path or one of its folders matches."""
        if self._empty:
            return False
        if self._hit(path):
            return True
        idx = path.find("/")
        while idx >= 0:
            if self._hit(path[:idx]) or self._hit(path[: idx + 1]):
                return True
            idx = path.find("/", idx + 1)
        return False

    def match_dir(self, dirpath: str) -> bool:
        """True when everything below ``dirpath`` is matched (for pruning a walk)."""
        if self._empty:
            return False
        return self._hit(dirpath) or self._hit(dirpath + "/")
