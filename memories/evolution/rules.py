"""The hand-written reading of a pair: what `new` is to `old` by clause alignment, shared
terms, polarity, change cues and rival values (memories.evolution.signals), with the cosine
of their vectors when both have one. Its verdict is one of the features the relation judge
(memories.evolution.judge) weighs; it is not the judge's answer on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from memories import text
from memories.evolution import signals as sig
from memories.evolution.verdict import Verdict

# multilingual-e5-small cosines (passage to passage): paraphrases in one language sit at
# 0.93+, translations at 0.86-0.92, same-topic statements at 0.85-0.90 and unrelated
# engineering notes at 0.75-0.84 (tests/fixtures/evolution/, tuned set).
SAME_LANGUAGE_DUPLICATE = 0.95
CROSS_LANGUAGE_DUPLICATE = 0.885
CROSS_LANGUAGE_CLOSE = 0.86
RELATED_COSINE = 0.9
SURE_DUPLICATE = 0.85  # a write is answered with the memory it repeats from here
CUE_COSINE = 0.86


@dataclass(frozen=True)
class ClauseMatch:
    score: float
    opposed: str | None
    new_only: frozenset[str]
    old_only: frozenset[str]
    shared: frozenset[str]


def _match(new: sig.Clause, old: sig.Clause) -> ClauseMatch | None:
    shared = new.terms & old.terms
    if not shared:
        return None
    new_only, old_only = new.terms - shared, old.terms - shared
    jaccard = sig.jaccard(new.terms, old.terms)
    covered = len(shared) / min(len(new.terms), len(old.terms))
    same_claim = (len(shared) >= 2 and (jaccard >= 0.5 or covered >= 0.6)) or jaccard >= 0.6
    rival = 1 <= len(new_only) <= 2 and 1 <= len(old_only) <= 2 and len(shared) >= 1
    if not (same_claim or rival):
        return None
    # A flip of polarity is a contradiction only between clauses making one claim: a
    # clause that adds its own negated detail ("…, never floats") is not one, and neither
    # is a bare word of a list ("tests are excluded" against the "test" of "setup, test,
    # lint, run"; "Never use npm" against "Use npm." is one).
    one_claim = (
        same_claim
        and not (_bare(new) or _bare(old))
        and (jaccard >= 0.6 or (len(new_only) <= 2 and len(old_only) <= 2))
    )
    opposed = sig.opposition(new, old) if one_claim else None
    return ClauseMatch(jaccard, opposed, new_only, old_only, shared)


def _bare(clause: sig.Clause) -> bool:
    """One term and no word that says anything of it: an item of a list."""
    return len(clause.terms) == 1 and not clause.positive and not clause.negative


@lru_cache(maxsize=4096)
def best_match(new: str, old: str) -> ClauseMatch | None:
    """Each new clause against the old clause it shares most with; the opposed pair first,
    then the closest. Opposition is only read between aligned clauses: "never a plain
    install" in one and "not a bare install" in the other agree."""
    best = None
    old_clauses = sig.clauses(old)
    for new_clause in sig.clauses(new):
        aligned = max(
            old_clauses, key=lambda old_clause: sig.jaccard(new_clause.terms, old_clause.terms),
            default=None,
        )  # fmt: skip
        found = _match(new_clause, aligned) if aligned is not None else None
        if found is None:
            continue
        rank = (found.opposed is not None, found.score)
        if best is None or rank > (best.opposed is not None, best.score):
            best = found
    return best


def kinds(terms: frozenset[str], statement: str) -> set[str]:
    return {sig.term_kind(term, statement) for term in terms}


def rules_verdict(new: str, old: str, *, cosine: float | None = None) -> Verdict | None:
    """What `new` is to `old`, or None when they are not about the same thing."""
    first, second = text.analyze(new), text.analyze(old)
    if first.normalized == second.normalized:
        return Verdict("duplicate", 1.0, ("same statement",))
    if {sig.language(new), sig.language(old)} == {"en", "zh"}:
        return _across_languages(new, old, first, second, cosine)
    shared = first.terms & second.terms
    jaccard = sig.jaccard(first.terms, second.terms)
    cue = sig.change_cue(new)
    cue = cue if cue and not sig.change_cue(old) and not sig.arrived(new, second.terms) else None
    signals = [f"terms shared: {len(shared)}/{len(first.terms | second.terms)}"]
    if cosine is not None:
        signals.append(f"cosine {cosine:.2f}")
    if cue:
        signals.append(f"change cue: {cue}")

    match = best_match(new, old)
    if match is not None and match.opposed:
        new_kinds, old_kinds = kinds(match.new_only, new), kinds(match.old_only, old)
        if "qualifier" in new_kinds and "qualifier" in old_kinds:
            return Verdict("related", 0.6, (*signals, "different situations"))
        signals.append(match.opposed)
        if cue:
            return Verdict("supersedes", 0.85, tuple(signals))
        return Verdict("contradicts", 0.8 + 0.15 * match.score, tuple(signals))
    rivals = match is not None and bool(match.new_only) and bool(match.old_only)
    # A rival in one clause speaks for the whole only when the wholes are close ("ORB-412
    # plan: …" and "ORB-412 watch-out: …" share a label, not a claim).
    if rivals and 0.25 <= jaccard < 0.75:
        rival = _rival(match, new, old, cue, signals)
        if rival is not None:
            return rival
    if cue and len(shared) >= 2 and jaccard >= 0.25:
        return Verdict("supersedes", 0.85, tuple(signals))
    if cue and len(shared) >= 2 and (cosine or 0) >= CUE_COSINE:
        return Verdict("supersedes", 0.55, tuple(signals))  # proposed, never applied alone
    changed = _new_numbers(new, old, shared, cosine)
    if changed:
        return Verdict("supersedes", 0.65, (*signals, f"new value: {changed}"))
    if (
        cosine is not None and cosine >= 0.92 and len(shared) >= 3 and jaccard >= 0.25
        and first.polarity != second.polarity
    ):  # fmt: skip
        return Verdict("contradicts", 0.55, (*signals, "negation"))
    # Other numbers are another fact ("Old fact one" / "Old fact two"), never a repeat.
    other_numbers = sig.numbers(new) != sig.numbers(old)
    covers_old = len(shared) / len(second.terms) if second.terms else 0.0
    covers_new = len(shared) / len(first.terms) if first.terms else 0.0
    if covers_old >= 0.75 and len(first.terms - shared) >= 2:
        return Verdict("refines", 0.7, (*signals, "adds detail"))
    close_vectors = cosine is not None and cosine >= SAME_LANGUAGE_DUPLICATE
    if jaccard >= 0.6 or close_vectors or (covers_new >= 0.85 and len(shared) >= 2):
        # Sure enough to answer a write with the existing memory only with words to back
        # the vectors ("configaxyz is a setting" and "configbxyz is a setting" sit at 0.97),
        # the same numbers ("Old fact one" / "Old fact two"), and no other word in one
        # place ("tabs" / "spaces"); otherwise a possible repeat, linked but written.
        one_word_apart = rivals and len(match.new_only) <= 2 and len(match.old_only) <= 2
        backed = jaccard >= 0.4 or covers_old == 1.0 or covers_new == 1.0
        sure = not other_numbers and not one_word_apart and (jaccard >= 0.6 or backed)
        if sure:
            return Verdict("duplicate", max(SURE_DUPLICATE, jaccard, cosine or 0.0), tuple(signals))
        return Verdict("duplicate", 0.6, (*signals, "possible repeat"))
    if covers_old >= 0.75 and sig.has_condition(new) and not sig.has_condition(old):
        return Verdict("refines", 0.6, (*signals, "adds a condition"))
    if jaccard >= 0.3 or (cosine is not None and cosine >= RELATED_COSINE):
        return Verdict("related", 0.5, tuple(signals))
    return None


def _new_numbers(new: str, old: str, shared, cosine) -> str | None:
    """The same setting with another number (a version, port, time, limit): "Node 18" and
    "Node 20 (setup-node@v4)"."""
    before, after = set(sig.numbers(old)), set(sig.numbers(new))
    if not before or not after or before <= after or len(shared) < 2:
        return None
    close = cosine >= 0.88 if cosine is not None else False
    if not close and sig.jaccard(text.analyze(new).terms, text.analyze(old).terms) < 0.4:
        return None
    if cosine is not None and cosine < CUE_COSINE:
        return None
    return f"{', '.join(sorted(before - after))} → {', '.join(sorted(after - before))}"


def _rival(match: ClauseMatch, new: str, old: str, cue, signals) -> Verdict | None:
    """One claim, another answer in one slot: a new value, or a rival one."""
    new_kinds, old_kinds = kinds(match.new_only, new), kinds(match.old_only, old)
    values = f"{', '.join(sorted(match.old_only))} → {', '.join(sorted(match.new_only))}"
    if "qualifier" in new_kinds and "qualifier" in old_kinds:
        return Verdict("related", 0.6, (*signals, f"different situations: {values}"))
    if len(match.shared) < max(len(match.new_only), len(match.old_only)):
        return None
    if cue:
        return Verdict("supersedes", 0.85, (*signals, f"new value: {values}"))
    if "value" in new_kinds and "value" in old_kinds:
        return Verdict("supersedes", 0.7, (*signals, f"new value: {values}"))
    return None


def _across_languages(new, old, first, second, cosine) -> Verdict | None:
    """English against Chinese: few shared terms (names, numbers), so the vectors decide
    whether the two are about one claim, and polarity whether they agree."""
    anchors = first.terms & second.terms
    signals = ["other language"]
    if cosine is not None:
        signals.append(f"cosine {cosine:.2f}")
    if anchors:
        signals.append(f"shared names: {', '.join(sorted(anchors)[:4])}")
    if cosine is None or cosine < CROSS_LANGUAGE_CLOSE:
        return None
    if sig.numbers(new) != sig.numbers(old):
        return Verdict("related", 0.5, (*signals, "other numbers"))
    cue = sig.change_cue(new)
    if first.polarity != second.polarity:
        signals.append("negation")
        if cue:
            return Verdict("supersedes", 0.6, (*signals, f"change cue: {cue}"))
        return Verdict("contradicts", 0.6, tuple(signals))
    if cue:
        return Verdict("supersedes", 0.55, (*signals, f"change cue: {cue}"))
    if cosine >= CROSS_LANGUAGE_DUPLICATE:
        return Verdict("duplicate", cosine, tuple(signals))
    return Verdict("related", 0.5, tuple(signals))
