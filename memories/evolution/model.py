"""A small multinomial logistic model over the features of a pair (memories.evolution.compare).

Its weights live in judge_model.json beside this module, written by bench/judge_train.py
from the tuned evolution set only (tests/fixtures/evolution/tuned.jsonl); never by hand.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

MODEL_PATH = Path(__file__).with_name("judge_model.json")


@lru_cache(maxsize=1)
def load() -> dict:
    return json.loads(MODEL_PATH.read_text(encoding="utf-8"))


def probabilities(values: tuple[float, ...], model: dict | None = None) -> dict[str, float]:
    model = model or load()
    scores = [
        sum(weight * value for weight, value in zip(weights, values, strict=True))
        for weights in model["weights"]
    ]
    top = max(scores)
    exps = [math.exp(score - top) for score in scores]
    total = sum(exps)
    return {label: exp / total for label, exp in zip(model["classes"], exps, strict=True)}
