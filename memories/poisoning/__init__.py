"""Memory poisoning: text that reads as instructions to the agents who will later read it.

Whatever an agent stores is shown to other agents as context, so a write that smuggles in
"ignore previous instructions", a new role, a fake system notice or tool call, a request to
send secrets somewhere, or any of these hidden from a human reader would steer every agent
that recalls it. Such an agent write is not refused (it may be a legitimate note about
prompt injection) but quarantined: stored as `disputed`, which keeps it out of recall,
bootstrap and injection until the owner reviews it (memories.services.remember). The
owner's own writes are never checked.

How a text is read (normalize.py): as a model would, with look-alike letters, invisible
characters, letter-spacing and leetspeak undone; what a rendered page hides (HTML comments,
link titles, alt text) and base64 blobs are screened on their own. What is matched
(rules.py): the shapes of attacks, not words — "never e-mail passwords" and "the system
uses PostgreSQL" are rules for people and pass. A text no rule matches is read once more by
a classifier on the multilingual-e5 vectors the project already computes (classifier.py),
which catches paraphrases the rules do not know. Figures: bench/poisoning_eval.py.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote_plus

from memories.poisoning import classifier, normalize, rules

__all__ = [
    "PoisonFinding",
    "Verdict",
    "rule_findings",
    "scan_fields",
    "scan_text",
    "screen",
    "screen_texts",
    "settle",
]


@dataclass(frozen=True)
class PoisonFinding:
    """One rule that fired on one field. A weak finding (an authority's label opening a
    line, words addressed to AI readers; a hint: one weaker sign) is a suspicion: it holds
    only when the classifier reads
    the text as an instruction too, at the lower CORROBORATION bar — or, unless it is a
    hint, when no classifier is there to ask."""

    rule: str
    field: str
    excerpt: str
    weak: bool = False
    hint: bool = False

    def as_dict(self) -> dict:
        return {"rule": self.rule, "field": self.field, "excerpt": self.excerpt}


@dataclass(frozen=True)
class Verdict:
    """The screen's answer for one text: flagged or not, and the rules that fired."""

    flagged: bool
    reasons: tuple[str, ...]
    findings: tuple[PoisonFinding, ...] = ()


_URL = re.compile(r"(?:https?|javascript|data):[^\s)\]>\"']+", re.IGNORECASE)
_SCRIPT_URL = re.compile(r"^(?:javascript:|data:text/html)", re.IGNORECASE)
_MAX_DEPTH = 2  # base64 inside a comment inside base64 is still read; deeper is not


def _excerpt(text: str, match: re.Match | None = None, width: int = 80) -> str:
    start = max(0, match.start() - 20) if match else 0
    return text[start : start + width]


# A finding about attacks quotes one: "a test page telling the agent to 'ignore previous
# instructions' got summarised, not obeyed". Quoted specimens in such a note are not read as
# orders, unless they name somewhere to send things; everything around them still is.
_SPECIMEN_FRAME = re.compile(
    r"red[-\s]?team|jailbreak|prompt[-\s]injection|\bevals?\b|\bevaluation|regression\s+(?:set|suite)"
    r"|\bnot\s+to\s+(?:be\s+)?(?:obey|obeyed|follow|followed)\b|\bthreat[-\s]model"
    r"|红队|越狱|提示注入|注入测试|评测|回归集|不是(?:给你的)?指令|威胁模型",
    re.IGNORECASE,
)
_QUOTED = re.compile(
    r"'[^'\n]{6,160}'|\"[^\"\n]{6,160}\"|“[^”\n]{3,160}”|「[^」\n]{3,160}」|‘[^’\n]{3,160}’"
    r"|\bDAN(?:-style|-type|\s*类)"
)


def _without_specimens(text: str) -> str:
    if not _SPECIMEN_FRAME.search(text):
        return text
    return _QUOTED.sub(
        lambda m: m.group(0) if rules.DESTINATION.search(m.group(0)) else "«…»", text
    )


def _instructions(text: str) -> tuple[str, str, bool, bool] | None:
    """The first rule any reading of the text matches, with an excerpt of that reading,
    whether it is only a suspicion (rules.suspicion) because no other rule matched, and
    whether it is only a hint."""
    copies = normalize.matching_copies(_without_specimens(text))
    for copy in copies:
        if found := rules.instruction_rule(copy):
            return found[0], _excerpt(copy, found[1]), False, False
    for copy in copies:
        if found := rules.suspicion(copy):
            return found[0], _excerpt(copy, found[1]), True, found[2]
    return None


def _scan(text: str, field: str, depth: int, findings: dict[str, PoisonFinding]) -> None:
    def found(rule: str, excerpt: str, weak: bool = False, hint: bool = False) -> None:
        known = findings.get(rule)
        if known is None or (known.weak, known.hint) > (weak, hint):
            findings[rule] = PoisonFinding(rule, field, excerpt, weak, hint and weak)

    if normalize.hidden_characters(text):
        found("hidden_characters", "".join(c if c.isprintable() else "\u2423" for c in text)[:80])
    if hit := _instructions(text):
        found(*hit)
        if normalize.mixed_script(text):
            found("homoglyphs", *hit[1:])
    visible = normalize.visible(text)
    if match := rules.HIDDEN_HTML.search(visible):
        found("hidden_text", _excerpt(visible, match))
    for segment in normalize.unseen_segments(visible):
        # What a page does not show may not even address the model by name to be suspect.
        if rules.READER.search(segment):
            found("hidden_text", segment[:80])
        elif hit := _instructions(segment):
            found("hidden_text", segment[:80], *hit[2:])
    for url in _URL.finditer(visible):
        decoded = unquote_plus(url.group(0))
        if _SCRIPT_URL.match(decoded):
            found("instruction_link", url.group(0)[:80])
        elif decoded != url.group(0) and (hit := _instructions(decoded)):
            found("instruction_link", url.group(0)[:80], *hit[2:])
    if depth < _MAX_DEPTH:
        for decoded in normalize.decoded_segments(visible, reversed_too=depth == 0):
            inner: dict[str, PoisonFinding] = {}
            _scan(decoded, field, depth + 1, inner)
            if inner:
                weak = all(finding.weak for finding in inner.values())
                hint = all(finding.hint for finding in inner.values())
                found("encoded_instructions", decoded[:80], weak, hint)
                for finding in inner.values():
                    found(finding.rule, finding.excerpt, finding.weak, finding.hint)


MODEL_MIN_CHARS = 16  # tags and keys are too short for an embedding to say anything


def rule_findings(text: str, field: str = "content") -> list[PoisonFinding]:
    """The rules' findings alone, at most one per rule (no model involved), weak ones
    included."""
    findings: dict[str, PoisonFinding] = {}
    _scan(text, field, 0, findings)
    return list(findings.values())


def settle(
    text: str, field: str, found: list[PoisonFinding], score: float | None, threshold: float
) -> list[PoisonFinding]:
    """A field's findings once the classifier has read it (`score`, None when it did not):
    a text no rule flagged is flagged at `threshold`; one only suspected, at CORROBORATION
    or, but for hints, when the classifier could not read it; one a rule flagged stays
    flagged. A text
    shorter than MODEL_MIN_CHARS is never the classifier's to judge."""
    if len(text) < MODEL_MIN_CHARS:
        score = None
    if found and not all(finding.weak for finding in found):
        return found
    if found and score is None:
        return [finding for finding in found if not finding.hint]
    if found:
        return found if score >= classifier.CORROBORATION else []
    if score is not None and score >= threshold:
        excerpt = normalize.visible(text)[:80]
        return [PoisonFinding(rule="classifier", field=field, excerpt=excerpt)]
    return []


def _needs_reading(text: str, found: list[PoisonFinding]) -> bool:
    return len(text) >= MODEL_MIN_CHARS and all(finding.weak for finding in found)


def _screened(fields: list[tuple[str, str]]) -> list[list[PoisonFinding]]:
    """Each (field, text)'s settled findings, the classifier's embeddings in one batch."""
    found = [rule_findings(text, field) for field, text in fields]
    pending = [i for i, (_, text) in enumerate(fields) if _needs_reading(text, found[i])]
    scores = classifier.scores([fields[i][1] for i in pending]) if pending else None
    read = dict(zip(pending, scores, strict=True)) if scores is not None else {}
    return [
        settle(text, field, found[i], read.get(i), classifier.threshold())
        for i, (field, text) in enumerate(fields)
    ]


def scan_text(text: str, field: str = "content") -> list[PoisonFinding]:
    """Every poisoning shape found in one field, at most one finding per rule."""
    return scan_fields({field: text})


def scan_fields(fields: Mapping[str, str | None]) -> list[PoisonFinding]:
    """Findings over every text field of a write (content, key, value, tags, hints): the
    rules on each, then the classifier, in one batch, on the fields no rule flagged."""
    present = [(field, value) for field, value in fields.items() if value]
    return [finding for found in _screened(present) for finding in found]


def screen_texts(texts: list[str]) -> list[Verdict]:
    """Verdicts for many texts, the classifier's embeddings in one batch (bulk callers)."""
    found = _screened([("content", text) for text in texts])
    return [Verdict(bool(f), tuple(x.rule for x in f), tuple(f)) for f in found]


def screen(text: str) -> Verdict:
    """One text's verdict, for callers that store other text than memories (capsules,
    capture candidates): flagged when any rule fires, with the rules' names as reasons."""
    findings = tuple(scan_text(text))
    return Verdict(bool(findings), tuple(finding.rule for finding in findings), findings)
