"""The error hierarchy of ragraf.

The library raises only these. They are turned into exit codes and one-line
messages in ``ragraf/cli/app.py`` and into tool errors in ``ragraf/cli/mcp_server.py``;
nowhere else. Every message names the file, key or argument at fault.
"""

from __future__ import annotations


class RagrafError(Exception):
    """Base class. ``exit_code`` is what the CLI exits with."""

    exit_code = 1


class ConfigError(RagrafError):
    """A configuration file is missing, unreadable or invalid."""

    exit_code = 2


class InvalidArgument(RagrafError):
    """An operation argument is wrong (type, range, path outside the root...)."""

    exit_code = 2


class NoIndexError(RagrafError):
    """There is no project, or no sealed revision yet."""

    exit_code = 3


class BusyError(RagrafError):
    """Another build holds the index lock."""

    exit_code = 4


class RefusedError(RagrafError):
    """The operation is refused by a rule (e.g. P1: the ledger is not empty)."""

    exit_code = 5


class DiskFull(RagrafError):
    """The disk holding .ragraf/ is full: the write was refused whole (nothing half-done)."""

    exit_code = 5

    @classmethod
    def at(cls, path: object) -> DiskFull:
        """The refusal of a write to ``path`` (a file or folder on the full disk)."""
        return cls(
            f"the disk holding {path} is full: the write was refused and rolled back, "
            "nothing already stored was lost; free some space and run the command again"
        )


class StoreError(RagrafError):
    """A store is unusable (corrupt file, schema too new, write on a reader)."""

    exit_code = 1


class LedgerBroken(RagrafError):
    """`verify` found the ledger's hash chain, LEDGER.md or an archive inconsistent."""

    exit_code = 6


class IndexBuildError(RagrafError):
    """A build failed; the previous revision stays active."""

    exit_code = 1


class EmbeddingUnavailable(RagrafError):
    """The embedding model cannot be loaded; the vector layer is marked unavailable."""

    exit_code = 1


class SchemaUnavailable(RagrafError):
    """The live database cannot be reached; the schema comes from migrations only."""

    exit_code = 1
