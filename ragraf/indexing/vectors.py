"""The vector layer of a revision (architecture §4.2, §9.1 steps 9-11, §9.5, §15).

Vectors are a cache keyed by content, not facts of a revision: a chunk's vector depends
only on its text and the model (chunk_id has no revision or path; vec_meta records the
model and its version), so a revision is sealed before its vectors exist and they are
filled in afterwards, by the same process or a later one, without changing anything
the revision states. What the layer of the active revision is, rev.json's ``vectors``
block says; how far it is, the count of its chunks with a vec_meta row against ``total``.

Invariants a change must keep:
- Chunks whose vector exists (same model and version) are reused, only the rest is
  embedded, and the build reports reused against computed.
- Chunks that carry no meaning for search (``skip_reason``: a pure import list, a
  closing brace, a declaration with an empty body) get no vector; the rule depends on
  the chunk text alone, so every process agrees on which chunks are missing, and the
  skipped ones are counted (``skipped``).
- Vectors are written batch by batch, each batch one ``BEGIN IMMEDIATE`` transaction
  (vec_chunk and vec_meta together), so readers see whole batches only and a kill loses
  at most the batch being embedded; ``fill`` is idempotent and resumes where it stopped.
- The model never comes from the network. When it cannot load, the layer is
  ``unavailable`` with the reason and search runs on the lexicon (§15).
- ``RAGRAF_VECTORS=off`` (or ``--no-vectors``) skips the layer: status ``disabled``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragraf.errors import EmbeddingUnavailable
from ragraf.failpoints import failpoint
from ragraf.kinds import CALLABLE, CLASS_LIKE, NodeKind, VectorStatus
from ragraf.lang import registry
from ragraf.store.db import Database

if TYPE_CHECKING:  # pragma: no cover
    from ragraf.config import Config
    from ragraf.embed import Embedder
    from ragraf.embed.helper import EmbedHelper

ENV_SWITCH = "RAGRAF_VECTORS"
_LOCATION = re.compile(r" \([^()]*:\d+\)$")
#: a chunk text's first line: "<kind> <name> (<path>:<line>)"
_HEADER = re.compile(r"^(\S+) (.*) \([^()]*:\d+\)$")
_COMMENT = re.compile(
    r"/\*.*?\*/|(?<![:\w])//[^\n]*|^\s*#(?!\[)[^\n]*|\"\"\".*?\"\"\"|'''.*?'''",
    re.DOTALL | re.MULTILINE,
)
#: lines that state nothing a search could be about: tags, namespace / import / include
#: statements, declare, `pass`, and punctuation alone
_NO_MEANING_LINE = re.compile(
    r"^\s*(?:<\?php|<\?|\?>|[{}()\[\];,:]*|pass|\.\.\.|"
    r"(?:use|namespace|import|from\s+\S+\s+import|require(?:_once)?|include(?:_once)?)\b[^;{]*;?|"
    r"declare\s*\([^)]*\)\s*;)\s*$",
    re.IGNORECASE,
)
_DECL_WORDS = r"(?:abstract|final|readonly|static|public|protected|private|async|export|pub)\s+"
_DECL = re.compile(
    r"^\s*(?:" + _DECL_WORDS + r")*(?:class|interface|trait|enum|function|def|fn|struct|impl)"
    r"\s+&?(\w+)",
    re.IGNORECASE,
)
_NAME_TAIL = re.compile(r"[\\.:$#]+")
#: cheap test before the comment pattern: no marker, no comment
_COMMENT_MARKS = ("/*", "//", "#", '"""', "'''")
#: symbol kinds whose chunk starts with the symbol's own declaration line
_DECLARED = frozenset({*CLASS_LIKE, *CALLABLE, NodeKind.MODULE, NodeKind.PACKAGE})


def disabled_by_env() -> bool:
    return os.environ.get(ENV_SWITCH, "").lower() in ("off", "0", "false", "no")


def embed_text(chunk_text: str) -> str:
    """What the model reads for a chunk: its header without the location, then the code."""
    header, _, code = chunk_text.partition("\n")
    return _LOCATION.sub("", header) + "\n" + code


def skip_reason(chunk_text: str) -> str | None:
    """Why a chunk gets no vector (None: it gets one). The rule, on the chunk's text only:
    a chunk with a comment keeps its vector (a comment is meaning). Otherwise drop the
    lines that state nothing a search could be about (open/close tags, namespace, use /
    import / require / include, declare, ``pass``, punctuation alone) and, in a symbol's
    chunk, the symbol's own one-line declaration (its name is in the header and the
    lexicon; a declaration ending in ``;``, an abstract or interface method, is a
    contract and keeps its vector). When nothing is left the chunk is an import list (``imports only``), a
    declaration with an empty body (``empty body``) or a window of closing brackets
    (``punctuation only``): the lexicon finds it by name, a vector would only crowd the
    nearest neighbours. A file of a language whose files are markup (templates:
    ``Language.embeds`` false) is found by its words only (``markup``): its tags and UI
    strings would sit near questions about the code that renders them."""
    header, _, code = chunk_text.partition("\n")
    m = _HEADER.match(header)
    kind, name = (m.group(1), m.group(2)) if m else ("", "")
    if kind == NodeKind.FILE and name.endswith(registry.markup_suffixes()):
        return "markup"
    if any(mark in code for mark in _COMMENT_MARKS) and _COMMENT.search(code):
        return None
    short = _NAME_TAIL.split(name)[-1].lower() if name else ""
    imports = declared = False
    for line in code.split("\n"):
        if _NO_MEANING_LINE.match(line):
            imports = imports or bool(line.strip(" \t{}()[];,:"))
            continue
        if kind in _DECLARED and short and not declared:
            d = _DECL.match(line)
            # the symbol's own declaration, once; one ending in ";" (an abstract or
            # interface method) states a contract and keeps the chunk
            if d and d.group(1).lower() == short and not line.rstrip().endswith(";"):
                declared = True
                continue
        return None
    if declared:
        return "empty body"
    return "imports only" if imports else "punctuation only"


@dataclass
class Plan:
    """What the vector layer of one revision needs: the model, which chunks are skipped,
    reused and still to embed."""

    emb: Embedder
    rev_id: str
    total: int  # chunks that get a vector
    skipped: int
    reused: int
    todo: list[tuple[str, str, str]] = field(default_factory=list)  # (chunk_id, sha, text)

    def status(self, state: str, computed: int = 0) -> dict[str, Any]:
        return {
            "status": state,
            "model": self.emb.model_id,
            "model_version": self.emb.model_version,
            "dim": self.emb.dim,
            "total": self.total,
            "skipped": self.skipped,
            "reused": self.reused,
            "computed": computed,
        }


def plan(
    cfg: Config, db: Database, rev_id: str, chunks: Sequence[tuple[str, str, str]]
) -> Plan | dict[str, Any]:
    """The plan for ``chunks`` = [(chunk_id, chunk_sha256, chunk_text)] of a revision:
    the model's identity (its files, not yet the ONNX session), the vectors it may reuse
    (a vector of the same chunk id, model and version: vectors are keyed by content),
    the chunks left to embed. A model that cannot
    be found is the ``unavailable`` status instead."""
    from ragraf.embed import Embedder
    from ragraf.store.vec import VecStore

    wanted = [c for c in chunks if skip_reason(c[2]) is None]
    try:
        emb = Embedder.from_config(cfg.embedding.as_mapping(), root=cfg.root)
        vec = VecStore(db, emb.dim)
        ids = [c[0] for c in wanted]
        have = vec.in_rev(rev_id, emb.model_id, emb.model_version)
        reused = have & set(ids)
    except EmbeddingUnavailable as e:
        return {"status": VectorStatus.UNAVAILABLE, "reason": str(e)}
    todo = [c for c in wanted if c[0] not in have]
    return Plan(emb, rev_id, len(wanted), len(chunks) - len(wanted), len(reused), todo)


def fill(
    db: Database,
    p: Plan,
    progress: Callable[[str, int, int], None] | None = None,
    helper: EmbedHelper | None = None,
) -> dict[str, Any]:
    """Embed the plan's chunks and store each batch as it is made (one transaction each);
    returns the layer's status: ``ready``, or ``unavailable`` with the reason (the
    vectors stored until then stay, a later ``fill`` goes on from them). A ``helper``
    (``ragraf.embed.helper``: the model loaded ahead in a child process) embeds a small
    plan when it holds the plan's model; whatever it cannot, this process embeds."""
    from ragraf.embed import DEFAULT_BATCH
    from ragraf.embed.helper import MAX_TEXTS, HelperGone
    from ragraf.store.vec import VecStore

    todo = p.todo
    texts = [embed_text(c[2]) for c in todo]
    done = 0
    if progress and todo:
        progress("embed", 0, len(todo))  # the bar shows before the model loads
    try:
        vec = VecStore(db, p.emb.dim)

        def store(idx: list[int], vecs: Any) -> None:
            nonlocal done
            vec.add(
                p.rev_id,
                [(todo[i][0], vecs[k], todo[i][1]) for k, i in enumerate(idx)],
                p.emb.model_id,
                p.emb.model_version,
            )
            done += len(idx)
            if progress:
                progress("embed", done, len(todo))
            failpoint("vectors-batch")

        left = list(range(len(todo)))
        if helper is not None and len(todo) > MAX_TEXTS:
            helper.close()  # a large plan embeds here: the child's model is of no use
        elif helper is not None and todo:
            stored: set[int] = set()
            try:
                for idx, vecs in helper.batches(p.emb, texts, DEFAULT_BATCH):
                    store(idx, vecs)
                    stored.update(idx)
                left = []
            except HelperGone:
                left = [i for i in left if i not in stored]
        if left:
            for idx, vecs in p.emb.batches([texts[i] for i in left]):
                store([left[k] for k in idx], vecs)
    except EmbeddingUnavailable as e:
        return {**p.status(VectorStatus.UNAVAILABLE, done), "reason": str(e)}
    status = p.status(VectorStatus.READY, done)
    from ragraf.indexing import search_floor

    try:
        floor = search_floor.measure(db, p.emb, p.rev_id)
    except EmbeddingUnavailable:
        floor = None
    if floor is not None:
        status["floor"] = floor
    return status
