"""The stores: one module per SQLite file (graph, lexvec with its vectors,
control), rev.json (``manifest``) and the project's live MySQL server
(``mysql_live``). The only package that runs SQL.

``open_stores(layout)`` is how the rest of ragraf opens a project's stores:
read-only unless ``write=True``, each file opened on first use and every
opened one closed when the block ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragraf.config import Layout
    from ragraf.store.control import ControlStore
    from ragraf.store.graph import GraphStore
    from ragraf.store.lexvec import LexStore


class Stores:
    """The three stores of one project, opened lazily (read-only unless ``write``)."""

    def __init__(self, layout: Layout, *, write: bool = False) -> None:
        self.layout = layout
        self.write = write
        self._graph: GraphStore | None = None
        self._lex: LexStore | None = None
        self._control: ControlStore | None = None

    @property
    def graph(self) -> GraphStore:
        if self._graph is None:
            from ragraf.store.graph import GraphStore

            self._graph = GraphStore(self.layout.graph_db, readonly=not self.write)
        return self._graph

    @property
    def lex(self) -> LexStore:
        if self._lex is None:
            from ragraf.store.lexvec import LexStore

            self._lex = LexStore(self.layout.lexvec_db, readonly=not self.write)
        return self._lex

    @property
    def control(self) -> ControlStore:
        if self._control is None:
            from ragraf.store.control import ControlStore

            self._control = ControlStore(self.layout.control_db, readonly=not self.write)
        return self._control

    def close(self) -> None:
        for store in (self._graph, self._lex, self._control):
            if store is not None:
                store.close()
        self._graph = self._lex = self._control = None


@contextlib.contextmanager
def open_stores(layout: Layout, *, write: bool = False) -> Iterator[Stores]:
    """``with open_stores(layout) as st: st.graph.files(rev)`` — closed on exit."""
    stores = Stores(layout, write=write)
    try:
        yield stores
    finally:
        stores.close()
