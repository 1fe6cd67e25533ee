"""The words of ragraf's answers, explained once (issue 43): shown at the end of
`ragraf --help`, and so in docs/CLI.md, which is generated from it.

Invariants a change must keep:
- Every term an answer, the report or a limit uses without saying what it means has an
  entry here, in plain words, one or two lines; text answers use the short words.
"""

from __future__ import annotations

#: (term, what it means), in the order a reader meets them
TERMS: tuple[tuple[str, str], ...] = (
    (
        "revision, provenance index",
        "ragraf answers from a sealed index of the repository, rev-NNNN, which never changes;"
        " 'provenance index' means the fact was read from it, 'live' from the files as they"
        " are now (live-read).",
    ),
    (
        "stated / derived",
        "a stated fact is proven by the code (a call names the declaration the index found,"
        " confidence 1.00); a derived one is inferred by a rule (a matching name, dynamic"
        " dispatch, a hook) and carries a confidence below 1 and the rule (via).",
    ),
    (
        "calls into the corpus, external, unresolved",
        "of the call sites, those into the corpus are linked to their declaration as stated or"
        " derived facts, or left unresolved (the name is dynamic, or no declaration or too many"
        " fit); external ones call code outside the corpus (PHP, the standard library, vendor"
        " packages).",
    ),
    (
        "hard / soft (impact)",
        "hard: reached from the change through stated facts only; soft: the path needs at"
        " least one derived fact, so check it.",
    ),
    (
        "capability dataflow / degraded",
        "dataflow: the revision holds which statements feed which (slice and flow answer)"
        " for the languages it is built for (php; status says which of yours are covered);"
        " degraded: it does not, and slice and flow refuse; every other operation answers.",
    ),
    (
        "drift, ledger, stale",
        "edits after the revision are registered in the drift ledger (ragraf drift --scan);"
        " an answer resting on a changed file says so (STALE) and suggests live-read.",
    ),
    (
        "edges invalidated, stale edges",
        "facts whose evidence lies in a changed file: the ledger entry lists them, and the"
        " next revision looks for each again (confirmed: still there, perhaps at a moved line).",
    ),
    (
        "slice boundary",
        "a ledger entry saying code moved into a new function: data-flow slices across that"
        " place rest on the old revision until the next one is sealed.",
    ),
    (
        "archive's arithmetic",
        "what reindex --commit records of a finished change effort: how many ledger entries,"
        " files, symbols and stale edges, and how many of those edges the new revision confirms.",
    ),
    (
        "P1 (and other labels)",
        "principles and rules of the design, listed in docs/architecture.md; P1: a sealed"
        " revision never changes, so no new one appears silently in the middle of a change"
        " effort.",
    ),
    (
        "page: limit, offset",
        "a list holds at most --limit items from --offset; '20 of 98 callers listed; next:"
        " --offset 20' says how to get the rest. Totals always count everything.",
    ),
)


def epilog() -> str:
    """The glossary as the end of `ragraf --help` (one paragraph per term)."""
    return "Words used in answers:\n\n" + "\n\n".join(f"{t}: {d}" for t, d in TERMS)
