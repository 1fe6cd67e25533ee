"""The README's commands and the generated CLI reference agree: every `ragraf ...` line of the
README names a real command, and each of its options is in that command's --help (for
`ragraf query OP`, in the operation's help); docs/CLI.md is the output of those helps."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from ragraf import facade
from ragraf.cli import docgen

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[list[str]]:
    """The tokens after `ragraf` of every README line that is a `ragraf ...` command (the
    command list and the examples; a `# comment` and `[optional]` brackets dropped)."""
    out = []
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        code = line.split("  #", 1)[0].strip()
        if not code.startswith("ragraf "):
            continue
        text = code.removeprefix("ragraf ").replace("[", " ").replace("]", " ")
        out.append(shlex.split(text))
    return out


def _command_path(tokens: list[str]) -> tuple[list[str], list[str]]:
    """(the command path, the rest) of `ragraf [-C PATH] cmd [sub] ...`."""
    known = {tuple(p) for p in docgen._commands()}
    rest = list(tokens)
    if rest[:1] == ["-C"]:
        rest = rest[2:]
    path: list[str] = []
    while rest and (*path, rest[0]) in known:
        path.append(rest.pop(0))
    return path, rest


def test_every_readme_command_exists_with_its_options() -> None:
    commands = _readme_commands()
    assert len(commands) >= 15, commands  # the README's command list was found
    cli_md = (ROOT / "docs" / "CLI.md").read_text(encoding="utf-8")
    for tokens in commands:
        path, rest = _command_path(tokens)
        assert path, f"README: `ragraf {' '.join(tokens)}` names no command"
        assert f"## ragraf {' '.join(path)}\n" in cli_md, path
        if path == ["query"] and rest and rest[0] in facade.OPERATIONS:
            path, rest = [*path, rest.pop(0)], rest
        help_text = docgen.help_text(path)
        for opt in (t.split("=")[0] for t in rest if t.startswith("--")):
            assert re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", help_text), (
                f"README: `ragraf {' '.join(tokens)}`: {opt} is not in `ragraf"
                f" {' '.join(path)} --help`"
            )


def test_cli_reference_is_the_help_output() -> None:
    assert (ROOT / "docs" / "CLI.md").read_text(encoding="utf-8") == docgen.cli_md()


def test_every_command_is_in_the_readme() -> None:
    """A command the README does not name is one a new user never finds (`model` was)."""
    named = {tuple(_command_path(t)[0]) for t in _readme_commands()}
    leaves = [
        tuple(p)
        for p in docgen._commands()
        if p and not any(q[: len(p)] == p and len(q) > len(p) for q in docgen._commands())
    ]
    missing = [" ".join(p) for p in leaves if p not in named]
    assert not missing, f"README names no `ragraf {missing[0]}` command line"


def _setup_section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split("## Set-up on a fresh machine", 1)[1].split("\n## ", 1)[0]


def test_setup_is_two_commands_and_says_how_long_the_tests_take() -> None:
    section = _setup_section()
    commands = [ln.strip() for ln in section.splitlines() if ln.startswith("    ")]
    assert commands == ["make example", "make test"], commands
    # the whole suite takes minutes: the README says how many, and names the inner loop
    assert re.search(r"`make test` takes ~\d+ minutes on 2 cores", section), section
    assert "`make test-fast`" in section, section
