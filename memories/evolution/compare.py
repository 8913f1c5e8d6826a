"""The features of a pair (a new statement, a memory already there), each a named signal.

Cheap and offline (microseconds to a few hundred of them per pair, no model call): the cosine
of the two vectors when both exist, the overlap of their content terms, the aligned clauses'
polarity flip (negation, antonyms, the other of two alternatives), rival values in one slot
(a version, port, path, tool written as a name) or rival qualifiers (another environment or
platform), a change cue in the new statement, numbers changed, a condition or detail added,
and whether the two are written in one language or across two. The hand-written reading of
the pair (memories.evolution.rules) is one more feature: which relation it names.

`features` returns the values in FEATURES order; `evidence` names those that fired, which
is what a verdict lists as its signals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memories import text
from memories.evolution import rules
from memories.evolution import signals as sig
from memories.evolution.verdict import RELATIONS, Verdict

FEATURES = (
    "bias",
    "cosine known",
    "cosine",
    "cosine >= 0.90",
    "cosine >= 0.93",
    "cosine >= 0.95",
    "cosine under 0.86",
    "cross-language",
    "cross-language cosine",
    "cross-language flip",
    "cross-language flip cosine",
    "term jaccard",
    "covers old",
    "covers new",
    "shared terms",
    "new terms",
    "old terms",
    "change cue",
    "change cue in old",
    "change ends where old is",
    "polarity flip",
    "new negated",
    "old negated",
    "both negate something",
    "flip at close cosine",
    "clause opposed",
    "antonyms or alternatives",
    "rival values",
    "rival qualifiers",
    "rival words",
    "numbers differ",
    "new number",
    "adds a condition",
    "same slot",
    "same slot, rival value",
    "same slot, same value",
    "covers all of old",
    "longer",
    "cue and flip",
    "cue and overlap",
    "flip and overlap",
    *(f"rules: {relation}" for relation in (*RELATIONS, "none")),
    *(f"rules sure: {relation}" for relation in RELATIONS),
)


@dataclass(frozen=True)
class Pair:
    values: tuple[float, ...]
    evidence: tuple[str, ...]
    cue: str | None
    ruled: Verdict | None  # the hand-written reading's verdict
    cross_language: bool = False
    flipped: bool = False  # one of the two negates what the other states
    share: float = 0.0  # the share of the shorter statement's terms the two have in common
    shared: int = 0  # how many terms the two have in common, scope names left out
    other_numbers: bool = False  # both give numbers, not the same ones in the same order
    adds: int = 0  # terms the new statement adds to every term of the old one (0: it drops some)
    # Something in the two stands against each other: aligned clauses of opposite polarity,
    # two or more terms one negates and the other asserts, or the clause reading's clash.
    opposing: bool = False


# "Test runner: Vitest", "The port is 8080", "缓存层是 Redis", "line-length = 88": a setting
# named before the first of these, its value after.
_SLOT_BREAK = re.compile(r"[:：=]|\s(?:is|are|was|were)\s|是|为")


def slot(statement: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The setting a statement names and the terms of its value, or None."""
    first = statement.strip().splitlines()[0] if statement.strip() else ""
    found = _SLOT_BREAK.search(first)
    if found is None or found.start() == 0:
        return None
    name, value = (
        text.analyze(first[: found.start()]).terms,
        text.analyze(first[found.end() :]).terms,
    )
    if not name or not value or len(name) > 6:
        return None
    return name, value


@dataclass(frozen=True)
class Reading:
    """What one statement says on its own, read once however many pairs it is in."""

    language: str
    cue: str | None
    numbers: frozenset[str]
    sequence: tuple[str, ...]  # the same numbers in order
    condition: bool
    slot: tuple[frozenset[str], frozenset[str]] | None


@lru_cache(maxsize=4096)
def read(statement: str) -> Reading:
    return Reading(
        sig.language(statement), sig.change_cue(statement), frozenset(sig.numbers(statement)),
        sig.numbers(statement), sig.has_condition(statement), slot(statement),
    )  # fmt: skip


@lru_cache(maxsize=1024)
def place_terms(places: tuple[str, ...]) -> frozenset[str]:
    """The terms of scope keys (`github:lumenfield/orbit-web`: orbit, web, ...): every note of
    a project names it, so sharing them says nothing about sharing a subject."""
    return frozenset().union(*(text.analyze(place).terms for place in places if place))


def compare(new: str, old: str, cosine: float | None, places: tuple[str, ...] = ()) -> Pair:
    first, second = text.analyze(new), text.analyze(old)
    new_reading, old_reading = read(new), read(old)
    common = place_terms(places)
    new_terms, old_terms = first.terms - common, second.terms - common
    shared = new_terms & old_terms
    jaccard = sig.jaccard(new_terms, old_terms)
    covers_old = len(shared) / len(old_terms) if old_terms else 0.0
    covers_new = len(shared) / len(new_terms) if new_terms else 0.0
    cross = {new_reading.language, old_reading.language} == {"en", "zh"}
    cue = new_reading.cue
    old_cue = old_reading.cue is not None
    arrived = cue is not None and sig.arrived(new, second.terms)
    match = rules.best_match(new, old)
    opposed = match.opposed if match is not None else None
    flip = first.polarity != second.polarity
    rival_values = rival_qualifiers = rival_words = False
    if match is not None and match.new_only and match.old_only:
        new_kinds = rules.kinds(match.new_only, new)
        old_kinds = rules.kinds(match.old_only, old)
        rival_values = "value" in new_kinds and "value" in old_kinds
        rival_qualifiers = "qualifier" in new_kinds and "qualifier" in old_kinds
        rival_words = not (rival_values or rival_qualifiers)
    before, after = old_reading.numbers, new_reading.numbers
    numbers_differ = before != after
    new_number = bool(before) and bool(after) and not before <= after
    condition = new_reading.condition and not old_reading.condition
    new_slot, old_slot = new_reading.slot, old_reading.slot
    same_slot = (
        new_slot is not None and old_slot is not None
        and sig.jaccard(new_slot[0], old_slot[0]) >= 0.5
    )  # fmt: skip
    rival_value = same_slot and not (new_slot[1] & old_slot[1])
    same_value = same_slot and sig.jaccard(new_slot[1], old_slot[1]) >= 0.5
    crossed = sig.crossed(new, old) - common
    verdict = rules.rules_verdict(new, old, cosine=cosine)
    ruled = verdict.relation if verdict is not None else "none"
    known = cosine is not None
    c = cosine if known else 0.0
    overlap = min(1.0, jaccard * 2)
    values = {
        "bias": 1.0,
        "cosine known": float(known),
        "cosine": (c - 0.85) * 10 if known else 0.0,
        "cosine >= 0.90": float(known and c >= 0.90),
        "cosine >= 0.93": float(known and c >= 0.93),
        "cosine >= 0.95": float(known and c >= 0.95),
        "cosine under 0.86": float(known and c < 0.86),
        "cross-language": float(cross),
        "cross-language cosine": (c - 0.85) * 10 if known and cross else 0.0,
        "cross-language flip": float(cross and flip),
        "cross-language flip cosine": (c - 0.85) * 10 if known and cross and flip else 0.0,
        "term jaccard": jaccard,
        "covers old": covers_old,
        "covers new": covers_new,
        "shared terms": min(len(shared), 8) / 8,
        "new terms": min(len(new_terms - shared), 8) / 8,
        "old terms": min(len(old_terms - shared), 8) / 8,
        "change cue": float(cue is not None and not arrived),
        "change cue in old": float(old_cue),
        "change ends where old is": float(arrived),
        "polarity flip": float(flip),
        "new negated": float(first.polarity),
        "old negated": float(second.polarity),
        "both negate something": float(bool(first.negative) and bool(second.negative)),
        "flip at close cosine": float(flip and known and c >= 0.92),
        "clause opposed": float(opposed is not None),
        "antonyms or alternatives": float(bool(opposed) and opposed != "negation"),
        "rival values": float(rival_values),
        "rival qualifiers": float(rival_qualifiers),
        "rival words": float(rival_words),
        "numbers differ": float(numbers_differ),
        "new number": float(new_number),
        "adds a condition": float(condition),
        "same slot": float(same_slot),
        "same slot, rival value": float(rival_value),
        "same slot, same value": float(same_value),
        "covers all of old": float(bool(old_terms) and shared == old_terms),
        "longer": min(max(len(new) / max(len(old), 1) - 1, 0.0), 3.0) / 3,
        "cue and flip": float(cue is not None and not arrived and (flip or opposed is not None)),
        "cue and overlap": overlap if cue is not None and not arrived else 0.0,
        "flip and overlap": overlap if (opposed is not None or flip) else 0.0,
        **{f"rules: {relation}": float(ruled == relation) for relation in (*RELATIONS, "none")},
        **{
            f"rules sure: {relation}": float(ruled == relation and verdict.confidence >= 0.8)
            for relation in RELATIONS
        },
    }
    evidence = [f"terms shared: {len(shared)}/{len(new_terms | old_terms)}"]
    if known:
        evidence.append(f"cosine {c:.2f}")
    if cross:
        evidence.append("other language")
    if cue is not None and not arrived:
        evidence.append(f"change cue: {cue}")
    if len(crossed) >= 2:
        evidence.append(f"negated in one, asserted in the other: {', '.join(sorted(crossed)[:4])}")
    if opposed is not None:
        evidence.append(opposed)
    elif flip:
        evidence.append("polarity differs")
    if match is not None and match.new_only and match.old_only and not rival_words:
        kind = "new value" if rival_values else "different situations"
        evidence.append(
            f"{kind}: {', '.join(sorted(match.old_only))} → {', '.join(sorted(match.new_only))}"
        )
    if rival_value:
        evidence.append(f"same setting, another value: {', '.join(sorted(new_slot[0]))}")
    if new_number:
        evidence.append(f"numbers: {', '.join(sorted(before - after))} → {', '.join(sorted(after - before))}")  # fmt: skip
    if condition:
        evidence.append("adds a condition")
    evidence.append(f"rules: {ruled}")
    return Pair(
        tuple(values[name] for name in FEATURES), tuple(evidence), cue, verdict,
        cross_language=cross, flipped=flip or opposed is not None,
        share=len(shared) / max(1, min(len(new_terms), len(old_terms))),
        shared=len(shared),
        adds=len(new_terms - old_terms) if old_terms and old_terms <= new_terms else 0,
        other_numbers=bool(before) and bool(after)
        and new_reading.sequence != old_reading.sequence,
        opposing=opposed is not None or len(crossed) >= 2 or ruled == "contradicts",
    )  # fmt: skip
