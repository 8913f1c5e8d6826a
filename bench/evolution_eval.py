"""Does a write see what it duplicates, refines, supersedes or contradicts?

    .venv/bin/python bench/evolution_eval.py [--set tuned|heldout|...|heldout4|all] [--misses]
                                             [--json PATH] [--no-embed]

Runs the scenarios of tests/fixtures/evolution/ (README.md there) against a fresh SQLite
database in a temporary data directory (or the PostgreSQL in DATABASE_URL + REDIS_URL, in
a scratch database it creates and drops). Each scenario gets an owner of its own and one
token per agent that writes in it (memories:read and memories:write; private:read only for
an agent that has to write a private memory, never for the writer). The existing memories
are written through `memory_remember` by their authors, with the owner's trust as given
(an agent's memory that the owner trusts is written by the agent, then confirmed or
locked by the owner), and embedded when an embedder is active. Then the scenario's write
is made by its agent, and the receipt is compared with the gold labels, one pair per
(scenario, existing memory).

The receipt's `relations` are read when it has them; otherwise the receipt's older fields
give the baseline: `duplicate_of` and `similar` count as duplicate, `contradictions` as
contradicts, and a keyed rewrite's `evolution.supersedes` as supersedes.

Prints per set: precision, recall and F1 per relation (`none` included), the confusion
matrix, the same per language, duplicate recall on cross-language pairs, and the figures
that must be zero whatever the quality: owner-trusted memories displaced by the agent's
write, relations to a memory of another project or task, relations to a memory the writer
cannot read. Exit status 1 when one of those is not zero or a write failed. An agent's text
in the corpus that the poisoning screen quarantines is counted and named (its pairs are
scored as what the receipt says: a held write relates to nothing): it is a false positive
of the screen, reported by bench/poisoning_eval.py's figures too, not a fault of the judge.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "evolution"
SETS = ("tuned", "heldout", "heldout2", "heldout3", "heldout4")
RELATIONS = ("duplicate", "refines", "supersedes", "contradicts", "related")
CLASSES = (*RELATIONS, "none")
ACTIONS = ("returned", "linked", "superseded", "proposed", "disputed", "noted")
LANGUAGES = ("en", "zh", "mixed", "cross")
OWNER_TRUSTS = ("confirmed", "locked")
AGENT_SCOPES = ["memories:read", "memories:write"]
CJK = re.compile(r"[\u3400-\u9fff]")


def read_set(name: str) -> list[dict]:
    path = FIXTURES / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def agent_name(author: str) -> str | None:
    """`agent:<name>` → name; the owner → None."""
    return author.split(":", 1)[1] if author.startswith("agent:") else None


def text_language(content: str) -> str:
    """zh for any text with Chinese in it (mixed notes included), else en."""
    return "zh" if CJK.search(content) else "en"


def readable_by_writer(scenario: dict, memory: dict) -> bool:
    """What the corpus promises about visibility, from the fixture alone: the writer holds
    no private:read and reads no other agent's agent-scoped notes."""
    writer = agent_name(scenario["write"]["author"])
    if memory["visibility"] == "private":
        return False
    return not (memory["scope_type"] == "agent" and memory["scope_key"] != writer)


def other_scope(scenario: dict, memory: dict) -> bool:
    """A memory of another project or task than the write's."""
    write = scenario["write"]
    if memory["scope_type"] not in ("project", "task"):
        return False
    return (memory["scope_type"], memory["scope_key"]) != (write["scope_type"], write["scope_key"])


# --- running one scenario ---------------------------------------------------------------


@dataclass
class Outcome:
    scenario: dict
    ids: dict[str, str] = field(default_factory=dict)  # ref → memory id
    receipt: dict | None = None
    error: str = ""
    latency_ms: float = 0.0
    setup_anomalies: list[str] = field(default_factory=list)
    quarantined: list[str] = field(default_factory=list)  # refs, or "write"
    displaced: list[str] = field(default_factory=list)  # refs of owner-trusted memories
    invisible: set[str] = field(default_factory=set)  # refs the writer may not read


def _standing(memory_id: str) -> tuple:
    """What an owner-trusted memory must keep through an agent's write: its status, held
    marker and trust, and having no successor."""
    from memories.models import Memory

    row = Memory.objects.get(pk=memory_id)
    successor = Memory.objects.filter(supersedes_id=row.pk).exists()
    return (row.status, row.held, row.trust, successor)


def run_scenario(scenario: dict, number: int, *, embed: bool) -> Outcome:
    """Write the scenario's memories for a fresh owner, then its write; never raises for a
    refused write (it is recorded in `error`)."""
    from django.contrib.auth import get_user_model

    from accounts.tokens import token_create
    from foundation.actors import Actor
    from foundation.errors import ServiceError
    from memories.models import Memory
    from memories.selectors import is_visible_to
    from memories.services import memory_confirm, memory_lock, memory_remember

    user = get_user_model().objects.create_user(f"evo-{scenario['id']}-{number}")
    owner = Actor.owner(user)
    writer_name = agent_name(scenario["write"]["author"])
    private_writers = {
        agent_name(memory["author"])
        for memory in scenario["existing"]
        if memory["visibility"] == "private" and memory["author"] != "owner"
    } - {writer_name}
    actors: dict[str, Actor] = {}

    def actor_for(name: str) -> Actor:
        if name not in actors:
            scopes = AGENT_SCOPES + (["private:read"] if name in private_writers else [])
            token, _ = token_create(
                actor=owner, name=f"{name} token", agent_name=name, scopes=scopes,
                expires_in_days=30,
            )  # fmt: skip
            actors[name] = Actor.agent(token)
        return actors[name]

    outcome = Outcome(scenario=scenario)
    for memory in scenario["existing"]:
        name = agent_name(memory["author"])
        owner_trusted = memory["trust"] in OWNER_TRUSTS
        receipt = memory_remember(
            actor=owner if name is None else actor_for(name), content=memory["content"],
            kind=memory["kind"], scope_type=memory["scope_type"],
            scope_key=memory["scope_key"] or None, key=memory["key"], tags=memory["tags"],
            visibility=memory["visibility"],
            trust=memory["trust"] if name is None or not owner_trusted else None,
        )  # fmt: skip
        if receipt.id in outcome.ids.values():
            outcome.setup_anomalies.append(f"{memory['ref']}: answered with an earlier memory")
        outcome.ids[memory["ref"]] = receipt.id
        if name is not None and memory["trust"] == "confirmed":
            memory_confirm(actor=owner, memory_id=receipt.id)
        elif name is not None and memory["trust"] == "locked":
            memory_lock(actor=owner, memory_id=receipt.id)
        if receipt.quarantine:
            outcome.quarantined.append(memory["ref"])
    rows = {str(row.pk): row for row in Memory.objects.filter(pk__in=outcome.ids.values())}
    for ref, memory_id in outcome.ids.items():
        row = rows[memory_id]
        if row.status != "active" or row.held:
            outcome.setup_anomalies.append(f"{ref}: {row.status}{' held' if row.held else ''}")
    if embed:
        from memories.embeddings.vectors import embed_memories

        embed_memories(memory_ids=list(outcome.ids.values()))

    writer = actor_for(writer_name)
    outcome.invisible = {
        ref for ref, pk in outcome.ids.items() if not is_visible_to(writer, rows[pk])
    }
    before = {ref: _standing(outcome.ids[ref]) for ref in _owner_trusted(scenario)}
    write = scenario["write"]
    started = time.perf_counter()
    try:
        receipt = memory_remember(
            actor=writer, content=write["content"], kind=write["kind"],
            scope_type=write["scope_type"], scope_key=write["scope_key"] or None,
            key=write["key"], tags=write["tags"],
        )  # fmt: skip
        outcome.receipt = receipt.as_dict()
        if receipt.quarantine:
            outcome.quarantined.append("write")
    except ServiceError as error:
        outcome.error = f"{error.code}: {error}"
    outcome.latency_ms = (time.perf_counter() - started) * 1000
    for ref, standing in before.items():
        if standing[:2] == ("active", False) and _standing(outcome.ids[ref]) != standing:
            outcome.displaced.append(ref)
    return outcome


def _owner_trusted(scenario: dict) -> list[str]:
    return [memory["ref"] for memory in scenario["existing"] if memory["trust"] in OWNER_TRUSTS]


# --- reading a receipt --------------------------------------------------------------------


@dataclass
class Reading:
    mode: str  # "relations" or "baseline"
    predicted: dict[str, str]  # ref → relation (refs not named: none)
    signals: dict[str, list]
    unknown_ids: int = 0
    contract: list[str] = field(default_factory=list)  # what breaks the receipt's contract


def read_receipt(receipt: dict | None, ids: dict[str, str]) -> Reading:
    by_id = {memory_id: ref for ref, memory_id in ids.items()}
    if receipt is None:
        return Reading("none", {}, {})
    if "relations" not in receipt:
        return _baseline(receipt, by_id)
    reading = Reading("relations", {}, {})
    evolution = receipt.get("evolution") or {}
    for item in receipt["relations"]:
        ref = by_id.get(item.get("id"))
        relation, action = item.get("relation"), item.get("action")
        confidence = item.get("confidence")
        if relation not in RELATIONS:
            reading.contract.append(f"relation {relation!r}")
        if action not in ACTIONS:
            reading.contract.append(f"action {action!r}")
        if not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
            reading.contract.append(f"confidence {confidence!r}")
        if not isinstance(item.get("signals"), list):
            reading.contract.append("signals not a list")
        if action == "returned" and (
            relation != "duplicate" or receipt["id"] != item.get("id")
            or evolution.get("action") != "duplicate"
        ):  # fmt: skip
            reading.contract.append("returned without answering with that memory")
        if ref is None:
            reading.unknown_ids += 1
            continue
        reading.predicted[ref] = relation
        reading.signals[ref] = [*item.get("signals", []), f"action={action}"]
    return reading


def _baseline(receipt: dict, by_id: dict[str, str]) -> Reading:
    reading = Reading("baseline", {}, {})

    def mark(memory_id, relation, signal):
        ref = by_id.get(memory_id)
        if ref is None:
            reading.unknown_ids += 1
            return
        reading.predicted[ref] = relation
        reading.signals[ref] = [signal]

    superseded = (receipt.get("evolution") or {}).get("supersedes")
    if superseded:
        mark(superseded, "supersedes", "keyed rewrite")
    for item in receipt.get("similar", []):
        mark(item["id"], "duplicate", f"similar {item.get('similarity')}")
    for item in receipt.get("contradictions", []):
        mark(item["id"], "contradicts", f"contradiction: {item.get('reason')}")
    if receipt.get("duplicate_of"):
        mark(receipt["duplicate_of"], "duplicate", "exact duplicate")
    return reading


# --- scoring ------------------------------------------------------------------------------


def pairs_of(outcomes: list[Outcome]) -> list[dict]:
    pairs = []
    for outcome in outcomes:
        scenario = outcome.scenario
        reading = read_receipt(outcome.receipt, outcome.ids)
        for memory in scenario["existing"]:
            ref = memory["ref"]
            predicted = reading.predicted.get(ref, "none")
            pairs.append({
                "scenario": scenario["id"], "ref": ref, "lang": scenario["lang"],
                "gold": scenario["gold"][ref], "predicted": predicted,
                "signals": reading.signals.get(ref, []),
                "cross_language": text_language(memory["content"])
                != text_language(scenario["write"]["content"]),
                "other_scope": other_scope(scenario, memory),
                "invisible": ref in outcome.invisible,
            })  # fmt: skip
    return pairs


def per_class(pairs: list[dict]) -> dict[str, dict]:
    figures = {}
    for name in CLASSES:
        true_positive = sum(1 for p in pairs if p["gold"] == name and p["predicted"] == name)
        predicted = sum(1 for p in pairs if p["predicted"] == name)
        gold = sum(1 for p in pairs if p["gold"] == name)
        precision = true_positive / predicted if predicted else 0.0
        recall = true_positive / gold if gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        figures[name] = {"precision": precision, "recall": recall, "f1": f1, "support": gold}
    return figures


def confusion(pairs: list[dict]) -> dict[str, dict[str, int]]:
    counts = Counter((p["gold"], p["predicted"]) for p in pairs)
    return {gold: {pred: counts[(gold, pred)] for pred in CLASSES} for gold in CLASSES}


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else 0.0


def summarise(outcomes: list[Outcome]) -> dict:
    pairs = pairs_of(outcomes)
    modes = Counter(read_receipt(o.receipt, o.ids).mode for o in outcomes)
    readings = [read_receipt(o.receipt, o.ids) for o in outcomes]
    cross_duplicates = [p for p in pairs if p["gold"] == "duplicate" and p["cross_language"]]
    latencies = [o.latency_ms for o in outcomes if not o.error]
    return {
        "scenarios": len(outcomes), "pairs": len(pairs), "modes": dict(modes),
        "accuracy": sum(p["gold"] == p["predicted"] for p in pairs) / len(pairs) if pairs else 0,
        "per_class": per_class(pairs), "confusion": confusion(pairs),
        "per_language": {
            lang: {"pairs": len(subset), "per_class": per_class(subset),
                   "confusion": confusion(subset)}
            for lang in LANGUAGES if (subset := [p for p in pairs if p["lang"] == lang])
        },
        "cross_language_duplicate_recall": (
            sum(p["predicted"] == "duplicate" for p in cross_duplicates) / len(cross_duplicates)
            if cross_duplicates else 0.0
        ),
        "cross_language_duplicates": len(cross_duplicates),
        "owner_memories_displaced": sum(len(o.displaced) for o in outcomes),
        "cross_project_relations": sum(p["other_scope"] and p["predicted"] != "none" for p in pairs),
        "invisible_relations": sum(p["invisible"] and p["predicted"] != "none" for p in pairs),
        "unknown_ids": sum(r.unknown_ids for r in readings),
        "contract_violations": sum(len(r.contract) for r in readings),
        "setup_anomalies": sum(len(o.setup_anomalies) for o in outcomes),
        "quarantined": sum(len(o.quarantined) for o in outcomes),
        "errors": sum(1 for o in outcomes if o.error),
        "latency_ms": {"p50": statistics.median(latencies) if latencies else 0.0,
                       "p95": percentile(latencies, 0.95)},
        "pair_results": pairs,
        "details": [
            {"scenario": o.scenario["id"], "error": o.error, "displaced": o.displaced,
             "setup_anomalies": o.setup_anomalies, "contract": r.contract,
             "quarantined": o.quarantined}
            for o, r in zip(outcomes, readings) if o.error or o.displaced or o.setup_anomalies
            or r.contract or o.quarantined
        ],
    }  # fmt: skip


# --- printing -----------------------------------------------------------------------------


def print_classes(figures: dict, indent: str = "  ") -> None:
    print(f"{indent}{'relation':<12} {'prec':>6} {'recall':>6} {'f1':>6} {'gold':>5}")
    for name in CLASSES:
        row = figures[name]
        print(f"{indent}{name:<12} {row['precision']:>6.2f} {row['recall']:>6.2f} "
              f"{row['f1']:>6.2f} {row['support']:>5}")  # fmt: skip


def print_confusion(matrix: dict, indent: str = "  ") -> None:
    short = {"duplicate": "dup", "refines": "ref", "supersedes": "sup",
             "contradicts": "con", "related": "rel", "none": "none"}  # fmt: skip
    print(f"{indent}{'gold \\ predicted':<16}" + "".join(f"{short[c]:>6}" for c in CLASSES))
    for gold in CLASSES:
        print(f"{indent}{gold:<16}" + "".join(f"{matrix[gold][c]:>6}" for c in CLASSES))


def print_summary(name: str, summary: dict, misses: bool) -> None:
    modes = ", ".join(f"{mode}: {count}" for mode, count in sorted(summary["modes"].items()))
    print(f"== {name}: {summary['scenarios']} scenarios, {summary['pairs']} pairs "
          f"(receipts read as {modes}) ==")  # fmt: skip
    if "baseline" in summary["modes"]:
        print("  baseline: receipts have no `relations`; duplicate_of and similar read as "
              "duplicate, contradictions as contradicts, a keyed rewrite as supersedes")  # fmt: skip
    print(f"  accuracy {summary['accuracy']:.2f}")
    print_classes(summary["per_class"])
    print()
    print_confusion(summary["confusion"])
    for lang, figures in summary["per_language"].items():
        print(f"\n  -- {lang}: {figures['pairs']} pairs")
        print_classes(figures["per_class"], "    ")
        print_confusion(figures["confusion"], "    ")
    print(f"\n  cross-language duplicate recall       {summary['cross_language_duplicate_recall']:.2f}"
          f" ({summary['cross_language_duplicates']} pairs)")  # fmt: skip
    for label, key in (("owner memories displaced (must be 0)", "owner_memories_displaced"),
                       ("cross-project relations (must be 0)", "cross_project_relations"),
                       ("unreadable relations (must be 0)", "invisible_relations"),
                       ("relations to unknown ids", "unknown_ids"),
                       ("receipt contract violations", "contract_violations"),
                       ("setup anomalies", "setup_anomalies"),
                       ("quarantined agent texts", "quarantined"),
                       ("failed writes", "errors")):  # fmt: skip
        print(f"  {label:<37} {summary[key]}")
    latency = summary["latency_ms"]
    print(
        f"  write latency ms                      p50 {latency['p50']:.1f}  p95 {latency['p95']:.1f}"
    )
    for detail in summary["details"]:
        print(f"  ! {detail['scenario']}: " + "; ".join(
            part for part in (detail["error"], *detail["setup_anomalies"], *detail["contract"],
                              *(f"{ref} displaced" for ref in detail["displaced"]),
                              *(f"{ref} quarantined" for ref in detail["quarantined"])) if part))  # fmt: skip
    if misses:
        wrong = [p for p in summary["pair_results"] if p["gold"] != p["predicted"]]
        print(f"\n  misses ({len(wrong)}):")
        for p in wrong:
            print(f"    {p['scenario']}/{p['ref']} [{p['lang']}] gold {p['gold']:<11} "
                  f"predicted {p['predicted']:<11} {'; '.join(map(str, p['signals']))}")  # fmt: skip
    print()


# --- main ---------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=(*SETS, "all"), default="all")
    parser.add_argument("--misses", action="store_true", help="list every wrong pair")
    parser.add_argument("--json", metavar="PATH", help="write the figures and every pair as JSON")
    parser.add_argument("--no-embed", action="store_true", help="do not embed existing memories")
    args = parser.parse_args()
    names = SETS if args.set == "all" else (args.set,)

    made_data_dir = None
    if "CONTINUITY_DATA_DIR" not in os.environ:
        made_data_dir = tempfile.mkdtemp(prefix="continuity-evolution-")
        os.environ["CONTINUITY_DATA_DIR"] = made_data_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
    sys.path.insert(0, str(ROOT))
    try:
        import django

        django.setup()
        from django.db import connection
        from django.test.utils import setup_databases, teardown_databases

        if connection.vendor == "postgresql":
            # A scratch database of this run's own, never the test suite's test_<name>.
            test = connection.settings_dict.setdefault("TEST", {})
            test["NAME"] = f"test_{connection.settings_dict['NAME']}_evolution_{os.getpid()}"
        old_config = setup_databases(verbosity=0, interactive=False)
        try:
            embed = not args.no_embed and _embedder_ready()
            print(f"database: {connection.vendor}; embeddings: {'on' if embed else 'off'}\n")
            summaries = {}
            for name in names:
                scenarios = read_set(name)
                outcomes = [run_scenario(s, n, embed=embed) for n, s in enumerate(scenarios)]
                summaries[name] = summarise(outcomes)
                print_summary(name, summaries[name], args.misses)
        finally:
            from memories.access import access_log

            access_log.flush()
            teardown_databases(old_config, verbosity=0)
    finally:
        if made_data_dir:
            shutil.rmtree(made_data_dir, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(summaries, ensure_ascii=False, indent=1) + "\n")
        print(f"figures written to {args.json}")
    unsafe = defaultdict(int)
    for summary in summaries.values():
        for key in ("owner_memories_displaced", "cross_project_relations",
                    "invisible_relations", "errors"):  # fmt: skip
            unsafe[key] += summary[key]
    return 1 if any(unsafe.values()) else 0


def _embedder_ready() -> bool:
    from memories.embeddings.embedders import EmbedderUnavailable, active_embedder

    try:
        return active_embedder() is not None
    except EmbedderUnavailable as error:
        print(f"embedder unavailable ({error}); the vector channel is off")
        return False


if __name__ == "__main__":
    sys.exit(main())
