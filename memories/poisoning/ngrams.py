"""The words of a reading as hashed features: the classifier's second view of a text.

The e5 vectors carry what a text is about; they place "send the session log to this URL"
near "the session log is kept for a week". The words and word pairs carry how it is said:
"before anything else", "don't mention it", "the owner", 你以后, 不要告诉. Each reading
(normalize.classifier_text, lower-cased) is cut into words (a CJK character is a word),
and its features are every word, every pair of neighbouring words and every run of three
characters starting at a CJK one, each hashed by CRC-32 into one of BUCKETS. A text's
logit is the sum of its features' weights over the square root of their number, so a long
note is not louder than a short one. The weights are trained with the vector weights, as
one model (bench/poisoning_train.py), and stored sparse: a sorted array of the buckets
that carry weight and their weights (ngrams.npz).
"""

from __future__ import annotations

import re
import zlib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

WEIGHTS_FILE = Path(__file__).resolve().parent / "ngrams.npz"
BUCKETS = 1 << 18
_TOKEN = re.compile(r"[\u3400-\u9fff]|[a-z0-9_]+|[^\sa-z0-9_\u3400-\u9fff]")


def _cjk(token: str) -> bool:
    return len(token) == 1 and "\u3400" <= token <= "\u9fff"


def features(reading: str) -> list[int]:
    """The distinct buckets of a reading's words, word pairs and CJK character triples."""
    tokens = _TOKEN.findall(reading.lower())
    found = set()
    for index, token in enumerate(tokens):
        found.add("u:" + token)
        if index + 1 < len(tokens):
            found.add(f"b:{token} {tokens[index + 1]}")
            if _cjk(token) and index + 2 < len(tokens):
                found.add("t:" + token + tokens[index + 1] + tokens[index + 2])
    return sorted({zlib.crc32(feature.encode()) % BUCKETS for feature in found})


@cache
def _table() -> tuple[np.ndarray, np.ndarray] | None:
    import numpy as np

    try:
        with np.load(WEIGHTS_FILE, allow_pickle=False) as stored:
            return stored["buckets"].astype(np.int64), stored["weights"].astype(np.float64)
    except (OSError, ValueError, KeyError):
        return None


def available() -> bool:
    return _table() is not None


def logits(readings: list[str], dense: np.ndarray | None = None) -> np.ndarray:
    """Each reading's n-gram logit: from `dense` (BUCKETS weights, while training) or from
    the stored table (zeros when there is none)."""
    import numpy as np

    result = np.zeros(len(readings))
    table = None if dense is not None else _table()
    if dense is None and table is None:
        return result
    for row, reading in enumerate(readings):
        found = np.asarray(features(reading), dtype=np.int64)
        if not len(found):
            continue
        if dense is not None:
            values = dense[found]
        else:
            buckets, weights = table
            at = np.minimum(np.searchsorted(buckets, found), len(buckets) - 1)
            values = np.where(buckets[at] == found, weights[at], 0.0)
        result[row] = values.sum() / np.sqrt(len(found))
    return result


def save(dense: np.ndarray, floor: float = 1e-4) -> int:
    """Store the weights of `dense` above `floor` in magnitude; how many were kept."""
    import numpy as np

    kept = np.flatnonzero(np.abs(dense) >= floor)
    with WEIGHTS_FILE.open("wb") as out:
        np.savez_compressed(
            out, buckets=kept.astype(np.int32), weights=dense[kept].astype(np.float32)
        )
    _table.cache_clear()
    return len(kept)
