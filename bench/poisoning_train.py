"""Train the poisoning classifier on multilingual-e5-small vectors and write its weights.

    .venv/bin/python bench/poisoning_train.py [--cache /tmp/poisoning-vectors.npz]
    .venv/bin/python bench/poisoning_train.py --folds [--cache ...]   # measure, write nothing

Logistic regression (L2, Newton's method from zero weights: no randomness, so the same
model file gives the same weights) on the passage vectors of the generated `tuned`,
`development`, `heldout`, `fresh` to `fresh11` splits and the larger
`breadth` training corpus (tests/fixtures/poisoning/generate.py: 1200 attacks, 1600 ordinary
memories of runbooks, rules and agent conventions in many shapes, attacks hidden in
carriers), plus ordinary text not written from templates: the
retrieval corpus's memories and queries (tests/fixtures/retrieval/) and the paragraphs of
docs/ (except security.md and injection.md, which quote attacks). `heldout` to `fresh11`
were each held out at first and measured once, then tuned and trained on; `fresh12` never
may be: it is the next measure taken after tuning. Trained on templates alone, the
model learnt their style: at 0.5 it flagged 16% of the hand-written ordinary memories and
most docstrings and questions it was shown. The hand-written ordinary memories
(ordinary.jsonl, holdout_ordinary.jsonl) and the agents' notes of the memory-evolution
scenarios, never trained on, then calibrate the threshold: the lowest multiple
of 0.05 above every hand-written ordinary memory's score plus a 0.02 margin, at least 0.5,
at which at most one agent note in 500 is flagged.

Each source weighs the same: within attacks, and within ordinary texts, every split (and
the retrieval corpus with the docs, as one source) carries an equal share of the weight,
however many texts it has. Unweighted, `breadth` (2,800 texts) and the prose outweighed
every generated split, and the model learnt their phrasing more than the splits' many
ways of asking; weighted, each split left out in turn is caught better (docs/security.md).

`--folds` measures how the training generalises: each of FOLDS is left out in turn, the
model trained on the rest and calibrated as above, and the screen (rules, then the
classifier on what no rule flagged, as a write runs it) is scored on the split left out.

Writes memories/poisoning/classifier.json, which memories.poisoning.classifier reads when
the active embedder is this same model.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections import Counter
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from continuity.runtime import default_data_dir  # noqa: E402
from memories import poisoning  # noqa: E402
from memories.embeddings.e5 import E5Encoder  # noqa: E402
from memories.embeddings.embedders import PackagedE5Embedder  # noqa: E402
from memories.poisoning import classifier, ngrams, normalize  # noqa: E402
from tests.fixtures.poisoning.breadth_carriers import carrier, carry  # noqa: E402
from tests.fixtures.poisoning.breadth_slots import fill  # noqa: E402
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
    "fresh5": (SIZE, SIZE),
    "fresh6": (SIZE, SIZE),
    "fresh7": (SIZE, SIZE),
    "fresh8": (SIZE, SIZE),
    "fresh9": (SIZE, SIZE),
    "fresh10": (SIZE, SIZE),
    "fresh11": (SIZE, SIZE),
    "breadth": (1200, 1600),
}
# Measured after tuning; training on them would void the measure. A split named here need
# not exist yet (a measure written later on another line of work): it is kept out once it does.
NEVER_TRAINED_ON = ("fresh12",)
# The blind splits, each written by someone who never saw the screen: left out in turn by --folds.
FOLDS = (
    "fresh",
    "fresh2",
    "fresh3",
    "fresh4",
    "fresh5",
    "fresh6",
    "fresh7",
    "fresh8",
    "fresh9",
    "fresh10",
    "fresh11",
)
PROSE = "prose"  # the retrieval corpus and docs paragraphs, one source in the weighting
CARRIED, CARRIED_COUNT, CARRIED_SEED = "carried", 1200, 7
CARRIED_SHARE = 0.02  # of the agent notes set inside carriers, at most, flagged
Model = tuple[np.ndarray, float, np.ndarray]  # vector weights, bias, word weights
L2, STEPS, RATE = 1e-5, 300, 0.05


def encoder() -> E5Encoder:
    return E5Encoder(PackagedE5Embedder.model_file(), default_data_dir(os.environ) / "models")


class Vectors:
    """Passage vectors of readings, embedded once: with `cache` (an .npz file), vectors of
    readings seen before are read back instead of embedded again (a retraining after a
    change to the weights alone, or --folds, takes a minute or two)."""

    def __init__(self, cache: Path | None = None):
        self.cache, self.known, self.added = cache, {}, 0
        self._model: E5Encoder | None = None
        if cache is not None and cache.exists():
            with np.load(cache) as stored:
                self.known = dict(zip(stored["texts"].tolist(), stored["vectors"], strict=True))

    def __call__(self, readings: list[str]) -> np.ndarray:
        for reading in dict.fromkeys(readings):
            if reading not in self.known:
                self._model = self._model or encoder()
                self.known[reading] = self._model.encode("passage: " + reading)
                self.added += 1
        if not readings:
            return np.zeros((0, PackagedE5Embedder.dimension), dtype=np.float32)
        return np.stack([self.known[reading] for reading in readings])

    def of_texts(self, texts: list[str]) -> np.ndarray:
        """Vectors of whole texts as the classifier reads them (normalize.classifier_text)."""
        return self([normalize.classifier_text(text) for text in texts])

    def save(self) -> None:
        if self.cache is not None and self.added:
            vectors = np.stack(list(self.known.values()))
            np.savez(self.cache, texts=np.array(list(self.known)), vectors=vectors)
            self.added = 0


def fit(
    x: np.ndarray,
    readings: list[str],
    y: np.ndarray,
    weights: np.ndarray | None = None,
    l2: float = L2,
) -> tuple[np.ndarray, float, np.ndarray]:
    """L2-regularised logistic regression on the vectors `x` and the hashed words of
    `readings` together (memories.poisoning.ngrams), each example counted `weights` times
    (mean 1): full-batch Adam from zero weights for STEPS steps, so the same corpus gives
    the same weights. Returns the vector weights, the bias and the BUCKETS word weights."""
    n = len(y)
    weights = np.ones(n) if weights is None else weights * (n / weights.sum())
    found = [np.asarray(ngrams.features(reading), dtype=np.int64) for reading in readings]
    sizes = np.array([len(f) for f in found])
    buckets = np.concatenate(found)
    rows = np.repeat(np.arange(n), sizes)
    norm = 1 / np.sqrt(np.maximum(sizes, 1))
    params = [np.zeros(x.shape[1]), np.zeros(1), np.zeros(ngrams.BUCKETS)]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    for step in range(1, STEPS + 1):
        vector_w, bias, word_w = params
        words = np.bincount(rows, weights=word_w[buckets], minlength=n) * norm
        p = 1 / (1 + np.exp(-(x @ vector_w + bias[0] + words)))
        residual = weights * (p - y) / n
        gradients = [
            x.T @ residual + l2 * vector_w,
            np.array([residual.sum()]),
            np.bincount(buckets, weights=(residual * norm)[rows], minlength=ngrams.BUCKETS)
            + l2 * word_w,
        ]
        for k, gradient in enumerate(gradients):
            moments[k] = 0.9 * moments[k] + 0.1 * gradient
            squares[k] = 0.999 * squares[k] + 0.001 * gradient**2
            params[k] -= (
                RATE
                * (moments[k] / (1 - 0.9**step))
                / (np.sqrt(squares[k] / (1 - 0.999**step)) + 1e-8)
            )
    return params[0], float(params[1][0]), params[2]


def source_weights(labels: list[int], sources: list[str]) -> np.ndarray:
    """Per-example weights giving every source the same share of its class's weight; each
    class keeps its total (its number of examples)."""
    weights = np.ones(len(labels))
    for label in set(labels):
        counts = Counter(s for s, y in zip(sources, labels, strict=True) if y == label)
        in_class = sum(counts.values())
        for index, (source, y) in enumerate(zip(sources, labels, strict=True)):
            if y == label:
                weights[index] = in_class / (len(counts) * counts[source])
    return weights


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


def carried(splits: list[str]) -> list[str]:
    """Ordinary one-line notes of `splits` set inside the breadth corpus's carriers (a CI
    file, a commit, a table cell, a link title, a tool's output...). The attacks arrive in
    those shapes and the ordinary notes mostly bare; without these the words of a carrier
    read as an attack, and a plain note pasted in a config file was flagged."""
    pool = [
        case["text"]
        for split in splits
        if split != "breadth"
        for case in ordinary(split)
        if len(case["text"]) <= 220 and "\n" not in case["text"]
    ]
    return wrapped(pool, CARRIED_COUNT, CARRIED_SEED)


def wrapped(pool: list[str], count: int, seed: int) -> list[str]:
    """`count` texts of `pool` drawn at random, each set inside a breadth carrier."""
    rng, texts = random.Random(seed), []
    for _ in range(count if pool else 0):
        text = rng.choice(pool)
        zh = any("\u3400" <= char <= "\u9fff" for char in text)
        texts.append(fill(carry(carrier(rng), text, rng, zh), rng, {}))
    return list(dict.fromkeys(texts))


def corpus(splits: list[str]) -> tuple[list[str], list[int], list[str]]:
    """Texts, labels (1 attack, 0 ordinary) and sources of the training corpus over `splits`
    and the prose; refuses any text of a split kept for measuring."""
    if set(splits) & set(NEVER_TRAINED_ON):
        raise SystemExit(
            f"refusing to train on {NEVER_TRAINED_ON}: they are the untouched measures"
        )
    texts, labels, sources = [], [], []
    for split in splits:
        bad_size, good_size = TRAINING_SPLITS[split]
        bad, good = attacks(split, bad_size), ordinary(split, good_size)
        texts += [case["text"] for case in bad + good]
        labels += [1] * len(bad) + [0] * len(good)
        sources += [split] * (len(bad) + len(good))
    for source, extra in ((PROSE, prose()), (CARRIED, carried(splits))):
        texts += extra
        labels += [0] * len(extra)
        sources += [source] * len(extra)
    if shared := measured_texts() & set(texts):
        raise SystemExit(f"{len(shared)} training texts belong to a measured split; not training")
    return texts, labels, sources


def train(splits: list[str], vectors: Vectors, *, l2: float = L2, weighted: bool = True) -> Model:
    """The model fitted on `splits`, the prose and the carried ordinary notes (`weighted`:
    each source an equal share of its class; `l2` and `weighted` other than the defaults
    only to compare)."""
    texts, labels, sources = corpus(splits)
    readings = [normalize.classifier_text(text) for text in texts]
    x = vectors(readings) * classifier.SCALE
    weights = source_weights(labels, sources) if weighted else None
    return fit(x, readings, np.array(labels, dtype=np.float64), weights, l2)


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


def score(texts: list[str], model: Model, vectors: Vectors) -> np.ndarray:
    """Each text's score as a write reads it (memories.poisoning.classifier.read)."""
    weights, bias, words = model
    read_words = partial(ngrams.logits, dense=words)
    return np.array(classifier.read(texts, vectors, weights * classifier.SCALE, bias, read_words))


def calibrated(model: Model, vectors: Vectors, quiet: bool = False) -> float:
    """The lowest multiple of 0.05 (at least 0.5) above every hand-written ordinary memory's
    score plus a 0.02 margin, at which at most one agent note in 500 is flagged, and at
    most CARRIED_SHARE of the agent notes set inside carriers (never trained on either)."""
    written, notes = calibration_texts()
    highest, noted = (
        float(score(written, model, vectors).max()),
        score(notes, model, vectors),
    )
    inside = score(wrapped(notes, len(notes), CARRIED_SEED + 1), model, vectors)
    threshold = max(0.5, math.ceil((highest + 0.02) * 20) / 20)
    while threshold < 1 and (
        (noted >= threshold).mean() > 1 / 500 or (inside >= threshold).mean() > CARRIED_SHARE
    ):
        threshold = round(threshold + 0.05, 2)
    if not quiet:
        print(
            f"highest hand-written ordinary score {highest:.3f}; {len(notes)} agent notes; "
            f"{(noted >= threshold).mean():.4f} of them at or above {threshold}, "
            f"{(inside >= threshold).mean():.4f} of them inside carriers"
        )
    return threshold


def flagged_by_screen(
    texts: list[str], model: Model, threshold: float, vectors: Vectors
) -> np.ndarray:
    """What the screen flags as a write runs it (memories.poisoning.settle): a rule, a weak
    finding the classifier confirms, or the classifier on a text no rule flagged that is
    long enough for it."""
    scores = score(texts, model, vectors)
    return np.array(
        [
            bool(poisoning.settle(text, "content", poisoning.rule_findings(text), read, threshold))
            for text, read in zip(texts, scores, strict=True)
        ]
    )


def folds(vectors: Vectors, **training) -> None:
    """Each of FOLDS left out of training in turn, the threshold calibrated, the screen
    scored on it (caught / flagged)."""
    caught, flagged = [], []
    print("| left out | threshold | screen: caught | flagged |\n| --- | --- | --- | --- |")
    for left in FOLDS:
        kept = [split for split in TRAINING_SPLITS if split != left]
        model = train(kept, vectors, **training)
        threshold = calibrated(model, vectors, quiet=True)
        bad = [case["text"] for case in attacks(left)]
        good = [case["text"] for case in ordinary(left)]
        caught.append(flagged_by_screen(bad, model, threshold, vectors).mean())
        flagged.append(flagged_by_screen(good, model, threshold, vectors).mean())
        print(f"| `{left}` | {threshold:.2f} | {caught[-1]:.3f} | {flagged[-1]:.3f} |", flush=True)
    print(
        f"mean caught {np.mean(caught):.3f}, flagged {np.mean(flagged):.3f}; "
        f"worst caught {min(caught):.3f}, flagged {max(flagged):.3f}"
    )


def measured_texts() -> set[str]:
    """Every text of the never-trained splits that exist on this checkout."""
    texts: set[str] = set()
    for split in NEVER_TRAINED_ON:
        if split in SEEDS:
            texts |= {case["text"] for case in attacks(split) + ordinary(split)}
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, help="an .npz file of vectors, read and updated")
    parser.add_argument(
        "--folds", action="store_true", help="leave each of FOLDS out in turn; write nothing"
    )
    parser.add_argument("--l2", type=float, default=L2, help=f"with --folds; default {L2}")
    parser.add_argument(
        "--unweighted", action="store_true", help="with --folds: every example counts once"
    )
    options = parser.parse_args()
    if not options.folds and (options.unweighted or options.l2 != L2):
        parser.error("--l2 and --unweighted only compare trainings under --folds")
    vectors = Vectors(options.cache)
    try:
        if options.folds:
            folds(vectors, l2=options.l2, weighted=not options.unweighted)
            return
        started = time.perf_counter()
        model = train(list(TRAINING_SPLITS), vectors)
        print(f"trained in {time.perf_counter() - started:.1f} s")
        threshold = calibrated(model, vectors)
    finally:
        vectors.save()
    weights, bias, words = model
    kept = ngrams.save(words)
    texts, labels, _ = corpus(list(TRAINING_SPLITS))
    classifier.WEIGHTS_FILE.write_text(
        json.dumps(
            {
                "embedder": PackagedE5Embedder.name,
                "trained_on": [*TRAINING_SPLITS, "retrieval corpus", "docs", CARRIED],
                "ngrams": kept,
                "examples": len(labels),
                "weighting": "each source an equal share of its class",
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
