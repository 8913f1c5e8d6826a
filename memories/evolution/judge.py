"""The relation judge: what a new memory is to one close memory that is already there.

    duplicate    same meaning, in other words or the other language
    refines      compatible, and adds detail or a condition
    supersedes   replaces it: a change cue, or a new value for the same setting
    contradicts  incompatible, and no sign that it means to replace it
    related      same topic, compatible facts (another environment, file or condition)

Offline and deterministic: the features of the pair (memories.evolution.compare: cosine
of the two vectors when both exist, term overlap, polarity flips, rival values, change
cues, the hand-written reading of memories.evolution.rules) weighed by a small logistic
model trained on the tuned evolution set (memories.evolution.model). Every verdict lists
the signals that fired, so the owner and the writer can see why. An optional model judge
(memories.evolution.model_judge) may overrule the offline one on ambiguous pairs.
"""

from __future__ import annotations

from memories import text
from memories.evolution import model
from memories.evolution.compare import compare
from memories.evolution.verdict import RELATIONS, Verdict

__all__ = ["RELATIONS", "SURE_DUPLICATE", "Verdict", "judge"]

SURE_DUPLICATE = 0.85  # a write is answered with the memory it repeats from here
SURE_CLAUSE = 0.8
DISPLACING = ("contradicts", "supersedes")


def judge(new: str, old: str, *, cosine: float | None = None) -> Verdict | None:
    """What `new` is to `old`, or None when they are not about the same thing."""
    if text.analyze(new).normalized == text.analyze(old).normalized:
        return Verdict("duplicate", 1.0, ("same statement",))
    pair = compare(new, old, cosine)
    chances = model.probabilities(pair.values)
    relation = max(chances, key=lambda label: (chances[label], label))
    ruled = pair.ruled
    if ruled is not None and ruled.relation in DISPLACING and ruled.confidence >= SURE_CLAUSE:
        # Aligned clauses that clash, or a cue with a new value in one slot: the clause
        # reading is right on 44 of 49 such tuned pairs, and the vectors of "use X" and
        # "do not use X" sit as close as a paraphrase's, so the clash stands.
        relation = ruled.relation
    if relation == "none":
        return None
    confidence = chances[relation]
    if ruled is not None and ruled.relation == relation:
        # Both readings agree: as sure as the surer of the two (the hand-written one is
        # calibrated to the thresholds that act on a verdict, memories.services.relations).
        confidence = max(confidence, ruled.confidence)
    return Verdict(relation, confidence, pair.evidence)
