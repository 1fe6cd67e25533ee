"""The corpus (architecture §11, NFR-3): which files the index accounts for, and
the one safe way ragraf opens a file of the project.

Invariants a change must keep:
- A file matching ``secrets_exclude`` is never opened, and nothing of it (not
  even its path) reaches a store; only a count does.
- ``.ragraf/`` and ``.git/`` are never part of the corpus, whatever the
  configuration says (the index must not index itself, nor git's internals).
- Only regular files are ever opened: ``open_regular`` opens without following
  a symlink and without blocking (``O_NOFOLLOW | O_NONBLOCK``), checks the
  opened file is regular (``fstat``), and reads at most a given number of
  bytes. A FIFO, socket, device or symlink never hangs or floods a reader.
- A path is opened beneath the root one component at a time (``open_beneath``): each
  folder relative to the descriptor of the one above it, never through a symlink, so a
  folder swapped for a link while ragraf works (a check-then-open race) is refused, not
  followed out of the root. The walk lists folders the same way.
- Every text read is redacted (``ragraf.redact``) before anything keeps it: the sha256 is
  the file's bytes (what drift compares), the text is what ragraf stores and serves.
- Paths are corpus names (``ragraf.escape.corpus_name``): a byte of a file name that is
  no UTF-8 is written ``\\u{dcNN}``, the form stored, shown and taken as input;
  ``ragraf.escape.os_name`` gives the file system's name back, here only.
- Symlinks are never followed by the scan: a symlinked file is recorded as
  ``skipped`` (its target indexed at its own path when inside the root), a
  symlinked folder is not entered, a symlink loop is ``skipped`` with a note.
- Every selected path is recorded: binary, too large, unreadable, special or
  invalid UTF-8 files are ``skipped`` / ``failed`` with a note, never dropped
  silently; so is build output (a bundler's file, ``registry.build_output``: the
  language says by which markers); folders that cannot be listed are counted
  with their paths.
- A file the walk saw that no include glob selects (and no exclude glob or
  ``secrets_exclude`` removed) is not silently ignored: it is counted by
  suffix (``corpus.suffix_of``) in ``ScanResult.not_selected`` (``status`` shows the counts).
- The file list is sorted by path; ``corpus_hash`` = sha1 over the sorted
  (path, sha256) list, so it depends on content only.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ragraf.config import Config
from ragraf.escape import corpus_name, os_name
from ragraf.kinds import ParseStatus
from ragraf.lang import registry
from ragraf.lang.registry import lang_of
from ragraf.redact import redact

#: folders that are never part of a corpus (checked before any configured glob)
NEVER = frozenset({".ragraf", ".git"})
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_BLOCK = 1 << 20


@dataclass
class ScannedFile:
    path: str  # project-relative, POSIX
    lang: str | None
    sha256: str
    size: int
    mtime_ns: int
    status: str = ParseStatus.OK  # ok | skipped | failed (before parsing)
    note: str | None = None
    text: str | None = None  # decoded text, only for status ok, credentials redacted
    lines: int = 0
    redacted: int = 0  # credentials redacted from the text (ragraf.redact)


@dataclass
class ScanResult:
    files: list[ScannedFile]
    secrets_excluded: int = 0
    symlinked_dirs: int = 0
    unreadable_dirs: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    #: files no include glob selects, by suffix (``.txt``, or ``(none)``)
    not_selected: dict[str, int] = field(default_factory=dict)

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


# -- opening files safely ---------------------------------------------------------------
class NotRegular(OSError):
    """The path is not a regular file (a folder, FIFO, socket, device or symlink)."""


@dataclass
class Opened:
    """What ``open_regular`` read: at most ``limit`` bytes (``complete`` says whether that
    was the whole file), the sha256 of the whole file, and its stat."""

    data: bytes
    complete: bool
    sha256: str
    st: os.stat_result


def kind_of(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "folder"),
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISLNK, "symlink"),
    ):
        if test(mode):
            return name
    return "special file"


def _open_dir(root: Path, rel_dir: str) -> int:
    """A descriptor of the folder ``rel_dir`` (a corpus name, "" for the root), reached
    from the root one component at a time without following a symlink."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    if not rel_dir:
        return fd
    for part in os_name(rel_dir).split("/"):
        try:
            if part in ("", ".", ".."):
                raise NotRegular(errno.EINVAL, "not a plain path inside the root", rel_dir)
            nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except OSError as e:
            os.close(fd)
            if e.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW on a symlink
                raise NotRegular(
                    e.errno, "under a symlinked folder (not followed)", rel_dir
                ) from None
            raise
        os.close(fd)
        fd = nxt
    return fd


def open_beneath(root: Path, rel: str, flags: int = _OPEN_FLAGS) -> int:
    """A descriptor of the file ``rel`` (a corpus name) beneath ``root``, no component
    followed through a symlink (``NotRegular`` when one is a symlink)."""
    head, _, name = rel.rpartition("/")
    if name in ("", ".", ".."):
        raise NotRegular(errno.EINVAL, "not a plain path inside the root", rel)
    dir_fd = _open_dir(root, head)
    try:
        return os.open(os_name(name), flags, dir_fd=dir_fd)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW on a symlink
            raise NotRegular(e.errno, "a symlink (not followed)", rel) from None
        raise
    finally:
        os.close(dir_fd)


def open_regular(root: Path, rel: str, limit: int) -> Opened:
    """Read the regular file ``rel`` (a corpus name) beneath ``root`` without following a
    symlink and without blocking: the first ``limit`` bytes, and the sha256 of all of it
    (a file larger than ``limit`` is hashed to its end but not kept). Raises
    ``NotRegular`` for anything but a regular file and ``OSError`` when it cannot be
    opened or read."""
    fd = open_beneath(root, rel)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(errno.EINVAL, f"not a regular file ({kind_of(st.st_mode)})", rel)
        os.set_blocking(fd, True)
        h = hashlib.sha256()
        kept: list[bytes] = []
        size = 0
        while True:
            block = os.read(fd, _BLOCK)
            if not block:
                break
            h.update(block)
            if size < limit:
                kept.append(block[: limit - size])
            size += len(block)
        data = b"".join(kept)
        return Opened(data, size <= limit, h.hexdigest(), st)
    finally:
        os.close(fd)


def resolve_inside(root: Path, rel: str) -> str | None:
    """The project-relative path ``rel`` points at once every symlink is resolved, or
    None when it leads out of the root (or loops)."""
    real_root = os.path.realpath(root)
    try:
        target = os.path.realpath(root / os_name(rel), strict=False)
    except (OSError, RuntimeError):
        return None
    if target != real_root and not target.startswith(real_root + os.sep):
        return None
    return corpus_name(os.path.relpath(target, real_root).replace(os.sep, "/"))


# -- selection -------------------------------------------------------------------------
def enabled_languages(cfg: Config) -> list[str]:
    """The enabled languages: ``languages: auto`` (the default) is every language the
    registry knows (a tree holding none of them selects nothing, and ``index`` says so)."""
    langs = cfg.corpus.languages
    return list(registry.names()) if langs is None else list(langs)


def include_globs(cfg: Config) -> list[str]:
    """The include patterns: the configured list, or for ``include: null`` (the default)
    the default globs of the enabled languages (``ragraf.lang.registry.Language.include``)."""
    if cfg.corpus.include is None:
        return registry.default_include(enabled_languages(cfg))
    return list(cfg.corpus.include)


class Selector:
    """Decides which project-relative paths are part of the corpus."""

    def __init__(self, cfg: Config) -> None:
        self.include = cfg.globset("include", include_globs(cfg))
        self.exclude = cfg.globset("exclude", cfg.corpus.exclude)
        self.secrets = cfg.globset("secrets_exclude", cfg.corpus.secrets_exclude)
        # db.dsn_from holds credentials: like a secret it is never opened
        dsn_from = cfg.db.dsn_from
        self.dsn_from = dsn_from.strip("/") if dsn_from else None

    @staticmethod
    def never(rel: str) -> bool:
        return any(part in NEVER for part in rel.split("/"))

    def prune_dir(self, rel: str) -> bool:
        return self.never(rel) or self.exclude.match_dir(rel) or self.secrets.match_dir(rel)

    def is_secret(self, rel: str) -> bool:
        return rel == self.dsn_from or self.secrets.match(rel)

    def selected(self, rel: str) -> bool:
        return not self.never(rel) and self.include.match_exact(rel) and not self.exclude.match(rel)

    def passed_over(self, rel: str) -> bool:
        """A file neither selected nor excluded: no include glob matches it."""
        return (
            not self.never(rel)
            and not self.include.match_exact(rel)
            and not self.exclude.match(rel)
        )

    # The walk (``walk``) never enters a folder ``prune_dir`` refuses, so for a path it
    # yields no folder above it is NEVER, excluded or secret: only the path itself is left
    # to test (the ancestor checks of ``GlobSet.match`` were a third of a scan's time).
    def walked_secret(self, rel: str) -> bool:
        """``is_secret`` for a path yielded by ``walk``."""
        return rel == self.dsn_from or self.secrets.match_exact(rel)

    def walked_selected(self, rel: str) -> bool:
        """``selected`` for a path yielded by ``walk``."""
        return (
            rel.rpartition("/")[2] not in NEVER
            and self.include.match_exact(rel)
            and not self.exclude.match_exact(rel)
        )

    def walked_passed_over(self, rel: str) -> bool:
        """``passed_over`` for a path yielded by ``walk``."""
        return (
            rel.rpartition("/")[2] not in NEVER
            and not self.include.match_exact(rel)
            and not self.exclude.match_exact(rel)
        )

    def why_not(self, rel: str) -> str | None:
        """Why ``rel`` is not a readable corpus path (None: it is one)."""
        if self.is_secret(rel):
            return "matches secrets_exclude; it is never read"
        if self.never(rel):
            return "is inside .ragraf/ or .git/, which are never part of the corpus"
        if not self.include.match_exact(rel):
            return "is not selected by the include globs of project.yaml"
        if self.exclude.match(rel):
            return "is excluded by the exclude globs of project.yaml"
        return None


@dataclass
class Walk:
    """Folders the walk could not list (path, reason)."""

    unreadable: list[tuple[str, str]] = field(default_factory=list)


def walk(
    root: Path, sel: Selector, seen: Walk | None = None
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Yield (relative path, entry) of candidate files, sorted, never following links
    (a folder is listed through a descriptor reached without one, ``_open_dir``); the
    paths are corpus names. Folders that cannot be listed go to ``seen.unreadable``."""
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            fd = _open_dir(root, rel_dir)
        except OSError as err:
            if seen is not None and rel_dir:
                seen.unreadable.append((rel_dir, err.strerror or type(err).__name__))
            continue
        # the folder stays open while its entries are yielded: an entry's stat is made
        # relative to this descriptor
        try:
            try:
                with os.scandir(fd) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as err:
                if seen is not None and rel_dir:
                    seen.unreadable.append((rel_dir, err.strerror or type(err).__name__))
                continue
            subdirs = []
            for e in entries:
                name = corpus_name(e.name)
                rel = f"{rel_dir}/{name}" if rel_dir else name
                try:
                    is_dir = e.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                if is_dir:
                    if not sel.prune_dir(rel):
                        subdirs.append(rel)
                else:
                    yield rel, e  # files, symlinks and special files (never followed here)
        finally:
            os.close(fd)
        stack.extend(reversed(subdirs))


def read_file(root: Path, rel: str, lang: str | None, max_bytes: int) -> ScannedFile:
    """Hash and decode one corpus file; never raises, never blocks, never follows a link."""
    try:
        got = open_regular(root, rel, max_bytes)
    except NotRegular as e:
        return ScannedFile(rel, lang, "", 0, 0, ParseStatus.SKIPPED, e.strerror)
    except OSError as e:
        return ScannedFile(
            rel, lang, "", 0, 0, ParseStatus.FAILED, f"unreadable: {e.strerror or e}"
        )
    st = got.st
    if not got.complete:
        return ScannedFile(
            rel,
            lang,
            got.sha256,
            st.st_size,
            st.st_mtime_ns,
            ParseStatus.SKIPPED,
            f"larger than max_file_bytes ({st.st_size} > {max_bytes})",
        )
    data = got.data
    if b"\0" in data:
        return ScannedFile(
            rel,
            lang,
            got.sha256,
            st.st_size,
            st.st_mtime_ns,
            ParseStatus.SKIPPED,
            "binary (NUL byte)",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ScannedFile(
            rel,
            lang,
            got.sha256,
            st.st_size,
            st.st_mtime_ns,
            ParseStatus.FAILED,
            f"invalid UTF-8 at byte {e.start}",
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    text, redacted = redact(text)
    built = registry.build_output(lang, text)
    if built is not None:
        return ScannedFile(
            rel, lang, got.sha256, st.st_size, st.st_mtime_ns, ParseStatus.SKIPPED, built
        )
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return ScannedFile(
        rel,
        lang,
        got.sha256,
        st.st_size,
        st.st_mtime_ns,
        ParseStatus.OK,
        None,
        text,
        lines,
        redacted,
    )


def _symlink(root: Path, rel: str) -> tuple[bool, str]:
    """(points at a folder, note) for a symlink; loops and dangling links included."""
    full = root / os_name(rel)
    try:
        target_is_dir = os.path.isdir(full)  # follows the link; False on loops and dangling
        os.stat(full)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return False, "symlink loop (not followed)"
        return False, "dangling symlink (not followed)"
    if target_is_dir:
        return True, ""
    if resolve_inside(root, rel) is None:
        return False, "symlink out of the root (not followed)"
    return False, "symlink inside the root (target indexed at its own path)"


def _link_sha(root: Path, rel: str) -> str:
    try:
        return hashlib.sha256(
            os.readlink(root / os_name(rel)).encode("utf-8", "surrogateescape")
        ).hexdigest()
    except OSError:
        return ""


#: files read between two progress reports of the scan
SCAN_PROGRESS_EVERY = 64


def scan(
    cfg: Config,
    *,
    read: bool = True,
    on_listed: Callable[[set[str | None]], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ScanResult:
    """Select, hash and decode the corpus files of ``cfg.root``. ``on_listed`` is called
    with the languages of the files to read once they are listed, before any is read (a
    build forks its parser workers there, holding none of the texts). ``progress(done,
    total)`` hears of the files read (every ``SCAN_PROGRESS_EVERY`` and the last)."""
    root = cfg.root
    sel = Selector(cfg)
    max_bytes = cfg.corpus.max_file_bytes
    out: list[ScannedFile] = []
    secrets = 0
    symdirs = 0
    passed: dict[str, int] = {}
    seen = Walk()
    to_read: list[tuple[str, str | None]] = []
    for rel, entry in walk(root, sel, seen):
        if sel.walked_secret(rel):
            if sel.include.match_exact(rel):
                secrets += 1
            continue
        try:
            is_link = entry.is_symlink()
        except OSError:
            is_link = False
        if is_link:
            to_dir, note = _symlink(root, rel)
            if to_dir:
                symdirs += 1  # never entered: it may lead out of the root
                continue
            if sel.walked_selected(rel):
                out.append(
                    ScannedFile(
                        rel, lang_of(rel), _link_sha(root, rel), 0, 0, ParseStatus.SKIPPED, note
                    )
                )
            continue
        if not sel.walked_selected(rel):
            if sel.walked_passed_over(rel):
                kind = suffix_of(rel)
                passed[kind] = passed.get(kind, 0) + 1
            continue
        lang = lang_of(rel)
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError as e:
            out.append(
                ScannedFile(rel, lang, "", 0, 0, ParseStatus.FAILED, f"cannot stat: {e.strerror}")
            )
            continue
        if not stat.S_ISREG(st.st_mode):
            out.append(
                ScannedFile(
                    rel,
                    lang,
                    "",
                    0,
                    st.st_mtime_ns,
                    ParseStatus.SKIPPED,
                    f"not a regular file ({kind_of(st.st_mode)})",
                )
            )
            continue
        if read:
            to_read.append((rel, lang))
        else:
            out.append(ScannedFile(rel, lang, "", st.st_size, st.st_mtime_ns))
    if on_listed is not None:
        on_listed({lang for _rel, lang in to_read})
    total = len(to_read)
    for done, (rel, lang) in enumerate(to_read, 1):
        out.append(read_file(root, rel, lang, max_bytes))
        if progress is not None and (done % SCAN_PROGRESS_EVERY == 0 or done == total):
            progress(done, total)
    if progress is not None and not total:
        progress(0, 0)
    out.sort(key=lambda f: f.path)
    res = ScanResult(
        out,
        secrets,
        symdirs,
        [f"{p} ({why})" for p, why in seen.unreadable],
        not_selected=dict(sorted(passed.items(), key=lambda kv: (-kv[1], kv[0]))),
    )
    for f in out:
        res.counts[f.status] = res.counts.get(f.status, 0) + 1
    return res


def suffix_of(rel: str) -> str:
    """A file's kind for the not-selected counts: its suffix in lower case, a dotfile's
    name (``.gitignore``), or ``(none)``."""
    name = rel.rsplit("/", 1)[-1]
    ext = os.path.splitext(name)[1].lower()
    if not ext and name.startswith("."):
        return name.lower()
    return ext or "(none)"


#: suffix kinds named in a not-selected note or warning (all are counted)
NOTE_KINDS = 12


def kinds_note(counts: dict[str, int]) -> str:
    """``.txt 12, .toml 3, ...`` (the most frequent first)."""
    items = [f"{k} {n}" for k, n in list(counts.items())[:NOTE_KINDS]]
    more = len(counts) - NOTE_KINDS
    return ", ".join(items) + (f", and {more} more kinds" if more > 0 else "")


def selection_warning(cfg: Config, res: ScanResult) -> str | None:
    """What ``index`` says when the selection holds no code: no file at all, or only text
    (markdown, SQL windows). None when some selected file is code of a known language."""
    from ragraf.kinds import Layer

    code = [
        f
        for f in res.files
        if (lang := registry.get(f.lang)) and lang.extractor and lang.layer == Layer.STRUCTURAL
    ]
    if code:
        return None
    found: dict[str, int] = {}
    for f in res.files:
        found[f.lang or suffix_of(f.path)] = found.get(f.lang or suffix_of(f.path), 0) + 1
    for kind, n in res.not_selected.items():
        lang = registry.language_of("x" + kind)
        name = lang.name if lang else kind
        found[name] = found.get(name, 0) + n
    listed = (
        ", ".join(
            f"{k} ({n} files)"
            for k, n in sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))[:NOTE_KINDS]
        )
        or "none"
    )
    head = (
        "0 files selected"
        if not res.files
        else f"0 code files selected ({len(res.files)} text files)"
    )
    known = ", ".join(
        n
        for n in registry.names()
        if registry.BY_NAME[n].extractor and registry.BY_NAME[n].layer == Layer.STRUCTURAL
    )
    return (
        f"{head} — languages found: {listed}. Hint: ragraf parses {known}; check `languages`"
        f" (enabled: {', '.join(enabled_languages(cfg))}) and `include` in {cfg.project_file or '.ragraf/config/project.yaml'}"
    )
