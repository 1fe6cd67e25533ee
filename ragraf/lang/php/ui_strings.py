"""The user-facing text of PHP code (issue 46): what a user reads and later remembers.

The literal arguments of translation calls (``__()``, ``_e()``, ``_()``, ``_s()``,
``gettext()``, ``t()``, ``trans()``, ``translate()``, ``esc_html__()``...), of messages of
exceptions (``new XException('...')``) and of log and error calls (``error_log``,
``trigger_error``, ``->error()``, ``wfDebugLog``, ZoneMinder's ``Warning()``...), and
MediaWiki's message keys (``wfMessage('login-throttled')``: a key is words too). Each
chunk's such text becomes its ``ui_tokens`` (``ragraf.lang.facts.Chunk``), a search channel
of its own (``ragraf.facade.search.channels``) linked to the chunk's symbol.

Invariants a change must keep:
- Only string literals that are direct arguments of such a call count (a literal nested in
  another call is that call's, if it is one); an interpolated ``{$var}`` or ``$var`` and
  printf placeholders (``%s``, ``%1$s``) are not words.
- Comments are not searched for calls (their text is the comment column's).
- The tokens follow ``ragraf.tokens.fts_text``, like every column.
"""

from __future__ import annotations

import re

from ragraf.tokens import fts_text

#: functions whose literal arguments are text shown to a user (lower case)
TRANSLATE = frozenset(
    {
        "__",
        "_e",
        "_x",
        "_ex",
        "_n",
        "_nx",
        "_n_noop",
        "_nx_noop",
        "esc_html__",
        "esc_html_e",
        "esc_html_x",
        "esc_attr__",
        "esc_attr_e",
        "esc_attr_x",
        "_",
        "_s",
        "_xs",
        "_xn",
        "gettext",
        "ngettext",
        "dgettext",
        "pgettext",
        "_gettext",
        "_ngettext",
        "_pgettext",
        "t",
        "trans",
        "trans_choice",
        "translate",
        "__d",
        "__n",
        "__x",
        "wfmessage",
        "wfmsg",
        "msg",
    }
)
#: functions and methods whose literal arguments are log or error messages (lower case)
MESSAGE = frozenset(
    {
        "error_log",
        "trigger_error",
        "user_error",
        "die",
        "exit",
        "wfdebug",
        "wfdebuglog",
        "wfwarn",
        "wflogwarning",
        "wfdeprecated",
        "error",
        "warning",
        "warn",
        "notice",
        "info",
        "debug",
        "critical",
        "alert",
        "emergency",
        "fatal",
        "panic",
        "log",
        "adderror",
        "addwarning",
        "addmessage",
        "setmessage",
        "info_message",
        "show_error",
        "show_message",
        "show_error_message",
        "fatal_error",
        "access_deny",
    }
)

_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\w])//[^\n]*|^\s*#(?!\[)[^\n]*", re.DOTALL | re.MULTILINE)
# a call's name (a function, a method after -> or ::, or new X) and its opening parenthesis
_CALL = re.compile(
    r"(?:\bnew\s+\\?(?P<cls>[\w\\]*(?:Exception|Error))|(?<![\w\\])(?P<name>[A-Za-z_\\][\w\\]*))\s*\("
)
_PLACEHOLDER = re.compile(
    r"%(?:\d+\$)?[-+ 0#]*\d*(?:\.\d+)?[bcdeEfFgGosuxX]|\{?\$[\w\->\[\]'\"]+\}?"
)
_TAG = re.compile(r"<[^>]*>")


def _literal_end(code: str, i: int) -> int:
    """The index after the quoted literal starting at ``code[i]`` (a quote)."""
    q = code[i]
    j = i + 1
    while j < len(code):
        ch = code[j]
        if ch == "\\":
            j += 2
            continue
        if ch == q:
            return j + 1
        j += 1
    return len(code)


def _direct_literals(code: str, start: int) -> list[str]:
    """The bodies of the string literals that are direct arguments of the call whose
    argument list starts at ``code[start]`` (after its parenthesis); after the first
    argument, a literal of one word (a text domain: ``__('Save', 'default')``) is left out."""
    out: list[str] = []
    depth = 1
    arg = 0
    i = start
    n = len(code)
    while i < n and depth > 0:
        ch = code[i]
        if ch in "'\"":
            end = _literal_end(code, i)
            body = code[i + 1 : end - 1]
            if depth == 1 and (arg == 0 or any(c.isspace() for c in body)):
                out.append(body)
            i = end
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 1:
            arg += 1
        elif ch == ";":
            break
        i += 1
    return out


def _name_of(m: re.Match[str], code: str) -> str | None:
    """The lower-case name a call match counts under, or None when it is no such call."""
    if m.group("cls"):
        return "new"
    name = m.group("name").rsplit("\\", 1)[-1].lower()
    before = code[max(0, m.start() - 2) : m.start()]
    if name in TRANSLATE:
        return name
    if name in MESSAGE:
        # a method of these names (->error(), ::warning()) or a function of them
        return name if before.endswith(("->", "::")) or not before.endswith("$") else None
    return None


def user_text(code: str) -> str:
    """The user-facing text of ``code``: the literal arguments of its translation, exception
    and log calls, placeholders and HTML tags left out, one message a line."""
    code = _COMMENT.sub(" ", code)
    texts: list[str] = []
    for m in _CALL.finditer(code):
        if _name_of(m, code) is None:
            continue
        for body in _direct_literals(code, m.end()):
            words = _TAG.sub(" ", _PLACEHOLDER.sub(" ", body)).strip()
            if words:
                texts.append(words)
    return "\n".join(dict.fromkeys(texts))


def ui_tokens(code: str) -> str:
    """``user_text`` as the tokens of an ft_chunk-like column."""
    text = user_text(code)
    return fts_text(text) if text else ""
