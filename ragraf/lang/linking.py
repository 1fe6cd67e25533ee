"""What a language's link step may use of the linker.

The resolver (``ragraf.indexing.resolve``) links the references of every file once the
whole corpus is known; what it needs of a language besides the facts is given here, in
``ragraf.lang``, so a language's own code never imports the resolver.

Invariants a change must keep:
- An edge is added with its ends, kind and evidence (path, line) and an ``EdgeSpec``
  saying how it is known; ``STATED`` (the default) is a stated edge of tree-sitter's with
  confidence 1.0 and no props.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

#: the analysers of an edge an extractor's tree-sitter walk found (``EdgeSpec.sources``)
SOURCES_TS = json.dumps(["tree-sitter"])


class EdgeSpec(NamedTuple):
    """How an edge is known besides its ends, kind and evidence: its confidence, whether
    it is derived (else stated), its props and the analysers that found it (a JSON list).
    One spec serves every edge a use adds (it is read, never changed)."""

    conf: float = 1.0
    derived: bool = False
    props: dict[str, Any] | None = None
    sources: str = SOURCES_TS


#: a stated edge of tree-sitter's, confidence 1.0, no props
STATED = EdgeSpec()
