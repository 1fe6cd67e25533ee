"""A prepared folder model run with onnxruntime and tokenizers directly (issue 15).

The packaged default and an ``embedding.path`` model are mean-pooled, L2-normalised
sentence-transformers models in a folder (``ragraf.embed.files``). fastembed would run
them the same way, but importing fastembed costs ~0.5 s (its package imports the image
models and huggingface_hub), which every reindex that embeds a few chunks and every new
process that embeds a query paid. fastembed stays the way to models of its hub cache
(``Embedder._load_cached``) and to ``ragraf model fetch``.

Invariants a change must keep:
- The vectors of the folder's own model.onnx are fastembed's, bit for bit
  (tests/test_embed.py compares them): the tokenizer is set up as fastembed 0.9's ``load_tokenizer`` does
  (truncation from tokenizer_config.json, the special tokens map, padding), the session
  as its ``_load_onnx_model`` does (all graph optimisations, ``threads`` for both thread
  pools, the CPU provider), and a batch becomes vectors as its pooled-normalised models
  compute them (int64 inputs with zero token types, mean pooling summed in float64 over
  the attention mask, L2 norm with eps 1e-12, float32).
- A derived int8 graph (``ragraf.embed.quantize``) runs each text alone (``alone``, see
  ``FolderModel``): a vector is a function of its text, whatever shares the call.
- Importing this module imports nothing heavy; numpy, onnxruntime and tokenizers are
  imported by ``FolderModel``.
- The graph onnxruntime optimises at load (~0.2 s of every process that embeds, the one
  vector a one-file reindex needs included) is kept beside the model, keyed by
  onnxruntime's version, the model file and this CPU (the optimisations are hardware
  specific), and later sessions load it with no optimisation to redo: the same graph, so
  the same vectors bit for bit (tests/test_embed.py). A kept graph that does not load is
  removed and made again; a folder that cannot be written to only costs the time.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

MODEL_FILE = "model.onnx"


def _valid_context(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 < value <= sys.maxsize else None


def _read_json(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, dict):
        raise ValueError(f"{path.name} is not a JSON object")
    return data


# Any: a tokenizers.Tokenizer (tokenizers is imported lazily)
def load_tokenizer(folder: Path) -> Any:
    """The folder's tokenizer with truncation and padding as fastembed sets them up."""
    from tokenizers import AddedToken, Tokenizer

    for name in ("tokenizer.json", "tokenizer_config.json"):
        if not (folder / name).exists():
            raise ValueError(f"could not find {name} in {folder}")
    config = _read_json(folder / "config.json") if (folder / "config.json").exists() else {}
    tok_config = _read_json(folder / "tokenizer_config.json")
    limits = [
        c
        for c in (
            _valid_context(tok_config.get("model_max_length")),
            _valid_context(tok_config.get("max_length")),
        )
        if c is not None
    ]
    if not limits:
        raise ValueError(f"no model_max_length or max_length in {folder}/tokenizer_config.json")
    special_path = folder / "special_tokens_map.json"
    special = _read_json(special_path) if special_path.exists() else {}
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    truncation = tokenizer.truncation or {}
    tokenizer.enable_truncation(
        max_length=min(limits),
        direction=tok_config.get("truncation_side") or truncation.get("direction", "right"),
    )
    for value in special.values():
        for token in value if isinstance(value, list) else [value]:
            if isinstance(token, str):
                tokenizer.add_special_tokens([token])
            elif isinstance(token, dict):
                tokenizer.add_special_tokens([AddedToken(**token)])
    padding = tokenizer.padding or {}
    pad_token = padding.get("pad_token") or tok_config.get("pad_token")
    if pad_token is None:
        raise ValueError(f"no pad token for {folder}")
    pad_id = padding.get("pad_id", config.get("pad_token_id"))
    if pad_id is None:
        pad_id = tokenizer.token_to_id(pad_token)
    if pad_id is None:
        raise ValueError(f"no id for the pad token {pad_token!r} in {folder}")
    tokenizer.enable_padding(
        direction=tok_config.get("padding_side") or padding.get("direction", "right"),
        pad_id=pad_id,
        pad_type_id=padding.get("pad_type_id", 0),
        pad_token=pad_token,
        pad_to_multiple_of=padding.get("pad_to_multiple_of"),
        length=None,
    )
    return tokenizer


#: the graph onnxruntime optimised for this machine, beside the model (``_session``), named
#: ``<model's stem>.optimized-<key>.onnx`` (``model.optimized-...`` for a folder's model.onnx):
#: graphs kept for two models in one folder (the int8 graphs of two models) do not replace
#: each other
OPTIMIZED = ".optimized-"
OPTIMIZED_PREFIX = f"model{OPTIMIZED}"


def _cpu() -> str:
    """What the optimised graph depends on of the CPU: its model and instruction sets."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            lines = [ln for ln in f if ln.startswith(("flags", "model name", "Features"))]
        return "".join(sorted(set(lines)))
    except OSError:
        return platform.processor()


def _optimized_path(ort: Any, model: Path) -> Path:
    st = model.stat()
    key = f"{ort.__version__}|{st.st_size}|{st.st_mtime_ns}|{platform.machine()}|{_cpu()}"
    digest = hashlib.sha1(key.encode()).hexdigest()[:16]
    return model.with_name(f"{model.stem}{OPTIMIZED}{digest}.onnx")


def _session(ort: Any, model: Path, threads: int | None) -> Any:
    """An inference session of ``model`` with every graph optimisation, from the graph kept
    for this machine when there is one (see the module docstring), else optimising and
    keeping the result."""

    def options(level: Any) -> Any:
        so = ort.SessionOptions()
        so.graph_optimization_level = level
        so.log_severity_level = 3  # not the warning that a kept graph is machine specific
        if threads is not None:
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = threads
        return so

    def load(path: Path, so: Any) -> Any:
        return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"], sess_options=so)

    kept = _optimized_path(ort, model)
    if kept.is_file():
        try:
            return load(kept, options(ort.GraphOptimizationLevel.ORT_DISABLE_ALL))
        except Exception:
            kept.unlink(missing_ok=True)  # damaged, or not one this onnxruntime reads
    so = options(ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    tmp = kept.with_name(f".{kept.name}.{os.getpid()}.tmp")
    so.optimized_model_filepath = str(tmp)
    try:
        session = load(model, so)
    except Exception:
        tmp.unlink(missing_ok=True)  # the folder may be read-only: optimise in memory only
        return load(model, options(ort.GraphOptimizationLevel.ORT_ENABLE_ALL))
    try:
        os.replace(tmp, kept)
        for old in model.parent.glob(f"{model.stem}{OPTIMIZED}*.onnx"):
            if old != kept:
                old.unlink(missing_ok=True)  # made for another onnxruntime or CPU
    except OSError:
        tmp.unlink(missing_ok=True)
    return session


class FolderModel:
    """``embed(texts, batch_size)`` yields one float32 vector per text, like fastembed's
    ``TextEmbedding.embed``; ``tokenizer`` is the tokenizer it runs.

    ``alone``: every text runs by itself, on ``threads`` threads at once (one onnxruntime
    thread each). An int8 graph needs it: its activations are quantised with one scale per
    call, so in a batch a text's vector would depend on the texts beside it (a short text
    padded next to a long one: cosine 0.986 to its vector alone); alone, a vector is a
    function of its text, as vec_meta's reuse by chunk id assumes. Nothing is padded
    either, and on 2 cores two single texts at once ran faster than batches of 16 (issue 18).
    """

    def __init__(
        self,
        folder: Path,
        threads: int | None = None,
        model: Path | None = None,
        *,
        alone: bool = False,
    ) -> None:
        """``model``: the graph to run instead of the folder's model.onnx (its int8 graph)."""
        from ragraf.embed import ort as ort_module

        ort = ort_module.load()
        self.tokenizer = load_tokenizer(folder)
        self.alone = alone
        self.session = _session(ort, model or folder / MODEL_FILE, 1 if alone else threads)
        self._inputs = {node.name for node in self.session.get_inputs()}
        if threads is None:
            from ragraf import cpus

            threads = cpus.usable()
        self._workers = max(1, threads)
        self._pool: ThreadPoolExecutor | None = None

    def embed(self, texts: Sequence[str], batch_size: int = 256) -> Iterator[np.ndarray]:
        if self.alone:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="ragraf-embed")
            for vectors in self._pool.map(self._batch, [[t] for t in texts]):
                yield vectors[0]
            return
        for start in range(0, len(texts), batch_size):
            yield from self._batch(list(texts[start : start + batch_size]))

    def _batch(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        encoded = self.tokenizer.encode_batch(texts)
        input_ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": input_ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        out = self.session.run(None, feed)[0]
        summed = np.sum(out, axis=1, where=mask[:, :, np.newaxis].astype(bool), dtype=np.float64)
        pooled = summed / np.maximum(np.sum(mask, axis=1, keepdims=True), 1e-9)
        norm = np.maximum(np.linalg.norm(pooled, ord=2, axis=1, keepdims=True), 1e-12)
        vectors: np.ndarray = (pooled / norm).astype(out.dtype, copy=False)
        return vectors
