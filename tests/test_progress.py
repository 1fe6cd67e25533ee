"""Every progress bar of a build moves and ends full (issue 43.4): the scan reports the
files it reads (it stood at 0% for the whole run when it only announced itself), parse,
write and embed report done/total up to their totals."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragraf import config
from ragraf.indexing import indexer


@pytest.mark.model
def test_every_stage_reports_until_its_total(pilot: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGRAF_VECTORS", raising=False)
    calls: list[tuple[str, int, int]] = []
    res = indexer.build(config.load(pilot), progress=lambda *c: calls.append(c), wait_vectors=True)
    stages = {}
    for stage, done, total in calls:
        stages.setdefault(stage, []).append((done, total))
    assert set(stages) == {"scan", "parse", "write", "embed"}, stages
    for stage, seen in stages.items():
        done = [d for d, _t in seen]
        assert done == sorted(done), (stage, seen)  # a bar never goes back
        last_done, last_total = seen[-1]
        assert last_total > 0 and last_done == last_total, (stage, seen)  # and ends full
    # the scan counts the files it reads, the build the files it recorded
    assert stages["scan"][-1][1] == res.counts["files"] == 12
    assert stages["embed"][-1][1] == 32
