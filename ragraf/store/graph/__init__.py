"""graph.sqlite: nodes, edges, files, text, coverage of every retained revision.

``GraphStore`` is the one entry to the file: its writer (``write``: revisions, their rows,
the facts cache) and its readers (``nodes``: nodes, files, counts, database schema;
``edges``: edges, routes, flow units) are mixins over one connection; ``cols`` holds the
column lists they share.

Invariants a change must keep:
- Rows are shared by the revisions that have them (``ragraf.store.ranges``: a row is
  in revision n when rev_from <= n < rev_to). A building revision's rows are written
  in one transaction as the delta against the newest revision; readers never see them
  (rev.json does not name it).
- A sealed revision's view never changes; retention deletes only rows no retained
  revision has (``prune_before``), a revision undone before its seal leaves the rows
  as they were (``delete_rev``).
- Reads return ``ragraf.model`` rows; every read is scoped to one revision (the
  revision's number is the query's first parameter, ``?1``).
- SQL on this file lives here and nowhere else.
"""

from __future__ import annotations

from pathlib import Path

from ragraf.store.db import Database
from ragraf.store.graph.cols import blob
from ragraf.store.graph.edges import EdgeReads
from ragraf.store.graph.nodes import NodeReads
from ragraf.store.graph.write import Writer

__all__ = ["GraphStore", "blob"]


class GraphStore(Writer, NodeReads, EdgeReads):
    """graph.sqlite of one project (see the module docstring)."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.db = Database(path, "graph", readonly=readonly)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
