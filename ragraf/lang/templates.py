"""Templates named by code and by other templates: the names a loader takes, and the file
names each may be (``TemplateRef``; the linker makes ``renders`` edges from code and
``imports`` edges between templates, matched to corpus files by these names).

A template is named relative to a loader's folders, which the code configures at run time:
the name is matched against the ends of corpus paths (``/<file name>``), so
``blog/index.html.twig`` finds ``templates/blog/index.html.twig`` and
``users.index`` (Laravel's dotted name) ``resources/views/users/index.blade.php``.

Invariants a change must keep:
- A function of the name alone (FileFacts stay a function of path and content).
- Only names shaped like a template's (no blank, no ``$``) make refs; a name matching no
  file links nothing (the linker counts it).
- Twig's namespaces (``@Admin/x.twig``) and Laravel's (``mail::x``) are dropped: their folder
  is configured elsewhere, the rest of the name is still the file's tail.
"""

from __future__ import annotations

import re

#: the file names a template may have: Twig, Blade, plain PHP views, Smarty, Mustache
TEMPLATE_SUFFIXES = (".twig", ".blade.php", ".php", ".phtml", ".tpl", ".mustache", ".html")
#: template suffixes that code files have too: such a file that declares a class or a
#: function is code (``SimplePie/Author.php`` is no view named ``Author``)
CODE_SUFFIXES = (".php", ".phtml")
#: Mustache's partial tag
_MUSTACHE = re.compile(r"\{\{>\s*([\w./\-]+)\s*\}\}")
#: a template name as code writes it
NAME_SHAPE = re.compile(r"^@?[\w\-][\w\-./:@]{0,200}$")
#: functions whose first argument names a template (Laravel's ``view``, WordPress's loaders)
RENDER_FUNCTIONS = frozenset({"view", "load_template", "get_template_part", "include_template"})
#: methods whose first argument names a template (Symfony's and Twig's ``render``,
#: phpMyAdmin's ``Template::render``, Smarty's ``display`` / ``fetch``, MediaWiki's
#: ``TemplateParser::processTemplate`` (Mustache), Laravel's
#: ``View::make`` and ``$factory->make``)
RENDER_METHODS = frozenset(
    {
        "render",
        "renderview",
        "rendertemplate",
        "renderresponse",
        "renderblock",
        "display",
        "processtemplate",
    }
)
#: methods that render only when their receiver is a view factory (``make``) or when the
#: name has a template's file name (``fetch``)
RENDER_METHODS_QUALIFIED = frozenset({"make", "fetch"})
#: Blade directives whose first argument names a template
_BLADE = re.compile(r"@(include|includeIf|extends|component|each)\(\s*(['\"])([^'\"\n]+)\2")
#: Twig tags and functions that name a template
_TWIG = re.compile(
    r"\{%-?\s*(include|extends|embed|import|from|use)\s+(['\"])([^'\"\n]+)\2"
    r"|\{\{-?\s*(include|source)\(\s*(['\"])([^'\"\n]+)\5"
)


def shaped(name: str | None) -> bool:
    return bool(name) and NAME_SHAPE.match(name or "") is not None


def file_names(
    name: str, slug: str | None = None, suffixes: tuple[str, ...] | None = None
) -> tuple[str, ...]:
    """The file names (path tails) ``name`` may be, most specific first: the name as
    written when it has a template's file name, else with each template suffix; a dotted
    name without a folder also as Laravel's path (``users.index`` -> ``users/index``).
    ``slug`` (WordPress's ``get_template_part($slug, $name)``) tries ``<name>-<slug>.php``
    before ``<name>.php``; ``suffixes`` replaces the template suffixes (a Mustache partial is
    a ``.mustache`` file)."""
    n = name.strip()
    if n.startswith("@") and "/" in n:
        n = n.split("/", 1)[1]  # a Twig namespace: its folder is configured
    if "::" in n:
        n = n.split("::", 1)[1]  # a Laravel view namespace
    n = n.lstrip("./")
    if not n:
        return ()
    if slug:
        return (f"{n}-{slug}.php", f"{n}.php")
    if n.endswith(TEMPLATE_SUFFIXES):
        return (n,)
    stems = [n]
    if "/" not in n and "." in n:
        stems.insert(0, n.replace(".", "/"))
    sufs = suffixes or tuple(s for s in TEMPLATE_SUFFIXES if s != ".html")
    return tuple(f"{s}{suf}" for s in stems for suf in sufs)


def blade_refs(text: str) -> list[tuple[int, str, str]]:
    """(line, how, name) of the templates a Blade template's directives name."""
    out = []
    for m in _BLADE.finditer(text):
        how = "include" if m.group(1).startswith("include") else m.group(1).lower()
        out.append((text.count("\n", 0, m.start()) + 1, how, m.group(3)))
    return out


def twig_refs(text: str) -> list[tuple[int, str, str]]:
    """(line, how, name) of the templates a Twig template's tags and functions name."""
    out = []
    for m in _TWIG.finditer(text):
        how = (m.group(1) or m.group(4)).lower()
        how = {"from": "import", "source": "include"}.get(how, how)
        out.append((text.count("\n", 0, m.start()) + 1, how, m.group(3) or m.group(6)))
    return out


def mustache_refs(text: str) -> list[tuple[int, str, str]]:
    """(line, how, name) of the partials a Mustache template includes."""
    return [
        (text.count("\n", 0, m.start()) + 1, "include", m.group(1))
        for m in _MUSTACHE.finditer(text)
    ]
