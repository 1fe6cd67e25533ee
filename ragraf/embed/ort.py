"""onnxruntime as ragraf imports it: with its telemetry off before anything of it runs.

onnxruntime's Linux build carries Microsoft's 1DS telemetry: left on, the first session
of a fresh HOME writes ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/`` (a device id
and an event database) and queues uploads to a telemetry host. Nothing may leave the
machine (README: no network unless a human runs ``ragraf model fetch``).

Invariants a change must keep:
- Every import of onnxruntime in ragraf goes through ``load()``, which sets
  ``ORT_DISABLE_TELEMETRY=1`` in the environment before the first import (the library
  reads it when its environment is created; child processes inherit it) and switches
  telemetry events off on the module as well.
"""

from __future__ import annotations

import os
from typing import Any


def load() -> Any:
    """The onnxruntime module, telemetry off (ImportError when it is not installed)."""
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    import onnxruntime

    off = getattr(onnxruntime, "disable_telemetry_events", None)
    if off is not None:
        off()
    return onnxruntime
