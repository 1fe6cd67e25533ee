"""The agent regimen and the generated reference never drift from the code."""

from __future__ import annotations

from pathlib import Path

from ragraf import agent_guidance, facade
from ragraf.cli import docgen
from tests.helpers import REPO, invoke


def test_reference_is_generated_from_the_facade() -> None:
    committed = (REPO / docgen.REFERENCE).read_text(encoding="utf-8")
    assert committed == docgen.operations_md(), "run: python -m ragraf.cli.docgen"
    for op in facade.OPERATIONS:
        assert f"## {op}\n" in committed
        assert facade.describe(op) in committed
        assert f"Effects: {facade.spec(op).effects()}" in committed


def test_skill_and_cli_reference_are_generated() -> None:
    for rel, make in docgen.GENERATED.items():
        assert (REPO / rel).read_text(encoding="utf-8") == make(), (
            f"{rel}: run python -m ragraf.cli.docgen"
        )
    skill = (REPO / docgen.SKILL).read_text(encoding="utf-8")
    assert agent_guidance.guidance() in skill  # the skill carries the one regimen text verbatim
    cli = (REPO / docgen.CLI_REFERENCE).read_text(encoding="utf-8")
    for path in docgen._commands():
        assert f"## ragraf {' '.join(path)}".rstrip() + "\n" in cli


def test_every_command_has_help() -> None:
    for path in docgen._commands():
        text = docgen.help_text(path)
        assert "Usage: ragraf" in text
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        # a line of description after the usage line, for every command
        assert len(lines) >= 2 and not lines[1].startswith("╭"), (
            f"ragraf {' '.join(path)}: no help text"
        )


def test_agents_md_carries_the_regimen_verbatim() -> None:
    text = (REPO / "AGENTS.md").read_text(encoding="utf-8")
    assert agent_guidance.regimen().rstrip("\n") in text
    for step in ("ragraf_index_status", "ragraf_drift_report", "drift --scan", "reindex --commit"):
        assert step in agent_guidance.regimen()
    skill = (REPO / "skills/ragraf-core/SKILL.md").read_text(encoding="utf-8")
    for op in ("symbol", "callers", "impact", "search", "live_read"):
        assert f"ragraf_{op}" in skill
    assert (
        agent_guidance.guidance().strip() and agent_guidance.BEGIN not in agent_guidance.guidance()
    )


def test_init_agents_is_idempotent_and_keeps_the_rest(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# House rules\n\nUse tabs.\n")
    root = tmp_path.resolve()
    r1 = invoke("init", tmp_path, "--agents", check=True)
    assert r1.stdout == ""
    assert r1.stderr == (
        f"ragraf: wrote {root}/.ragraf/config/project.yaml\n"
        f"ragraf: wrote {root}/.ragraf/config/confidence.yaml\n"
        f"ragraf: wrote {root}/.gitignore\n"
        f"ragraf: {root}/AGENTS.md: regimen updated\n"
    )
    once = (tmp_path / "AGENTS.md").read_text()
    assert (
        once.startswith("# House rules\n\nUse tabs.\n")
        and agent_guidance.regimen().rstrip("\n") in once
    )
    r2 = invoke("init", tmp_path, "--agents", check=True)
    assert (r2.stdout, r2.stderr) == (
        "",
        f"ragraf: {root}/.ragraf/config already holds a configuration; kept as is\n"
        f"ragraf: {root}/AGENTS.md: regimen unchanged\n",
    )
    assert (tmp_path / "AGENTS.md").read_text() == once
    # an edited block is refreshed in place, the text around it stays
    (tmp_path / "AGENTS.md").write_text(
        once.replace("Order of work", "Order of wrk") + "\nFooter.\n"
    )
    agent_guidance.install(tmp_path)
    again = (tmp_path / "AGENTS.md").read_text()
    assert again == once + "\nFooter.\n"
    fresh = tmp_path / "new"
    fresh.mkdir()
    assert agent_guidance.install(fresh)[1] == "created"


def test_every_module_says_what_it_is() -> None:
    """docs/architecture.md §3 lists every module with its docstring's first sentence."""
    table = docgen.components_md()
    assert "(no docstring)" not in table
    assert "`ragraf/indexing/indexer.py`" in table and "| cli | `ragraf/cli/app.py`" in table
