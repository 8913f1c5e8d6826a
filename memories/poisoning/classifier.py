"""A logistic regression on multilingual-e5-small passage vectors and on the words of the
text (ngrams.py): the second reader.

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
from typing import TYPE_CHECKING

from memories.poisoning import ngrams, normalize

if TYPE_CHECKING:
    import numpy as np

WEIGHTS_FILE = Path(__file__).resolve().parent / "classifier.json"
SCALE = 10.0  # unit vectors scaled so that plain gradient descent converges in few steps
CHUNK_CHARS, MAX_CHUNKS = 400, 4  # a long text is read in pieces; an attack is one sentence
MAX_SENTENCES = 12
SENTENCE_GATE = 0.1
# The score at which the classifier confirms a weak finding (an authority's label, a hidden
# line naming the model): far below the threshold for text no rule suspects, far above what
# the measured notices and config fields of ordinary memories score (bench/poisoning_eval.py).
CORROBORATION = 0.4

log = logging.getLogger(__name__)


@cache
def _weights() -> tuple[str, np.ndarray, float, float] | None:
    try:
        data = json.loads(WEIGHTS_FILE.read_text())
    except (OSError, ValueError):
        return None
    if data.get("ngrams") and not ngrams.available():
        return None  # the vector weights were trained with the words' and mean little alone
    import numpy as np  # loaded with the weights, on the first write that is screened

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


def pieces(text: str) -> tuple[list[str], list[str]]:
    """The pieces of a text the classifier reads: its lines packed up to CHUNK_CHARS, and
    its sentences one by one (those that are not already a packed piece). One order hidden
    in a CSV row, a docstring or a long runbook is most of its sentence and little of a
    400-character piece; the packed pieces keep what a sentence alone does not say."""
    reading = normalize.classifier_text(text)
    packed, current = [], ""
    for line in reading.splitlines():
        while len(line) > CHUNK_CHARS:
            packed.append(line[:CHUNK_CHARS])
            line = line[CHUNK_CHARS:]
        if current and len(current) + len(line) + 1 > CHUNK_CHARS:
            packed.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current.strip():
        packed.append(current)
    packed = [piece for piece in packed if _says_something(piece)][:MAX_CHUNKS]
    sentences = [piece.strip()[:CHUNK_CHARS] for piece in _SENTENCE_END.split(reading)]
    sentences = [s for s in dict.fromkeys(sentences) if _says_something(s) and s not in packed]
    return packed, sentences[:MAX_SENTENCES]


def chunks(text: str) -> list[str]:
    """Every piece of a text, packed pieces first."""
    packed, sentences = pieces(text)
    return packed + sentences


_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s+|\n+|(?<=[。！？；])")
_WORD = re.compile(r"[\u3400-\u9fff]|[^\W\d_]{2,}")
MIN_WORDS = 4


def _says_something(piece: str) -> bool:
    """Whether a piece has the few distinct words an embedding needs to say anything of
    intent: a run of one letter, a hash or a number list is out of what the model learnt,
    and its score would be noise."""
    return len(set(_WORD.findall(piece.lower()))) >= MIN_WORDS


def scores(texts: list[str]) -> list[float] | None:
    """Each text's highest piece score (0..1), or None when the model is not available."""
    loaded = _weights()
    if loaded is None or not texts:
        return None
    name, weights, bias, _ = loaded
    embedder = _embedder(name)
    if embedder is None:
        return None
    try:
        return read(texts, embedder.embed_passages, weights, bias, ngrams.logits)
    except Exception:  # a failing model must not fail a write; the rules still ran
        log.exception("poisoning classifier: embedding failed")
        return None


def read(texts: list[str], embed, weights: np.ndarray, bias: float, words=None) -> list[float]:
    """Each text's highest piece score, `embed` giving the pieces' unit vectors and `words`
    (when given) the pieces' n-gram logits, added to the vectors' (ngrams.py). The packed
    pieces are read first; a text's sentences only when those score SENTENCE_GATE or more
    (a text whose every line reads as ordinary hides no order in one of its sentences
    on the measured corpora, and the gate spares most multi-sentence notes the extra
    embeddings). bench/poisoning_train.py calibrates the threshold through this same
    function, so what it measures is what a write does."""
    split = [pieces(text) for text in texts]
    best = _best([packed for packed, _ in split], embed, weights, bias, words)
    again = [i for i, (_, sentences) in enumerate(split) if sentences and best[i] >= SENTENCE_GATE]
    later = _best([split[i][1] for i in again], embed, weights, bias, words)
    for index, score in zip(again, later):
        best[index] = max(best[index], score)
    return best


def _best(groups: list[list[str]], embed, weights, bias: float, words) -> list[float]:
    flat = [piece for group in groups for piece in group]
    if not flat:
        return [0.0] * len(groups)
    import numpy as np

    logit = embed(flat) @ weights + bias
    if words is not None:
        logit = logit + words(flat)
    scored = 1 / (1 + np.exp(-logit))
    result, start = [], 0
    for group in groups:
        result.append(float(scored[start : start + len(group)].max()) if group else 0.0)
        start += len(group)
    return result


def threshold() -> float:
    loaded = _weights()
    return loaded[3] if loaded else 1.0
