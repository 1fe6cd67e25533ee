"""PHP's link step (``Language.link``; ``ragraf.lang.linking``): the resolver's handlers of
the references only PHP produces, one module per concern.

- ``callbacks``: callable arrays (``[$obj, 'm']``), strings naming a function or
  ``Class::method`` passed where a callable goes or standing alone, dispatchers
  (``$obj->$param()`` calling the method a string names);
- ``hooks``: WordPress's, Laravel's and Symfony's, Drupal's and MediaWiki's hooks (a listen
  references the callback it adds, a run calls every callback added to it);
- ``includes``: ``include`` / ``require`` and what they load, for the resolver's include
  graph too;
- ``requests``: superglobals (``$_GET['id']``) and the flows of their values to SQL;
- ``templates``: templates named by code and by templates (Twig's and Mustache's too).

This module gives what PHP knows at link time besides: how PHP spells its builtin classes
(the detail of a call on one, which leaves the corpus). Calls, ``new``, class constants,
class edges, ``use`` imports and SQL are the resolver's own (``ragraf.indexing.resolve``).

Invariants a change must keep: those of ``ragraf.lang.linking`` (every corpus-wide
question through a recorded lookup; per-file output read from ``ctx`` when a handler
runs). These modules shape links, not facts: the extractor imports none of them.
"""

from __future__ import annotations

from ragraf.kinds import TargetKind
from ragraf.lang.facts import UNKNOWN_NAME, Target
from ragraf.lang.linking import LinkContext, Linking, Lookups
from ragraf.lang.php.link.builtins import BUILTIN_CLASSES


def linking(ctx: LinkContext) -> Linking:
    return Linking(spellings=BUILTIN_CLASSES)


def callees(sym: Lookups, callee: Target) -> list[str]:
    """The declarations a call may reach: a function's (its first candidate the corpus
    declares; a pattern's, ``wp_ajax_*``, every one it matches), or a method's on its
    receiver (a pattern's: those of its classes it matches). A name nothing is known of
    (``UNKNOWN_NAME``) reaches none."""
    if callee.kind == TargetKind.FUNCTION:
        for c in callee.candidates:
            if UNKNOWN_NAME in c:
                return sym.functions_matching(c.lower()) if c != UNKNOWN_NAME else []
            fids = sym.function_ids(c.lower())
            if fids:
                return fids
        return []
    if UNKNOWN_NAME in callee.method:
        m = callee.method.lower()
        return sym.methods_matching(callee.receiver, m) if m != UNKNOWN_NAME else []
    return sym.methods_of(callee.receiver, callee.method)
