"""The vector layer of a revision (architecture §4.2, §9 stream T2, §15).

Invariants a change must keep:
- A chunk's vector depends only on its content (chunk_id has no revision or
  path): chunks whose vector exists are reused, only the rest is embedded, and
  the build reports reused against computed.
- The model never comes from the network. When it cannot load, the revision is
  sealed without vectors, ``vectors.status`` says ``unavailable`` with the
  reason, and search runs on the lexicon (§15).
- ``RAGRAF_VECTORS=off`` (or ``--no-vectors``) skips the layer: status ``disabled``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ragraf.errors import EmbeddingUnavailable
from ragraf.store.db import Database

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ragraf.config import Config

ENV_SWITCH = "RAGRAF_VECTORS"
_LOCATION = re.compile(r" \([^()]*:\d+\)$")


def disabled_by_env() -> bool:
    return os.environ.get(ENV_SWITCH, "").lower() in ("off", "0", "false", "no")


def embed_text(chunk_text: str) -> str:
    """What the model reads for a chunk: its header without the location, then the code."""
    header, _, code = chunk_text.partition("\n")
    return _LOCATION.sub("", header) + "\n" + code


def build(
    cfg: Config,
    db: Database,
    rev_id: str,
    chunks: Sequence[tuple[str, str, str]],
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """Vectors for ``chunks`` = [(chunk_id, chunk_sha256, chunk_text)] of the building revision."""
    from ragraf.embed import Embedder
    from ragraf.store.vec import VecStore

    try:
        emb = Embedder.from_config(cfg.project["embedding"], root=cfg.root)
        emb.load()
        vec = VecStore(db, emb.dim)
        reused = vec.reuse(rev_id, [c[0] for c in chunks], emb.model_id, emb.model_version)
        todo = [c for c in chunks if c[0] not in reused]
        rows: list[tuple[str, np.ndarray, str]] = []
        if todo:
            if progress:
                progress("embed", 0, len(todo))  # the bar shows before the first batch

            def tick(done: int, total: int) -> None:
                if progress:
                    progress("embed", done, total)

            vectors = emb.embed([embed_text(c[2]) for c in todo], progress=tick)
            rows = [(c[0], vectors[i], c[1]) for i, c in enumerate(todo)]
            vec.add(rev_id, rows, emb.model_id, emb.model_version)
    except EmbeddingUnavailable as e:
        return {"status": "unavailable", "reason": str(e)}
    return {
        "status": "ready",
        "model": emb.model_id,
        "model_version": emb.model_version,
        "dim": emb.dim,
        "reused": len(reused),
        "computed": len(rows),
    }
