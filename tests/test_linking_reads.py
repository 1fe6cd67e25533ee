"""What linking reads of a file's facts (``ragraf.lang.facts.for_linking``).

A build writes the rows of the files' contents (texts, chunks, flow units) while it links
them, and keeps of each file's facts only what linking reads (``ragraf.indexing.indexer``);
a scoped reindex links unchanged files from that part of their cached rows alone. Both
are exact only if linking reads nothing else: resolving facts stripped that way, on every
fixture and language, gives what resolving the whole facts gives.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ragraf.config import default_text
from ragraf.indexing.resolve import ResolveInputs, Unscoped, resolve
from ragraf.indexing.rows import let_content_go
from ragraf.lang.facts import FileFacts
from tests.helpers import fixture_facts


@pytest.mark.parametrize("fixture", ["pilot", "sqlapp", "sqlcode", "tags", "jsapp", "dataflow"])
def test_linking_reads_only_what_for_linking_keeps(fixture: str, tmp_path: Path) -> None:
    conf = {str(k): float(v) for k, v in yaml.safe_load(default_text("confidence")).items()}
    inputs = ResolveInputs(conf, code_tables=True)
    whole = resolve(fixture_facts(fixture), inputs)
    stripped: list[int] = []

    class Strip(Unscoped):
        def before_linking(self, only: set[str] | None, linking: list[FileFacts]) -> None:
            assert only is None
            for f in linking:
                before = (len(f.texts), sum(len(c.code) for c in f.chunks))
                let_content_go(f)
                stripped.append(int(before != (len(f.texts), sum(len(c.code) for c in f.chunks))))

    got = resolve(fixture_facts(fixture), inputs, Strip())
    assert sum(stripped) > 0  # the content was let go
    assert got.edges == whole.edges
    if fixture == "dataflow":  # a taint source's flow to a SQL string reads the unit's data
        assert any(e.props and "def-use" in e.props for e in whole.edges)
    assert got.nodes == whole.nodes
    assert (got.stats, got.routes, got.unresolved) == (whole.stats, whole.routes, whole.unresolved)


@pytest.mark.parametrize("record", [False, True])
def test_resolution_leaves_nothing_for_the_collector(record: bool) -> None:
    """A build keeps the cyclic collector paused from the parse to its end: whatever
    linking held in reference cycles (the lookups refer back to the linker) would stay
    until then, under the rows and the writes (MediaWiki: ~40-60 MB of its peak)."""
    import gc

    conf = {str(k): float(v) for k, v in yaml.safe_load(default_text("confidence")).items()}
    facts = fixture_facts("pilot")
    keys = {f.path: f"sha|{f.path}" for f in facts} if record else None
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        got = resolve(facts, ResolveInputs(conf, code_tables=True), Unscoped(keys))
        gc.collect()
        left = sorted({type(o).__name__ for o in gc.garbage} - {"dict", "list", "tuple"})
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()
    assert got.edges and (got.memo is not None) == record
    assert left == [], f"linking left cycles of {left}"
