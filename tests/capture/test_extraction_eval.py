"""The fabricated English/Chinese/mixed eval set stays above its precision and recall floors
(bench/extraction_eval.py prints the figures per language)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from capture.extraction import extract
from memories.text import normalize

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "capture" / "extraction_cases.jsonl"
PRECISION_FLOOR = 0.9
RECALL_FLOOR = 0.9


def _events(case):
    return [
        SimpleNamespace(
            pk=i,
            fingerprint=f"{case['id']}-{i}",
            thread_id=0,
            run_id="",
            seq=i,
            role=turn["role"],
            text=turn["text"],
            is_marker=False,
            is_final=turn.get("final", True),
            occurred_at=None,
            created_at=None,
        )  # fmt: skip
        for i, turn in enumerate(case["turns"])
    ]


def test_the_eval_set_keeps_precision_and_recall_above_their_floors():
    cases = [
        json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    assert {case["lang"] for case in cases} == {"en", "zh", "mixed"}
    assert sum(case["label"] == "negative" for case in cases) >= 30
    proposed = expected = hits = 0
    for case in cases:
        wanted = {normalize(item["content"]) for item in case["expected"]}
        found = {normalize(proposal.content) for proposal in extract(_events(case), project_key="")}
        proposed, expected, hits = (
            proposed + len(found),
            expected + len(wanted),
            hits + len(found & wanted),
        )
    assert hits / proposed >= PRECISION_FLOOR, (hits, proposed)
    assert hits / expected >= RECALL_FLOOR, (hits, expected)
