"""Shared by the benchmarks: fetch a real corpus (outside the repository) and copy it to a temp folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def fetch(name: str) -> Path:
    """The root of a corpus unpacked by ../shared/corpora/fetch (cached outside the repository)."""
    out = subprocess.run(
        [str(REPO.parent / "shared" / "corpora" / "fetch"), name],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip().splitlines()[-1])


def copy_corpus(name: str, into: Path) -> Path:
    """A private copy of the corpus under ``into`` (the index writes .ragraf/ inside its root)."""
    root = into / name
    shutil.copytree(fetch(name), root, symlinks=True)
    return root
