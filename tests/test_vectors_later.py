"""The revision answers before its vectors exist (issue 18): sealed after the lexicon,
vectors embedded afterwards by the same process, batch by batch; a kill while embedding
loses nothing sealed and `vectors --resume`, `index` or `reindex --commit` finish the
layer; search answers meanwhile and says how far the layer is. Real processes, the real
model, SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ragraf import config, facade, failpoints
from ragraf.indexing import indexer
from ragraf.indexing.vectors import skip_reason
from ragraf.store import manifest
from ragraf.store.lexvec import LexStore
from ragraf.store.ranges import rev_no
from tests.helpers import copy_pilot, invoke, wait_failpoint
from tests.schemacheck import check

#: the pilot's chunks that get a vector (38 chunks, 6 skipped: see test_search.py)
EMBEDDED = 32
QUERY = "how are invoices charged to the customer"


def _env(point: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "RAGRAF_VECTORS"}
    if point:
        env[failpoints.ENV] = point
    return env


def _start(root: Path, point: str, *args: str) -> subprocess.Popen[str]:
    """`ragraf index` in a real process, returned once it stands at ``point``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragraf", "-C", str(root), *(args or ("index",))],
        env=_env(point),
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    wait_failpoint(proc, point.partition(":")[0])  # the seal's notes may come first
    return proc


def _vectors(root: Path, rev: str) -> dict[str, bytes]:
    """chunk_id -> the stored vector, of every chunk of ``rev`` that has one."""
    lex = LexStore(config.Layout(root).lexvec_db, readonly=True)
    try:
        from ragraf.store.vec import _load_extension

        _load_extension(lex.db)
        return {
            r[0]: bytes(r[1])
            for r in lex.db.query(
                "SELECT m.chunk_id, v.embedding FROM chunk_map m JOIN vec_meta x"
                " ON x.chunk_id = m.chunk_id JOIN vec_chunk v ON v.chunk_id = m.chunk_id"
                " WHERE m.rev_from <= ?1 AND m.rev_to > ?1",
                (rev_no(rev),),
            )
        }
    finally:
        lex.close()


def _same_vectors(a: dict[str, bytes], b: dict[str, bytes]) -> None:
    import numpy as np

    assert sorted(a) == sorted(b)
    for cid in a:  # batches differ, so float rounding may differ in the last bits
        va, vb = np.frombuffer(a[cid], np.float32), np.frombuffer(b[cid], np.float32)
        assert float(va @ vb) > 0.9999, cid


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The vector set of the pilot built in one go, with --wait-vectors (today's way)."""
    root = copy_pilot(tmp_path_factory.mktemp("whole") / "pilot")
    config.init_project(root)
    mp = pytest.MonkeyPatch()
    mp.delenv("RAGRAF_VECTORS", raising=False)
    res = indexer.build(config.load(root), wait_vectors=True)
    mp.undo()
    assert res.vectors is not None and res.vectors["status"] == "ready"
    assert res.vectors["computed"] == EMBEDDED and res.vectors["skipped"] == 6
    vecs = _vectors(root, "rev-0001")
    assert len(vecs) == EMBEDDED
    return vecs


def _search(root: Path) -> dict[str, Any]:
    env = facade.run_op(root, "search", {"query": QUERY, "limit": 20, "detail": "full"})
    check(env)
    return env


@pytest.mark.model
@pytest.mark.slow
def test_ctrl_c_while_embedding_is_safe_as_the_index_says(
    pilot: Path, uninterrupted: dict[str, bytes]
) -> None:
    """What `ragraf index` prints once the revision answers ("Ctrl-C is safe") is true: a
    SIGINT to the whole process group (the terminal's Ctrl-C reaches every process of the
    command, the embedding helper too) while vectors embed ends the command with 130 and
    no traceback, the revision answers, and `ragraf vectors --resume` finishes the layer
    to the same vectors as a build never interrupted."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragraf", "-C", str(pilot), "index"],
        env=_env("vectors-batch"),
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        wait_failpoint(proc, "vectors-batch")  # stands after the first batch was committed
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("sealed rev-0001: 12 files")
        assert proc.stdout.readline() == (
            "rev-0001 answers now; vectors continue: 32 chunks to embed for search by meaning"
            " (Ctrl-C is safe: `ragraf vectors --resume` finishes them)\n"
        )
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert err.rstrip().endswith("ragraf: interrupted") and "Traceback" not in err, err
    assert len(_vectors(pilot, "rev-0001")) == 16  # the committed batch is kept
    st = json.loads(invoke("-C", pilot, "status", "--json", check=True).stdout)["vectors"]
    assert (st["status"], st["embedded"]) == ("interrupted", 16)
    assert _search(pilot)["result"]["hits"]  # the revision answers
    assert invoke("-C", pilot, "verify").exit_code == 0
    done = invoke("-C", pilot, "vectors", "--resume", env={"RAGRAF_VECTORS": None})
    assert done.exit_code == 0, done.stderr
    _same_vectors(_vectors(pilot, "rev-0001"), uninterrupted)
    assert manifest.require(config.Layout(pilot).rev_json)["vectors"]["status"] == "ready"


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.parametrize(
    "finish", [("vectors", "--resume"), ("index",), ("reindex", "--commit")], ids=" ".join
)
def test_sigkill_while_embedding_then_finishing_gives_the_same_vector_set(
    pilot: Path, uninterrupted: dict[str, bytes], finish: tuple[str, ...]
) -> None:
    proc = _start(pilot, "vectors-batch")  # stands after the first batch was committed
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("sealed rev-0001: 12 files")
        man = manifest.require(config.Layout(pilot).rev_json)
        assert man["rev_id"] == "rev-0001" and man["vectors"]["status"] == "embedding"
        busy = invoke("-C", pilot, "index", "--force")  # the embedding build holds the lock
        assert busy.exit_code == 4 and "embedding the vectors of rev-0001" in busy.stderr
        env = _search(pilot)  # the writer is alive: embedding, part of the layer there
        assert env["vectors"] == {
            "status": "embedding",
            "embedded": 16,
            "total": EMBEDDED,
            "percent": 50,
        }
        assert any(
            lim.startswith("vectors 50% embedded (16 of 32 chunks; still") for lim in env["limits"]
        )
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    partial = _vectors(pilot, "rev-0001")
    assert len(partial) == 16
    # nothing sealed was lost: every operation answers, search says the layer stopped
    env = _search(pilot)
    assert env["vectors"]["status"] == "interrupted" and env["vectors"]["percent"] == 50
    assert any("`ragraf vectors --resume` finishes it" in lim for lim in env["limits"])
    hits = env["result"]["hits"]
    assert hits and any("vector_rank" in h["why"] for h in hits)
    for h in hits:  # a `vector` note exactly on the hits whose chunk has no vector
        assert ("vector" in h["why"]) == (h["chunk_id"] not in partial), h
    notes = {h["why"]["vector"] for h in hits if "vector" in h["why"]}
    assert "not embedded yet" in notes and notes <= {"not embedded yet", "none (empty body)"}
    st = json.loads(invoke("-C", pilot, "status", "--json", check=True).stdout)["vectors"]
    assert (st["status"], st["embedded"], st["resume"]) == (
        "interrupted",
        16,
        "ragraf vectors --resume",
    )
    done = subprocess.run(
        [sys.executable, "-m", "ragraf", "-C", str(pilot), *finish],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    # the tree is unchanged (the ledger empty): each of them completes the sealed revision
    man = manifest.require(config.Layout(pilot).rev_json)
    assert man["rev_id"] == "rev-0001"
    _same_vectors(_vectors(pilot, "rev-0001"), uninterrupted)
    v = man["vectors"]
    assert (v["status"], v["computed"], v["reused"], v["embedded"]) == (
        "ready",
        EMBEDDED,
        0,
        EMBEDDED,
    )
    after = _search(pilot)
    assert "vectors" not in after and not any(
        h["why"].get("vector") for h in after["result"]["hits"]
    )
    text = invoke("-C", pilot, "vectors", check=True).stdout
    assert text.startswith("ready: sentence-transformers/all-MiniLM-L6-v2, int8 (")


@pytest.mark.model
@pytest.mark.slow
def test_search_answers_while_the_vectors_arrive(pilot: Path) -> None:
    """A second process searches while the writer appends batches (WAL readers, each batch
    one BEGIN IMMEDIATE transaction): every answer is whole and valid, the percentage only
    grows, and the layer ends complete."""
    layout = config.Layout(pilot)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragraf", "-C", str(pilot), "index"],
        env=_env("vectors-batch:pause=1.5"),
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    seen: list[int] = []
    try:
        deadline = time.monotonic() + 300
        while not layout.rev_json.exists():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        while proc.poll() is None:
            assert time.monotonic() < deadline
            env = _search(pilot)
            assert env["result"]["hits"], env
            if "vectors" in env:
                assert env["vectors"]["status"] == "embedding", env["vectors"]
                seen.append(env["vectors"]["percent"])
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert seen == sorted(seen) and any(0 < p < 100 for p in seen), seen
    assert out.index("sealed rev-0001") < out.index("vectors: 32 computed, 0 reused, 6 skipped")
    final = _search(pilot)
    assert "vectors" not in final
    assert manifest.require(layout.rev_json)["vectors"]["status"] == "ready"


@pytest.mark.model
@pytest.mark.slow
def test_wait_vectors_embeds_before_the_seal(pilot: Path) -> None:
    """--wait-vectors keeps the old order for scripts: every vector, then rev.json."""
    proc = _start(pilot, "after-vectors", "index", "--wait-vectors")
    try:
        assert not config.Layout(pilot).rev_json.exists()
        assert len(_vectors(pilot, "rev-0001")) == EMBEDDED
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    res = invoke("-C", pilot, "index", "--wait-vectors", "--json", env={"RAGRAF_VECTORS": None})
    assert res.exit_code == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["rev_id"] == "rev-0002" and data["vectors"]["status"] == "ready"
    # the unsealed revision's rows went, and with them its vectors (no vec_meta row left)
    assert data["recovered"] == ["rev-0001"] and data["vectors"]["computed"] == EMBEDDED


def test_the_skip_rule() -> None:
    """Chunks with no meaning for search get no vector; anything with a statement or a
    comment, and every contract (abstract / interface method), keeps one."""
    skip = {
        "file a.php (a.php:1)\n<?php\nnamespace App;\nuse App\\A;\nuse App\\B;\n": "imports only",
        "file m.py (m.py:1)\nimport os\nfrom x import y\n": "imports only",
        "class App\\Report (a.php:4)\nfinal class Report extends Base\n{": "empty body",
        "method App\\A::__construct (a.php:9)\n    public function __construct()\n    {\n    }": "empty body",
        "function f (m.py:3)\ndef f(x):\n    pass": "empty body",
        "method App\\A::run (a.php:130)\n        }\n    }": "punctuation only",
    }
    for text, why in skip.items():
        assert skip_reason(text) == why, text
    keep = (
        "method App\\A::total (a.php:3)\n    abstract public function total(): int;",
        "class App\\Report (a.php:4)\n/** Monthly revenue report. */\nclass Report\n{",
        "method App\\A::run (a.php:9)\n    public function run()\n    {\n        return 1;\n    }",
        "file a.php (a.php:1)\n<?php\nrequire 'x.php';\n$app->run();",
        "function f (m.py:3)\ndef f(x):\n    '''Say hello.'''\n    pass",
    )
    for text in keep:
        assert skip_reason(text) is None, text


@pytest.mark.model
@pytest.mark.slow
def test_the_ledger_is_open_while_reindex_embeds(pilot: Path) -> None:
    """reindex --commit holds the ledger lock until the seal only: while it embeds, the
    new revision's change effort can already be registered (drift --scan)."""
    indexer.build(config.load(pilot))  # rev-0001, vectors off (the suite's default)
    invoke("-C", pilot, "drift", "--scan", check=True)
    (pilot / "src" / "extra.php").write_text("<?php function extra_one() { return 1; }\n")
    assert invoke("-C", pilot, "drift", "--scan", check=True).exit_code == 0
    proc = _start(pilot, "vectors-batch", "reindex", "--commit")
    try:
        assert manifest.require(config.Layout(pilot).rev_json)["rev_id"] == "rev-0002"
        (pilot / "src" / "later.php").write_text("<?php function later_one() { return 2; }\n")
        scan = subprocess.run(
            [sys.executable, "-m", "ragraf", "-C", str(pilot), "drift", "--scan", "--json"],
            env=_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert scan.returncode == 0, scan.stderr
        st = json.loads(invoke("-C", pilot, "status", "--json", check=True).stdout)
        assert st["rev_id"] == "rev-0002" and st["ledger"]["entries"] >= 1
        assert st["vectors"]["status"] == "embedding"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


@pytest.mark.model
@pytest.mark.slow
def test_a_layer_finished_meanwhile_is_not_called_interrupted(tmp_path: Path) -> None:
    """A reader that read rev.json while the writer embedded, and tests the lock after the
    writer recorded 'ready' and let the lock go, says 'ready', not 'interrupted' (the race
    a full suite run once hit: embedded 32 of 32, 'interrupted')."""
    from ragraf.facade.context import vector_layer

    root = copy_pilot(tmp_path / "pilot")
    config.init_project(root)
    mp = pytest.MonkeyPatch()
    mp.delenv("RAGRAF_VECTORS", raising=False)
    indexer.build(config.load(root), wait_vectors=True)
    mp.undo()
    layout = config.Layout(root)
    man = manifest.require(layout.rev_json)
    assert man["vectors"]["status"] == "ready"
    stale = {**man, "vectors": {**man["vectors"], "status": "embedding"}}
    with LexStore(layout.lexvec_db, readonly=True) as lex:
        got = vector_layer(layout, stale, lex)
    assert isinstance(got, dict) and got["status"] == "ready", got
