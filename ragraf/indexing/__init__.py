"""Building a revision (architecture §9): the indexer, cross-file resolution,
and the vector layer.

Invariant: rows become visible only through rev.json (``ragraf.store.manifest``).
"""
