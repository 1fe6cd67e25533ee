"""`ragraf setup-agent CLIENT`, `ragraf uninit` and status's pending line (issue 43.7).

Each client's file is checked against the shape its documentation gives (cited in
``ragraf.agent_setup.CLIENTS``), written into a temporary project and a temporary HOME
(conftest gives every test its own); merging keeps the user's other entries, a second run
changes no byte, and uninit takes back exactly what ragraf wrote."""

from __future__ import annotations

import json
import os
import signal
import tomllib
from pathlib import Path

import pytest

from ragraf import agent_setup, config
from ragraf.drift import anchor
from ragraf.indexing import indexer
from tests.helpers import copy_pilot, edit_file, invoke, start_at_failpoint

RAGRAF = agent_setup.ragraf_command()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CODEX_HOME", raising=False)
    root = copy_pilot(tmp_path / "pilot")
    config.init_project(root)
    return root.resolve()


def _entry(root: Path, typed: bool) -> dict[str, object]:
    e: dict[str, object] = {"type": "stdio"} if typed else {}
    e.update(
        command=RAGRAF[0],
        args=[*RAGRAF[1:], "-C", str(root), "mcp"],
        env={"RAGRAF_ACTOR": "agent"},
    )
    return e


#: client -> (file, the key holding the servers, whether an entry names its transport)
DOCUMENTED = {
    "claude-code": (".mcp.json", "mcpServers", True),
    "cursor": (".cursor/mcp.json", "mcpServers", False),
    "vscode": (".vscode/mcp.json", "servers", True),
    "zed": (".zed/settings.json", "context_servers", False),
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_each_project_client_gets_its_documented_file(project: Path, name: str) -> None:
    rel, key, typed = DOCUMENTED[name]
    r = invoke("-C", project, "setup-agent", name, check=True)
    doc = json.loads((project / rel).read_text(encoding="utf-8"))
    assert doc == {key: {"ragraf": _entry(project, typed)}}
    assert r.stdout.splitlines()[0] == (
        f"{project / rel}: ragraf server created ({' '.join(RAGRAF)} -C {project} mcp)"
    )
    assert f"{project / 'AGENTS.md'}: regimen created" in r.stdout
    assert "<!-- ragraf:begin" in (project / "AGENTS.md").read_text(encoding="utf-8")
    # Claude Code reads CLAUDE.md, not AGENTS.md: it imports it there (and only there)
    claude = project / "CLAUDE.md"
    assert claude.is_file() == (name == "claude-code")
    if name == "claude-code":
        assert "\n@AGENTS.md\n" in claude.read_text(encoding="utf-8")


def test_codex_gets_its_table_in_the_users_config(project: Path) -> None:
    home = Path(os.environ["HOME"])
    r = invoke("-C", project, "setup-agent", "codex", check=True)
    path = home / ".codex" / "config.toml"
    assert tomllib.loads(path.read_text(encoding="utf-8")) == {
        "mcp_servers": {"ragraf": _entry(project, False)}
    }
    assert f"its ragraf server now answers for {project}" in r.stdout
    assert not (project / ".codex").exists()


def test_codex_home_is_honoured(project: Path, tmp_path: Path) -> None:
    invoke("-C", project, "setup-agent", "codex", env={"CODEX_HOME": str(tmp_path / "cx")})
    assert (tmp_path / "cx" / "config.toml").is_file()


def test_merge_keeps_the_users_entries_and_a_second_run_changes_nothing(project: Path) -> None:
    mine = {
        "mcpServers": {"other": {"command": "other-server", "args": ["--x"]}},
        "keep": [1, 2],
    }
    (project / ".mcp.json").write_text(json.dumps(mine), encoding="utf-8")
    invoke("-C", project, "setup-agent", "claude-code", check=True)
    doc = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert doc == {
        "mcpServers": {"other": mine["mcpServers"]["other"], "ragraf": _entry(project, True)},
        "keep": [1, 2],
    }
    files = [".mcp.json", "AGENTS.md", "CLAUDE.md"]
    before = {f: (project / f).read_bytes() for f in files}
    again = invoke("-C", project, "setup-agent", "claude-code", check=True)
    assert {f: (project / f).read_bytes() for f in files} == before
    assert "ragraf server unchanged" in again.stdout
    assert "regimen unchanged" in again.stdout
    assert "import of AGENTS.md unchanged" in again.stdout


def test_toml_merge_keeps_comments_and_other_tables_byte_for_byte(project: Path) -> None:
    path = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    head = '# my settings\nmodel = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-server"\n'
    tail = '\n# profiles below\n[profiles.fast]\nmodel = "mini"\n'
    old_ours = '[mcp_servers.ragraf]\ncommand = "/old/ragraf"\nargs = ["mcp"]\n'
    path.write_text(head + "\n" + old_ours + tail, encoding="utf-8")
    invoke("-C", project, "setup-agent", "codex", check=True)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(head + "\n[mcp_servers.ragraf]\n") and text.endswith(tail)
    doc = tomllib.loads(text)
    assert doc["mcp_servers"] == {
        "docs": {"command": "docs-server"},
        "ragraf": _entry(project, False),
    }
    assert doc["profiles"] == {"fast": {"model": "mini"}} and doc["model"] == "o3"
    before = path.read_bytes()
    invoke("-C", project, "setup-agent", "codex", check=True)
    assert path.read_bytes() == before


def test_files_ragraf_cannot_rewrite_faithfully_are_refused_untouched(project: Path) -> None:
    # JSON with comments (a JSONC settings file): rewriting would drop them
    zed = project / ".zed" / "settings.json"
    zed.parent.mkdir()
    zed.write_text('{\n  // my theme\n  "theme": "One Dark",\n}\n', encoding="utf-8")
    r = invoke("-C", project, "setup-agent", "zed")
    assert r.exit_code == 5 and "has comments, which ragraf does not rewrite" in r.stderr
    assert '"context_servers": {' in r.stderr  # the entry to add by hand
    assert zed.read_text(encoding="utf-8") == '{\n  // my theme\n  "theme": "One Dark",\n}\n'
    # TOML whose servers are written inline: no table of ours can be placed
    path = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    path.parent.mkdir(parents=True)
    inline = 'mcp_servers = { other = { command = "x" } }\n'
    path.write_text(inline, encoding="utf-8")
    r = invoke("-C", project, "setup-agent", "codex")
    assert r.exit_code == 5 and "cannot place its [mcp_servers.ragraf] table" in r.stderr
    assert path.read_text(encoding="utf-8") == inline
    # invalid JSON is a configuration error, named
    (project / ".mcp.json").write_text("{nope", encoding="utf-8")
    r = invoke("-C", project, "setup-agent", "claude-code")
    assert r.exit_code == 2 and "not valid JSON" in r.stderr


def test_print_writes_nothing(project: Path) -> None:
    r = invoke("-C", project, "setup-agent", "vscode", "--print", check=True)
    assert not (project / ".vscode").exists() and not (project / "AGENTS.md").exists()
    body = r.stdout.split("\n", 1)[1].split("\n# ", 1)[0]
    assert json.loads(body) == {"servers": {"ragraf": _entry(project, True)}}
    assert "<!-- ragraf:begin" in r.stdout


def test_writing_through_a_symlink_is_refused(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (project / ".cursor").symlink_to(elsewhere)
    r = invoke("-C", project, "setup-agent", "cursor")
    assert r.exit_code == 5 and "is a symlink" in r.stderr
    assert not list(elsewhere.iterdir())


def test_unknown_client_names_the_known_ones(project: Path) -> None:
    r = invoke("-C", project, "setup-agent", "cursr")
    assert r.exit_code == 2
    assert "unknown client 'cursr' (did you mean cursor?); clients: claude-code," in r.stderr


@pytest.mark.slow
def test_uninit_round_trip_takes_back_exactly_what_ragraf_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_pilot(tmp_path / "pilot").resolve()
    (root / ".gitignore").write_text("node_modules/\n", encoding="utf-8")
    (root / "AGENTS.md").write_text("# Our rules\n\nBe kind.\n", encoding="utf-8")
    invoke("init", root, "--agents", check=True)
    indexer.build(config.load(root), no_vectors=True)
    invoke("-C", root, "setup-agent", "claude-code", check=True)
    edit_file(root, "src/bootstrap.php", "function format_money", "function format_money_v2")
    invoke("-C", root, "drift", "--scan", check=True)
    assert anchor.path_for(root).is_file()
    r = invoke("-C", root, "uninit", "--yes", check=True)
    assert not (root / ".ragraf").exists()
    assert (root / ".gitignore").read_text(encoding="utf-8") == "node_modules/\n"
    assert (root / "AGENTS.md").read_text(encoding="utf-8") == "# Our rules\n\nBe kind.\n"
    assert not (root / "CLAUDE.md").exists()  # it held only ragraf's import
    assert not anchor.path_for(root).exists()
    # the client's file is not ragraf's to remove: kept, and named with the command that does
    assert (root / ".mcp.json").is_file()
    assert (
        f"{root / '.mcp.json'}: kept: it still registers the ragraf server for Claude Code"
        " (`ragraf setup-agent claude-code --remove` removes the entry)"
    ) in r.stdout.splitlines()
    # a new start is a clean one: the old ledger's head does not haunt verify
    invoke("init", root, check=True)
    indexer.build(config.load(root), no_vectors=True)
    assert invoke("-C", root, "verify").exit_code == 0
    invoke("-C", root, "uninit", "--yes", check=True)
    assert (root / ".gitignore").read_text(encoding="utf-8") == "node_modules/\n"
    r = invoke("-C", root, "setup-agent", "claude-code", "--remove", check=True)
    assert "(the file held nothing else: deleted)" in r.stdout
    assert not (root / ".mcp.json").exists()
    fresh = [p.name for p in copy_pilot(tmp_path / "fresh").iterdir()]
    assert sorted(p.name for p in root.iterdir()) == sorted([*fresh, ".gitignore", "AGENTS.md"])


def test_uninit_refuses_through_symlinks_like_init(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "their-ignore"
    target.write_text(config.GITIGNORE_LINES, encoding="utf-8")
    (project / ".gitignore").unlink()
    (project / ".gitignore").symlink_to(target)
    r = invoke("-C", project, "uninit", "--yes")
    assert r.exit_code == 5 and "is a symlink" in r.stderr
    assert (project / ".ragraf" / "config" / "project.yaml").is_file()  # nothing removed
    assert target.read_text(encoding="utf-8") == config.GITIGNORE_LINES


def test_uninit_without_yes_asks(project: Path) -> None:
    r = invoke("-C", project, "uninit", input_text="n\n")
    assert r.exit_code == 1 and (project / ".ragraf").is_dir()


@pytest.mark.slow
def test_uninit_refuses_while_a_build_runs(project: Path) -> None:
    proc = start_at_failpoint(project, "after-scan", "index", "--no-vectors")
    try:
        r = invoke("-C", project, "uninit", "--yes")
        assert r.exit_code == 4 and "uninit removed nothing" in r.stderr
        assert (project / ".ragraf" / "config" / "project.yaml").is_file()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def test_status_names_pending_changes_and_the_next_command(indexed_pilot: Path) -> None:
    assert "Pending changes" not in invoke("-C", indexed_pilot, "status", check=True).stdout
    edit_file(indexed_pilot, "src/Billing/Invoice.php", "return $ok;", "return !$ok;")
    (indexed_pilot / "src" / "bootstrap.php").unlink()
    lines = invoke("-C", indexed_pilot, "status", check=True).stdout.splitlines()
    assert "Pending changes: 1 modified file, 1 deleted file — run `ragraf drift --scan`" in lines
    js = json.loads(invoke("-C", indexed_pilot, "status", "--json", check=True).stdout)
    assert js["pending"]["modified"] == ["src/Billing/Invoice.php"]
    assert js["pending"]["deleted"] == ["src/bootstrap.php"]
    invoke("-C", indexed_pilot, "drift", "--scan", check=True)
    assert "Pending changes" not in invoke("-C", indexed_pilot, "status", check=True).stdout
