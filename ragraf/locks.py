"""File locks between ragraf processes: the build lock and the ledger lock.

Invariants a change must keep:
- Locks are POSIX record locks (``fcntl.lockf``): the kernel releases them when
  the holder dies, and a forked child does not inherit them, so an orphaned
  parser worker never keeps a build lock (a dead holder's lock is free at once).
- POSIX locks belong to the process and vanish when any descriptor of the file
  is closed, so each lock file is opened once per process and nested
  acquisitions in one process only count depth (re-entrant, never released early).
- The holder writes its pid into the lock file, for the message of a refusal; on a full
  disk it holds the lock without it (the commands that need no write still run).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from ragraf.errors import DiskFull

_HELD: dict[str, list[int]] = {}  # path -> [fd, depth] of the locks this process holds


def holder(path: Path) -> str:
    """The pid written by whoever holds (or last held) the lock, '?' when unknown."""
    try:
        return path.read_text(errors="replace").strip() or "?"
    except OSError:
        return "?"


@contextlib.contextmanager
def file_lock(path: Path, *, wait: bool, busy: Callable[[str], Exception]) -> Iterator[None]:
    """Hold the lock on ``path`` for the block. With ``wait=False`` a lock held by another
    process raises ``busy(holder_pid)`` at once; with ``wait=True`` it blocks."""
    path.parent.mkdir(parents=True, exist_ok=True)
    key = os.path.join(os.path.realpath(path.parent), path.name)
    held = _HELD.get(key)
    if held is not None:  # already ours: nest
        held[1] += 1
        try:
            yield
        finally:
            held[1] -= 1
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as e:
        if e.errno == errno.ENOSPC:
            raise DiskFull.at(path.parent) from None
        raise
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno in (errno.EACCES, errno.EAGAIN):
                raise busy(holder(path)) from None
            raise
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        except OSError as e:  # the pid only names the holder in a refusal: the lock holds
            if e.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
        _HELD[key] = [fd, 1]
        try:
            yield
        finally:
            del _HELD[key]
    finally:
        os.close(fd)  # releases the lock (and only now: nobody else opened this file here)


def is_held(path: Path) -> bool | None:
    """True when a process (this one included) holds the lock on ``path`` now, False when
    none does, None when it cannot be told. Only asks (``F_GETLK``): it never takes the
    lock, so it cannot make a build that starts meanwhile fail, and it does not open the
    file when this process holds the lock (closing a descriptor would release it)."""
    import struct

    key = os.path.join(os.path.realpath(path.parent), path.name)
    if key in _HELD:
        return True
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return False
    except OSError:
        return None
    try:
        # struct flock on Linux: short l_type, short l_whence, off_t l_start, off_t l_len,
        # pid_t l_pid (native alignment, padded to 32 bytes)
        fmt = "hhqqi4x"
        ask = struct.pack(fmt, fcntl.F_WRLCK, 0, 0, 0, 0)
        got = fcntl.fcntl(fd, fcntl.F_GETLK, ask)
        return bool(struct.unpack(fmt, got)[0] != fcntl.F_UNLCK)
    except (OSError, struct.error):
        return None
    finally:
        os.close(fd)
