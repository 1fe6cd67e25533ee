"""`ragraf uninit`: take back what `ragraf init` (and `setup-agent`) wrote into a project.

Removes ``.ragraf/`` (configuration, index, ledger, report), the two lines ``init`` added
to .gitignore, ragraf's marker blocks in AGENTS.md and CLAUDE.md, and the ledger's head
kept for this project outside it (``ragraf.drift.anchor``: left behind, it would make
``verify`` call the next, new ledger truncated).

Invariants a change must keep:
- Nothing else is touched: a .gitignore line or an AGENTS.md text the user wrote stays,
  and so do the clients' MCP files (``uninit`` names the ones that still register the
  server, with the command that removes the entry).
- Every check comes before the first removal: a symlink at or under ``.ragraf/``, or as
  .gitignore / AGENTS.md / CLAUDE.md, refuses the whole command as ``init`` does, and a
  build running (the build lock held) refuses it with BusyError; nothing is removed then.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ragraf import agent_setup
from ragraf.config import GITIGNORE_LINES, Layout, refuse_link, refuse_store_links
from ragraf.errors import BusyError
from ragraf.locks import file_lock


def _gitignore_without_ours(path: Path) -> str | None:
    """The .gitignore text without the lines ``init`` added (None: they are not there)."""
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    if GITIGNORE_LINES not in text:
        return None
    at = text.rfind(GITIGNORE_LINES)
    return text[:at] + text[at + len(GITIGNORE_LINES) :]


def uninit(root: Path) -> list[tuple[Path, str]]:
    """Remove what ragraf wrote into the project at ``root``; returns (path, what was done)
    for each thing removed, then (file, 'still registers ...') for each client file that
    still has a ragraf server entry."""
    from ragraf.drift import anchor

    layout = Layout(root)
    refuse_store_links(layout)
    for name in (".gitignore", "AGENTS.md", "CLAUDE.md"):
        refuse_link(root / name)
    done: list[tuple[Path, str]] = []

    def busy(pid: str) -> BusyError:
        return BusyError(
            f"a ragraf build is running on {root} (pid {pid}); uninit removed nothing,"
            " run it again once the build is done"
        )

    if layout.dot.is_dir():
        with file_lock(layout.lock_file, wait=False, busy=busy):
            shutil.rmtree(layout.dot)
        done.append((layout.dot, "removed"))
    ignore = root / ".gitignore"
    text = _gitignore_without_ours(ignore)
    if text is not None:
        if text.strip():
            ignore.write_text(text, encoding="utf-8")
            done.append((ignore, "removed the .ragraf/ lines"))
        else:
            ignore.unlink()  # init created it for these lines alone
            done.append((ignore, "deleted (it held only the .ragraf/ lines)"))
    done += [
        (p, f"removed the regimen block{' (file deleted)' * (w == 'deleted')}")
        for p, w in agent_setup.remove_blocks(root)
    ]
    head = anchor.path_for(root)
    if head.is_file():
        head.unlink()
        done.append((head, "removed (the ledger's head kept outside .ragraf/)"))
    for c in agent_setup.CLIENTS.values():
        if agent_setup.registered(c, root):
            done.append(
                (
                    agent_setup.config_file(c, root),
                    f"kept: it still registers the ragraf server for {c.label}"
                    f" (`ragraf setup-agent {c.name} --remove` removes the entry)",
                )
            )
    return done
