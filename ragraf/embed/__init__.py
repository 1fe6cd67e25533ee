"""Text embeddings for the vector layer (architecture §4.2, §9 stream T2).

Two modules, imported in one direction (``embedder`` uses ``files``):

- ``ragraf.embed.files``: model-file preparation. The cache folders, the
  packaged default model's files, the prepared folder of symlinks and its
  stamp, fastembed's model descriptions, and :func:`fetch_model`, the one
  explicit network fetch (``ragraf model fetch``). Its docstring lists the
  models ragraf can load and how.
- ``ragraf.embed.embedder``: inference. :class:`Embedder` loads a prepared
  model (or a fetched one from fastembed's cache) and embeds texts.

``ragraf.embed.ort`` imports onnxruntime for both, its telemetry off.

This package re-exports their public names; callers import from
``ragraf.embed``.

Invariants a change must keep (each module's docstring has its own):
- Importing this package is cheap: fastembed, onnxruntime and numpy are
  imported inside functions only.
- No network, ever, unless a human runs ``ragraf model fetch MODEL``.
- Every failure to produce a model is ``EmbeddingUnavailable`` with a one-line
  reason that names the missing file or package and the fix; the indexer then
  marks the vector layer unavailable and search falls back to the lexicon.
- Vectors are float32, L2-normalised, shape (n, dim), cut to the model's
  token window.
"""

from __future__ import annotations

from ragraf.embed.embedder import CHARS_PER_TOKEN, DEFAULT_BATCH, Embedder, Progress
from ragraf.embed.files import (
    DEFAULT_DIM,
    DEFAULT_MODEL,
    MAX_TOKENS,
    ONNX_MODULE,
    ONNX_PACKAGE,
    REQUIRED_FILES,
    SPEC_MODEL,
    TOKENIZER_FILES,
    cache_root,
    fastembed_cache_dirs,
    fetch_model,
)

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_BATCH",
    "DEFAULT_DIM",
    "DEFAULT_MODEL",
    "MAX_TOKENS",
    "ONNX_MODULE",
    "ONNX_PACKAGE",
    "REQUIRED_FILES",
    "SPEC_MODEL",
    "TOKENIZER_FILES",
    "Embedder",
    "Progress",
    "cache_root",
    "fastembed_cache_dirs",
    "fetch_model",
]
