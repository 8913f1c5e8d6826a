"""How precise and complete extraction is, on fabricated English, Chinese and mixed snippets.

    .venv/bin/python bench/extraction_eval.py [--verbose]

Reads tests/fixtures/capture/extraction_cases.jsonl (positives with the statement a person
would want remembered, and hard negatives: recollection questions, doubt, hypotheticals,
quotes, code, redacted secrets, assistant advice, tool output), runs each conversation
through the configured extractors exactly as ingestion does (events in, proposals out; no
database), and prints per language:

- precision: proposals that match an expected statement / all proposals;
- recall: expected statements proposed / all expected statements;
- kind accuracy: matched proposals whose kind is the expected one;
- false positives on negatives: negative cases that yielded any proposal.

A proposal matches when its content equals the expected statement after the same
normalisation fingerprints use (case, width, spacing, a trailing full stop).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "fixtures" / "capture" / "extraction_cases.jsonl"


def setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault(
        "CONTINUITY_DATA_DIR", tempfile.mkdtemp(prefix="continuity-extraction-eval-")
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
    import django

    django.setup()


def events_of(case: dict) -> list:
    """The case's turns as the attributes extraction reads from ConversationEvent rows."""
    return [
        SimpleNamespace(
            pk=index,
            fingerprint=f"{case['id']}-{index}",
            thread_id=0,
            run_id="",
            seq=index,
            role=turn["role"],
            text=turn["text"],
            is_marker=False,
            is_final=turn.get("final", True),
            occurred_at=None,
            created_at=None,
        )  # fmt: skip
        for index, turn in enumerate(case["turns"])
    ]


def evaluate(cases: list[dict]) -> dict:
    from capture.extraction import extract
    from memories.text import normalize

    totals = defaultdict(lambda: defaultdict(int))
    misses = []
    for case in cases:
        proposals = extract(events_of(case), project_key="")
        expected = {normalize(item["content"]): item["kind"] for item in case["expected"]}
        for bucket in (case["lang"], "all"):
            row = totals[bucket]
            row["proposals"] += len(proposals)
            row["expected"] += len(expected)
            if case["label"] == "negative":
                row["negatives"] += 1
                row["negatives_with_proposals"] += bool(proposals)
        found = set()
        for proposal in proposals:
            key = normalize(proposal.content)
            hit = key in expected and key not in found
            found.add(key)
            for bucket in (case["lang"], "all"):
                totals[bucket]["true_positives"] += hit
                totals[bucket]["kind_correct"] += hit and proposal.kind == expected[key]
            if not hit:
                misses.append((case["id"], "unexpected", proposal.content, proposal.kind))
            elif proposal.kind != expected[key]:
                misses.append(
                    (case["id"], "kind", proposal.content, f"{proposal.kind} != {expected[key]}")
                )
        for key in set(expected) - found:
            misses.append((case["id"], "missed", key, expected[key]))
    return {"totals": totals, "misses": misses}


def ratio(numerator: int, denominator: int) -> str:
    return f"{numerator / denominator:.3f}" if denominator else "  n/a"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every miss and false positive")
    args = parser.parse_args()
    setup_django()
    cases = [
        json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    result = evaluate(cases)
    print(f"extraction eval: {len(cases)} cases from {CASES.relative_to(ROOT)}")
    print(
        f"{'lang':<6} {'precision':>9} {'recall':>7} {'kind acc':>8} {'proposals':>9} {'expected':>8} {'neg FP':>8}"
    )
    for bucket in ("en", "zh", "mixed", "all"):
        row = result["totals"][bucket]
        print(
            f"{bucket:<6} {ratio(row['true_positives'], row['proposals']):>9} "
            f"{ratio(row['true_positives'], row['expected']):>7} "
            f"{ratio(row['kind_correct'], row['true_positives']):>8} {row['proposals']:>9} {row['expected']:>8} "
            f"{row['negatives_with_proposals']:>3}/{row['negatives']:<4}"
        )
    if args.verbose:
        for case_id, what, content, detail in result["misses"]:
            print(f"  {case_id:<8} {what:<10} {content}  [{detail}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
