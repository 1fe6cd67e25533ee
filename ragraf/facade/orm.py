"""ORM classes as the tables they read and write: Eloquent models (Laravel) and Doctrine
entities.

An application on an ORM reads and writes most tables through classes
(``User::where(...)->get()``, ``$post->save()``, ``$em->persist($user)``), not SQL strings,
so the SQL edges of a table leave most of its users out. ``table_usage`` lists the classes
that map to a table (``models``, each with its ``orm``) and says so in its limits;
``references`` of the class lists its uses.

A Doctrine entity states its table in its mapping (``ragraf.lang.php.doctrine``): the
linker made that a ``references_table`` edge from the class, which ``entity_item`` reads.
An Eloquent model's table is a convention of its class hierarchy, read here:

Invariants a change must keep:
- A class is a model when its ``extends`` chain (corpus classes, ending in the external
  class it names) reaches one of ``BASES`` within ``HIERARCHY_DEPTH`` levels.
- Its table: its own ``$table`` property's plain string value (``protected $table =
  'audit_log'``), else Laravel's convention: the short class name with its last word in
  the plural, in snake_case (``BlogPost`` -> ``blog_posts``, ``Category`` ->
  ``categories``, ``Person`` -> ``people``).
- Read from the revision at query time (class and property nodes, ``extends``,
  ``references`` and ``instantiates`` edges): nothing is stored, and a model's file is
  touched like any evidence, so an edit of it warns.
"""

from __future__ import annotations

import re
from typing import Any

from ragraf.facade.context import Ctx
from ragraf.kinds import EdgeKind, NodeKind, OrmHow
from ragraf.limits import HIERARCHY_DEPTH
from ragraf.model import EdgeRow, NodeRow, props_of

#: the classes a model extends, lower-cased fqns (Model, the authenticatable User, pivots)
BASES = frozenset(
    {
        "illuminate\\database\\eloquent\\model",
        "illuminate\\foundation\\auth\\user",
        "illuminate\\database\\eloquent\\relations\\pivot",
        "illuminate\\database\\eloquent\\relations\\morphpivot",
    }
)
#: the most `$table` properties read per answer
MAX_TABLE_PROPS = 5000
_IRREGULAR = {
    "person": "people",
    "man": "men",
    "woman": "women",
    "child": "children",
    "tooth": "teeth",
    "foot": "feet",
    "mouse": "mice",
    "goose": "geese",
    "ox": "oxen",
}
_UNCOUNTABLE = frozenset(
    {
        "audio",
        "data",
        "equipment",
        "feedback",
        "fish",
        "information",
        "media",
        "metadata",
        "money",
        "news",
        "series",
        "sheep",
        "species",
        "staff",
        "traffic",
    }
)
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+")


def plural(word: str) -> str:
    """An English word in the plural, as Laravel's inflector makes most of them."""
    low = word.lower()
    if low in _UNCOUNTABLE:
        return word
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if re.search(r"[^aeiou]y$", low):
        return word[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", low):
        return word + "es"
    return word + "s"


def table_by_convention(cls_name: str) -> str:
    """The table Eloquent gives a model class without ``$table``: its short name's words
    in snake_case, the last one in the plural."""
    words = _WORDS.findall(cls_name.rsplit("\\", 1)[-1]) or [cls_name]
    words = [w.lower() for w in words]
    words[-1] = plural(words[-1])
    return "_".join(words)


def models_of(ctx: Ctx, table: str) -> list[dict[str, Any]]:
    """The model classes that map to ``table`` (case-insensitive), each with ``how``
    (``table_property`` / ``convention``) and ``uses``: the references and instantiations
    of the class the index holds (``references`` lists them)."""
    # down from the bases by the `extends` edges that name them (none: no model at all)
    frontier = [n.node_id for b in sorted(BASES) for n in ctx.graph.nodes_by_fqn(ctx.rev, b)]
    models: set[str] = set()
    for _ in range(HIERARCHY_DEPTH):
        if not frontier:
            break
        frontier = [
            e.src
            for e in ctx.graph.edges_to(ctx.rev, frontier, (EdgeKind.EXTENDS,))
            if e.src not in models
        ]
        models.update(frontier)
    if not models:
        return []
    declared: dict[str, str] = {}  # class fqn (lower) -> its own `$table` value
    for p in ctx.graph.nodes_by_name(ctx.rev, "$table", MAX_TABLE_PROPS):
        value = props_of(p.props).get("value") if p.kind == NodeKind.PROPERTY else None
        if isinstance(value, str) and p.fqn:
            declared[p.fqn.rsplit("::", 1)[0].lower()] = value
    want = table.lower()
    out: list[dict[str, Any]] = []
    for nid, n in sorted(ctx.graph.nodes_by_ids(ctx.rev, list(models)).items()):
        if n.kind != NodeKind.CLASS or not n.fqn:
            continue
        own = declared.get(n.fqn.lower())
        mapped, how = (
            (own, OrmHow.TABLE_PROPERTY) if own else (table_by_convention(n.fqn), OrmHow.CONVENTION)
        )
        if mapped.lower() != want:
            continue
        ctx.touch(n.path)
        uses = ctx.graph.edges_to(ctx.rev, [nid], (EdgeKind.REFERENCES, EdgeKind.INSTANTIATES))
        out.append({**ctx.node(n), "orm": "eloquent", "how": how, "uses": len(uses)})
    out.sort(key=lambda m: (m["fqn"] or "", m["path"] or ""))
    return out


def entity_item(ctx: Ctx, n: NodeRow, e: EdgeRow) -> dict[str, Any]:
    """A Doctrine entity mapped to the table by its ``references_table`` edge ``e``: the
    class, where its mapping says so (``evidence``: the ``Table`` attribute or annotation,
    else the ``Entity`` one), how (``table_attribute`` / ``convention``), provenance and
    confidence, and how many references and instantiations of it the index holds."""
    p = props_of(e.props)
    ctx.touch(n.path)
    if e.edge_uid:
        ctx.edge_uids[e.edge_uid] = e.evidence_path or ""
    uses = ctx.graph.edges_to(ctx.rev, [n.node_id], (EdgeKind.REFERENCES, EdgeKind.INSTANTIATES))
    return {
        **ctx.node(n),
        "orm": str(p.get("orm") or "doctrine"),
        "how": str(p.get("how") or OrmHow.CONVENTION),
        "uses": len(uses),
        "mapping": e.evidence,
        "provenance": e.provenance,
        "confidence": e.confidence,
    }
