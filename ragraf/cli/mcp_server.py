"""`ragraf mcp`: every facade operation as an MCP tool `ragraf_<op>` over stdio.

Invariants a change must keep:
- Stdout carries only the protocol. Diagnostics go to stderr and to
  ``.ragraf/logs/mcp.log`` (size-rotated); a log line names the tool, the
  argument names, the outcome and the time, never argument values, secrets
  or configuration values.
- Tool annotations are derived from each operation's declaration
  (``OpSpec.writes`` / ``OpSpec.network``): read-only unless it declares what it
  appends to, open-world only when it reaches the network. All call the same
  facade as the CLI; library errors become tool errors (``is_error``) here and
  nowhere else.
- Descriptions come from the facade docstrings, input schemas from the
  declared parameters (plus ``rev``), the server instructions from the one
  regimen text (``ragraf.agent_guidance.guidance``).
- Every line the client sends gets an answer: one the SDK cannot read as a JSON-RPC
  message (invalid JSON, a lone surrogate escape, nesting beyond the parser's depth, a
  shape that is no message) is answered with a JSON-RPC error (``-32700`` / ``-32600``)
  carrying the request's id when its top level names one (``_wire_error``), instead of
  being dropped, which left the client waiting for ever.
"""

from __future__ import annotations

import json
import logging
import re
import time
from pathlib import Path
from typing import Any

from ragraf import __version__
from ragraf.config import Layout
from ragraf.errors import RagrafError
from ragraf.logs import file_logger

log = logging.getLogger("ragraf.mcp")


def _setup_logging(root: Path | None) -> None:
    log.setLevel(logging.INFO)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    err = logging.StreamHandler()  # stderr
    err.setFormatter(fmt)
    err.setLevel(logging.WARNING)
    log.addHandler(err)
    if root is not None:
        file_logger(log.name, Layout(root).logs_dir, "mcp.log")


def _top_level_id(text: str) -> int | str | None:
    """The ``id`` member of the JSON object ``text`` at its top level, found by a scan
    that tracks only strings and depth (linear, whatever the nesting), or None."""
    depth, i, n = 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if depth == 1 and text[i : j + 1] == '"id"':
                m = _ID_VALUE.match(text, j + 1)
                if m is not None:
                    return int(m.group(1)) if m.group(1) else json.loads(m.group(2))
            i = j + 1
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        i += 1
    return None


_ID_VALUE = re.compile(r'\s*:\s*(?:(-?\d{1,18})\b|("(?:[^"\\]|\\.){0,200}"))')


def _wire_error(exc: Exception) -> Any:
    """The JSON-RPC error answering a line the SDK could not read as a message."""
    import mcp_types as types

    errors = exc.errors() if hasattr(exc, "errors") else []
    first = errors[0] if errors else {}
    raw = first.get("input")
    parse = first.get("type") == "json_invalid"
    ident: Any = None
    if isinstance(raw, str):
        ident = _top_level_id(raw)
    elif isinstance(raw, dict):
        ident = raw.get("id")
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        ident = None
    msg = str(first.get("msg") or type(exc).__name__)[:300]
    return types.JSONRPCError(
        jsonrpc="2.0",
        id=ident,
        error=types.ErrorData(
            code=types.PARSE_ERROR if parse else types.INVALID_REQUEST,
            message=("Parse error: " if parse else "Invalid request: ") + msg,
        ),
    )


def tool_definitions() -> list[Any]:
    import mcp_types as types

    from ragraf import facade

    tools = []
    for op in facade.OPERATIONS:
        schema = facade.spec(op).input_schema()
        schema["properties"]["rev"] = {
            "type": "string",
            "pattern": r"^rev-\d{4,}$",
            "description": "Answer from this retained revision (default: the active one).",
        }
        spec = facade.spec(op)
        tools.append(
            types.Tool(
                name=f"ragraf_{op}",
                description=facade.describe(op),
                input_schema=schema,
                annotations=types.ToolAnnotations(
                    read_only_hint=spec.read_only,
                    destructive_hint=False,  # nothing is ever overwritten or deleted
                    idempotent_hint=spec.read_only,  # a writer appends a new row per call
                    open_world_hint=spec.network,
                ),
            )
        )
    return tools


class _Tools:
    """The tools' side of the server: one lazily opened session, the tool list, and one
    answer per call (a tool error, never a dead server)."""

    def __init__(self, root: Path | None, no_project: RagrafError | None) -> None:
        self.root = root
        self.no_project = no_project
        self.tools = tool_definitions()
        self.names = {t.name for t in self.tools}
        self._session: Any = None

    def session(self) -> Any:
        """The facade session (raises ``no_project``, or NoIndexError until `ragraf index` ran)."""
        if self._session is None:
            from ragraf.facade.context import Session

            if self.root is None:
                assert self.no_project is not None
                raise self.no_project
            self._session = Session(self.root)
        return self._session

    def preload(self) -> None:
        """Open the session and start loading the model in the background, so the first
        search does not pay the load; a project without an index just waits for one."""
        if self.root is None:
            return
        try:
            self.session().preload_embedder(
                lambda s: log.info("model preloaded in the background %.1fms", s * 1000)
            )
        except RagrafError as e:
            log.info("no model preload: %s", type(e).__name__)

    def close(self) -> None:
        if self._session is not None:
            self._session.close()

    def call(self, name: str, arguments: dict[str, Any] | None) -> Any:
        """The CallToolResult of one call: the envelope, or a tool error with the reason."""
        import mcp_types as types

        from ragraf import facade

        t0 = time.perf_counter()
        args = dict(arguments or {})

        def error(text: str) -> Any:
            return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)

        if name not in self.names:
            log.warning("tool=%s unknown", name)
            return error(f"unknown tool {name!r}")
        rev = args.pop("rev", None)
        try:
            env = facade.run(self.session(), name.removeprefix("ragraf_"), args, rev)
        except RagrafError as e:
            ms = (time.perf_counter() - t0) * 1000
            log.info("tool=%s args=%s error=%s %.1fms", name, sorted(args), type(e).__name__, ms)
            return error(f"{type(e).__name__}: {e}")
        except Exception as e:  # noqa: BLE001 - a tool error, never a dead server
            log.exception("tool=%s args=%s internal error", name, sorted(args))
            return error(f"internal error: {type(e).__name__}")
        text = json.dumps(
            env, ensure_ascii=False, separators=(",", ":")
        )  # no padding: an agent pays per byte
        log.info(
            "tool=%s args=%s ok bytes=%d stale=%d %.1fms",
            name,
            sorted(args),
            len(text),
            len(env["stale_warnings"]),
            (time.perf_counter() - t0) * 1000,
        )
        return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=env)


async def _run_stdio(server: Any) -> None:
    """Serve ``server`` over stdio, answering what the SDK cannot read (``_wire_error``)."""
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    async with stdio_server() as (read, write):
        send, receive = anyio.create_memory_object_stream[Any](0)

        async def answer_unreadable() -> None:
            async with send:
                async for item in read:
                    if isinstance(item, Exception):
                        log.warning("unreadable message: %s", type(item).__name__)
                        await write.send(SessionMessage(_wire_error(item)))
                    else:
                        await send.send(item)

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer_unreadable)
            await server.run(receive, write, server.create_initialization_options())
            tg.cancel_scope.cancel()


def serve(root: Path | None, no_project: RagrafError | None = None) -> None:
    """Serve over stdio. Without a project (``root`` None, ``no_project`` says why) the
    server still starts, so the client can show the reason: a warning on stderr at start
    and a tool error naming it (and what to do) on every call."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from ragraf.agent_guidance import guidance

    _setup_logging(root)
    if no_project is not None:
        log.warning("%s; every tool call will answer with this error", no_project)
    tools = _Tools(root, no_project)
    tools.preload()

    async def list_tools(_ctx: Any, _params: Any) -> Any:
        return types.ListToolsResult(tools=tools.tools)

    async def call_tool(_ctx: Any, params: Any) -> Any:
        return tools.call(params.name, params.arguments)

    server: Any = Server(
        "ragraf",
        version=__version__,
        instructions=guidance(),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    try:
        anyio.run(_run_stdio, server)
    finally:
        tools.close()
