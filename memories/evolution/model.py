"""A small multinomial logistic model over the features of a pair (memories.evolution.compare).

Its weights live in judge_model.json beside this module, written by bench/judge_train.py
from the evolution sets bench/judge_train.py names in TRAINED_SETS; never by hand.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads on the first verdict, not when a process starts
    import numpy as np

MODEL_PATH = Path(__file__).with_name("judge_model.json")


@lru_cache(maxsize=1)
def load() -> dict:
    return json.loads(MODEL_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _shipped() -> tuple[tuple[str, ...], np.ndarray]:
    import numpy as np

    model = load()
    return tuple(model["classes"]), np.asarray(model["weights"], dtype=np.float64)


def probabilities(values: tuple[float, ...], model: dict | None = None) -> dict[str, float]:
    """Each class's probability for a pair's feature values (the shipped model, or `model`)."""
    import numpy as np

    if model is None:
        classes, weights = _shipped()
    else:
        classes, weights = tuple(model["classes"]), np.asarray(model["weights"], dtype=np.float64)
    scores = weights @ np.asarray(values, dtype=np.float64)
    exps = np.exp(scores - scores.max())
    chances = exps / exps.sum()
    return {label: float(chance) for label, chance in zip(classes, chances, strict=True)}
