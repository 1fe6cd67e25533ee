"""End to end: `ragraf mcp` as a subprocess, driven by the official SDK's stdio client."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from ragraf import agent_guidance, facade
from tests.schemacheck import check

pytestmark = pytest.mark.slow  # a real server process per test, driven over stdio


async def _drive(
    root: Path, calls: list[tuple[str, dict[str, Any]]], init: list[Any] | None = None
) -> tuple[list[Any], list[Any]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ragraf", "-C", str(root), "mcp"]
    )
    with open(root / "mcp-stderr.log", "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            result = await session.initialize()
            if init is not None:
                init.append(result)
            tools = (await session.list_tools()).tools
            results = [await session.call_tool(name, args) for name, args in calls]
    return tools, results


def test_mcp_server_end_to_end(indexed_pilot: Path) -> None:
    calls = [
        ("ragraf_index_status", {}),
        ("ragraf_symbol", {"fqn": "App\\Billing\\Invoice::charge"}),
        ("ragraf_callers", {"fqn": "App\\Core\\Database::query", "depth": 2}),
        ("ragraf_search", {"query": "how are invoices charged", "limit": 3}),
        ("ragraf_impact", {"fqn": "App\\Core\\Database", "mode": "hard"}),
        ("ragraf_live_read", {"path": "../outside.php"}),
        ("ragraf_callers", {"fqn": "App\\Core\\Database::query", "depth": 9}),
        ("ragraf_symbol", {"name": "charge", "rev": "rev-0099"}),
    ]
    init: list[Any] = []
    tools, results = anyio.run(_drive, indexed_pilot, calls, init)
    assert init[0].instructions == agent_guidance.guidance()  # the one regimen text
    assert {t.name for t in tools} == {f"ragraf_{op}" for op in facade.OPERATIONS}
    writers = {f"ragraf_{op}" for op in facade.OPERATIONS if facade.spec(op).writes}
    assert writers == {"ragraf_drift_ack", "ragraf_calibrate"}
    for t in tools:
        spec = facade.spec(t.name.removeprefix("ragraf_"))
        assert t.annotations is not None and t.annotations.read_only_hint is spec.read_only
        assert t.annotations.read_only_hint is (t.name not in writers)
        assert t.annotations.open_world_hint is spec.network is False
        assert t.annotations.destructive_hint is False
        assert t.description and t.description == facade.describe(t.name.removeprefix("ragraf_"))
        assert t.input_schema["type"] == "object" and "rev" in t.input_schema["properties"]
    ok, bad = results[:5], results[5:]
    for (name, _args), res in zip(calls[:5], ok, strict=True):
        assert not res.is_error, res.content
        env = json.loads(res.content[0].text)
        check(env)
        assert env["op"] == name.removeprefix("ragraf_") and env["index_rev"] == "rev-0001"
    callers = json.loads(ok[2].content[0].text)["result"]
    assert len(callers["stated"]) == 4 and len(callers["derived"]) == 1
    assert bad[0].is_error and "leaves the project root" in bad[0].content[0].text
    assert bad[1].is_error and "between 1 and 3" in bad[1].content[0].text
    assert bad[2].is_error and "not retained" in bad[2].content[0].text
    log = (indexed_pilot / ".ragraf" / "logs" / "mcp.log").read_text()
    assert "tool=ragraf_symbol" in log and "Invoice" not in log  # argument names, never values


def test_mcp_callers_takes_a_limit_and_says_how_to_get_the_rest(indexed_pilot: Path) -> None:
    """Issue 43: a list-returning tool takes `limit` (and `offset`) from its declared input
    schema; the answer says how many of how many it lists and where the next page starts;
    the totals count everything."""
    q = {"fqn": "App\\Core\\Database::query", "depth": 2}
    calls = [
        ("ragraf_callers", q),
        ("ragraf_callers", {**q, "limit": 2}),
        ("ragraf_callers", {**q, "limit": 2, "offset": 2}),
        ("ragraf_callers", {**q, "limit": 0}),
    ]
    tools, results = anyio.run(_drive, indexed_pilot, calls)
    schema = next(t for t in tools if t.name == "ragraf_callers").input_schema["properties"]
    assert (schema["limit"]["default"], schema["limit"]["maximum"]) == (20, 500)
    assert schema["offset"]["minimum"] == 0
    whole, first, second = (check(json.loads(r.content[0].text)) for r in results[:3])
    everyone = [(i["fqn"], sec) for sec in ("stated", "derived") for i in whole[sec]]
    assert len(everyone) == whole["total"] == 5 and whole["counts"] == {"stated": 4, "derived": 1}
    assert whole["page"]["next_offset"] is None and whole["page"]["rest"] is None
    assert [(i["fqn"], "stated") for i in first["stated"]] == everyone[:2]
    assert first["derived"] == [] and (first["total"], first["counts"]) == (5, whole["counts"])
    assert first["page"]["lists"] == {"callers": {"listed": 2, "total": 5}}
    assert first["page"]["next_offset"] == 2
    assert first["page"]["rest"] == "2 of 5 callers listed; next: offset 2, or limit 5 for all"
    page2 = [(i["fqn"], sec) for sec in ("stated", "derived") for i in second[sec]]
    assert page2 == everyone[2:4] and second["page"]["next_offset"] == 4
    assert len(results[1].content[0].text) < len(results[0].content[0].text)
    assert results[3].is_error and "between 1 and 500" in results[3].content[0].text


def test_mcp_without_an_index_answers_with_a_tool_error(pilot: Path) -> None:
    _tools, [res] = anyio.run(_drive, pilot, [("ragraf_symbol", {"name": "x"})])
    assert res.is_error and "ragraf index" in res.content[0].text


def test_mcp_outside_a_project_starts_and_says_why(tmp_path: Path) -> None:
    empty = tmp_path / "not-a-project"
    empty.mkdir()
    tools, [res] = anyio.run(_drive, empty, [("ragraf_symbol", {"name": "x"})])
    assert {t.name for t in tools} == {f"ragraf_{op}" for op in facade.OPERATIONS}
    text = res.content[0].text
    assert res.is_error and "no RAGRAF project at or above" in text and "ragraf init" in text
    assert "-C /path/to/project mcp" in text
    stderr = (empty / "mcp-stderr.log").read_text()
    assert "no RAGRAF project at or above" in stderr


@pytest.mark.model
def test_mcp_loads_the_model_in_the_background(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 17: the server starts loading the model when it starts, in a thread, so the first
    search does not pay the load; other tools answer meanwhile."""
    from ragraf import config
    from ragraf.indexing import indexer
    from tests.helpers import copy_pilot

    monkeypatch.delenv("RAGRAF_VECTORS", raising=False)
    root = copy_pilot(tmp_path / "p")
    config.init_project(root)
    assert indexer.build(config.load(root)).vectors["status"] == "ready"
    log_path = root / ".ragraf" / "logs" / "mcp.log"

    async def drive() -> tuple[Any, Any]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "ragraf", "-C", str(root), "mcp"]
        )
        with open(root / "mcp-stderr.log", "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                status = await session.call_tool("ragraf_index_status", {})
                for _ in range(600):  # the load takes ~1-3 s on a loaded machine
                    if log_path.is_file() and "model preloaded" in log_path.read_text():
                        break
                    await anyio.sleep(0.1)
                found = await session.call_tool(
                    "ragraf_search",
                    {"query": "how are invoices charged", "limit": 3, "detail": "full"},
                )
        return status, found

    status, found = anyio.run(drive)
    assert not status.is_error and not found.is_error, (status.content, found.content)
    hits = json.loads(found.content[0].text)["result"]["hits"]
    # the ranking between the class (its docblock says "can be charged") and its charge() is
    # tests/test_search.py's business; here the hit must be found and by the preloaded model
    charge = [h for h in hits if h["fqn"] == "App\\Billing\\Invoice::charge"]
    assert charge, [h["fqn"] for h in hits]
    assert "vector_rank" in charge[0]["why"]
    lines = log_path.read_text().splitlines()
    preload = next(i for i, line in enumerate(lines) if "model preloaded in the background" in line)
    search_at = next(i for i, line in enumerate(lines) if "tool=ragraf_search" in line)
    assert preload < search_at
    assert sum("model preloaded" in line for line in lines) == 1


def test_every_line_gets_a_json_rpc_answer(indexed_pilot: Path) -> None:
    """Lines the SDK cannot read (a lone surrogate escape, 100,000-deep nesting, text that
    is no JSON, JSON that is no message) each get a JSON-RPC error with the request's id
    where it can be known, and the server goes on answering (raw wire: no SDK client can
    send these)."""
    import select
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, "-m", "ragraf", "-C", str(indexed_pilot), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    init = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    deep = "[" * 100_000 + "]" * 100_000
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ragraf_search",'
        '"arguments":{"query":"\\ud800"}}}',
        '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"ragraf_search",'
        f'"arguments":{{"query":{deep}}}}},"id":"three"}}',
        "not json at all",
        '{"jsonrpc":"2.0","id":5}',
        json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}),
    ]
    answers: dict[Any, Any] = {}
    for line in lines:
        proc.stdin.write(line.encode() + b"\n")
        proc.stdin.flush()
        if '"method": "notifications/initialized"' in line:
            continue
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, f"no answer to {line[:80]!r}"
        got = json.loads(proc.stdout.readline())
        answers[got.get("id")] = got
    proc.stdin.close()
    assert proc.wait(timeout=30) == 0
    assert answers[2]["error"]["code"] == -32700 and "hex escape" in answers[2]["error"]["message"]
    assert answers["three"]["error"]["code"] == -32700
    assert "recursion" in answers["three"]["error"]["message"]
    assert answers[None]["error"]["code"] == -32700  # no id can be known
    assert answers[5]["error"]["code"] == -32600
    assert answers[6]["result"]["tools"]  # still serving


def test_the_top_level_id_is_found_whatever_the_nesting() -> None:
    from ragraf.cli.mcp_server import _top_level_id

    assert _top_level_id('{"params": {"id": 9, "x": "\\"id\\": 8"}, "id": 7}') == 7
    assert _top_level_id('{"id": "a\\"b", "p": [' + "[" * 50_000) == 'a"b'
    assert _top_level_id('{"p": {"id": 1}}') is None
    assert _top_level_id("[1, 2]") is None
