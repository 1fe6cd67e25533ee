"""`ragraf setup-agent CLIENT`: register the MCP server and the regimen with a coding agent.

Each client reads its MCP servers from a file of its own, in its documented format (the
citation is beside each client in ``CLIENTS``): a project-level file where the client has
one, else the user's. The server entry runs this ragraf (``command``) with ``-C ROOT mcp``
and ``RAGRAF_ACTOR=agent``; the regimen goes into AGENTS.md (``agent_guidance.install``),
and Claude Code, which reads CLAUDE.md rather than AGENTS.md, gets an import of it there.

Invariants a change must keep:
- Merge, never replace: a client's file keeps every other key and every other server; only
  the ``ragraf`` entry is set. Running it again with the same arguments changes no byte.
- ragraf never writes through a symlink inside the project (``config.refuse_link``, as
  ``init`` does): the file and the folder holding it are checked. A file in the user's home
  may be a link (dotfiles): its target is written.
- A file is rewritten only when what ragraf writes reads back as the old document plus the
  entry: JSON with comments (a JSONC settings file) is refused, not stripped, and so is a
  TOML file whose ``ragraf`` table ragraf cannot place; the refusal gives the entry to add
  by hand (``--print`` prints it).
- ``remove_blocks`` removes only the blocks between ragraf's markers; a file left empty by
  that was ragraf's alone and is deleted.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragraf.agent_guidance import BEGIN, END
from ragraf.config import refuse_link
from ragraf.errors import ConfigError, InvalidArgument, RefusedError

#: the server's name in every client's file (its tools are ragraf_<op> whatever the name)
SERVER = "ragraf"
ENV = {"RAGRAF_ACTOR": "agent"}
#: what Claude Code's CLAUDE.md gets: its documented `@path` import of AGENTS.md
CLAUDE_BLOCK = (
    f"{BEGIN} (written by `ragraf setup-agent claude-code`; edit outside these markers) -->\n"
    "@AGENTS.md\n"
    f"{END}"
)


@dataclass(frozen=True)
class Client:
    name: str
    label: str
    #: "project" (relative to the project root) or "home" (relative to the user's home)
    scope: str
    path: str
    fmt: str  # json | toml
    #: the key (JSON: top-level object; TOML: table) holding the servers
    key: str
    #: whether the entry names its transport ("type": "stdio")
    typed: bool
    #: the documented format this follows
    doc: str


CLIENTS: dict[str, Client] = {
    c.name: c
    for c in (
        # Claude Code's MCP docs, project scope: `.mcp.json` at the root, {"mcpServers":
        # {name: {"type": "stdio", "command", "args", "env"}}}
        Client(
            "claude-code",
            "Claude Code",
            "project",
            ".mcp.json",
            "json",
            "mcpServers",
            True,
            "Claude Code docs, MCP: project scope (.mcp.json)",
        ),
        # Cursor's MCP docs: `.cursor/mcp.json` for a project, {"mcpServers": {name:
        # {"command", "args", "env"}}}
        Client(
            "cursor",
            "Cursor",
            "project",
            ".cursor/mcp.json",
            "json",
            "mcpServers",
            False,
            "Cursor docs, MCP: project configuration (.cursor/mcp.json)",
        ),
        # VS Code's MCP configuration reference: `.vscode/mcp.json` in the workspace, a
        # top-level "servers" object, stdio servers {"type": "stdio", "command", "args", "env"}
        Client(
            "vscode",
            "VS Code",
            "project",
            ".vscode/mcp.json",
            "json",
            "servers",
            True,
            "VS Code docs, MCP configuration reference (.vscode/mcp.json)",
        ),
        # Zed's MCP docs, custom servers: settings.json (a project's is .zed/settings.json),
        # "context_servers": {name: {"command", "args", "env"}}
        Client(
            "zed",
            "Zed",
            "project",
            ".zed/settings.json",
            "json",
            "context_servers",
            False,
            "Zed docs, Model Context Protocol: custom servers (context_servers)",
        ),
        # Codex's config docs: ~/.codex/config.toml ($CODEX_HOME), a table
        # [mcp_servers.<name>] with command, args and env
        Client(
            "codex",
            "Codex CLI",
            "home",
            "config.toml",
            "toml",
            "mcp_servers",
            False,
            "Codex docs, config.toml: [mcp_servers.<name>]",
        ),
    )
}


def get_client(name: str) -> Client:
    """The client called ``name`` (InvalidArgument naming the known ones otherwise)."""
    c = CLIENTS.get(name.lower())
    if c is None:
        import difflib

        near = difflib.get_close_matches(name.lower(), list(CLIENTS), n=1)
        raise InvalidArgument(
            f"unknown client {name!r}"
            + (f" (did you mean {near[0]}?)" if near else "")
            + f"; clients: {', '.join(CLIENTS)}"
        )
    return c


def ragraf_command() -> list[str]:
    """How a client starts this ragraf: the `ragraf` script beside this interpreter (a venv's
    or pipx's bin folder), else this interpreter with ``-m ragraf``; absolute either way,
    since a client does not start servers from the user's shell."""
    script = Path(sys.executable).parent / "ragraf"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "ragraf"]


def entry(c: Client, root: Path, command: list[str]) -> dict[str, Any]:
    """The server entry for client ``c``: run ``command -C ROOT mcp``."""
    out: dict[str, Any] = {"type": "stdio"} if c.typed else {}
    out.update(
        command=command[0],
        args=[*command[1:], "-C", str(root), "mcp"],
        env=dict(ENV),
    )
    return out


def config_file(c: Client, root: Path) -> Path:
    """Where client ``c`` reads its servers: in the project, or ``$CODEX_HOME`` (else
    ``~/.codex``) for Codex."""
    if c.scope == "project":
        return root / c.path
    home = os.environ.get("CODEX_HOME")
    return (Path(home).expanduser() if home else Path.home() / ".codex") / c.path


def _toml_str(s: str) -> str:
    # a TOML basic string takes JSON's escapes; non-ASCII stays as UTF-8 text
    return json.dumps(s, ensure_ascii=False)


def _toml_value(v: Any) -> str:
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def snippet(c: Client, root: Path, command: list[str]) -> str:
    """The entry in the file's own format, as a person would add it (``--print``)."""
    e = entry(c, root, command)
    if c.fmt == "toml":
        return f"[{c.key}.{SERVER}]\n" + "".join(f"{k} = {_toml_value(v)}\n" for k, v in e.items())
    return json.dumps({c.key: {SERVER: e}}, indent=2, ensure_ascii=False) + "\n"


def _strip_jsonc(text: str) -> str:
    """``text`` without // and /* */ comments (outside strings) and trailing commas."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(ch)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def _merged_json(path: Path, c: Client, e: dict[str, Any], by_hand: str) -> str | None:
    """The new text of a JSON file with the entry set (None: already so)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    doc: Any = {}
    if text.strip():
        try:
            doc = json.loads(text)
        except ValueError as e1:
            try:
                json.loads(_strip_jsonc(text))
            except ValueError:
                raise ConfigError(f"{path}: not valid JSON ({e1}); fix it first") from None
            raise RefusedError(
                f"{path} has comments, which ragraf does not rewrite (they would be lost);"
                f" add this entry to it by hand:\n{by_hand}"
            ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get(c.key, {}), dict):
        raise ConfigError(f"{path}: expected an object with an object {c.key!r}; fix it first")
    servers = doc.setdefault(c.key, {})
    if servers.get(SERVER) == e:
        return None
    servers[SERVER] = e
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


_HEADER = re.compile(r"^\s*\[")
_OURS = re.compile(r"^\s*\[\s*(\w+)\s*\.\s*(?:ragraf|\"ragraf\")\s*(?:\.[^\]]*)?\]\s*(?:#.*)?$")


def _toml_cut(text: str, key: str) -> tuple[list[str], int | None]:
    """The lines of ``text`` without the tables ``[KEY.ragraf]`` and ``[KEY.ragraf.*]``
    (their blank lines and comments stay), and where the first of them stood."""
    kept: list[str] = []
    at: int | None = None
    dropping = False
    for ln in text.splitlines():
        if _HEADER.match(ln):
            m = _OURS.match(ln)
            dropping = bool(m and m.group(1) == key)
            if dropping:
                at = len(kept) if at is None else at
                continue
        if not dropping or not ln.strip() or ln.lstrip().startswith("#"):
            kept.append(ln)
    return kept, at


def _load_toml(path: Path) -> tuple[str, dict[str, Any]]:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML ({err}); fix it first") from None


def _same_but_ours(old: dict[str, Any], new: dict[str, Any], key: str) -> bool:
    """Whether two TOML documents differ at most in table ``[KEY.ragraf]``."""

    def rest(d: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        servers = d.get(key) or {}
        return {k: v for k, v in d.items() if k != key}, {
            k: v for k, v in servers.items() if k != SERVER
        }

    return rest(old) == rest(new)


def _merged_toml(path: Path, c: Client, e: dict[str, Any], by_hand: str) -> str | None:
    """The new text of a TOML file with table ``[KEY.ragraf]`` set, the rest of the text
    as it was (comments included); None when it is already so."""
    text, old = _load_toml(path)
    if (old.get(c.key) or {}).get(SERVER) == e:
        return None
    block = by_hand.rstrip("\n").splitlines()
    kept, at = _toml_cut(text, c.key)
    if at is None:
        while kept and not kept[-1].strip():
            kept.pop()
        new_lines = [*kept, *([""] if kept else []), *block]
    else:
        new_lines = [*kept[:at], *block, *kept[at:]]
    new = "\n".join(new_lines) + "\n"
    try:
        got: dict[str, Any] | None = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        got = None
    if (
        got is None
        or (got.get(c.key) or {}).get(SERVER) != e
        or not _same_but_ours(old, got, c.key)
    ):
        raise RefusedError(
            f"{path}: ragraf cannot place its [{c.key}.{SERVER}] table in this file (the"
            f" servers are written in another form); add this entry to it by hand:\n{by_hand}"
        )
    return new


def _write(path: Path, text: str) -> None:
    """Replace ``path`` atomically (a temporary file beside it, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _refuse_links(root: Path, path: Path) -> None:
    """RefusedError when ``path`` or a folder between the root and it is a symlink."""
    rel = path.relative_to(root)
    here = root
    for part in rel.parts:
        here = here / part
        refuse_link(here)


def register(c: Client, root: Path, command: list[str]) -> tuple[Path, str]:
    """Set the server entry in client ``c``'s file; returns (file, created|updated|unchanged)."""
    path = config_file(c, root)
    if c.scope == "project":
        _refuse_links(root, path)
    elif path.is_symlink():
        path = path.resolve()  # the user's dotfiles: write where the link points
    e = entry(c, root, command)
    by_hand = snippet(c, root, command)
    existed = path.exists()
    merge = _merged_toml if c.fmt == "toml" else _merged_json
    new = merge(path, c, e, by_hand)
    if new is None:
        return path, "unchanged"
    _write(path, new)
    return path, "updated" if existed else "created"


def _read_doc(c: Client, path: Path) -> dict[str, Any]:
    """The client file as data (comments allowed: this only reads); {} when absent."""
    if not path.is_file():
        return {}
    if c.fmt == "toml":
        return _load_toml(path)[1]
    text = path.read_text(encoding="utf-8")
    try:
        doc = json.loads(_strip_jsonc(text)) if text.strip() else {}
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _ours(c: Client, root: Path, doc: dict[str, Any]) -> bool:
    """Whether ``doc`` has a ragraf entry answering for ``root`` (a user-level file may
    register the server for another project)."""
    servers = doc.get(c.key)
    e = servers.get(SERVER) if isinstance(servers, dict) else None
    if not isinstance(e, dict):
        return False
    return c.scope == "project" or str(root) in (e.get("args") or [])


def registered(c: Client, root: Path) -> bool:
    """Whether client ``c``'s file registers the ragraf server for the project at ``root``."""
    return _ours(c, root, _read_doc(c, config_file(c, root)))


def unregister(c: Client, root: Path) -> tuple[Path, str]:
    """Remove the ragraf entry (for this project) from client ``c``'s file; a file left with
    nothing in it is deleted. Returns (file, removed|deleted|absent)."""
    path = config_file(c, root)
    if c.scope == "project":
        _refuse_links(root, path)
    elif path.is_symlink():
        path = path.resolve()
    if not _ours(c, root, _read_doc(c, path)):
        return path, "absent"
    if c.fmt == "toml":
        text, old = _load_toml(path)
        kept, _at = _toml_cut(text, c.key)
        new = "\n".join(kept).strip("\n")
        new = new + "\n" if new else ""
        got = tomllib.loads(new)
        if (got.get(c.key) or {}).get(SERVER) is not None or not _same_but_ours(old, got, c.key):
            raise RefusedError(f"{path}: remove its [{c.key}.{SERVER}] entry by hand")
        empty = not got
    else:
        text = path.read_text(encoding="utf-8")
        try:
            doc = json.loads(text)
        except ValueError:
            raise RefusedError(
                f"{path} has comments, which ragraf does not rewrite; remove its"
                f" {SERVER!r} entry under {c.key!r} by hand"
            ) from None
        del doc[c.key][SERVER]
        if not doc[c.key]:
            del doc[c.key]
        empty = not doc
        new = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if empty:
        path.unlink()
        if c.scope == "project" and path.parent != root and not any(path.parent.iterdir()):
            path.parent.rmdir()  # the client's folder ragraf made for this file alone
        return path, "deleted"
    _write(path, new)
    return path, "removed"


def _put_block(path: Path, block: str, present: re.Pattern[str] | None = None) -> str:
    """Add or refresh ragraf's marker block in ``path``; created|updated|unchanged|present."""
    refuse_link(path)
    rx = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.DOTALL)
    if not path.exists():
        _write(path, block + "\n")
        return "created"
    text = path.read_text(encoding="utf-8")
    if rx.search(text):
        new = rx.sub(lambda _m: block, text, count=1)
    elif present is not None and present.search(text):
        return "present"  # the file already does it by its own words
    else:
        new = text.rstrip("\n") + "\n\n" + block + "\n"
    if new == text:
        return "unchanged"
    _write(path, new)
    return "updated"


def install_claude_import(root: Path) -> tuple[Path, str]:
    """CLAUDE.md imports AGENTS.md (Claude Code's documented ``@path`` import): the one
    regimen reaches Claude Code too. A CLAUDE.md that imports it already is left alone."""
    path = root / "CLAUDE.md"
    return path, _put_block(path, CLAUDE_BLOCK, re.compile(r"^@AGENTS\.md\s*$", re.M))


def remove_blocks(root: Path) -> list[tuple[Path, str]]:
    """Remove ragraf's marker blocks from AGENTS.md and CLAUDE.md; a file left empty is
    deleted (ragraf created it). Returns (file, removed|deleted) for each file changed."""
    rx = re.compile(r"\n*" + re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n?", re.DOTALL)
    out: list[tuple[Path, str]] = []
    for name in ("AGENTS.md", "CLAUDE.md"):
        path = root / name
        if not path.exists() and not path.is_symlink():
            continue
        refuse_link(path)
        text = path.read_text(encoding="utf-8")
        new = rx.sub("\n", text, count=1)
        if new == text:
            continue
        if not new.strip():
            path.unlink()
            out.append((path, "deleted"))
            continue
        _write(path, new.strip("\n") + "\n" if text.endswith("\n") else new.strip("\n"))
        out.append((path, "removed"))
    return out
