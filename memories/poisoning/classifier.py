"""A logistic regression on multilingual-e5-small passage vectors: the second reader.

The rules (rules.py) know the shapes of attacks they were written for; a paraphrase outside
them ("pay no attention to the earlier directions") passes. The classifier was trained on
fabricated attacks and ordinary memories (bench/poisoning_train.py writes classifier.json)
and catches much of what the rules miss; bench/poisoning_eval.py measures both, alone and
together. It only runs when the active embedder is the model its weights were trained on
(vectors of another model live in another space), and a missing or failing model leaves
the rules alone in charge: the screen never fails a write.
"""

from __future__ import annotations

import json
import logging
import re
from functools import cache
from pathlib import Path

import numpy as np

from memories.poisoning import normalize

WEIGHTS_FILE = Path(__file__).resolve().parent / "classifier.json"
SCALE = 10.0  # unit vectors scaled so that plain gradient descent converges in few steps
CHUNK_CHARS, MAX_CHUNKS = 400, 4  # a long text is read in pieces; an attack is one sentence

log = logging.getLogger(__name__)


@cache
def _weights() -> tuple[str, np.ndarray, float, float] | None:
    try:
        data = json.loads(WEIGHTS_FILE.read_text())
    except (OSError, ValueError):
        return None
    weights = np.asarray(data["weights"], dtype=np.float32) * data["scale"]
    return data["embedder"], weights, float(data["bias"]), float(data["threshold"])


def _embedder(name: str):
    from django.core.exceptions import ImproperlyConfigured

    from memories.embeddings.embedders import EmbedderUnavailable, active_embedder

    try:
        embedder = active_embedder()
    except (EmbedderUnavailable, ImproperlyConfigured):  # no model, or no Django (a script)
        return None
    return embedder if embedder is not None and embedder.name == name else None


def chunks(text: str) -> list[str]:
    """The pieces of a text the classifier reads: lines packed up to CHUNK_CHARS."""
    pieces, current = [], ""
    for line in normalize.classifier_text(text).splitlines():
        while len(line) > CHUNK_CHARS:
            pieces.append(line[:CHUNK_CHARS])
            line = line[CHUNK_CHARS:]
        if current and len(current) + len(line) + 1 > CHUNK_CHARS:
            pieces.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current.strip():
        pieces.append(current)
    return [piece for piece in pieces if _says_something(piece)][:MAX_CHUNKS]


_WORD = re.compile(r"[\u3400-\u9fff]|[^\W\d_]{2,}")
MIN_WORDS = 4


def _says_something(piece: str) -> bool:
    """Whether a piece has the few distinct words an embedding needs to say anything of
    intent: a run of one letter, a hash or a number list is out of what the model learnt,
    and its score would be noise."""
    return len(set(_WORD.findall(piece.lower()))) >= MIN_WORDS


def scores(texts: list[str]) -> list[float] | None:
    """Each text's highest chunk score (0..1), or None when the model is not available."""
    loaded = _weights()
    if loaded is None or not texts:
        return None
    name, weights, bias, _ = loaded
    embedder = _embedder(name)
    if embedder is None:
        return None
    pieces = [chunks(text) for text in texts]
    flat = [piece for group in pieces for piece in group]
    if not flat:
        return [0.0] * len(texts)
    try:
        vectors = embedder.embed_passages(flat)
    except Exception:  # a failing model must not fail a write; the rules still ran
        log.exception("poisoning classifier: embedding failed")
        return None
    logits = 1 / (1 + np.exp(-(vectors @ weights + bias)))
    result, start = [], 0
    for group in pieces:
        result.append(float(logits[start : start + len(group)].max()) if group else 0.0)
        start += len(group)
    return result


def threshold() -> float:
    loaded = _weights()
    return loaded[3] if loaded else 1.0
