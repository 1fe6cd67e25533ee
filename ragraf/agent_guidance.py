"""The agent regimen (architecture §12): one text, three places.

``ragraf/templates/regimen.md`` is the single source. It is inserted verbatim
into a project's AGENTS.md (``install``), its body is the MCP server's
``instructions`` (``guidance``), and skills/ragraf-core/SKILL.md is generated
around it by ``python -m ragraf.cli.docgen``; tests check all three.

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
    """The block as it goes into AGENTS.md, markers included."""
    return (resources.templates_dir() / "regimen.md").read_text(encoding="utf-8")


def guidance() -> str:
    """The regimen without its markers and heading: what an agent is told (MCP
    instructions, the skill)."""
    lines = [
        ln
        for ln in regimen().splitlines()
        if not ln.startswith((BEGIN, END)) and not ln.startswith("## ")
    ]
    return "\n".join(lines).strip() + "\n"


def install(root: Path) -> tuple[Path, str]:
    """Add or refresh the regimen in ``root/AGENTS.md``; returns (path, 'created'|'updated'|'unchanged')."""
    from ragraf.config import refuse_link

    target = root / "AGENTS.md"
    refuse_link(target)
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
