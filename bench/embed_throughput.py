"""Embedding throughput of the default model on chunk-sized PHP windows, run by hand.

.venv/bin/python bench/embed_throughput.py <folder with PHP> [-n 512] [--lines 40] [--max-tokens 128]
    [--quantize int8|none]
.venv/bin/python bench/embed_throughput.py --chunks <indexed project> [--every 5] [--quantize int8|none]

Prints one JSON report: texts/s of ``Embedder.embed`` on ``n`` windows of
``lines`` lines of the PHP under the folder, after loading the model and a
warm-up batch; with ``--chunks``, chunks/s of the build's embedding (the project's
``embedding`` configuration) on every ``every``-th chunk of its active revision.
``--quantize`` overrides ``embedding.quantize`` (default: int8 / the project's). The
numbers last measured are in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragraf.embed import DEFAULT_BATCH, Embedder  # noqa: E402
from ragraf.errors import InvalidArgument  # noqa: E402


def php_windows(root: Path, n: int, lines: int) -> list[str]:
    """Up to ``n`` windows of ``lines`` lines of the *.php under ``root``, in path order."""
    texts: list[str] = []
    for f in sorted(root.rglob("*.php")):
        try:
            src = f.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for i in range(0, max(len(src) - lines, 1), lines):
            texts.append("\n".join(src[i : i + lines]))
            if len(texts) >= n:
                break
        if len(texts) >= n:
            break
    if not texts:
        raise InvalidArgument(f"no *.php under {root}")
    return texts


def measure_throughput(
    root: Path,
    n: int = 512,
    lines: int = 40,
    batch_size: int = DEFAULT_BATCH,
    max_tokens: int | None = None,
    quantize: str = "int8",
) -> dict[str, str | int | float | None]:
    """texts/s of the default model on ``n`` chunk-sized windows of the PHP under ``root``."""
    texts = php_windows(root, n, lines)
    emb = Embedder(max_tokens=max_tokens, quantize=quantize)
    t = time.perf_counter()
    emb.load()
    load_s = time.perf_counter() - t
    emb.embed(texts[:8])  # warm-up
    t = time.perf_counter()
    emb.embed(texts, batch_size=batch_size)
    dt = time.perf_counter() - t
    return {
        "model": emb.model_id,
        "model_version": emb.model_version,
        "texts": len(texts),
        "lines_per_text": lines,
        "batch_size": batch_size,
        "load_s": round(load_s, 3),
        "embed_s": round(dt, 3),
        "texts_per_s": round(len(texts) / dt, 1),
        "cpus": os.cpu_count(),
    }


def measure_chunks(
    project: Path,
    every: int = 5,
    skip: bool = True,
    batch_size: int = DEFAULT_BATCH,
    quantize: str | None = None,
) -> dict[str, str | int | float | None]:
    """chunks/s of the build's embedding on the active revision's chunks of ``project``."""
    from ragraf import config
    from ragraf.indexing.vectors import embed_text, skip_reason
    from ragraf.store import manifest
    from ragraf.store.lexvec import LexStore

    cfg = config.load(project)
    layout = cfg.layout
    rev = manifest.require(layout.rev_json)["rev_id"]
    with LexStore(layout.lexvec_db, readonly=True) as lex:
        sample = [t for _cid, t in lex.all_chunks(rev)][::every]
    texts = [embed_text(t) for t in sample if not (skip and skip_reason(t))]
    embedding = cfg.embedding.as_mapping()
    if quantize is not None:
        embedding["quantize"] = quantize
    emb = Embedder.from_config(embedding, root=cfg.root)
    emb.load()
    emb.embed(texts[:8])  # warm-up
    t = time.perf_counter()
    for _idx, _vecs in emb.batches(texts, batch_size):
        pass
    dt = time.perf_counter() - t
    return {
        "model_version": emb.model_version,
        "chunks": len(sample),
        "embedded": len(texts),
        "skipped": len(sample) - len(texts),
        "batch_size": batch_size,
        "embed_s": round(dt, 3),
        "texts_per_s": round(len(texts) / dt, 1),
        "chunks_per_s": round(len(sample) / dt, 1),
        "cpus": os.cpu_count(),
    }


if __name__ == "__main__":
    if "--chunks" in sys.argv:
        cp = argparse.ArgumentParser(description=__doc__.split("\n")[0])
        cp.add_argument("--chunks", type=Path, required=True)
        cp.add_argument("--every", type=int, default=5)
        cp.add_argument("--no-skip", action="store_true")
        cp.add_argument("--batch-size", type=int, default=DEFAULT_BATCH)
        cp.add_argument("--quantize", choices=["int8", "none"], default=None)
        c = cp.parse_args()
        print(
            json.dumps(measure_chunks(c.chunks, c.every, not c.no_skip, c.batch_size, c.quantize))
        )
        sys.exit(0)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("-n", type=int, default=512)
    ap.add_argument("--lines", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=DEFAULT_BATCH)
    ap.add_argument("--max-tokens", type=int, default=None)
    ap.add_argument("--quantize", choices=["int8", "none"], default="int8")
    a = ap.parse_args()
    print(
        json.dumps(measure_throughput(a.root, a.n, a.lines, a.batch_size, a.max_tokens, a.quantize))
    )
