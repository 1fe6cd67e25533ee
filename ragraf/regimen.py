"""The agent regimen (architecture §12) and its place in a project's AGENTS.md.

Invariants a change must keep:
- The regimen lives between ``<!-- ragraf:begin`` and ``<!-- ragraf:end -->``;
  inserting it again replaces that block only, so the rest of the file is
  never touched and running it twice changes nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from ragraf import resources

BEGIN = "<!-- ragraf:begin"
END = "<!-- ragraf:end -->"


def regimen() -> str:
    return (resources.templates_dir() / "regimen.md").read_text(encoding="utf-8")


def install(root: Path) -> tuple[Path, str]:
    """Add or refresh the regimen in ``root/AGENTS.md``; returns (path, 'created'|'updated'|'unchanged')."""
    target = root / "AGENTS.md"
    block = regimen().rstrip("\n")
    if not target.exists():
        target.write_text(block + "\n", encoding="utf-8")
        return target, "created"
    text = target.read_text(encoding="utf-8")
    rx = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.DOTALL)
    if rx.search(text):
        new = rx.sub(lambda _m: block, text, count=1)
    else:
        new = text.rstrip("\n") + "\n\n" + block + "\n"
    if new == text:
        return target, "unchanged"
    target.write_text(new, encoding="utf-8")
    return target, "updated"
