"""Failpoints: named places where a test can stop or break a real process.

``RAGRAF_FAILPOINT=<name>`` makes the process stop at that point until it is
killed (so a test can kill it exactly there); ``RAGRAF_FAILPOINT=<name>:raise``
makes it raise ``FailpointError`` there (an internal error, as a bug would);
``RAGRAF_FAILPOINT=<name>:pause=<seconds>`` makes it wait there and go on (so a test
can run another command while this one is exactly there).
Unset, a failpoint costs one environment lookup.
"""

from __future__ import annotations

import os
import sys
import time

ENV = "RAGRAF_FAILPOINT"


class FailpointError(RuntimeError):
    """Raised at a failpoint armed with ``:raise`` (deliberately not a RagrafError)."""


def failpoint(name: str) -> None:
    armed = os.environ.get(ENV)
    if not armed:
        return
    target, _, action = armed.partition(":")
    if target != name:
        return
    if action == "raise":
        raise FailpointError(f"failpoint {name} raised")
    sys.stderr.write(f"ragraf: failpoint {name} reached\n")
    sys.stderr.flush()
    if action.startswith("pause="):
        time.sleep(float(action.removeprefix("pause=")))
        return
    while True:
        time.sleep(3600)
