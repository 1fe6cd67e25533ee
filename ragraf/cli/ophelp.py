"""`ragraf query --help` and `ragraf query OP --help`, generated from the operations'
declarations (ragraf.facade.REGISTRY): the same source as the MCP tools' input schemas
and skills/ragraf-core/reference/operations.md, so the three cannot disagree.

Invariants a change must keep:
- Every declared argument of an operation appears in its help with its CLI form, type,
  default and meaning; every operation appears in the overview.
- The example of an operation is its declared ``example``, printed as a command line a
  user can paste (tests run each one on the pilot fixture).
"""

from __future__ import annotations

import re
import shlex
import textwrap

from ragraf import facade
from ragraf.facade import names
from ragraf.facade.params import OpSpec, Param

WIDTH = 100
#: an enum with more choices shows NAME as its value and lists the choices in its meaning
MAX_INLINE_CHOICES = 4
#: the widest first column; a longer option puts its meaning on the next line
MAX_FORM = 34
#: characters of an operation's description in the overview
SUMMARY_CHARS = 72
COMMON = (
    ("--json", "Print the envelope as JSON (for agents)."),
    ("--rev REV", "Answer from this retained revision (rev-0001 ...)."),
    ("--help", "Show this help."),
)


def option(p: Param) -> str:
    """The CLI form of an argument: ``--hard-only``, ``--depth INT``, ``--samples FILE|JSON``."""
    flag = "--" + p.name.replace("_", "-")
    if p.type == "bool":
        return flag
    metavar = {
        "int": "INT",
        "path": "PATH",
        "node_id": "NODE_ID",
        "enum": "|".join(p.choices) if len(p.choices) <= MAX_INLINE_CHOICES else p.name.upper(),
        "list": "A,B,...",
        "samples": "FILE|JSON",
    }.get(p.type, "TEXT")
    return f"{flag} {metavar}"


def _meaning(p: Param) -> str:
    text = p.help
    if p.type == "int" and p.minimum is not None:
        text = text.rstrip(".") + f" ({p.minimum}..{p.maximum})."
    if p.type == "enum" and len(p.choices) > MAX_INLINE_CHOICES:
        text += " One of: " + ", ".join(p.choices) + "."
    if p.type == "list":
        text += f" Comma-separated, at most {p.max_items}."
    if p.type == "samples":
        text += (
            " A YAML or JSON file (a list of {query, relevant}, or an evaluation set's"
            " 'queries' list), or the JSON itself."
        )
    if p.default is not None and p.type != "bool":
        text += f" Default: {p.default}."
    return text


def _rows(rows: list[tuple[str, str]]) -> list[str]:
    width = min(max(len(a) for a, _ in rows), MAX_FORM) + 2
    out = []
    for a, b in rows:
        wrapped = textwrap.wrap(b, WIDTH - width - 2) or [""]
        if len(a) + 2 > width:
            out.append(f"  {a}")
            out.extend(" " * (width + 2) + w for w in wrapped)
            continue
        out.append(f"  {a.ljust(width)}{wrapped[0]}")
        out.extend(" " * (width + 2) + w for w in wrapped[1:])
    return out


def _outside(text: str, parens: bool) -> list[bool]:
    """For each character of ``text``: whether it stands outside `code` (and, with
    ``parens``, outside parentheses)."""
    out, code, depth = [], False, 0
    for ch in text:
        if ch == "`":
            code = not code
        elif not code and ch == "(":
            depth += 1
        elif not code and ch == ")":
            depth = max(0, depth - 1)
        out.append(not code and ch != "`" and (depth == 0 or not parens))
    return out


def summary(op: str) -> str:
    """The first sentence of an operation's description, capped at ``SUMMARY_CHARS``: it
    ends at the first '. ' or ': ' outside `code` and parentheses, and a cap cuts at a
    space outside `code` (never mid-code: `direction: back` stays whole or goes)."""
    text = facade.describe(op)
    free = _outside(text, parens=True)
    cut = next(
        (i for i in range(len(text) - 1) if text[i] in ".:" and text[i + 1] == " " and free[i]),
        len(text),
    )
    first = text[:cut].rstrip(".")
    if len(first) <= SUMMARY_CHARS:
        return first
    room = SUMMARY_CHARS - 3
    free = _outside(first, parens=False)
    spaces = [i for i in range(1, room + 1) if first[i] == " " and free[i]]
    end = spaces[-1] if spaces else room
    return first[:end].rstrip(" ,;(") + "..."


def overview() -> str:
    """`ragraf query --help`: every operation, one line each."""
    out = [
        "Usage: ragraf query OP [MAIN-ARGUMENT] [--option value ...] [--json] [--rev REV]",
        "",
        "Ask one operation of the index: the same operations the MCP server offers as tools",
        "(ragraf_<op>). `ragraf query OP --help` shows an operation's arguments and an example.",
        "",
        "Operations:",
        *_rows([(op, summary(op)) for op in facade.OPERATIONS]),
        "",
        "Options of every operation:",
        *_rows(list(COMMON)),
    ]
    return "\n".join(out) + "\n"


#: operations with a command of their own (the rest are `ragraf query OP`)
COMMANDS = {"live_read": "live-read", "index_status": "status", "drift_report": "drift"}


def command(op: str, main: str | None = None) -> str:
    """The command line that runs ``op`` from a shell (``ragraf live-read src/a.php``): text
    for a person names the CLI form, never the operation's or the MCP tool's name."""
    words = ["ragraf", COMMANDS[op]] if op in COMMANDS else ["ragraf", "query", op]
    return shlex.join(words + ([main] if main else []))


def cli_words(text: str) -> str:
    """An answer's text for a shell user: an operation that has a command of its own, named
    bare in a hint (``read it with live_read``), becomes that command (`ragraf live-read`);
    the envelope keeps the operation's name, which the MCP tool names also use."""
    for op, cmd in COMMANDS.items():
        text = re.sub(rf"(?<![\w`]){op}(?![\w`])", f"`ragraf {cmd}`", text)
    return text


def example_line(op: str) -> str:
    sp = facade.spec(op)
    return shlex.join(["ragraf", "query", op, *sp.example])


def _form(sp: OpSpec, name: str) -> str:
    """How a user gives argument ``name``: ``TABLE (or --table)`` for the main one."""
    flag = "--" + name.replace("_", "-")
    return f"{name.upper()} (or {flag})" if name == sp.main else flag


def _rules(sp: OpSpec) -> list[str]:
    """The arguments an operation cannot do without, as sentences in CLI forms."""
    out = [f"Give exactly one of: {', '.join(_form(sp, n) for n in g)}." for g in sp.one_of]
    if sp.required:
        out.append(f"Required: {', '.join(_form(sp, n) for n in sp.required)}.")
    return out


def op_help(op: str) -> str:
    """`ragraf query OP --help`."""
    sp = facade.spec(op)
    main = f" [{sp.main.upper()}]" if sp.main else ""
    out = [f"Usage: ragraf query {op}{main} [--option value ...] [--json] [--rev REV]", ""]
    out.extend(textwrap.wrap(facade.describe(op), WIDTH))
    out.append("")
    if sp.params:
        out.append("Arguments:")
        rows = []
        for p in sp.params:
            form = option(p)
            if p.name == sp.main:
                form = f"{p.name.upper()} | {form}"
            rows.append((form, _meaning(p)))
        out.extend(_rows(rows))
        out.append("")
    out.extend(_rules(sp))
    out.append(f"Effects: {sp.effects()}.")
    out.append("")
    out.append("Options of every operation:")
    out.extend(_rows(list(COMMON)))
    out.append("")
    out.append("Example:")
    out.append(f"  {example_line(op)}")
    if names.takes_a_name([p.name for p in sp.params]):
        out.extend(_names_help(op))
    return "\n".join(out) + "\n"


def _names_help(op: str) -> list[str]:
    """How an operation that takes a symbol reads its name, with an example per
    language (``ragraf.facade.names``)."""
    out = ["", "Names:"]
    out.extend(textwrap.wrap(names.FORMS_RULE, WIDTH, initial_indent="  ", subsequent_indent="  "))
    for lang, forms in names.FORMS_BY_LANGUAGE:
        out.extend(
            textwrap.wrap(
                " | ".join(forms),
                WIDTH,
                initial_indent=f"  {lang + ':':<12}",
                subsequent_indent=" " * 14,
                break_on_hyphens=False,
            )
        )
    out.append("")
    out.append("Examples by language:")
    for lang, forms in names.FORMS_BY_LANGUAGE:
        cmd = shlex.join(["ragraf", "query", op, forms[-2]])
        out.append(f"  {cmd:<50}# {lang}")
    return out
