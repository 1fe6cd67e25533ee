"""Derived edges checked by hand against the source (issue 41's acceptance), for
``bench/resolution.py``: a seeded sample per rule, and the verdicts recorded in
``bench/audit/<corpus>.tsv`` so that anyone can check them again.

- ``rule`` of a derived edge between code (``calls``, ``calls_heuristic``, ``references``,
  ``renders``) whose evidence is not a JavaScript / TypeScript file (the PHP linker's
  edges, Twig's and Blade's included): the edge kind (``call`` / ``ref`` / ``render``) and
  its ``via``, ``+pattern`` when the name was matched through a pattern (a hook run as
  ``save_post_{$type}`` or matching a pattern a listen was added under, a dynamic call's
  ``get_*``), ``+ambiguous`` for a name match above ``max_heuristic_candidates``,
  ``ref computed`` for a hook listen read of an expression's values;
- ``sample``: per rule, ``per_rule`` edges drawn with ``random.Random(f"{seed}:{rule}")``
  from the rule's edges sorted by (site, source, target): the same index gives the same
  sample;
- the verdict file, one line per edge checked: ``rule<TAB>path:line<TAB>target fqn<TAB>
  right|wrong<TAB>reason``, a function's target as ``fqn @ path`` (``#`` lines are comments); an edge is right when the call (or
  the string, the template) at that line can run that target in some execution the source
  allows, read by hand;
- ``report``: per rule the population, the sample, right / wrong / not yet judged and the
  precision; overall the plain share of the judged sample and the estimate weighting each
  rule by its population (target: >= 0.90 on both corpora, issue 41).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from ragraf.store.graph import GraphStore
from ragraf.store.ranges import live, rev_no

AUDIT = Path(__file__).resolve().parent / "audit"
#: evidence in these files is another linker's (JavaScript / TypeScript): not audited here
_SCRIPT = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".vue")
_PREFIX = {"calls": "call", "calls_heuristic": "call", "references": "ref", "renders": "render"}

Edge = tuple[str, str, str, str]  # (rule, path:line, source fqn, target fqn)


def rule_of(kind: str, props: dict[str, Any]) -> str:
    via = props.get("via")
    name = _PREFIX[kind] + " " + (via or ("computed" if props.get("computed") else "stated-like"))
    hook = str(props.get("hook") or "")
    if props.get("pattern") or (via == "hook" and ("run_as" in props or "*" in hook)):
        name += "+pattern"
    if props.get("ambiguous"):
        name += "+ambiguous"
    return name


def derived_rows(g: GraphStore, rev: str, columns: str, where: str) -> list[tuple[Any, ...]]:
    """``columns`` of the derived edges live at ``rev`` whose live source ``s`` and target
    ``d`` nodes pass ``where`` (over ``e``, ``s`` and ``d``)."""
    return g.db.query(
        f"SELECT {columns} FROM edge e"
        f" JOIN node d ON d.node_id=e.dst AND {live('d')}"
        f" JOIN node s ON s.node_id=e.src AND {live('s')}"
        f" WHERE {live('e')} AND e.provenance='derived' AND {where}",
        (rev_no(rev),),
    )


def edges(g: GraphStore, rev: str) -> list[Edge]:
    """Every derived edge between code the audit covers, sorted."""
    rows = derived_rows(
        g,
        rev,
        "e.kind, e.evidence_path, e.evidence_line, s.fqn, d.fqn, d.kind, d.path, e.props",
        "e.kind IN ('calls','calls_heuristic','references','renders')"
        " AND d.kind IN ('function','method','template','file')",
    )
    out = set()
    for kind, path, line, src, dst, dkind, dpath, props in rows:
        if not path or path.endswith(_SCRIPT):
            continue
        p = json.loads(props) if props else {}
        # a function by its file too: WordPress declares ``__`` twice (l10n.php, noop.php)
        target = f"{dst} @ {dpath}" if dkind == "function" else dst or ""
        out.add((rule_of(kind, p), f"{path}:{line}", src or "", target))
    return sorted(out)


def sample(all_edges: list[Edge], per_rule: int, seed: int) -> dict[str, list[Edge]]:
    by: dict[str, list[Edge]] = {}
    for e in all_edges:
        by.setdefault(e[0], []).append(e)
    return {
        rule: sorted(random.Random(f"{seed}:{rule}").sample(lst, min(per_rule, len(lst))))
        for rule, lst in sorted(by.items())
    }


def verdicts(corpus: str) -> dict[tuple[str, str], tuple[str, str]]:
    """(path:line, target fqn) -> (verdict, reason) from ``bench/audit/<corpus>.tsv``."""
    f = AUDIT / f"{corpus}.tsv"
    out: dict[tuple[str, str], tuple[str, str]] = {}
    if not f.is_file():
        return out
    for line in f.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        _rule, site, target, verdict, reason = (line.split("\t") + [""] * 5)[:5]
        out[(site, target)] = (verdict, reason)
    return out


def _line(root: Path, site: str) -> str:
    path, _sep, n = site.rpartition(":")
    try:
        lines = (root / path).read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return ""
    i = int(n)
    return lines[i - 1].strip()[:140] if 0 < i <= len(lines) else ""


def report(
    g: GraphStore, rev: str, root: Path, corpus: str, per_rule: int, seed: int
) -> dict[str, Any]:
    all_edges = edges(g, rev)
    pops: dict[str, int] = {}
    for e in all_edges:
        pops[e[0]] = pops.get(e[0], 0) + 1
    picked = sample(all_edges, per_rule, seed)
    known = verdicts(corpus)
    rules: dict[str, Any] = {}
    right = wrong = 0
    num = den = 0.0
    unjudged: list[str] = []
    for rule, lst in picked.items():
        r = w = 0
        for _rule, site, _src, dst in lst:
            v = known.get((site, dst))
            if v is None:
                unjudged.append(f"{rule}\t{site}\t{dst}\t?\t{_line(root, site)}")
            elif v[0] == "right":
                r += 1
            else:
                w += 1
        right, wrong = right + r, wrong + w
        prec = round(r / (r + w), 4) if r + w else None
        if prec is not None:
            num += pops[rule] * prec
            den += pops[rule]
        rules[rule] = {
            "population": pops[rule],
            "sample": len(lst),
            "right": r,
            "wrong": w,
            "precision": prec,
            "wrong_edges": [
                f"{site} -> {dst}: {known[(site, dst)][1]}"
                for _rule, site, _src, dst in lst
                if known.get((site, dst), ("", ""))[0] == "wrong"
            ],
        }
    return {
        "judge": f"by hand against the source, verdicts in bench/audit/{corpus}.tsv",
        "seed": seed,
        "per_rule": per_rule,
        "edges": len(all_edges),
        "rules": rules,
        "judged": right + wrong,
        "right": right,
        "precision": round(right / (right + wrong), 4) if right + wrong else None,
        "weighted_by_population": round(num / den, 4) if den else None,
        "target": ">= 0.90 (issue 41)",
        "unjudged": unjudged,
    }
