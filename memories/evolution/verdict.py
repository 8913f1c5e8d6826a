"""A relation judge's answer about one pair, with the evidence that fired."""

from __future__ import annotations

from dataclasses import dataclass

RELATIONS = ("duplicate", "refines", "supersedes", "contradicts", "related")


@dataclass(frozen=True)
class Verdict:
    relation: str
    confidence: float
    signals: tuple[str, ...]

    def as_dict(self) -> dict:
        return {
            "relation": self.relation,
            "confidence": round(self.confidence, 2),
            "signals": list(self.signals),
        }
