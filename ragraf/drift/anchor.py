"""The ledger's head kept outside ``.ragraf/``: what lets ``verify`` see a truncated tail.

Deleting the last entries of the ledger together with their LEDGER.md blocks
leaves a consistent chain: nothing inside ``.ragraf/`` can tell. So after every
append the head (last entry id and hash, last ack id and hash, last archive id and
hash) is also written
to a small file in the user's state folder, keyed by the project's real path
(``$RAGRAF_STATE_DIR``, else ``$XDG_STATE_HOME/ragraf``, else
``~/.local/state/ragraf``). ``verify`` checks the ledger still holds that head.

Limits (docs/RELIABILITY.md): someone who can edit both ``.ragraf/`` and the
user's state folder can still truncate undetected; a fresh checkout or another
machine has no anchor, and ``verify`` says so instead of claiming the check.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def state_dir() -> Path:
    env = os.environ.get("RAGRAF_STATE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state"
    return base / "ragraf"


def path_for(root: Path) -> Path:
    key = hashlib.sha1(os.path.realpath(root).encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return state_dir() / "anchors" / f"{key}.json"


def read(root: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path_for(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write(
    root: Path,
    entries: tuple[int, str],
    acks: tuple[int, str],
    archives: tuple[int, str] | None = None,
) -> bool:
    """Record the heads; False when the state folder cannot be written (nothing fails)."""
    target = path_for(root)
    data: dict[str, Any] = {
        "root": os.path.realpath(root),
        "entry": list(entries),
        "ack": list(acks),
    }
    if archives is not None:
        data["archive"] = list(archives)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".anchor.", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
        os.replace(tmp, target)
    except OSError:
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(tmp)
        return False
    return True
