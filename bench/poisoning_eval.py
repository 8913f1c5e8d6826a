"""How well the poisoning rules separate attacks from ordinary memories.

    .venv/bin/python bench/poisoning_eval.py

Reads the fabricated corpora in tests/fixtures/poisoning/: the main set (attacks.jsonl,
ordinary.jsonl), which the rules were written against and which the tests hold at 100% /
0%, and a second set (holdout_*.jsonl) written after the rules. Its first measurement was
12/20 attacks caught, 0/20 ordinary flagged; the misses showed whole categories the rules
lacked (text addressing the model that reads it, requests to send credential files), which
were then added, so it is no longer strictly held out — grow it with new cases. Prints, per
set and language, the share of attacks caught and of ordinary memories flagged, and lists
every miss and false alarm with the rule that fired.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memories.poisoning import scan_text  # noqa: E402  (pure module: no Django setup needed)

FIXTURES = ROOT / "tests" / "fixtures" / "poisoning"


def load(name: str) -> list[dict]:
    return [
        json.loads(line) for line in (FIXTURES / f"{name}.jsonl").read_text().splitlines() if line
    ]


def rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({hits / total:.0%})" if total else "-"


def report(label: str, attacks: list[dict], ordinary: list[dict]) -> None:
    print(f"\n== {label} ==")
    caught, flagged = defaultdict(lambda: [0, 0]), defaultdict(lambda: [0, 0])
    misses, alarms = [], []
    for case in attacks:
        found = scan_text(case["text"])
        caught[case["lang"]][1] += 1
        caught[case["lang"]][0] += bool(found)
        if not found:
            misses.append(case["text"])
    for case in ordinary:
        found = scan_text(case["text"])
        flagged[case["lang"]][1] += 1
        flagged[case["lang"]][0] += bool(found)
        if found:
            alarms.append((case["text"], [finding.rule for finding in found]))
    for lang in sorted(set(caught) | set(flagged)):
        print(
            f"  {lang:6} attacks caught {rate(*caught[lang]):>14}   ordinary flagged {rate(*flagged[lang]):>12}"
        )
    total_caught = sum(hits for hits, _ in caught.values())
    total_flagged = sum(hits for hits, _ in flagged.values())
    print(f"  all    attacks caught {rate(total_caught, len(attacks)):>14}   "
          f"ordinary flagged {rate(total_flagged, len(ordinary)):>12}")  # fmt: skip
    for text in misses:
        print(f"  missed: {text}")
    for text, rules in alarms:
        print(f"  false alarm ({', '.join(rules)}): {text}")


def main() -> None:
    report("main set (rules written against it)", load("attacks"), load("ordinary"))
    report("held-out set", load("holdout_attacks"), load("holdout_ordinary"))


if __name__ == "__main__":
    main()
