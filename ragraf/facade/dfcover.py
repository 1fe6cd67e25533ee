"""Which languages the data-flow layer covers, per revision and per file (issue 42): what
`status` says beside the capability, and the refusal `slice` and `flow` give for a place
in a language without the layer.

Invariants a change must keep:
- The languages with the layer are the registry's (``Language.dataflow``); a revision's
  code languages are those of its files that declare symbols (``lang.X.files`` coverage).
- A refusal names the language that is not covered and the ones that are; it never
  advises a reindex, which cannot add a layer the language does not have.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragraf.lang import registry

if TYPE_CHECKING:
    from ragraf.facade.context import Ctx
    from ragraf.store.graph import GraphStore

#: what an agent can ask instead of a slice or a flow
ALTERNATIVES = [
    "callers / callees (call graph with evidence)",
    "impact (what depends on it)",
    "code (the body, on request)",
    "live_read (the current text)",
]

FLOW_ALTERNATIVES = [
    "routes (entry points and the superglobals they read)",
    "table_usage (who reads and writes a table)",
    "callers / callees (call graph with evidence)",
]


def cover(graph: GraphStore, rev: str) -> dict[str, Any]:
    """``{supported, covered, not_covered: {language: files}}``: the languages the layer is
    built for, and this revision's code languages with and without it."""
    supported = list(registry.dataflow_languages())
    files: dict[str, int] = {}
    for metric, value, _note in graph.coverage(rev):
        parts = metric.split(".")
        if len(parts) == 3 and parts[0] == "lang" and parts[2] == "files":
            if registry.code_language(parts[1]) and value:
                files[parts[1]] = int(value)
    return {
        "supported": supported,
        "covered": sorted(x for x in files if x in supported),
        "not_covered": {x: n for x, n in sorted(files.items()) if x not in supported},
    }


def words(c: dict[str, Any]) -> str:
    """The cover in short words: "php; not python (12 files)"."""
    covered = ", ".join(c["covered"]) or "none"
    missing = ", ".join(f"{x} ({n} files)" for x, n in c["not_covered"].items())
    return covered + (f"; not {missing}" if missing else "")


def note(c: dict[str, Any], has_flow: bool) -> str:
    """The capability note of ``status``: what slice and flow answer for, per language."""
    supported = ", ".join(c["supported"])
    missing = ", ".join(c["not_covered"])
    if has_flow:
        out = (
            f"data-flow layer from the syntax tree for {', '.join(c['covered']) or supported}"
            " (def-use per function, calls across functions): slice and flow answer there"
        )
        if missing:
            out += f"; {missing} not covered (data flow is built for {supported} only)"
        return out + "; calls come from parsing and name resolution"
    if missing:
        return (
            f"data flow is built for {supported} only, and this revision's code is {missing}:"
            " slice and flow refuse (a reindex does not change that); calls come from"
            " parsing and name resolution"
        )
    return (
        f"no file in a language data flow covers ({supported}), so slice and flow refuse;"
        " calls come from parsing and name resolution"
    )


def refusal(op: str, rev: str, lang: str | None, c: dict[str, Any]) -> dict[str, Any]:
    """The answer of ``slice`` / ``flow`` for a place (or a revision) in a language
    without the layer."""
    supported = ", ".join(c["supported"])
    if lang:
        what = f"{lang} is not covered: data flow is built for {supported} only"
    elif c["not_covered"]:
        what = (
            f"{rev}'s code is {', '.join(c['not_covered'])}, which data flow does not cover"
            f" (it is built for {supported} only)"
        )
    else:
        what = f"{rev} has no file in a language data flow covers ({supported})"
    return {
        "refused": True,
        "reason": f"{op} needs data-flow analysis (which statements feed which); {what}."
        " Use the alternatives below.",
        "alternatives": list(FLOW_ALTERNATIVES if op == "flow" else ALTERNATIVES),
    }


def uncovered(ctx: Ctx, path: str | None) -> str | None:
    """The language of an indexed file when data flow does not cover it (None: covered,
    or no such file, which the operation says in its own words)."""
    fr = ctx.file_row(path) if path else None
    if fr is None or fr.lang in registry.dataflow_languages():
        return None
    return fr.lang or "plain text"


def refuse(ctx: Ctx, op: str, lang: str) -> dict[str, Any]:
    """The refusal for a place in a language without the layer, its limit added."""
    c = cover(ctx.graph, ctx.rev)
    ctx.limits.append(limit(op, lang, c))
    return refusal(op, ctx.rev, lang, c)


def limit(op: str, lang: str | None, c: dict[str, Any]) -> str:
    """The envelope's limit for such a refusal."""
    what = lang or ", ".join(c["not_covered"]) or "this revision's files"
    return f"{op} refused: {what} not covered by data flow ({', '.join(c['supported'])} only)"
