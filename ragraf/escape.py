"""Visible escapes for control characters in names that come from the repository.

A file may be named ``a\\x1b[31m.php`` or ``x\\n## #999 fake header\\n.php``. Such
names reach answers, terminals and LEDGER.md; raw, they would repaint a terminal
or forge a ledger block. Every place that shows a repository-made name (a path,
an fqn, an evidence string) shows ``escape(name)``; ``unescape`` turns what an
agent copies back into the real name.

A file name may also hold bytes that are no UTF-8 (``bad\\xff.php``): Python reads them
as lone surrogates (``surrogateescape``), which no store, pipe or JSON answer can carry.
Such a name has one form everywhere ragraf keeps or shows it, its *corpus name*
(``corpus_name``): each of those bytes written ``\\u{dcNN}``, as ``escape`` writes any
other character it makes visible. ``os_name`` turns it back into the name the file
system knows; what a user types (raw bytes in argv, or the escaped text copied from an
answer) reaches the same corpus name.

Invariants a change must keep:
- ``escape`` leaves ordinary names unchanged and maps every C0 and C1 control,
  DEL, the line and paragraph separators, the bidirectional overrides and lone
  surrogates to ``\\xNN`` / ``\\u{NNNN}``; its output holds none of them.
- ``os_name(corpus_name(s)) == s`` for any ``s`` without a backslash, and a corpus
  name encodes as UTF-8.
- ``unescape(escape(s)) == s`` for any ``s`` without a backslash (paths here
  are POSIX; a backslash is never part of a corpus path).
"""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_SURROGATE_ESCAPED = re.compile(r"\\u\{(d[89a-f][0-9a-f]{2})\}", re.I)
_ESCAPED = re.compile(r"\\x([0-9a-fA-F]{2})|\\u\{([0-9a-fA-F]{1,6})\}")


def _one(m: re.Match[str]) -> str:
    c = ord(m.group(0))
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{{{c:04x}}}"


def escape(s: str) -> str:
    """``s`` with every control character made visible."""
    if s.isprintable():  # C-fast: every character _UNSAFE matches is non-printable
        return s
    return _UNSAFE.sub(_one, s) if _UNSAFE.search(s) else s


def has_unsafe(s: str) -> bool:
    return _UNSAFE.search(s) is not None


def unescape(s: str) -> str:
    """The inverse of ``escape`` (only the escapes it writes are read)."""
    if "\\" not in s:
        return s

    def back(m: re.Match[str]) -> str:
        code = int(m.group(1) or m.group(2), 16)
        ch = chr(code) if code <= 0x10FFFF else m.group(0)
        return ch if _UNSAFE.fullmatch(ch) else m.group(0)

    return _ESCAPED.sub(back, s)


def corpus_name(name: str) -> str:
    """``name`` (as the file system or argv gave it) with every lone surrogate (a byte that
    is no UTF-8) written ``\\u{dcNN}``: the form ragraf stores, shows and takes."""
    if name.isprintable() or not _SURROGATE.search(name):
        return name
    return _SURROGATE.sub(_one, name)


def os_name(name: str) -> str:
    """The inverse of ``corpus_name``: the name the file system knows."""
    if "\\u{" not in name:
        return name
    return _SURROGATE_ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), name)
