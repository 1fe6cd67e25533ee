"""Where the package finds its data: default configs, schemas, queries, templates, the
default model's tokenizer files.

In a wheel, ``config/`` and ``schemas/`` are bundled under ``ragraf/_bundled``;
in a source checkout (editable install) they are read from the repository root.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2

_PKG = Path(__file__).resolve().parent


@cache
def _root(name: str) -> Path:
    bundled = _PKG / "_bundled" / name
    if bundled.is_dir():
        return bundled
    return _PKG.parent / name


def config_dir() -> Path:
    return _root("config")


def schemas_dir() -> Path:
    return _root("schemas")


def queries_dir() -> Path:
    return _PKG / "queries"


def templates_dir() -> Path:
    return _PKG / "templates"


def default_tokenizer_dir() -> Path:
    """The tokenizer files of the default embedding model (package data, see its NOTICE)."""
    return _PKG / "models" / "all-MiniLM-L6-v2"


@cache
def _jinja() -> jinja2.Environment:
    import jinja2

    from ragraf.escape import escape

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        # Markdown reports are not escaped as HTML (they use `esc`); *.html.j2 pages are
        autoescape=jinja2.select_autoescape(
            enabled_extensions=("html.j2",), default_for_string=False, default=False
        ),
        keep_trailing_newline=True,
        trim_blocks=False,
    )
    # `esc`: a repository-made name in Markdown: control characters visible (no forged
    # lines), backticks escaped (no broken code spans)
    env.filters["esc"] = lambda v: escape(str(v)).replace("`", "\\`")
    return env


def template(name: str) -> jinja2.Template:
    """A template of ``ragraf/templates/`` from the one jinja2 environment."""
    return _jinja().get_template(name)
