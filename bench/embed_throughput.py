"""Embedding throughput of the default model on chunk-sized PHP windows, run by hand.

.venv/bin/python bench/embed_throughput.py <folder with PHP> [-n 512] [--lines 40] [--max-tokens 128]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ragraf.embed import DEFAULT_BATCH, measure_throughput  # noqa: E402

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("-n", type=int, default=512)
    ap.add_argument("--lines", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=DEFAULT_BATCH)
    ap.add_argument("--max-tokens", type=int, default=None)
    a = ap.parse_args()
    print(json.dumps(measure_throughput(a.root, a.n, a.lines, a.batch_size, a.max_tokens)))
