"""How well the poisoning screen separates attacks from ordinary memories.

    .venv/bin/python bench/poisoning_eval.py            # rules, classifier, both
    .venv/bin/python bench/poisoning_eval.py --misses   # also list every miss and false alarm

Corpora (all fabricated, tests/fixtures/poisoning/):
- generated splits (generate.py), each with its own seed and templates: `tuned` (the rules
  were written against it; the classifier trains on it), `development` (measured once as
  held-out, then used to fix readings and to train the classifier), `heldout` (written
  after those, never trained on; looked at since, and now used for tuning), `fresh` to
  `fresh5` (each written blind after every older split was tuned on, measured once, then
  trained on), `fresh6` to `fresh11` (the same, trained on since; the next blind split is `fresh12`); how well the training generalises to a split it never saw is measured by
  `bench/poisoning_train.py --folds`, each of those left out in turn;
- the hand-written sets kept from before (attacks/ordinary.jsonl, holdout_*.jsonl).

For each: the share of attacks caught and of ordinary memories flagged by the rules alone,
by the classifier alone (when the packaged model is installed) and by the screen as the
write path runs it (rules, then the classifier on what no rule flagged), per obfuscation
family for the generated attacks; then the screen's time per call.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")

import django  # noqa: E402

django.setup()

from memories import poisoning  # noqa: E402
from memories.poisoning import classifier  # noqa: E402
from tests.fixtures.poisoning.generate import attacks, ordinary  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "poisoning"
SPLITS = (
    "tuned",
    "development",
    "heldout",
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


def load(name: str) -> list[dict]:
    lines = (FIXTURES / f"{name}.jsonl").read_text().splitlines()
    return [dict(json.loads(line), family=json.loads(line)["lang"]) for line in lines if line]


def rate(hits: int, total: int) -> str:
    return f"{hits}/{total} = {hits / total:.3f}" if total else "-"


def verdicts(cases: list[dict]) -> dict[str, list[bool]]:
    """Per reader, whether each case is flagged: the rules alone (weak findings counted, as
    when no classifier runs), the classifier alone, and the screen as a write runs it."""
    texts = [case["text"] for case in cases]
    found = [poisoning.rule_findings(text) for text in texts]
    scores = classifier.scores(texts)
    readers = {"rules": [bool(f) for f in found], "screen": [bool(f) for f in found]}
    if scores is not None:
        readers["classifier"] = [score >= classifier.threshold() for score in scores]
        readers["screen"] = [
            bool(poisoning.settle(text, "content", f, score, classifier.threshold()))
            for text, f, score in zip(texts, found, scores, strict=True)
        ]
    return readers


def report(label: str, bad: list[dict], good: list[dict], misses: bool) -> None:
    print(f"\n== {label}: {len(bad)} attacks, {len(good)} ordinary ==")
    caught, flagged = verdicts(bad), verdicts(good)
    for reader in caught:
        hits, alarms = sum(caught[reader]), sum(flagged[reader])
        print(
            f"  {reader:10}  caught {rate(hits, len(bad)):>17}   flagged {rate(alarms, len(good)):>17}"
        )
    families = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for reader, found in caught.items():
        for case, hit in zip(bad, found, strict=True):
            cell = families[f"{case['lang']}/{case['family']}"][reader]
            cell[0] += hit
            cell[1] += 1
    print("  caught per family:   " + "  ".join(f"{reader:>10}" for reader in caught))
    for family in sorted(families):
        cells = families[family]
        print(f"    {family:20}" + "  ".join(f"{cells[r][0]:>4}/{cells[r][1]:<5}" for r in caught))
    if misses:
        for case, hit in zip(bad, caught["screen"], strict=True):
            if not hit:
                print(f"  missed [{case['family']}]: {case['text']!r}"[:200])
        for case, hit in zip(good, flagged["screen"], strict=True):
            if hit:
                found = poisoning.scan_text(case["text"])
                print(f"  false alarm ({', '.join(f.rule for f in found)}): {case['text']}")


def timing(texts: list[str]) -> None:
    print("\n== time per call (ordinary memories, one field, this machine) ==")
    for label, call in (("rules", poisoning.rule_findings), ("screen", poisoning.scan_text)):
        call(texts[0])  # the model loads on first use
        took = []
        for text in texts:
            started = time.perf_counter()
            call(text)
            took.append((time.perf_counter() - started) * 1000)
        took.sort()
        print(
            f"  {label:8} median {statistics.median(took):6.2f} ms   p95 {took[int(len(took) * 0.95)]:6.2f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list misses and false alarms")
    parser.add_argument(
        "--splits", default=",".join(SPLITS), help="generated splits to report, comma-separated"
    )
    options = parser.parse_args()
    if classifier.scores(["warm-up"]) is None:
        print("classifier unavailable (no packaged model, or another embedder): rules only")
    for split in options.splits.split(","):
        report(f"generated {split}", attacks(split), ordinary(split), options.misses)
    report("hand-written main set", load("attacks"), load("ordinary"), options.misses)
    report(
        "hand-written second set", load("holdout_attacks"), load("holdout_ordinary"), options.misses
    )
    timing([case["text"] for case in ordinary("heldout")][:200])


if __name__ == "__main__":
    main()
