"""Logs under .ragraf/logs/ (architecture §14): size-rotated, no file contents of
secrets and no configuration values; stdout is never used."""

from __future__ import annotations

import logging
from logging.handlers import RotatingFileHandler
from pathlib import Path

MAX_BYTES = 1_000_000
BACKUPS = 3


class _Handler(RotatingFileHandler):
    """A log that cannot be written (a full disk) is dropped quietly: it must never
    add a traceback to the command's own stderr or change its exit code."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


def file_logger(name: str, logs_dir: Path, filename: str) -> logging.Logger:
    """A logger writing to ``logs_dir/filename`` (rotated at 1 MB, 3 backups); idempotent."""
    log = logging.getLogger(name)
    log.setLevel(logging.INFO)
    target = str(logs_dir / filename)
    for h in [h for h in log.handlers if isinstance(h, RotatingFileHandler)]:
        if h.baseFilename != target:  # another project's file: one process, several roots
            log.removeHandler(h)
            h.close()
    if not any(
        isinstance(h, RotatingFileHandler) and h.baseFilename == target for h in log.handlers
    ):
        try:
            logs_dir.mkdir(parents=True, exist_ok=True)
            fh = _Handler(target, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
            fh.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
            log.addHandler(fh)
        except OSError:
            pass
    log.propagate = False
    return log
