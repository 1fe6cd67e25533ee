"""Method calls templates make: Twig's attribute accesses (``{{ index.getName }}``,
``{{ a.b() }}``, ``{% for c in index.getColumns() %}``, ``{% if a.b %}``) and Blade's
``{{ $a->b() }}`` / ``@foreach ($a->items() as $x)``, as ``TemplateCallRef``s: the
variable the access starts from and the steps to the receiver, which the linker types by
the variables the rendering code passes (``ragraf.lang.php.link.templates``).

A variable a ``for`` / ``@foreach`` binds is an element of the collection it loops over,
one ``set`` binds is what its expression is; the roots of an access are the template's
context variables (those the renderer passes).

Invariants a change must keep:
- A function of the template's text (FileFacts stay a function of path and content).
- A root that is no context variable (a macro's parameter or an imported macro library,
  ``_self``, ``loop``, a function's result) is unknown (``root`` ""): the linker may
  match the name only.
- Steps are ``a:<name>`` (a Twig attribute: method ``name``, ``getName``, ``isName`` or
  ``hasName``, or property ``name``, as Twig resolves it), ``m:<name>`` (a PHP method call),
  ``p:<name>`` (a PHP property) and ``[]`` (an element).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ragraf.lang.facts import TemplateCallRef

#: how many accesses one template may make (a generated template says little per access)
MAX_CALLS = 2000
#: Twig's expression tags and comments
_TWIG_TAG = re.compile(r"\{\{-?~?(.*?)~?-?\}\}|\{%-?~?(.*?)~?-?%\}|\{#.*?#\}", re.S)
_TOKEN = re.compile(
    r"\s+|(?P<s>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")|(?P<n>\d+)|(?P<id>[A-Za-z_]\w*)"
    r"|(?P<p>\?->|->|=>|\$|[^\sA-Za-z_0-9])",
    re.S,
)
#: words of Twig's expression language that name no variable
_TWIG_WORDS = frozenset(
    "and or not in is matches starts ends with b-and b-or b-xor true false null none as "
    "if else defined empty even odd iterable same divisible by constant sameas only "
    "ignore missing loop _self _context _charset".split()
)
#: filters that keep a collection's elements (``for x in items|sort``)
_KEEP_ELEMENTS = frozenset({"sort", "reverse", "slice", "filter", "default", "raw"})


class _Tok(NamedTuple):
    kind: str  # s (string) | n (number) | id | p (punctuation)
    text: str
    line: int


#: what a name is bound to: (root context variable, "" for unknown; steps)
Chain = tuple[str, tuple[str, ...]]


def _tokens(text: str, line: int) -> list[_Tok]:
    out = []
    pos = 0
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind is None:
            continue
        line += text.count("\n", pos, m.start())
        pos = m.start()
        out.append(_Tok(kind, m.group(kind), line))
    return out


def _close(toks: list[_Tok], i: int) -> int:
    """The index after the bracket matching the one at ``i``."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = [pairs[toks[i].text]]
    j = i + 1
    while j < len(toks) and stack:
        t = toks[j].text if toks[j].kind == "p" else ""
        if t in pairs:
            stack.append(pairs[t])
        elif t == stack[-1]:
            stack.pop()
        j += 1
    return j


class _Scanner:
    """Accesses of one template's expressions; ``scopes`` are the names bound (loops,
    ``set``, macros) innermost last."""

    def __init__(self, php: bool) -> None:
        self.php = php
        self.scopes: list[tuple[str, dict[str, Chain | None]]] = []
        self.refs: list[TemplateCallRef] = []
        #: (line, template name, passes, only) of the includes naming a literal template
        self.includes: list[
            tuple[int, str, tuple[tuple[str, str, tuple[str, ...]], ...], bool]
        ] = []

    def resolve(self, name: str) -> Chain | None:
        """What a name names: a bound chain, a context variable, or None (unknown)."""
        for _kind, names in reversed(self.scopes):
            if name in names:
                return names[name]
        if any(kind == "macro" for kind, _ in self.scopes):
            return None  # a macro sees its arguments only
        return (name, ())

    def bind(self, name: str, chain: Chain | None) -> None:
        if self.scopes:
            self.scopes[-1][1][name] = chain
        else:
            self.scopes.append(("set", {name: chain}))

    def chain(self, toks: list[_Tok], i: int, stop: int) -> tuple[Chain | None, int]:
        """The access chain starting at ``i`` (a variable), each access recorded: what it
        evaluates to and the index after it."""
        t = toks[i]
        if self.php:
            if t.text != "$" or i + 1 >= stop or toks[i + 1].kind != "id":
                return None, i + 1
            bound = self.resolve(toks[i + 1].text)
            j = i + 2
        else:
            bound = None if t.text in _TWIG_WORDS else self.resolve(t.text)
            j = i + 1
            if j < stop and toks[j].text == "(":  # a function: its result is unknown
                self.scan(toks, j + 1, _close(toks, j) - 1)
                j = _close(toks, j)
                bound = None
        root, steps = bound if bound is not None else ("", ())
        steps_l = list(steps)
        while j < stop:
            p = toks[j]
            if p.kind == "p" and p.text in ((".",) if not self.php else ("->", "?->")):
                if j + 1 >= stop or toks[j + 1].kind not in ("id", "n"):
                    break
                if toks[j + 1].kind == "n":  # a.0: an element
                    steps_l.append("[]")
                    j += 2
                    continue
                name = toks[j + 1].text
                j += 2
                called = j < stop and toks[j].text == "("
                if called:
                    end = _close(toks, j)
                    self.scan(toks, j + 1, end - 1)
                    j = end
                if (not self.php or called) and len(self.refs) < MAX_CALLS:
                    self.refs.append(
                        TemplateCallRef(0, p.line, root, tuple(steps_l), name, called, self.php)
                    )
                steps_l.append(("m:" if called else "p:") + name if self.php else "a:" + name)
            elif p.kind == "p" and p.text == "[":
                end = _close(toks, j)
                self.scan(toks, j + 1, end - 1)
                j = end
                steps_l.append("[]")
            else:
                break
        return (root, tuple(steps_l)), j

    def scan(self, toks: list[_Tok], i: int, stop: int) -> None:
        """Record the accesses of ``toks[i:stop]``."""
        while i < stop:
            t = toks[i]
            prev = toks[i - 1].text if i else ""
            starts = (
                t.kind == "p" and t.text == "$"
                if self.php
                else t.kind == "id"
                and prev not in (".", "|")
                and not (
                    i + 1 < stop and toks[i + 1].text in (":", "=")  # a hash key, a named arg
                )
            )
            if starts:
                _chain, i = self.chain(toks, i, stop)
            else:
                i += 1

    def expr_chain(self, toks: list[_Tok], i: int, stop: int) -> Chain | None:
        """The chain ``toks[i:stop]`` is when it is one access chain (filters that keep a
        collection's elements may follow), recording its accesses; else None."""
        if i >= stop:
            return None
        start = toks[i]
        if not ((start.kind == "id") if not self.php else start.text == "$"):
            self.scan(toks, i, stop)
            return None
        chain, j = self.chain(toks, i, stop)
        rest = j
        while (
            not self.php
            and rest + 1 < stop
            and toks[rest].text == "|"
            and toks[rest + 1].text in _KEEP_ELEMENTS
        ):
            rest += 2
            if rest < stop and toks[rest].text == "(":
                rest = _close(toks, rest)
        self.scan(toks, j, stop)
        if j + 2 == stop and toks[j].text == "|" and toks[j + 1].text in ("first", "last"):
            # an element of the collection
            return (chain[0], (*chain[1], "[]")) if chain is not None and chain[0] else None
        return chain if rest == stop and chain and chain[0] else None

    # -- Twig ----------------------------------------------------------------------------
    def twig_tag(self, body: str, line: int) -> None:
        toks = _tokens(body, line)
        if not toks:
            return
        tag = toks[0].text if toks[0].kind == "id" else ""
        n = len(toks)
        if tag == "for":
            words = [k for k, t in enumerate(toks) if t.kind == "id" and t.text == "in"]
            if not words:
                return
            k = words[0]
            targets = [t.text for t in toks[1:k] if t.kind == "id"]
            end = n
            for w, t in enumerate(toks[k + 1 :], k + 1):
                if t.kind == "id" and t.text == "if":  # for x in xs if x.active
                    end = w
                    break
            coll = self.expr_chain(toks, k + 1, end)
            elem = (coll[0], (*coll[1], "[]")) if coll is not None else None
            self.scopes.append(("for", dict.fromkeys(targets)))
            if targets:
                self.scopes[-1][1][targets[-1]] = elem
            self.scan(toks, end, n)
        elif tag in ("endfor", "endmacro"):
            kind = "for" if tag == "endfor" else "macro"
            while self.scopes:
                if self.scopes.pop()[0] == kind:
                    break
        elif tag == "macro":
            self.scopes.append(("macro", {}))
        elif tag == "set" and n > 2 and toks[1].kind == "id":
            eq = next((k for k, t in enumerate(toks) if t.text == "="), None)
            if eq is None:  # {% set x %}...{% endset %}: a string
                self.bind(toks[1].text, None)
                return
            names = [t.text for t in toks[1:eq] if t.kind == "id"]
            chain = self.expr_chain(toks, eq + 1, n) if len(names) == 1 else None
            if chain is None and len(names) != 1:
                self.scan(toks, eq + 1, n)
            for nm in names:
                self.bind(nm, chain if len(names) == 1 else None)
        elif tag in ("import", "from"):
            # {% import 'forms.html' as forms %}, {% from 'x' import a as b %}: macros
            k = next((k for k, t in enumerate(toks) if t.text in ("as", "import")), n)
            for t in toks[k + 1 :]:
                if t.kind == "id" and t.text != "as":
                    self.bind(t.text, None)
        elif tag in ("include", "embed") and n > 1 and toks[1].kind == "s":
            self.include(toks, line)
        elif tag in ("include", "embed", "extends", "use", "block", "endblock", "trans"):
            self.scan(toks, 1, n)
        else:
            self.scan(toks, 1 if tag in _TWIG_STATEMENTS else 0, n)

    def include(self, toks: list[_Tok], line: int) -> None:
        """``{% include 'x.twig' with {'k': a.b} only %}``: what it passes."""
        n = len(toks)
        passes: list[tuple[str, str, tuple[str, ...]]] = []
        k = 2
        if k + 1 < n and toks[k].text == "with" and toks[k + 1].text == "{":
            end = _close(toks, k + 1)
            i = k + 2
            while i < end - 1:
                j = i
                depth = 0
                while j < end - 1 and not (depth == 0 and toks[j].text == ","):
                    if toks[j].text in ("(", "[", "{"):
                        depth += 1
                    elif toks[j].text in (")", "]", "}"):
                        depth -= 1
                    j += 1
                if j - i >= 3 and toks[i + 1].text == ":" and toks[i].kind in ("s", "id"):
                    key = toks[i].text.strip("'\"") if toks[i].kind == "s" else toks[i].text
                    chain = self.expr_chain(toks, i + 2, j)
                    if chain is not None and chain[0]:
                        passes.append((key, chain[0], chain[1]))
                else:
                    self.scan(toks, i, j)
                i = j + 1
            k = end
        else:
            self.scan(toks, 2, n)
        only = any(t.kind == "id" and t.text == "only" for t in toks[k:])
        self.includes.append((toks[1].line, toks[1].text[1:-1], tuple(passes), only))

    # -- Blade ---------------------------------------------------------------------------
    def blade_loop(self, body: str, line: int) -> None:
        """``@foreach ($a->items() as $k => $x)``: ``$x`` an element of the collection."""
        toks = _tokens(body, line)
        k = next((k for k, t in enumerate(toks) if t.kind == "id" and t.text == "as"), None)
        if k is None:
            self.scan(toks, 0, len(toks))
            self.scopes.append(("for", {}))
            return
        coll = self.expr_chain(toks, 0, k)
        names = [toks[j + 1].text for j in range(k + 1, len(toks) - 1) if toks[j].text == "$"]
        elem = (coll[0], (*coll[1], "[]")) if coll is not None else None
        self.scopes.append(("for", dict.fromkeys(names)))
        if names:
            self.scopes[-1][1][names[-1]] = elem


#: Twig statements whose first word is the tag (the rest is an expression)
_TWIG_STATEMENTS = frozenset(
    {"if", "elseif", "else", "endif", "apply", "endapply", "with", "endwith", "do", "deprecated"}
)


def twig_calls(text: str) -> list[TemplateCallRef]:
    """The method calls a Twig template's expressions and tags make."""
    return twig_scan(text).refs


def twig_scan(text: str) -> _Scanner:
    """A Twig template's method calls (``refs``) and includes (``includes``)."""
    s = _Scanner(php=False)
    for m in _TWIG_TAG.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if m.group(1) is not None:
            toks = _tokens(m.group(1), line)
            s.scan(toks, 0, len(toks))
        elif m.group(2) is not None:
            s.twig_tag(m.group(2), line)
        if len(s.refs) >= MAX_CALLS:
            break
    return s


#: Blade's echoes, directives with an argument list and the ends of loops
_BLADE = re.compile(r"(?<!@)\{\{(.*?)\}\}|\{!!(.*?)!!\}|(?<![\w@])@(\w+)(\s*\()?", re.S)
_BLADE_ENDS = frozenset({"endforeach", "endforelse"})


def blade_calls(text: str) -> list[TemplateCallRef]:
    """The method calls a Blade template's echoes (``{{ }}``, ``{!! !!}``) and directives'
    arguments (``@if (...)``, ``@foreach (... as $x)``) make."""
    s = _Scanner(php=True)
    pos = 0
    while len(s.refs) < MAX_CALLS:
        m = _BLADE.search(text, pos)
        if m is None:
            break
        line = text.count("\n", 0, m.start()) + 1
        pos = m.end()
        body = m.group(1) if m.group(1) is not None else m.group(2)
        if body is not None:
            toks = _tokens(body, line)
            s.scan(toks, 0, len(toks))
            continue
        directive = m.group(3)
        if m.group(4) is None:
            if directive in _BLADE_ENDS:
                while s.scopes and s.scopes.pop()[0] != "for":
                    pass
            continue
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        args = text[m.end() : j - 1]
        pos = j
        if directive in ("foreach", "forelse"):
            s.blade_loop(args, line)
        else:
            toks = _tokens(args, line)
            s.scan(toks, 0, len(toks))
    return s.refs
