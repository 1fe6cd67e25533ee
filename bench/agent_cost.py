"""What RAGRAF saves an agent, measured (issue 45): calls made, bytes and tokens returned to
the agent and recall of a hand-checked ground truth, per task, for scripted agent policies
with and without RAGRAF (and with codegraph's CLI where it answers the task). Run by hand:

    .venv/bin/python bench/agent_cost.py --prepare        # fetch, copy and index the corpora
    .venv/bin/python bench/agent_cost.py                   # run every task, print the report
    .venv/bin/python bench/agent_cost.py --task pma-callers-countRecords --trace
    .venv/bin/python bench/agent_cost.py --check           # the truths against the corpora

The tasks and their truth are in bench/agent_tasks.yaml (written and committed before any
tool's answer was looked at). Corpora, indexes, the codegraph install and the report live
under bench/results/agent_cost/ (git-ignored): `--prepare` fetches phpMyAdmin and WordPress
with /work/shared/corpora/fetch, requests with `pip download`, express with `npm pack`,
copies each into work/NAME (a git repository, so the baseline has `git diff`), runs
`ragraf init` and `ragraf index --wait-vectors` there, and `codegraph init -y` on a copy in
cg/NAME when codegraph is installed (`npm install @colbymchenry/codegraph@1.6.1` into
bench/results/codegraph/). Needs `rg` (ripgrep) and `git` on PATH.

The policies are deterministic scripts, not agents (their limits are stated in
docs/PERFORMANCE.md):

- baseline: what an agent does with `rg` and file reads. It searches (the symbol's last
  name as a word for callers / impact; the task's terms, case-insensitive, for tables and
  features; over the corpus' language), then opens each hit with N=20 lines of context in
  rg's order (a hit already inside an opened window is not opened again), then follows the
  includes / imports of the opened files one level (reads the imported declaration). A
  search whose output passes the 30,000-byte cap an agent harness keeps is narrowed to
  `rg -l` and one search per file. Data flow: it reads around the query, greps each
  variable of the query line and of the assignments it opens (def-use by grep), the
  request superglobals in the file, and the callers of the enclosing function (and their
  superglobals). Drift: `git status`, `git diff`, then each hunk with its context.
- ragraf: what AGENTS.md tells an agent, over MCP with the default sizes: index_status,
  then callers / impact / table_usage (`role: write`, as AGENTS.md says for where a table
  is written) / search / slice (drift: `ragraf drift --scan`,
  then drift_report); a not-found answer is retried once with the nearest name it offers
  that ends like the symbol, else with the declaration `symbol` finds for its last part;
  the next pages of a paged answer (`page.next_offset`) while something is unseen; then
  reads of the cited lines only, in the answer's order (a search hit: the lines of its
  chunk, as for every other answer; until issue 45's second session the policy fetched
  every hit's chunk with `code`, 29 KB a task, where reading the first hits' lines
  finds the same place).
- codegraph: `codegraph callers NAME`, `codegraph impact NAME` and `codegraph explore
  QUESTION` (its one recommended tool) for callers, impact and feature tasks (it has no
  answer for tables, data flow or a knowledge drift); then reads of the cited lines (it
  cites a symbol's first line: 41 lines from there).

Every policy stops as soon as every truth item has been seen, or when its budget is spent
(40 calls or 200,000 bytes). An item is seen when a line of it was shown to the agent (a
search hit's line, a read, a diff, an answer's text) or an answer cites it by path:line (a
range overlapping it no longer than max(the item, 12 lines)); a file when any line of it
was shown or cited; a name when it appears in any output. Bytes are what the tool returns
to the agent (MCP: the text content; CLI: stdout; reads: `cat -n` of the lines); tokens
are counted with the tokenizer ragraf ships (ragraf/models/all-MiniLM-L6-v2, WordPiece:
not the agent model's tokenizer, so compare them between policies only).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TASKS = REPO / "bench" / "agent_tasks.yaml"
RESULTS = REPO / "bench" / "results" / "agent_cost"
CODEGRAPH = REPO / "bench" / "results" / "codegraph" / "node_modules" / ".bin" / "codegraph"
TOKENIZER = REPO / "ragraf" / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"

CAP = 30_000  # bytes of one tool output an agent harness keeps
N = 20  # lines of context around a hit
MAX_CALLS = 40
MAX_BYTES = 200_000
READ_CAP = 60  # most lines of one read of a cited range
CITE_SLACK = 12  # a citation this long (or as long as the item) locates an item
RG_TYPE = {"php": "php", "py": "py", "js": "js"}
SUPERGLOBALS = r"\$_(GET|POST|REQUEST|COOKIE|FILES)\b"


# ------------------------------------------------------------------ truth and scoring


@dataclass(frozen=True)
class Item:
    """One truth item: a place (path, lo..hi), a file, or a symbol's name."""

    kind: str  # loc | file | name
    path: str = ""
    lo: int = 0
    hi: int = 0
    name: str = ""

    def __str__(self) -> str:
        if self.kind == "name":
            return f"name:{self.name}"
        if self.kind == "file":
            return f"file:{self.path}"
        return f"{self.path}:{self.lo}" + (f"-{self.hi}" if self.hi != self.lo else "")


def parse_item(text: str) -> Item:
    if text.startswith("name:"):
        return Item("name", name=text[5:])
    if text.startswith("file:"):
        return Item("file", path=text[5:])
    path, _, lines = text.rpartition(":")
    lo, _, hi = lines.partition("-")
    return Item("loc", path=path, lo=int(lo), hi=int(hi or lo))


_TOKENIZER: Any = None


def tokens(text: str) -> int:
    """Tokens of ``text`` with the tokenizer ragraf ships (no truncation, no specials)."""
    global _TOKENIZER
    if _TOKENIZER is None:
        from tokenizers import Tokenizer

        _TOKENIZER = Tokenizer.from_file(str(TOKENIZER))
        _TOKENIZER.no_truncation()
        _TOKENIZER.no_padding()
    return len(_TOKENIZER.encode(text, add_special_tokens=False).ids)


def _overlaps(a: tuple[int, int], lo: int, hi: int) -> bool:
    return a[0] <= hi and a[1] >= lo


@dataclass
class Transcript:
    """What one policy did on one task: its calls and what they showed to the agent."""

    truth: list[Item]
    max_calls: int = MAX_CALLS
    max_bytes: int = MAX_BYTES
    calls: list[dict[str, Any]] = field(default_factory=list)
    shown: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    windows: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    cited: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)
    trace: bool = False
    dump: Path | None = None

    def add(
        self,
        tool: str,
        text: str,
        shown: list[tuple[str, int, int]] | tuple[()] = (),
        cited: list[tuple[str, int, int]] | tuple[()] = (),
        **extra: Any,
    ) -> None:
        """One call: its output ``text`` (what the agent receives), the lines it shows and
        the places it cites."""
        size = len(text.encode())
        self.calls.append({"tool": tool, "bytes": size, "tokens": tokens(text), **extra})
        self.texts.append(text)
        for path, lo, hi in shown:
            self.shown.setdefault(path, []).append((lo, hi))
        for path, lo, hi in cited:
            self.cited.setdefault(path, []).append((lo, hi))
        if self.trace:
            print(f"  [{len(self.calls)}] {tool} -> {size} B, {self.recall():.2f}", flush=True)
        if self.dump is not None:
            self.dump.mkdir(parents=True, exist_ok=True)
            head = f"# {tool} {extra.get('args', '')}\n"
            (self.dump / f"{len(self.calls):02d}.txt").write_text(head + text)

    def window(self, path: str, lo: int, hi: int) -> None:
        self.windows.setdefault(path, []).append((lo, hi))

    def in_window(self, path: str, line: int) -> bool:
        return any(lo <= line <= hi for lo, hi in self.windows.get(path, ()))

    def seen(self, item: Item) -> bool:
        if item.kind == "name":
            pat = re.compile(rf"(?<![\w$]){re.escape(item.name)}(?!\w)")
            return any(pat.search(t) for t in self.texts)
        if item.kind == "file":
            return item.path in self.shown or item.path in self.cited
        if any(_overlaps(r, item.lo, item.hi) for r in self.shown.get(item.path, ())):
            return True
        longest = max(item.hi - item.lo + 1, CITE_SLACK)
        return any(
            _overlaps(r, item.lo, item.hi) and r[1] - r[0] + 1 <= longest
            for r in self.cited.get(item.path, ())
        )

    def recall(self) -> float:
        return sum(self.seen(i) for i in self.truth) / len(self.truth) if self.truth else 1.0

    def done(self) -> bool:
        return all(self.seen(i) for i in self.truth)

    def spent(self) -> bool:
        return len(self.calls) >= self.max_calls or self.bytes() >= self.max_bytes

    def finished(self) -> bool:
        return self.spent() or self.done()

    def bytes(self) -> int:
        return sum(c["bytes"] for c in self.calls)

    def summary(self) -> dict[str, Any]:
        start = [c for c in self.calls if c.get("session_start")]
        return {
            "calls": len(self.calls),
            "bytes": self.bytes(),
            "session_start_bytes": sum(c["bytes"] for c in start),
            "session_start_tokens": sum(c["tokens"] for c in start),
            "tokens": sum(c["tokens"] for c in self.calls),
            "recall": round(self.recall(), 4),
            "budget_spent": self.spent() and not self.done(),
            "missed": [str(i) for i in self.truth if not self.seen(i)],
            "tools": [c["tool"] for c in self.calls],
            "call_bytes": [[c["tool"], c["bytes"]] for c in self.calls],
        }


# ------------------------------------------------------------------ the agent's plain tools


def numbered(lines: list[str], lo: int) -> str:
    """Lines as a file-read tool returns them (``cat -n``)."""
    return "".join(f"{lo + i:6}\t{line}\n" for i, line in enumerate(lines))


def cap(text: str) -> tuple[str, bool]:
    """The output an agent harness keeps: at most CAP bytes, whole lines, a marker if cut."""
    raw = text.encode()
    if len(raw) <= CAP:
        return text, False
    kept = raw[:CAP].decode(errors="ignore").rsplit("\n", 1)[0]
    return kept + f"\n[... output truncated: {len(raw)} bytes, first {CAP} kept]\n", True


HIT = re.compile(r"^([^:\n]+):(\d+):", re.M)


class Tree:
    """A corpus checkout the plain tools work on (rg, reads, git)."""

    def __init__(self, root: Path, lang: str) -> None:
        self.root = root
        self.lang = lang
        self._lines: dict[str, list[str]] = {}
        self._files: list[str] | None = None

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            try:
                text = (self.root / path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._lines[path] = text.split("\n")
        return self._lines[path]

    def files(self) -> list[str]:
        if self._files is None:
            out = subprocess.run(
                ["rg", "--files", "--sort", "path"], cwd=self.root, capture_output=True, text=True
            )
            self._files = out.stdout.split()
        return self._files

    def fileset(self) -> frozenset[str]:
        return frozenset(self.files())

    def rg(
        self, tr: Transcript, args: list[str], label: str = "rg"
    ) -> tuple[list[tuple[str, int]], bool]:
        """Run rg (path-sorted, line numbers, file names); returns the hits the kept output
        shows and whether the output was cut."""
        cmd = ["rg", "--no-heading", "--with-filename", "-n", "--sort", "path", "--color", "never"]
        out = subprocess.run(cmd + args, cwd=self.root, capture_output=True, text=True).stdout
        text, cut = cap(out)
        hits = [(m.group(1), int(m.group(2))) for m in HIT.finditer(text)]
        tr.add(label, text, shown=[(p, n, n) for p, n in hits], args=" ".join(args))
        return hits, cut

    def rg_files(self, tr: Transcript, args: list[str]) -> list[str]:
        out = subprocess.run(
            ["rg", "-l", "--sort", "path", *args], cwd=self.root, capture_output=True, text=True
        ).stdout
        text, _ = cap(out)
        tr.add("rg -l", text, args=" ".join(args))
        return [ln for ln in text.split("\n") if ln and not ln.startswith("[...")]

    def read(self, tr: Transcript, path: str, lo: int, hi: int, label: str = "read") -> None:
        lines = self.lines(path)
        lo, hi = max(1, lo), min(len(lines), hi)
        if hi < lo:
            tr.add(label, f"{path}: no such lines\n", args=f"{path}:{lo}-{hi}")
            return
        tr.window(path, lo, hi)
        tr.add(label, numbered(lines[lo - 1 : hi], lo), shown=[(path, lo, hi)], args=f"{path}")

    def git(self, tr: Transcript, args: list[str]) -> str:
        out = subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True).stdout
        text, _ = cap(out)
        tr.add("git " + " ".join(args), text)
        return text

    def type_args(self) -> list[str]:
        return ["-t", RG_TYPE[self.lang]]


# ------------------------------------------------------------------ baseline


def open_hits(tree: Tree, tr: Transcript, hits: list[tuple[str, int]]) -> list[str]:
    """Open each hit with N lines of context (in order, skipping hits already in a window);
    returns the files opened."""
    opened: list[str] = []
    for path, line in hits:
        if tr.finished():
            break
        if tr.in_window(path, line):
            continue
        tree.read(tr, path, line - N, line + N)
        if path not in opened:
            opened.append(path)
    return opened


def search_and_open(tree: Tree, tr: Transcript, args: list[str]) -> list[str]:
    """One search, then its hits opened; a cut output narrowed to a search per file."""
    hits, cut = tree.rg(tr, args)
    opened = open_hits(tree, tr, hits)
    if cut and not tr.finished():
        for path in tree.rg_files(tr, args):
            if tr.finished():
                break
            more, _ = tree.rg(tr, [*args, path])
            opened += open_hits(tree, tr, more)
    return opened


IMPORTS = {
    "php": re.compile(
        r"^\s*(?:use\s+([\w\\]+)(?:\s+as\s+\w+)?\s*;|(?:require|include)(?:_once)?\b[^;]*?['\"]([^'\"]+\.php)['\"])",
        re.M,
    ),
    "py": re.compile(r"^\s*from\s+([.\w]+)\s+import\s+\(?([\w, ]+)", re.M),
    "js": re.compile(r"require\(\s*['\"](\.{1,2}/[^'\"]+)['\"]\s*\)"),
}


def imports_of(tree: Tree, path: str) -> list[tuple[str, str]]:
    """(file, name) pairs a file includes / imports that resolve inside the corpus; name is
    the imported declaration when the statement names one."""
    text = "\n".join(tree.lines(path))
    files = tree.files()
    found: list[tuple[str, str]] = []

    def by_suffix(suffix: str) -> str | None:
        return next((f for f in files if f == suffix or f.endswith("/" + suffix)), None)

    for m in IMPORTS[tree.lang].finditer(text):
        target: str | None = None
        name = ""
        if tree.lang == "php":
            if m.group(1):
                parts = m.group(1).strip("\\").split("\\")
                name = parts[-1]
                for k in range(len(parts), 0, -1):
                    target = by_suffix("/".join(parts[-k:]) + ".php")
                    if target:
                        break
            else:
                target = by_suffix(m.group(2).lstrip("./"))
        elif tree.lang == "py":
            mod = m.group(1)
            base = Path(path).parent
            if mod.startswith("."):
                dots = len(mod) - len(mod.lstrip("."))
                for _ in range(dots - 1):
                    base = base.parent
                rel = (base / mod.lstrip(".").replace(".", "/")).as_posix()
            else:
                rel = mod.replace(".", "/")
            target = by_suffix(rel + ".py") or by_suffix(rel + "/__init__.py")
            name = m.group(2).split(",")[0].strip()
        else:
            rel = os.path.normpath((Path(path).parent / m.group(1)).as_posix())
            target = by_suffix(rel + ".js") or by_suffix(rel + "/index.js") or by_suffix(rel)
        if target and target != path and (target, name) not in found:
            found.append((target, name))
    return found


def follow_imports(tree: Tree, tr: Transcript, opened: list[str]) -> None:
    """Follow the includes / imports of the opened files one level: read the imported
    declaration (or the head of an included file)."""
    for path in list(opened):
        for target, name in imports_of(tree, path):
            if tr.finished():
                return
            line = 1
            if name:
                decl = re.compile(
                    rf"\b(?:def|class|function|interface|trait)\s+{re.escape(name)}\b"
                )
                line = next((i + 1 for i, t in enumerate(tree.lines(target)) if decl.search(t)), 1)
            if tr.in_window(target, line):
                continue
            tree.read(tr, target, line - (N if line > 1 else 0), line + N, label="read import")


def baseline(task: dict[str, Any], tree: Tree, tr: Transcript) -> None:
    family = task["family"]
    lang = tree.type_args()
    opened: list[str] = []
    if family in ("callers", "impact"):
        name = _last(task["symbol"])
        opened = search_and_open(tree, tr, [*lang, "-w", "-F", "-e", name])
    elif family in ("table", "feature"):
        for term in task["terms"]:
            if tr.finished():
                break
            word = ["-w"] if family == "table" and term == task["terms"][-1] else []
            opened += search_and_open(tree, tr, [*lang, "-i", *word, "-F", "-e", term])
    elif family == "dataflow":
        opened = baseline_dataflow(task, tree, tr)
    elif family == "drift":
        baseline_drift(tree, tr)
        return
    if not tr.finished():
        follow_imports(tree, tr, opened)


VAR = re.compile(r"\$[A-Za-z_]\w*")
NOT_DATA = {"$this", "$wpdb", "$GLOBALS"}


def baseline_dataflow(task: dict[str, Any], tree: Tree, tr: Transcript) -> list[str]:
    """Read around the query, then def-use by grep inside the file, the request
    superglobals, and the callers of the enclosing function."""
    path, _, line_s = task["at"].rpartition(":")
    line = int(line_s)
    tree.read(tr, path, line - N, line + N)
    lines = tree.lines(path)
    queue = [v for v in VAR.findall(lines[line - 1]) if v not in NOT_DATA]
    done: set[str] = set()
    while queue and not tr.finished():
        var = queue.pop(0)
        if var in done:
            continue
        done.add(var)
        hits, _ = tree.rg(tr, ["-w", "-F", "-e", var, path])
        for p, n in hits:
            if tr.finished():
                break
            text = lines[n - 1]
            assign = re.match(rf"\s*{re.escape(var)}\s*(?:\[[^\]]*\])?\s*\.?=(?!=)", text)
            if assign:
                queue += [v for v in VAR.findall(text[assign.end() :]) if v not in NOT_DATA]
            if not tr.in_window(p, n):
                tree.read(tr, p, n - N, n + N)
    opened = [path]
    if not tr.finished():
        hits, _ = tree.rg(tr, ["-e", SUPERGLOBALS, path])
        open_hits(tree, tr, hits)
    func = enclosing_function(lines, line)
    if func and not tr.finished():
        hits, _ = tree.rg(tr, [*tree.type_args(), "-w", "-F", "-e", func])
        callers = open_hits(tree, tr, [h for h in hits if h != (path, line)])
        for p in callers:
            if tr.finished():
                break
            more, _ = tree.rg(tr, ["-e", SUPERGLOBALS, p])
            open_hits(tree, tr, more)
        opened += callers
    return opened


def enclosing_function(lines: list[str], line: int) -> str | None:
    """The name of the function or method whose body holds ``line`` (by braces)."""
    depth = 0
    for i in range(line - 1, -1, -1):
        text = lines[i]
        depth += text.count("}") - text.count("{") if i != line - 1 else 0
        m = re.search(r"\bfunction\s+(\w+)\s*\(", text)
        if m and depth < 0:
            return m.group(1)
        if m and depth <= 0 and "{" in "".join(lines[i : i + 3]):
            return m.group(1)
    return None


def baseline_drift(tree: Tree, tr: Transcript) -> None:
    tree.git(tr, ["status", "--short"])
    diff = tree.git(tr, ["diff"])
    path = ""
    for ln in diff.split("\n"):
        if ln.startswith("+++ b/"):
            path = ln[6:]
        m = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", ln)
        if m and path and not tr.finished():
            start, count = int(m.group(1)), int(m.group(2) or 1)
            tree.read(tr, path, start - N, start + count + N)


# ------------------------------------------------------------------ citations in answers

CITE = re.compile(r"(?<![\w/.-])([\w][\w./-]*\.[A-Za-z]{1,5}):(\d+)(?:-(\d+))?")


PATHLIKE = re.compile(r"^[\w][\w./-]*\.[A-Za-z]{1,5}$")


def citations(
    obj: Any,
    skip_keys: tuple[str, ...] = (),
    files: frozenset[str] = frozenset(),
    group_path: str | None = None,
) -> Iterator[tuple[str, int, int]]:
    """Every place an answer cites, in order: {path, line}, {path, start_line, end_line},
    {path, lines: [...]} (each line), "path:line" strings, and a string that is just a
    corpus file's path (``files``; cited as line 0: the file, no line). An item of a list
    under a dict with a path (a brief answer's group, path said once: {path, sites: [{line}]})
    takes that path when it has none (``group_path``). ``skip_keys``: subtrees left out
    (e.g. the target)."""
    if isinstance(obj, dict):
        path = obj.get("path")
        if not isinstance(path, str) and "path" not in obj:
            path = group_path
        if isinstance(path, str):
            if isinstance(obj.get("line"), int):
                end = obj.get("end_line")
                yield path, obj["line"], end if isinstance(end, int) else obj["line"]
            elif isinstance(obj.get("start_line"), int):
                end = obj.get("end_line")
                yield path, obj["start_line"], end if isinstance(end, int) else obj["start_line"]
            for n in obj.get("lines") or ():
                if isinstance(n, int):
                    yield path, n, n
        own = obj.get("path") if isinstance(obj.get("path"), str) else None
        for k, v in obj.items():
            if k in skip_keys:
                continue
            if own is not None and isinstance(v, list):
                for x in v:
                    yield from citations(x, skip_keys, files, own)
            else:
                yield from citations(v, skip_keys, files)
    elif isinstance(obj, list):
        for v in obj:
            yield from citations(v, skip_keys, files)
    elif isinstance(obj, str):
        if obj in files:
            yield obj, 0, 0
        for m in CITE.finditer(obj):
            lo = int(m.group(2))
            yield m.group(1), lo, int(m.group(3) or lo)


SYMBOL_LINE = re.compile(r"^\s+\w+\s+\S+:(\d+)\s*$")


def text_citations(text: str, root: Path, files: frozenset[str]) -> list[tuple[str, int, int]]:
    """Places cited in a plain-text answer: path:line, a line that is just a corpus file's
    path (a group heading: line 0), and "kind name:line" rows under such a heading."""
    out: list[tuple[str, int, int]] = []
    prefix = str(root).rstrip("/") + "/"
    heading = ""
    for line in text.replace(prefix, "").split("\n"):
        bare = line.strip().strip("`*").removeprefix("./")
        if bare in files:
            heading = bare
            out.append((bare, 0, 0))
            continue
        row = SYMBOL_LINE.match(line)
        if heading and row and not CITE.search(line):
            n = int(row.group(1))
            out.append((heading, n, n))
            continue
        if not line.strip():
            heading = ""
        for m in CITE.finditer(line):
            lo = int(m.group(2))
            out.append((m.group(1).removeprefix("./"), lo, int(m.group(3) or lo)))
    return out


def read_cited(
    tree: Tree, tr: Transcript, cited: list[tuple[str, int, int]], window: int = 0
) -> None:
    """Read the cited lines (in order, each once; ``window``: a citation of one line is read
    as that many lines from it), until everything is seen or the budget is spent. A short
    citation (at most CITE_SLACK lines) is not read without ``window``: the citation has
    located whatever it can already (see Transcript.seen)."""
    done: set[tuple[str, int, int]] = set()
    for path, lo, hi in cited:
        if tr.finished():
            return
        if lo <= 0 or (not window and hi - lo + 1 <= CITE_SLACK):
            continue
        if window and hi == lo:
            hi = lo + window - 1
        hi = min(hi, lo + READ_CAP - 1)
        if (path, lo, hi) in done or not (tree.root / path).is_file():
            continue
        done.add((path, lo, hi))
        if all(tr.in_window(path, n) for n in (lo, hi)):
            continue
        tree.read(tr, path, lo, hi, label="read cited")


# ------------------------------------------------------------------ ragraf


class Ragraf:
    """RAGRAF over its MCP server's tool calls (in process: the same text an MCP client
    receives), and its CLI for `drift --scan`."""

    def __init__(self, root: Path, files: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.files = files
        self._tools: Any = None

    def tools(self) -> Any:
        if self._tools is None:
            from ragraf.cli.mcp_server import _Tools

            self._tools = _Tools(self.root, None)
        return self._tools

    def reset(self) -> None:
        if self._tools is not None:
            self._tools.close()
        self._tools = None

    def call(self, tr: Transcript, op: str, args: dict[str, Any]) -> dict[str, Any]:
        res = self.tools().call(f"ragraf_{op}", dict(args))
        text = res.content[0].text
        env = res.structured_content if not res.is_error else {"error": text}
        cli = json.dumps(env, indent=2, sort_keys=False, default=str) + "\n"
        skip = ("target",) if op in ("callers", "impact", "table_usage", "references") else ()
        cited = list(citations(env.get("result", env), skip, self.files))
        tr.add(
            f"ragraf_{op}",
            text,
            cited=cited,
            cli_bytes=len(cli.encode()),
            args=args,
            session_start=op == "index_status",
        )
        return env

    def cli(self, tr: Transcript, args: list[str]) -> str:
        exe = Path(sys.executable).parent / "ragraf"
        out = subprocess.run(
            [str(exe), "-C", str(self.root), *args], capture_output=True, text=True
        ).stdout
        text, _ = cap(out)
        tr.add("ragraf " + " ".join(args), text)
        return text


def _last(name: str) -> str:
    return re.split(r"::|\.|\\", name)[-1]


def _ends_with(fqn: str, symbol: str) -> bool:
    """Whether ``fqn`` names ``symbol`` (``res.send`` in ``lib/response.res.send``)."""
    norm = re.sub(r"::|\\|/", ".", fqn)
    want = re.sub(r"::|\\|/", ".", symbol)
    return norm == want or norm.endswith("." + want)


def resolve_again(rg: Ragraf, tr: Transcript, env: dict[str, Any], symbol: str) -> dict[str, Any]:
    """After a not-found answer, what an agent does: take the nearest name that ends like
    the symbol (the shortest: ``lib/response.sendfile`` before ``lib/response.res.sendfile``),
    else look the last part up with ``symbol`` and take the declaration whose name ends like
    it (the shortest, else the first); empty when nothing is offered."""
    result = env.get("result") or {}
    names = [n if isinstance(n, str) else n.get("fqn", "") for n in result.get("nearest") or []]
    same = sorted((n for n in names if _ends_with(n, symbol)), key=len)
    if same:
        return {"fqn": same[0]}
    if tr.finished():
        return {}
    found = rg.call(tr, "symbol", {"name": _last(symbol)})
    matches = (found.get("result") or {}).get("matches") or []
    pick = (
        sorted(
            (m for m in matches if _ends_with(m.get("fqn", ""), symbol)),
            key=lambda m: len(m["fqn"]),
        )
        or matches
    )
    if pick:
        return {"node_id": pick[0]["node_id"]}
    return {"fqn": names[0]} if names else {}


def pages(
    rg: Ragraf, tr: Transcript, op: str, args: dict[str, Any], first: dict[str, Any]
) -> list[dict[str, Any]]:
    """The answer and its next pages (``page.next_offset``, the operation's default limit)
    while something is still unseen and the budget lasts."""
    out = [first]
    while not tr.finished():
        page = (out[-1].get("result") or {}).get("page") or {}
        if page.get("next_offset") is None:
            break
        out.append(rg.call(tr, op, {**args, "offset": page["next_offset"]}))
    return out


def ragraf_policy(task: dict[str, Any], rg: Ragraf, tree: Tree, tr: Transcript) -> None:
    family = task["family"]
    status = rg.call(tr, "index_status", {})
    if (status.get("drift") or {}).get("entries"):
        rg.call(tr, "drift_report", {})
    answers: list[dict[str, Any]] = []
    if family in ("callers", "impact", "table"):
        op, key, value = {
            "callers": ("callers", "fqn", task.get("symbol")),
            "impact": ("impact", "fqn", task.get("symbol")),
            "table": ("table_usage", "table", task.get("table")),
        }[family]
        args: dict[str, Any] = {key: value, **({"role": "write"} if family == "table" else {})}
        env = rg.call(tr, op, args)
        if not (env.get("result") or {}).get("target") and family != "table":
            retry = resolve_again(rg, tr, env, str(value))
            if retry and not tr.finished():
                args = retry
                env = rg.call(tr, op, args)
        elif not (env.get("result") or {}).get("target"):
            names = (env.get("result") or {}).get("nearest") or []
            if names and not tr.finished():
                args = {**args, key: names[0]}
                env = rg.call(tr, op, args)
        answers += pages(rg, tr, op, args, env)
    elif family == "feature":
        answers.append(rg.call(tr, "search", {"query": task["question"]}))
    elif family == "dataflow":
        path, _, line = task["at"].rpartition(":")
        args = {"path": path, "line": int(line)}
        answers += pages(rg, tr, "slice", args, rg.call(tr, "slice", args))
    elif family == "drift":
        rg.cli(tr, ["drift", "--scan"])
        rg.reset()
        answers.append(rg.call(tr, "drift_report", {}))
        return
    cited = [c for env in answers for c in citations(env.get("result", {}), ("target",), rg.files)]
    read_cited(tree, tr, cited)


# ------------------------------------------------------------------ codegraph


def codegraph_policy(task: dict[str, Any], root: Path, tree: Tree, tr: Transcript) -> bool:
    """codegraph's CLI where it answers the task; False where it has no answer for it."""
    family = task["family"]
    if family not in ("callers", "impact", "feature") or not CODEGRAPH.exists():
        return False
    if family == "feature":
        args = ["explore", task["question"]]
    else:
        args = [family, _last(task["symbol"])]
    env = dict(os.environ, CODEGRAPH_TELEMETRY="0", DO_NOT_TRACK="1", NO_COLOR="1")
    out = subprocess.run(
        [str(CODEGRAPH), *args, "--path", str(root)],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
    )
    text, _ = cap(out.stdout + (out.stderr if out.returncode else ""))
    cited = text_citations(text, root, tree.fileset())
    shown = code_blocks(text)
    tr.add("codegraph " + args[0], text, shown=shown, cited=cited, args=args[1])
    read_cited(tree, tr, cited, window=2 * N + 1)
    return True


FILE_HEADING = re.compile(r"^\*\*`([^`]+)`\*\*")
NUMBERED = re.compile(r"^\s*(\d+)\t")


def code_blocks(text: str) -> list[tuple[str, int, int]]:
    """The source lines codegraph prints: a file heading (**`path`**) then fenced lines
    numbered "N<tab>"; consecutive numbers merged into ranges."""
    out: list[tuple[str, int, int]] = []
    path = ""
    for line in text.split("\n"):
        head = FILE_HEADING.match(line)
        if head:
            path = head.group(1)
            continue
        num = NUMBERED.match(line)
        if path and num:
            n = int(num.group(1))
            if out and out[-1][0] == path and out[-1][2] == n - 1:
                out[-1] = (path, out[-1][1], n)
            else:
                out.append((path, n, n))
    return out


# ------------------------------------------------------------------ preparing the corpora


def corpus_root(name: str, kind: str = "work") -> Path:
    return RESULTS / kind / name


def fetch_source(name: str, spec: dict[str, Any]) -> Path:
    """The pristine source tree of a corpus (cached under bench/results/)."""
    src = RESULTS / "src"
    src.mkdir(parents=True, exist_ok=True)
    if name in ("phpmyadmin", "wordpress"):
        from bench.corpora import fetch

        return fetch(name)
    if name == "requests":
        out = src / "requests-2.32.3"
        if not out.is_dir():
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps"]
                + ["-q", "-d", str(src), "requests==2.32.3"],
                check=True,
            )
            subprocess.run(["tar", "xzf", "requests-2.32.3.tar.gz"], cwd=src, check=True)
        return out
    out = src / "express" / "package"
    if not out.is_dir():
        (src / "express").mkdir(exist_ok=True)
        subprocess.run(["npm", "pack", "-q", "express@4.21.2"], cwd=src / "express", check=True)
        subprocess.run(["tar", "xzf", "express-4.21.2.tgz"], cwd=src / "express", check=True)
    return out


def git_commit(root: Path, message: str) -> None:
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", *ident, "commit", "-qm", message], cwd=root, check=True)


def prepare(name: str, spec: dict[str, Any], reindex: bool) -> dict[str, Any]:
    """Copy a corpus into work/NAME (a git repository), index it with vectors; copy it to
    cg/NAME and index it with codegraph. Returns the index times."""
    work, cg = corpus_root(name), corpus_root(name, "cg")
    info: dict[str, Any] = {"corpus": name}
    exe = Path(sys.executable).parent / "ragraf"
    if reindex and work.exists():
        shutil.rmtree(work)
        (work.parent / f"{name}.drift_done").unlink(missing_ok=True)
    if not work.exists():
        shutil.copytree(fetch_source(name, spec), work, symlinks=True)
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
        (work / ".git" / "info" / "exclude").write_text(".ragraf/\n.codegraph/\n")
        subprocess.run([str(exe), "init"], cwd=work, check=True, capture_output=True)
        git_commit(work, "corpus")
        t0 = time.perf_counter()
        subprocess.run(
            [str(exe), "index", "--wait-vectors", "--json"],
            cwd=work,
            check=True,
            capture_output=True,
        )
        info["ragraf_index_s"] = round(time.perf_counter() - t0, 1)
    if CODEGRAPH.exists() and (reindex or not (cg / ".codegraph").exists()):
        if cg.exists():
            shutil.rmtree(cg)
        shutil.copytree(work, cg, symlinks=True, ignore=shutil.ignore_patterns(".ragraf", ".git"))
        t0 = time.perf_counter()
        env = dict(os.environ, CODEGRAPH_TELEMETRY="0", DO_NOT_TRACK="1")
        subprocess.run(
            [str(CODEGRAPH), "init", "-y", "."], cwd=cg, check=True, capture_output=True, env=env
        )
        info["codegraph_index_s"] = round(time.perf_counter() - t0, 1)
    return info


# ------------------------------------------------------------------ running


def load_tasks() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(TASKS.read_text())
    return data


def apply_edits(root: Path, edits: list[dict[str, str]]) -> None:
    for e in edits:
        path = root / e["path"]
        text = path.read_text()
        if text.count(e["old"]) != 1:
            raise SystemExit(f"edit does not apply once: {e['path']}: {e['old'][:60]!r}")
        path.write_text(text.replace(e["old"], e["new"]))


def restore(root: Path, rg: Ragraf) -> None:
    """Undo a drift task's edit and seal it away, so the next task starts with an empty ledger."""
    subprocess.run(["git", "checkout", "--", "."], cwd=root, check=True)
    exe = Path(sys.executable).parent / "ragraf"
    rg.reset()
    subprocess.run([str(exe), "drift", "--scan"], cwd=root, capture_output=True, check=True)
    subprocess.run([str(exe), "reindex", "--commit"], cwd=root, capture_output=True, check=True)


def run_task(
    task: dict[str, Any], spec: dict[str, Any], rg: Ragraf, trace: bool, dump: bool = False
) -> dict[str, Any]:
    root = corpus_root(task["corpus"])
    truth = [parse_item(t) for t in task["truth"]]
    tree = Tree(root, spec["lang"])
    out: dict[str, Any] = {"id": task["id"], "corpus": task["corpus"], "family": task["family"]}
    out["truth_items"] = len(truth)
    if task["family"] == "drift":
        done_file = root.parent / f"{task['corpus']}.drift_done"
        done = set(done_file.read_text().split()) if done_file.exists() else set()
        if task["id"] in done:
            # the ledger keeps one entry per (path, old, new) for good: the same edit made
            # again on this index registers nothing (run --prepare --reindex first)
            print(f"warning: {task['id']} already ran on this index", file=sys.stderr)
            out["rerun_on_index"] = True
        done_file.write_text("\n".join(sorted(done | {task["id"]})) + "\n")
        apply_edits(root, task["edits"])
    try:
        for policy in ("baseline", "ragraf", "codegraph"):
            tr = Transcript(truth, trace=trace)
            if dump:
                tr.dump = RESULTS / "dump" / task["id"] / policy
                shutil.rmtree(tr.dump, ignore_errors=True)
            if trace:
                print(f"{task['id']} / {policy}", flush=True)
            if policy == "baseline":
                baseline(task, tree, tr)
            elif policy == "ragraf":
                ragraf_policy(task, rg, tree, tr)
            elif not codegraph_policy(task, corpus_root(task["corpus"], "cg"), tree, tr):
                continue
            out[policy] = tr.summary()
            if policy == "ragraf":
                out[policy]["cli_bytes"] = sum(c.get("cli_bytes", c["bytes"]) for c in tr.calls)
    finally:
        if task["family"] == "drift":
            restore(root, rg)
    return out


def check(data: dict[str, Any]) -> int:
    """The truths against the corpora: files and lines exist, edits apply exactly once."""
    bad = 0
    for task in data["tasks"]:
        root = corpus_root(task["corpus"])
        tree = Tree(root, data["corpora"][task["corpus"]]["lang"])
        for item in map(parse_item, task["truth"]):
            if item.kind == "name":
                continue
            lines = tree.lines(item.path)
            if not (root / item.path).is_file() or item.hi > len(lines):
                print(f"{task['id']}: {item} not in the corpus")
                bad += 1
        for e in task.get("edits", []):
            if (root / e["path"]).read_text().count(e["old"]) != 1:
                print(f"{task['id']}: edit of {e['path']} does not apply once")
                bad += 1
    print(f"{len(data['tasks'])} tasks checked, {bad} problems")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prepare", action="store_true", help="fetch, copy and index the corpora")
    ap.add_argument("--reindex", action="store_true", help="with --prepare: build anew")
    ap.add_argument("--check", action="store_true", help="check the truths against the corpora")
    ap.add_argument("--task", action="append", help="only these task ids")
    ap.add_argument("--corpus", action="append", help="only these corpora")
    ap.add_argument("--trace", action="store_true", help="print every call")
    ap.add_argument(
        "--dump", action="store_true", help="write every output to results/agent_cost/dump/"
    )
    ap.add_argument("--out", type=Path, default=RESULTS / "results.json")
    a = ap.parse_args()
    data = load_tasks()
    corpora = [c for c in data["corpora"] if not a.corpus or c in a.corpus]
    if a.prepare:
        for name in corpora:
            print(json.dumps(prepare(name, data["corpora"][name], a.reindex)), flush=True)
        return 0
    if a.check:
        return check(data)
    results = []
    for name in corpora:
        rg = Ragraf(corpus_root(name), Tree(corpus_root(name), "").fileset())
        for task in data["tasks"]:
            if task["corpus"] != name or (a.task and task["id"] not in a.task):
                continue
            res = run_task(task, data["corpora"][name], rg, a.trace, a.dump)
            results.append(res)
            print(json.dumps(row_brief(res)), flush=True)
        rg.reset()
    report = {
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "ragraf_commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip(),
        "settings": {"N": N, "CAP": CAP, "MAX_CALLS": MAX_CALLS, "MAX_BYTES": MAX_BYTES},
        "tasks": results,
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(report, indent=1))
    print(markdown(report))
    return 0


def row_brief(res: dict[str, Any]) -> dict[str, Any]:
    brief: dict[str, Any] = {"id": res["id"]}
    for p in ("baseline", "ragraf", "codegraph"):
        if p in res:
            r = res[p]
            brief[p] = f"{r['calls']}c {r['bytes']}B {r['tokens']}t r={r['recall']}"
    return brief


def markdown(report: dict[str, Any]) -> str:
    """The per-task table, the totals by family and overall."""
    pols = ("baseline", "ragraf", "codegraph")
    lines = [
        "| task | items | baseline calls / bytes / tokens / recall | ragraf | codegraph |",
        "|---|---|---|---|---|",
    ]

    def cell(r: dict[str, Any] | None) -> str:
        if r is None:
            return "—"
        mark = " (budget)" if r["budget_spent"] else ""
        return f"{r['calls']} / {r['bytes']:,} / {r['tokens']:,} / {r['recall']:.2f}{mark}"

    for t in report["tasks"]:
        lines.append(
            f"| {t['id']} | {t['truth_items']} | " + " | ".join(cell(t.get(p)) for p in pols) + " |"
        )
    lines += ["", "| family | tasks | " + " | ".join(pols) + " |", "|---|---|---|---|---|"]
    groups: dict[str, list[dict[str, Any]]] = {}
    for t in report["tasks"]:
        groups.setdefault(t["family"], []).append(t)
    groups["all"] = report["tasks"]
    for fam, ts in groups.items():
        cells = []
        for p in pols:
            rs = [t[p] for t in ts if p in t]
            if not rs:
                cells.append("—")
                continue
            calls = sum(r["calls"] for r in rs)
            size = sum(r["bytes"] for r in rs)
            toks = sum(r["tokens"] for r in rs)
            rec = sum(r["recall"] for r in rs) / len(rs)
            start = sum(r.get("session_start_bytes", 0) for r in rs)
            after = f" ({size - start:,} after the session start)" if start else ""
            cells.append(f"{len(rs)} tasks: {calls} / {size:,}{after} / {toks:,} / {rec:.2f}")
        lines.append(f"| {fam} | {len(ts)} | " + " | ".join(cells) + " |")
    return "\n".join(lines + ["", *op_sizes(report)])


def op_sizes(report: dict[str, Any]) -> list[str]:
    """Bytes of each kind of call (an operation's answer, a read, a search) over all tasks."""
    sizes: dict[tuple[str, str], list[int]] = {}
    for t in report["tasks"]:
        for p in ("baseline", "ragraf", "codegraph"):
            for tool, size in (t.get(p) or {}).get("call_bytes", []):
                key = (p, tool.split(" ")[0] if p == "baseline" else tool)
                sizes.setdefault(key, []).append(size)
    lines = [
        "| policy | call | n | median bytes | max bytes | total bytes |",
        "|---|---|---|---|---|---|",
    ]
    for (p, tool), xs in sorted(sizes.items()):
        xs.sort()
        med = xs[len(xs) // 2]
        lines.append(f"| {p} | {tool} | {len(xs)} | {med:,} | {xs[-1]:,} | {sum(xs):,} |")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
