"""Doctrine ORM entities as the tables they map to.

A Symfony (or any Doctrine) application reads and writes most tables through entity
classes (``$em->persist($user)``, ``$repo->findBy(...)``), not SQL strings. An entity
says which table it maps to in its mapping metadata: PHP attributes
(``#[ORM\\Entity]``, ``#[ORM\\Table(name: 'app_user')]``) or docblock annotations
(``@ORM\\Entity``, ``@ORM\\Table(name="app_user")``). The extractor turns that into an
``OrmTableRef`` owned by the class; the linker makes it a ``references_table`` edge from
the class to the table.

Invariants a change must keep:
- Only mapping metadata whose name resolves (through the file's imports) into
  ``Doctrine\\ORM\\Mapping\\`` counts: a class is an entity when it has an ``Entity``
  attribute or annotation there (``MappedSuperclass`` and ``Embeddable`` map no table).
- A declared table name (``Table``'s ``name``, named or first positional) is the table;
  without one the candidates are the names Doctrine's naming strategies give the short
  class name: Symfony's default (``underscore_number_aware``: ``BlogPost`` ->
  ``blog_post``) first, then Doctrine's own default (the short name as it is).
- Syntactic only: a function of the file's text (FileFacts stay a function of the file).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ragraf.kinds import OrmHow
from ragraf.lang.facts import OrmTableRef

if TYPE_CHECKING:
    from tree_sitter import Node

    from ragraf.lang.php.routes import Routes

#: the namespace of Doctrine's mapping attributes and annotations (lower case)
MAPPING_NS = "doctrine\\orm\\mapping\\"
#: an annotation in a docblock: its name and, when it has them, its arguments' text
_ANNOTATION = re.compile(r"@([A-Za-z_\\][\w\\]*)(?:\s*\(([^)]*)\))?")
_NAME_ARG = re.compile(r"""\bname\s*[=:]\s*["']([^"']+)["']""")
#: the words of a class name, as Doctrine's underscore naming strategy splits them
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)")


def snake_case(name: str) -> str:
    """``BlogPost`` -> ``blog_post``, ``HTTPClient`` -> ``http_client``, ``Address2`` ->
    ``address_2`` (Doctrine's ``UnderscoreNamingStrategy`` with numbers aware)."""
    return _CAMEL.sub("_", name).lower()


def table_candidates(short_name: str) -> tuple[str, ...]:
    """The tables Doctrine's naming strategies give an entity without a declared table."""
    snake = snake_case(short_name)
    return (snake,) if snake == short_name else (snake, short_name)


def entity_ref(ext: Routes, n: Node, idx: int, short_name: str) -> OrmTableRef | None:
    """The table a class declaration (node index ``idx``) maps to, if it is a Doctrine
    entity; the evidence line is the ``Table``'s, else the ``Entity``'s."""
    entity = table_line = 0
    declared: str | None = None
    for attr in ext.attributes(n):
        mapping = _mapping(ext, ext.t(attr.named_children[0]))
        if mapping == "entity":
            entity = entity or attr.start_point[0] + 1
        elif mapping == "table" and declared is None:
            declared = _attribute_name(ext, attr)
            table_line = attr.start_point[0] + 1
    prev = n.prev_named_sibling
    if prev is not None and prev.type == "comment":
        doc = ext.t(prev)
        if doc.startswith("/**") and "Entity" in doc:  # no entity: no annotation to read
            for m in _ANNOTATION.finditer(doc):
                mapping = _mapping(ext, m.group(1))
                at = prev.start_point[0] + 1 + doc.count("\n", 0, m.start())
                if mapping == "entity":
                    entity = entity or at
                elif mapping == "table" and declared is None and m.group(2):
                    got = _NAME_ARG.search(m.group(2))
                    if got:
                        declared, table_line = got.group(1), at
    if not entity:
        return None
    if declared:
        return OrmTableRef(idx, table_line, "doctrine", (declared,), OrmHow.TABLE_ATTRIBUTE)
    return OrmTableRef(idx, entity, "doctrine", table_candidates(short_name), OrmHow.CONVENTION)


def _mapping(ext: Routes, name: str) -> str | None:
    """The lower-cased name of a Doctrine mapping attribute or annotation, else None."""
    fq = (ext.resolve_class(name) or "").lower()
    return fq[len(MAPPING_NS) :] if fq.startswith(MAPPING_NS) else None


def _attribute_name(ext: Routes, attr: Node) -> str | None:
    """``#[ORM\\Table(name: 'x')]`` / ``#[ORM\\Table('x')]`` -> ``x``."""
    args = ext.attribute_args(attr)
    for a in args.named_children if args is not None else ():
        if a.type != "argument" or not a.named_children:
            continue
        named = a.named_children[0] if a.named_children[0].type == "name" else None
        if named is None or ext.t(named).lower() == "name":
            return ext.string_value(a.named_children[-1])
    return None
