"""The change cycle (architecture §8): detecting what changed since the sealed
revision (``scan``), the append-only hash-chained ledger (``ledger``), the
archive report written by ``reindex --commit`` (``archive``), the Markdown of both
(``markdown``) and revision comparison (``revdiff``).

Invariant: nothing here writes to graph.sqlite or lexvec.sqlite (I1).
"""
