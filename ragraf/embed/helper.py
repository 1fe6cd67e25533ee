"""The embedding model loaded ahead of need, in a child process (issue 15: the reindex cycle).

Loading the model (importing onnxruntime and tokenizers, creating the session) costs more than
embedding the few chunks a one-file edit changes, and it cannot overlap the structural build in
a thread: both hold the GIL. So a build that will embed starts this helper when it knows it
will build, the helper loads the model on another core while the build parses, resolves and
writes, and after the seal the build hands it the texts to embed.

    parent                                      child (python -m ragraf.embed.helper)
    {"embedding": {...}, "root": "..."}  ->     loads the model
                                         <-     {"ok": true, "model_id", "model_version", "dim"}
                                                (or {"ok": false, "error": "..."})
    {"texts": [...], "batch_size": N}    ->     Embedder.batches(texts, N), per batch:
                                         <-     {"idx": [...]} + len(idx) x dim float32 bytes
                                         <-     {"done": true} (or {"error": "..."})

Invariants a change must keep:
- The child runs the same ``Embedder.batches`` on the same list the parent would embed, so the
  vectors are bit-identical to embedding in process (tests/test_embed_helper.py).
- The helper serves a plan only when its model id, version and dim equal the plan's; anything
  else (it failed to load, died, answered nonsense) is ``HelperGone`` and the caller embeds in
  process what is still missing: the helper can make a build faster, never fail it.
- The child ends when its stdin closes, so a parent killed at any moment leaves no process
  behind; ``close`` also kills it. Its stderr is discarded (the parent's stderr is the user's).
- Only for a small number of texts (``MAX_TEXTS``: a reindex's changed chunks, a small
  project): a large first build embeds in process as before and ends the helper (the load is
  nothing next to minutes of embedding, and the texts need not be copied).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from ragraf.embed.embedder import Embedder

#: the helper embeds at most this many texts per plan (a reindex's changed chunks)
MAX_TEXTS = 4096
ENV_SWITCH = "RAGRAF_EMBED_HELPER"


class HelperGone(Exception):
    """The helper cannot serve (not loaded, a different model, dead): embed in process."""


def wanted() -> bool:
    """Whether a build should start the helper: a second core to load on, and not switched
    off (``RAGRAF_EMBED_HELPER=off``)."""
    if os.environ.get(ENV_SWITCH, "").lower() in ("off", "0", "false", "no"):
        return False
    from ragraf import cpus

    return cpus.usable() >= 2


class EmbedHelper:
    """A child process loading (then holding) the embedding model of ``embedding``."""

    def __init__(self, embedding: Mapping[str, Any], root: Path) -> None:
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-m", "ragraf.embed.helper"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._ready: dict[str, Any] | None = None
        self._send({"embedding": dict(embedding), "root": str(root)})

    def _send(self, msg: Mapping[str, Any]) -> None:
        proc = self._alive()
        assert proc.stdin is not None
        try:
            proc.stdin.write(json.dumps(msg).encode() + b"\n")
            proc.stdin.flush()
        except OSError as e:
            self.close()
            raise HelperGone(f"the helper does not listen ({e})") from e

    def _alive(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            raise HelperGone("the helper is closed")
        return self._proc

    def _line(self) -> dict[str, Any]:
        proc = self._alive()
        assert proc.stdout is not None
        raw = proc.stdout.readline()
        try:
            msg = json.loads(raw)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            self.close()
            raise HelperGone("the helper ended" if not raw else "the helper answered nonsense")
        return msg

    def serves(self, emb: Embedder) -> dict[str, Any]:
        """Wait for the model to load; the helper's identity when it is ``emb``'s model, else
        ``HelperGone``."""
        if self._ready is None:
            msg = self._line()
            if not msg.get("ok"):
                self.close()
                raise HelperGone(str(msg.get("error") or "the helper did not load the model"))
            self._ready = msg
        same = (
            self._ready.get("model_id"),
            self._ready.get("model_version"),
            self._ready.get("dim"),
        )
        if same != (emb.model_id, emb.model_version, emb.dim):
            self.close()
            raise HelperGone(f"the helper loaded another model ({same})")
        return self._ready

    def batches(
        self, emb: Embedder, texts: Sequence[str], batch_size: int
    ) -> Iterator[tuple[list[int], np.ndarray]]:
        """What ``emb.batches(texts, batch_size)`` yields, computed by the helper."""
        import numpy as np

        dim = int(self.serves(emb)["dim"])
        self._send({"texts": list(texts), "batch_size": batch_size})
        proc = self._alive()
        assert proc.stdout is not None
        while True:
            msg = self._line()
            if msg.get("done"):
                return
            idx = msg.get("idx")
            if not isinstance(idx, list):
                self.close()
                raise HelperGone(str(msg.get("error") or "the helper answered nonsense"))
            size = len(idx) * dim * 4
            raw = proc.stdout.read(size)
            if len(raw) != size:
                self.close()
                raise HelperGone("the helper ended in the middle of a batch")
            vecs = np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(len(idx), dim)
            yield [int(i) for i in idx], vecs

    def close(self) -> None:
        """End the child (it also ends by itself when the parent's end of the pipe closes)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        proc.kill()
        proc.wait()


def start(embedding: Mapping[str, Any], root: Path) -> EmbedHelper | None:
    """A helper loading ``embedding``'s model, or None when it should not or cannot start."""
    if not wanted():
        return None
    try:
        return EmbedHelper(embedding, root)
    except OSError:
        return None


def _write(out: IO[bytes], msg: Mapping[str, Any], payload: bytes = b"") -> None:
    out.write(json.dumps(msg).encode() + b"\n" + payload)
    out.flush()


def serve(inp: IO[bytes], out: IO[bytes]) -> int:
    """The child's loop: load the model named by the first line, then embed each request."""
    from ragraf.embed.embedder import Embedder
    from ragraf.errors import RagrafError

    try:
        first = json.loads(inp.readline() or b"null")
        emb = Embedder.from_config(first["embedding"], root=Path(first["root"])).load()
        _write(
            out,
            {
                "ok": True,
                "model_id": emb.model_id,
                "model_version": emb.model_version,
                "dim": emb.dim,
            },
        )
    except (RagrafError, ValueError, TypeError, KeyError, OSError) as e:
        _write(out, {"ok": False, "error": str(e)})
        return 1
    for line in inp:
        try:
            req = json.loads(line)
            for idx, vecs in emb.batches(req["texts"], int(req["batch_size"])):
                _write(out, {"idx": idx}, vecs.astype("<f4", copy=False).tobytes())
            _write(out, {"done": True})
        except (RagrafError, ValueError, TypeError, KeyError) as e:
            _write(out, {"error": str(e)})
    return 0


if __name__ == "__main__":  # pragma: no cover - run as the child
    try:
        sys.exit(serve(sys.stdin.buffer, sys.stdout.buffer))
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(0)
