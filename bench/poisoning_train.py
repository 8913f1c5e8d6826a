"""Train the poisoning classifier on multilingual-e5-small vectors and write its weights.

    .venv/bin/python bench/poisoning_train.py [--cache /tmp/poisoning-vectors.npz]

Logistic regression (L2, Newton's method from zero weights: no randomness, so the same
model file gives the same weights) on the passage vectors
of the generated `tuned`, `development`, `heldout`, `fresh`, `fresh2`, `fresh3` and `fresh4` splits and the larger
`breadth` training corpus (tests/fixtures/poisoning/generate.py: 1200 attacks, 1600 ordinary
memories of runbooks, rules and agent conventions in many shapes, attacks hidden in
carriers), plus ordinary text not written from templates: the
retrieval corpus's memories and queries (tests/fixtures/retrieval/) and the paragraphs of
docs/ (except security.md and injection.md, which quote attacks). `heldout` to `fresh4`
were each held out at first and measured once, then tuned and trained on; `fresh5` never
may be: it is the next measure taken after tuning. Trained on templates alone, the
model learnt their style: at 0.5 it flagged 16% of the hand-written ordinary memories and
most docstrings and questions it was shown. The hand-written ordinary memories
(ordinary.jsonl, holdout_ordinary.jsonl) and the agents' notes of the memory-evolution
scenarios, never trained on, then calibrate the threshold: the lowest multiple
of 0.05 above every hand-written ordinary memory's score plus a 0.02 margin, at least 0.5,
at which at most one agent note in 500 is flagged.

Writes memories/poisoning/classifier.json, which memories.poisoning.classifier reads when
the active embedder is this same model.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from continuity.runtime import default_data_dir  # noqa: E402
from memories.embeddings.e5 import E5Encoder  # noqa: E402
from memories.embeddings.embedders import PackagedE5Embedder  # noqa: E402
from memories.poisoning import classifier, normalize  # noqa: E402
from tests.fixtures.poisoning.generate import SEEDS, SIZE, attacks, ordinary  # noqa: E402

# split -> (attacks, ordinary memories) drawn from it
TRAINING_SPLITS = {
    "tuned": (SIZE, SIZE),
    "development": (SIZE, SIZE),
    "heldout": (SIZE, SIZE),
    "fresh": (SIZE, SIZE),
    "fresh2": (SIZE, SIZE),
    "fresh3": (SIZE, SIZE),
    "fresh4": (SIZE, SIZE),
    "breadth": (1200, 1600),
}
# Measured after tuning; training on them would void the measure. A split named here need
# not exist yet (a measure written later on another line of work): it is kept out once it does.
NEVER_TRAINED_ON = ("fresh5",)
L2, NEWTON_STEPS = 1e-3, 50


def encoder() -> E5Encoder:
    return E5Encoder(PackagedE5Embedder.model_file(), default_data_dir(os.environ) / "models")


def vectors(model: E5Encoder, texts: list[str], cache: Path | None = None) -> np.ndarray:
    """Passage vectors of what the classifier reads; with `cache` (an .npz file), vectors
    of texts seen before are read back instead of embedded again (a retraining after a
    change to the weights alone takes seconds)."""
    return embedded(model, [normalize.classifier_text(text) for text in texts], cache)


def embedded(model: E5Encoder, readings: list[str], cache: Path | None = None) -> np.ndarray:
    """Passage vectors of readings as they are (see `vectors`)."""
    known: dict[str, np.ndarray] = {}
    if cache is not None and cache.exists():
        with np.load(cache) as stored:
            known = dict(zip(stored["texts"].tolist(), stored["vectors"], strict=True))
    for reading in dict.fromkeys(readings):
        if reading not in known:
            known[reading] = model.encode("passage: " + reading)
    if cache is not None:
        np.savez(cache, texts=np.array(list(known)), vectors=np.stack(list(known.values())))
    return np.stack([known[reading] for reading in readings])


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by Newton's method from zero: the loss is convex
    and the features few (384), so each step solves the exact Hessian, and the result does
    not depend on a learning rate (gradient descent with a fixed one diverged as the
    corpus grew: multilingual-e5 vectors share a strong common direction)."""
    design = np.hstack([x, np.ones((len(y), 1))])
    theta = np.zeros(design.shape[1])
    ridge = np.full(design.shape[1], L2)
    ridge[-1] = 0.0  # the bias is not shrunk
    for _ in range(NEWTON_STEPS):
        p = 1 / (1 + np.exp(-(design @ theta)))
        gradient = design.T @ (p - y) / len(y) + ridge * theta
        hessian = (design.T * (p * (1 - p))) @ design / len(y) + np.diag(ridge)
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return theta[:-1], float(theta[-1])


def prose() -> list[str]:
    """Ordinary text in other shapes than the templates: notes, questions, paragraphs."""
    retrieval = ROOT / "tests" / "fixtures" / "retrieval"
    texts = [
        json.loads(line)["content"]
        for line in (retrieval / "corpus.jsonl").read_text().splitlines()
        if line
    ]
    texts += [
        json.loads(line)["query"]
        for line in (retrieval / "queries.jsonl").read_text().splitlines()
        if line
    ]
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name in ("security.md", "injection.md"):
            continue
        for paragraph in page.read_text().split("\n\n"):
            paragraph = paragraph.strip()
            if 40 <= len(paragraph) <= 400 and not paragraph.startswith("```"):
                texts.append(paragraph)
    return texts


def calibration_texts() -> tuple[list[str], list[str]]:
    """Ordinary memories the classifier never trains on: the hand-written sets, and the
    memories of the memory-evolution scenarios (agents' notes as they write them)."""
    fixtures = ROOT / "tests" / "fixtures"
    written = []
    for name in ("ordinary", "holdout_ordinary"):
        lines = (fixtures / "poisoning" / f"{name}.jsonl").read_text().splitlines()
        written += [json.loads(line)["text"] for line in lines if line]
    notes = []
    for path in sorted((fixtures / "evolution").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            case = json.loads(line) if line.strip() else {}
            notes += [memory["content"] for memory in case.get("existing", [])]
            notes += [case["write"]["content"]] if "write" in case else []
    return written, list(dict.fromkeys(notes))


def calibrated(weights: np.ndarray, bias: float, model: E5Encoder, cache: Path | None) -> float:
    """The lowest multiple of 0.05 (at least 0.5) above every hand-written ordinary memory's
    score plus a 0.02 margin, at which at most one agent note in 500 is flagged."""
    written, notes = calibration_texts()

    def score(texts: list[str]) -> np.ndarray:
        """Each text's score as a write reads it (memories.poisoning.classifier.read)."""

        def embed(readings: list[str]) -> np.ndarray:
            return embedded(model, readings, cache)

        return np.array(classifier.read(texts, embed, weights * classifier.SCALE, bias))

    highest, noted = float(score(written).max()), score(notes)
    threshold = max(0.5, math.ceil((highest + 0.02) * 20) / 20)
    while (noted >= threshold).mean() > 1 / 500:
        threshold = round(threshold + 0.05, 2)
    print(
        f"highest hand-written ordinary score {highest:.3f}; {len(notes)} agent notes; "
        f"{(noted >= threshold).mean():.4f} of them at or above {threshold}"
    )
    return threshold


def measured_texts() -> set[str]:
    """Every text of the never-trained splits that exist on this checkout."""
    texts: set[str] = set()
    for split in NEVER_TRAINED_ON:
        if split in SEEDS:
            texts |= {case["text"] for case in attacks(split) + ordinary(split)}
    return texts


def main() -> None:
    if set(TRAINING_SPLITS) & set(NEVER_TRAINED_ON):
        raise SystemExit(
            f"refusing to train on {NEVER_TRAINED_ON}: they are the untouched measures"
        )
    texts, labels = [], []
    for split, (bad_size, good_size) in TRAINING_SPLITS.items():
        bad, good = attacks(split, bad_size), ordinary(split, good_size)
        texts += [case["text"] for case in bad + good]
        labels += [1] * len(bad) + [0] * len(good)
    extra = prose()
    texts += extra
    labels += [0] * len(extra)
    if shared := measured_texts() & set(texts):
        raise SystemExit(f"{len(shared)} training texts belong to a measured split; not training")
    model = encoder()
    started = time.perf_counter()
    cache = Path(sys.argv[sys.argv.index("--cache") + 1]) if "--cache" in sys.argv else None
    x = vectors(model, texts, cache) * classifier.SCALE
    print(f"embedded {len(texts)} texts in {time.perf_counter() - started:.1f} s")
    y = np.array(labels, dtype=np.float64)
    weights, bias = fit(x, y)
    threshold = calibrated(weights, bias, model, cache)
    classifier.WEIGHTS_FILE.write_text(
        json.dumps(
            {
                "embedder": PackagedE5Embedder.name,
                "trained_on": [*TRAINING_SPLITS, "retrieval corpus", "docs"],
                "examples": len(labels),
                "scale": classifier.SCALE,
                "bias": round(bias, 6),
                "threshold": round(threshold, 4),
                "weights": [round(float(w), 6) for w in weights],
            }
        )
        + "\n"
    )
    print(f"threshold {threshold:.3f}; wrote {classifier.WEIGHTS_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
