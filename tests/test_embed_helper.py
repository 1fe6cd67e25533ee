"""The model loaded ahead in a child process (ragraf.embed.helper; issue 15): the same vectors
as in process, a fallback for every way it can fail, no child left behind. Real child
processes, the real packaged model, SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ragraf import config
from ragraf.embed import DEFAULT_BATCH, Embedder
from ragraf.embed.helper import EmbedHelper, HelperGone
from ragraf.indexing import indexer, vectors
from ragraf.store import manifest, open_stores
from ragraf.store.lexvec import LexStore
from tests.helpers import copy_pilot

pytestmark = [pytest.mark.model, pytest.mark.slow]

TEXTS = [
    "function charge(Card $card, int $cents): Receipt { return $this->gateway->charge($card); }",
    "list of country flags",
    "SELECT id, total FROM invoices WHERE paid = 0",
    "x" * 4000,  # cut to the token window, like every text
] + [f"function f{i}() {{ return {i}; }}" for i in range(40)]


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_gone(pid: int, seconds: float = 20.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not _pid_alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_pilot(tmp_path_factory.mktemp("helper") / "pilot")
    config.init_project(root)
    return root


def _emb(root: Path) -> Embedder:
    return Embedder.from_config(config.load(root).embedding.as_mapping(), root=root)


def test_the_helper_gives_the_vectors_of_this_process_bit_for_bit(project: Path) -> None:
    emb = _emb(project)
    helper = EmbedHelper(config.load(project).embedding.as_mapping(), project)
    try:
        got = {
            i: v
            for idx, vecs in helper.batches(emb, TEXTS, DEFAULT_BATCH)
            for i, v in zip(idx, vecs, strict=True)
        }
        again = [i for idx, _ in helper.batches(emb, TEXTS[:3], DEFAULT_BATCH) for i in idx]
    finally:
        helper.close()
    want = {
        i: v
        for idx, vecs in emb.batches(TEXTS, DEFAULT_BATCH)
        for i, v in zip(idx, vecs, strict=True)
    }
    assert sorted(got) == list(range(len(TEXTS))) and sorted(again) == [0, 1, 2]
    for i, v in want.items():
        assert got[i].dtype == np.float32 and np.array_equal(got[i], v), i


def test_another_model_or_a_dead_helper_is_refused(project: Path, tmp_path: Path) -> None:
    emb = _emb(project)
    absent = EmbedHelper({"path": str(tmp_path / "no-model")}, project)
    with pytest.raises(HelperGone, match="no-model"):
        absent.serves(emb)
    helper = EmbedHelper(config.load(project).embedding.as_mapping(), project)
    assert helper.serves(emb)["model_version"] == emb.model_version
    assert helper._proc is not None
    helper._proc.kill()
    with pytest.raises(HelperGone):
        list(helper.batches(emb, TEXTS, DEFAULT_BATCH))
    helper.close()  # twice is harmless
    helper.close()


def test_the_fill_embeds_in_process_what_the_helper_could_not(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A helper killed before it answers, or one holding another model: the build's vectors are
    the same as without a helper."""
    monkeypatch.delenv("RAGRAF_VECTORS", raising=False)
    monkeypatch.setenv("RAGRAF_EMBED_HELPER", "off")
    plain = copy_pilot(tmp_path / "plain")
    config.init_project(plain)
    indexer.build(config.load(plain))
    want = _stored(plain)
    for broken in ("killed", "other model"):
        root = copy_pilot(tmp_path / broken.replace(" ", "-"))
        config.init_project(root)
        cfg = config.load(root)
        res = indexer.build(cfg, no_vectors=True)
        with open_stores(cfg.layout, write=True) as stores:
            man = manifest.require(cfg.layout.rev_json)
            p = indexer._vector_plan(cfg, stores, man)
            assert isinstance(p, vectors.Plan) and p.todo
            embedding = cfg.embedding.as_mapping() if broken == "killed" else {"path": "nowhere"}
            helper = EmbedHelper(embedding, root)
            if broken == "killed":
                assert helper._proc is not None
                helper._proc.send_signal(signal.SIGKILL)
            try:
                status = vectors.fill(stores.lex.db, p, None, helper)
            finally:
                helper.close()
        assert status["status"] == "ready" and status["computed"] == len(p.todo), status
        assert res.rev_id and _stored(root) == want, broken


def _stored(root: Path) -> dict[str, bytes]:
    lex = LexStore(config.Layout(root).lexvec_db, readonly=True)
    try:
        from ragraf.store.vec import _load_extension

        _load_extension(lex.db)
        return {
            str(r[0]): bytes(r[1])
            for r in lex.db.query("SELECT chunk_id, embedding FROM vec_chunk")
        }
    finally:
        lex.close()


def test_a_killed_parent_leaves_no_helper_behind(project: Path) -> None:
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from ragraf import config\n"
        "from ragraf.embed.helper import EmbedHelper\n"
        f"root = Path({str(project)!r})\n"
        "h = EmbedHelper(config.load(root).embedding.as_mapping(), root)\n"
        "print(h._proc.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert _pid_alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    assert _wait_gone(child), f"helper {child} outlived its parent"


def test_a_reindex_embeds_with_the_helper_and_leaves_no_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAGRAF_VECTORS", raising=False)
    monkeypatch.delenv("RAGRAF_EMBED_HELPER", raising=False)
    started: list[EmbedHelper] = []
    real_start = indexer.Prefetch.start

    def start(self: indexer.Prefetch) -> None:
        real_start(self)
        if self.helper is not None:
            started.append(self.helper)

    monkeypatch.setattr(indexer.Prefetch, "start", start)
    root = copy_pilot(tmp_path / "p")
    config.init_project(root)
    indexer.build(config.load(root))
    inv = root / "src" / "Billing" / "Invoice.php"
    inv.write_text(inv.read_text().replace("function charge(", "function chargeNow("))
    res = indexer.build(config.load(root), commit=True)
    assert res.vectors and res.vectors["status"] == "ready" and res.vectors["computed"] >= 1
    assert len(started) == 2 and all(h._proc is None for h in started)  # closed
    # the same vectors as a clean build without the helper
    monkeypatch.setenv("RAGRAF_EMBED_HELPER", "off")
    clean = tmp_path / "clean"
    clean.mkdir()
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if rel.parts[0] == ".ragraf" or rel.name == ".gitignore":
            continue
        (clean / rel).parent.mkdir(parents=True, exist_ok=True)
        if p.is_file():
            (clean / rel).write_bytes(p.read_bytes())
    config.init_project(clean)
    indexer.build(config.load(clean))
    got, want = _stored_of_active(root), _stored_of_active(clean)
    assert sorted(got) == sorted(want)
    for cid in got:  # batches differ, so float rounding may differ in the last bits
        va, vb = np.frombuffer(got[cid], np.float32), np.frombuffer(want[cid], np.float32)
        assert float(va @ vb) > 0.9999, cid


def _stored_of_active(root: Path) -> dict[str, bytes]:
    """chunk_id -> vector of the active revision's chunks."""
    layout = config.Layout(root)
    rev = manifest.require(layout.rev_json)["rev_id"]
    lex = LexStore(layout.lexvec_db, readonly=True)
    try:
        ids = set(lex.chunk_ids(rev))
    finally:
        lex.close()
    return {c: v for c, v in _stored(root).items() if c in ids}


def test_a_large_plan_embeds_in_process_and_ends_the_helper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAGRAF_VECTORS", raising=False)
    monkeypatch.setattr("ragraf.embed.helper.MAX_TEXTS", 3)
    root = copy_pilot(tmp_path / "p")
    config.init_project(root)
    cfg = config.load(root)
    indexer.build(cfg, no_vectors=True)
    with open_stores(cfg.layout, write=True) as stores:
        p = indexer._vector_plan(cfg, stores, manifest.require(cfg.layout.rev_json))
        assert isinstance(p, vectors.Plan) and len(p.todo) > 3
        helper = EmbedHelper(cfg.embedding.as_mapping(), root)
        pid = helper._proc.pid if helper._proc else 0
        status = vectors.fill(stores.lex.db, p, None, helper)
    assert status["status"] == "ready" and status["computed"] == len(p.todo)
    assert helper._proc is None and _wait_gone(pid)
