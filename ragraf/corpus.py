"""Corpus scan (architecture §11, NFR-3): which files the index accounts for.

Invariants a change must keep:
- A file matching ``secrets_exclude`` is never opened, and nothing of it (not
  even its path) reaches a store; only a count does.
- Symlinks are never followed: a symlinked file is recorded as ``skipped``,
  a symlinked folder is not entered.
- Every selected file is recorded: binary, too large, unreadable or invalid
  UTF-8 files are ``skipped`` / ``failed`` with a note, never dropped silently.
- The file list is sorted by path; ``corpus_hash`` = sha1 over the sorted
  (path, sha256) list, so it depends on content only.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ragraf.config import Config
from ragraf.lang.registry import lang_of


@dataclass
class ScannedFile:
    path: str  # project-relative, POSIX
    lang: str | None
    sha256: str
    size: int
    mtime_ns: int
    status: str = "ok"  # ok | skipped | failed (before parsing)
    note: str | None = None
    text: str | None = None  # decoded text, only for status ok
    lines: int = 0


@dataclass
class ScanResult:
    files: list[ScannedFile]
    secrets_excluded: int = 0
    symlinked_dirs: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def corpus_hash(self) -> str:
        return corpus_hash((f.path, f.sha256) for f in self.files)


def corpus_hash(pairs: Iterator[tuple[str, str]] | list[tuple[str, str]]) -> str:
    h = hashlib.sha1()
    for path, sha in sorted(pairs):
        h.update(path.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
        h.update(sha.encode())
        h.update(b"\n")
    return h.hexdigest()


class Selector:
    """Decides which project-relative paths are part of the corpus."""

    def __init__(self, cfg: Config) -> None:
        self.include = cfg.globset("include")
        self.exclude = cfg.globset("exclude")
        self.secrets = cfg.globset("secrets_exclude")
        # db.dsn_from holds credentials: like a secret it is never opened (only references to it are indexed)
        dsn_from = (cfg.project.get("db") or {}).get("dsn_from")
        self.dsn_from = dsn_from.strip("/") if dsn_from else None

    def prune_dir(self, rel: str) -> bool:
        return self.exclude.match_dir(rel) or self.secrets.match_dir(rel)

    def is_secret(self, rel: str) -> bool:
        return rel == self.dsn_from or self.secrets.match(rel)

    def selected(self, rel: str) -> bool:
        return self.include.match_exact(rel) and not self.exclude.match(rel)


def walk(root: Path, sel: Selector) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Yield (relative path, entry) of candidate files, sorted, never following links."""
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            with os.scandir(root / rel_dir if rel_dir else root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for e in entries:
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            if e.is_dir(follow_symlinks=False):
                if not sel.prune_dir(rel):
                    subdirs.append(rel)
            else:
                yield rel, e  # files, and symlinks (never followed here)
        stack.extend(reversed(subdirs))


def read_file(root: Path, rel: str, lang: str | None, max_bytes: int) -> ScannedFile:
    """Hash and decode one regular file; never raises for bad content."""
    full = root / rel
    try:
        st = os.stat(full, follow_symlinks=False)
    except OSError as e:
        return ScannedFile(rel, lang, "", 0, 0, "failed", f"cannot stat: {e.strerror}")
    if st.st_size > max_bytes:
        h = hashlib.sha256()
        try:
            with open(full, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
        except OSError as e:
            return ScannedFile(
                rel, lang, "", st.st_size, st.st_mtime_ns, "failed", f"unreadable: {e.strerror}"
            )
        return ScannedFile(
            rel,
            lang,
            h.hexdigest(),
            st.st_size,
            st.st_mtime_ns,
            "skipped",
            f"larger than max_file_bytes ({st.st_size} > {max_bytes})",
        )
    try:
        with open(full, "rb") as fh:
            data = fh.read()
    except OSError as e:
        return ScannedFile(
            rel, lang, "", st.st_size, st.st_mtime_ns, "failed", f"unreadable: {e.strerror}"
        )
    sha = hashlib.sha256(data).hexdigest()
    if b"\0" in data:
        return ScannedFile(
            rel, lang, sha, st.st_size, st.st_mtime_ns, "skipped", "binary (NUL byte)"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ScannedFile(
            rel, lang, sha, st.st_size, st.st_mtime_ns, "failed", f"invalid UTF-8 at byte {e.start}"
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return ScannedFile(rel, lang, sha, st.st_size, st.st_mtime_ns, "ok", None, text, lines)


def scan(cfg: Config, *, read: bool = True) -> ScanResult:
    """Select, hash and decode the corpus files of ``cfg.root``."""
    root = cfg.root
    sel = Selector(cfg)
    max_bytes = int(cfg.project["max_file_bytes"])
    out: list[ScannedFile] = []
    secrets = 0
    symdirs = 0
    for rel, entry in walk(root, sel):
        if entry.is_symlink() and entry.is_dir(follow_symlinks=True):
            symdirs += 1  # never entered: it may lead out of the root
            continue
        if sel.is_secret(rel):
            if sel.include.match_exact(rel):
                secrets += 1
            continue
        if not sel.selected(rel):
            continue
        lang = lang_of(rel)
        if entry.is_symlink():
            target = os.path.realpath(root / rel)
            inside = os.path.commonpath([target, str(root.resolve())]) == str(root.resolve())
            note = (
                "symlink inside the root (target indexed at its own path)"
                if inside
                else "symlink out of the root (not followed)"
            )
            out.append(
                ScannedFile(
                    rel,
                    lang,
                    hashlib.sha256(os.readlink(root / rel).encode()).hexdigest(),
                    0,
                    0,
                    "skipped",
                    note,
                )
            )
            continue
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError as e:
            out.append(ScannedFile(rel, lang, "", 0, 0, "failed", f"cannot stat: {e.strerror}"))
            continue
        if not stat.S_ISREG(mode):
            continue  # sockets, fifos, devices
        if read:
            out.append(read_file(root, rel, lang, max_bytes))
        else:
            st = entry.stat(follow_symlinks=False)
            out.append(ScannedFile(rel, lang, "", st.st_size, st.st_mtime_ns))
    out.sort(key=lambda f: f.path)
    res = ScanResult(out, secrets, symdirs)
    for f in out:
        res.counts[f.status] = res.counts.get(f.status, 0) + 1
    return res
