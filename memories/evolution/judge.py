"""The relation judge: what a new memory is to one close memory that is already there.

    duplicate    same meaning, in other words or the other language
    refines      compatible, and adds detail or a condition
    supersedes   replaces it: a change cue, or a new value for the same setting
    contradicts  incompatible, and no sign that it means to replace it
    related      same topic, compatible facts (another environment, file or condition)

Offline and deterministic: the features of the pair (memories.evolution.compare: cosine
of the two vectors when both exist, term overlap, polarity flips, rival values, change
cues, the hand-written reading of memories.evolution.rules) weighed by a small logistic
model trained on the evolution sets (memories.evolution.model; bench/judge_train.py
says which). Every verdict lists
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
# Across languages the terms say little and the small model's vectors carry the verdict:
# translations of the tuned set sit at 0.80-0.92 (median 0.88), and notes of one project on
# other topics at up to 0.87. Under CROSS_FLOOR a duplicate is not told from a neighbour; under
# CROSS_SURE it is only linked, never answered with the other memory (a write is not lost).
CROSS_FLOOR = 0.86
CROSS_SURE = 0.90
CROSS_UNSURE = 0.55  # under memories.services.relations.HOLDING_CONFIDENCE: proposed only
RUNNER_UP = 0.3  # the next best reading stands in only when the model gives it this much
# The share of the shorter statement's terms the two have in common. Of the tuned pairs in
# one language that replace or contradict each other, 95% share at least 0.2 (median 0.6).
SAME_SUBJECT = 0.2
ADDED_DETAIL = 3


def _checked(relation: str, pair, chances: dict[str, float], cosine: float | None) -> str:
    """The model's answer, set aside where the pair's own words rule it out."""
    ruled = pair.ruled
    if relation == "duplicate" and (
        pair.adds >= ADDED_DETAIL
        or (pair.adds >= ADDED_DETAIL - 1 and ruled is not None and ruled.relation == "refines")
    ):
        # Everything the old one says and more: no paraphrase of the tuned set keeps every
        # term and adds three (or two, with the clause reading seeing the added detail).
        return "refines"
    if relation == "duplicate" and pair.other_numbers:
        # "Step 4 of the migration" is not "step 5 of the migration", however alike.
        return _runner_up(chances, exclude=("duplicate",))
    if relation == "duplicate" and pair.cross_language:
        return _across_languages(pair, chances, cosine)
    if relation == "contradicts" and not pair.opposing and not pair.cross_language:
        # "Polarity differs" alone is any "not" anywhere in either: in one language a clash
        # needs the two to stand against each other somewhere ("if you could not run it" is
        # no rival to "keep the diff minimal"). Across languages no term aligns: the flip and
        # the vectors are all there is.
        return _runner_up(chances, exclude=DISPLACING)
    if relation == "related" and pair.cross_language and ruled is not None:
        # "Same topic, another condition" is read off aligned terms, and across languages
        # none align: where the clause reading sees one side deny what the other states
        # ("Run the migrations before deploying" / 部署之前不要运行数据库迁移), the clash stands.
        if ruled.relation == "contradicts":
            return "contradicts"
    if relation in DISPLACING and not pair.cross_language and pair.share < SAME_SUBJECT:
        # Two statements that share almost no terms are not about one subject, however close
        # their vectors (one project's notes sit at 0.90-0.94): neither replaces the other.
        return _runner_up(chances, exclude=DISPLACING)
    return relation


def _across_languages(pair, chances: dict[str, float], cosine: float | None) -> str:
    """A duplicate across languages, checked: one that says the opposite, as the clause
    reading has it, is that reading; one the vectors do not put close is the next best."""
    ruled = pair.ruled
    if ruled is not None and ruled.relation in DISPLACING and pair.flipped:
        return ruled.relation
    if cosine is not None and (cosine >= CROSS_FLOOR or pair.shared):
        # A name both keep in either language (ruff, pnpm) vouches for a closer look.
        return "duplicate"
    return _runner_up(chances, exclude=("duplicate",))


def _runner_up(chances: dict[str, float], *, exclude: tuple[str, ...]) -> str:
    """The likeliest reading outside `exclude`, when the model gives it RUNNER_UP or more."""
    rest = {label: chance for label, chance in chances.items() if label not in exclude}
    runner_up = max(rest, key=lambda label: (rest[label], label))
    return runner_up if rest[runner_up] >= RUNNER_UP else "none"


def judge(
    new: str, old: str, *, cosine: float | None = None, places: tuple[str, ...] = ()
) -> Verdict | None:
    """What `new` is to `old`, or None when they are not about the same thing. `places`: the
    scope keys of the two (a project's name is no shared subject)."""
    if text.analyze(new).normalized == text.analyze(old).normalized:
        return Verdict("duplicate", 1.0, ("same statement",))
    pair = compare(new, old, cosine, places)
    chances = model.probabilities(pair.values)
    relation = max(chances, key=lambda label: (chances[label], label))
    ruled = pair.ruled
    if ruled is not None and ruled.relation in DISPLACING and ruled.confidence >= SURE_CLAUSE:
        # Aligned clauses that clash, or a cue with a new value in one slot: the clause
        # reading is right on 44 of 49 such tuned pairs, and the vectors of "use X" and
        # "do not use X" sit as close as a paraphrase's, so the clash stands.
        relation = ruled.relation
    relation = _checked(relation, pair, chances, cosine)
    if relation == "none":
        return None
    # A duplicate read as adding detail keeps the model's certainty that the two agree.
    confidence = max(chances[relation], chances["duplicate"] if relation == "refines" else 0.0)
    if ruled is not None and ruled.relation == relation:
        # Both readings agree: as sure as the surer of the two (the hand-written one is
        # calibrated to the thresholds that act on a verdict, memories.services.relations).
        confidence = max(confidence, ruled.confidence)
    if relation == "duplicate" and pair.cross_language and (cosine or 0.0) < CROSS_SURE:
        confidence = min(confidence, SURE_DUPLICATE - 0.05)
    if (
        relation in DISPLACING
        and pair.cross_language
        and (cosine or 0.0) < CROSS_SURE
        and not (
            ruled is not None and ruled.relation == relation and ruled.confidence >= SURE_CLAUSE
        )
    ):
        # Across languages a "not" or an "instead of" aligns with nothing: notes of one
        # project on other topics read as clashes at 0.85-0.87 ("pnpm-lock.yaml is committed
        # …" / kite 只用 pnpm 装包，不要用 npm). Such a verdict is linked and proposed to the
        # owner, and never acts on its own (never holds a write, never retires a memory).
        confidence = min(confidence, CROSS_UNSURE)
    return Verdict(relation, confidence, pair.evidence)
