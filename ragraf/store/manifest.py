"""rev.json: the single commit point of a revision.

Invariants a change must keep:
- A revision exists for readers only once rev.json names it. Graph and lexvec
  rows of any other revision are invisible (readers filter by this rev_id).
- rev.json is replaced atomically: write a temp file, fsync it, rename it over
  the old one, fsync the folder. A crash leaves the old or the new file whole.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ragraf.errors import NoIndexError, StoreError
from ragraf.store.db import disk_full, fsync_dir


def read(path: Path) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise StoreError(f"{path}: corrupt ({e})") from e
    if not isinstance(data, dict) or "rev_id" not in data:
        raise StoreError(f"{path}: not a RAGRAF revision manifest")
    return data


def require(path: Path) -> dict[str, Any]:
    data = read(path)
    if data is None:
        raise NoIndexError(f"no sealed revision yet ({path} missing); run `ragraf index`")
    return data


def write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".rev.", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        fsync_dir(path.parent)
    except BaseException as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError) and e.errno == errno.ENOSPC:
            raise disk_full(path) from None
        raise
