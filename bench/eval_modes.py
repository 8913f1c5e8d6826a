"""What each way of crossing wordings and languages adds: retrieval_eval.py --compare.

Every mode loads the corpus for an owner of its own (in one scratch database) and runs
the same queries (queries.jsonl or --queries, plus queries_crosslang.jsonl):

- lexical:      the lexical channels alone: no glossary, no alt_queries, the corpus's own
                hints, no semantic channel
- +glossary:    lexical + the bilingual developer glossary (query expansion)
- +alt_queries: lexical + the alternative phrasings/translations queries carry
- +hints:       lexical + hints_bilingual.jsonl (the statement in the other language and
                search words, as memory_remember's description asks agents to add)
- +semantic:    lexical + the semantic channel (vectors back-filled)
- lexical-all:  glossary + alt_queries + hints, no semantic: what recall did before
- hybrid:       all of them
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

MODES = {
    "lexical": set(),
    "+glossary": {"glossary"},
    "+alt_queries": {"alt"},
    "+hints": {"hints"},
    "+semantic": {"semantic"},
    "lexical-all": {"glossary", "alt", "hints"},
    "hybrid": {"glossary", "alt", "hints", "semantic"},
}
FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "retrieval"
CROSSLANG_PATH = FIXTURES / "queries_crosslang.jsonl"
HINTS_PATH = FIXTURES / "hints_bilingual.jsonl"


def with_hints(corpus: list[dict], hints: dict[str, list[str]]) -> list[dict]:
    return [
        {
            **item,
            "retrieval_hints": [*(item.get("retrieval_hints") or []), *hints.get(item["id"], [])],
        }
        for item in corpus
    ]


@contextmanager
def glossary(enabled: bool):
    from memories.retrieval import concepts

    def clear():
        for function in (
            concepts._alternatives_by_concept,
            concepts._triggers,
            concepts.query_units,
        ):
            function.cache_clear()

    saved = concepts.GLOSSARY
    concepts.GLOSSARY = saved if enabled else ()
    clear()
    try:
        yield
    finally:
        concepts.GLOSSARY = saved
        clear()


@contextmanager
def semantic(enabled: bool):
    from memories.embeddings.channel import SemanticChannel
    from memories.retrieval.channels import register_semantic_channel

    register_semantic_channel(SemanticChannel() if enabled else None)
    try:
        yield
    finally:
        register_semantic_channel(SemanticChannel())


def run_mode(evaluation, user_model, name: str, corpus, queries, hints) -> tuple[dict, list]:
    from memories.embeddings.vectors import backfill

    features = MODES[name]
    owner = user_model.objects.create_user(f"eval-{name.strip('+')}")
    mode_corpus = with_hints(corpus, hints) if "hints" in features else corpus
    mode_queries = [
        query
        if "alt" in features
        else {key: value for key, value in query.items() if key != "alt_queries"}
        for query in queries
    ]
    with glossary("glossary" in features), semantic("semantic" in features):
        actors = evaluation.make_actors(owner, evaluation.agents_named(mode_corpus, mode_queries))
        ids = evaluation.load_corpus(owner, mode_corpus, actors)
        if "semantic" in features:
            backfill(owner=owner, batch=64)
        runs = evaluation.run_queries(mode_queries, actors, ids)
    statuses, heads = evaluation.expected_statuses(mode_corpus), evaluation.successors(mode_corpus)
    outcomes = [evaluation.score_query(q, r, statuses, heads) for q, r in zip(queries, runs)]
    return evaluation.summarize(outcomes), outcomes


def compare(evaluation, corpus, queries) -> dict[str, dict]:
    from django.contrib.auth import get_user_model

    hints = {row["id"]: row["retrieval_hints"] for row in evaluation.read_jsonl(HINTS_PATH)}
    queries = queries + evaluation.read_jsonl(CROSSLANG_PATH)
    return {
        name: run_mode(evaluation, get_user_model(), name, corpus, queries, hints)[0]
        for name in MODES
    }


def print_comparison(summaries: dict[str, dict]) -> None:
    categories = list(next(iter(summaries.values())))
    print("recall@5 / MRR@10 per category (answerable queries); abstention / false abstention")
    print(f"{'category':<13}" + "".join(f"{name:>14}" for name in summaries))
    for category in categories:
        cells = []
        for summary in summaries.values():
            row = summary[category]
            if row["recall@5"] is None:
                cells.append(f"abst {row['abstention']:.2f}".rjust(14))
            else:
                cells.append(f"{row['recall@5']:.2f} / {row['mrr@10']:.2f}".rjust(14))
        print(f"{category:<13}" + "".join(cells))
    print(
        f"{'abstention':<13}"
        + "".join(f"{s['overall']['abstention']:>14.2f}" for s in summaries.values())
    )
    print(f"{'false-abst.':<13}" + "".join(
        f"{s['overall']['false_abstention']:>14.2f}" for s in summaries.values()))  # fmt: skip
    print(
        f"{'scope leaks':<13}"
        + "".join(f"{s['overall']['scope_leaks']:>14}" for s in summaries.values())
    )


def as_json(summaries: dict[str, dict]) -> str:
    return json.dumps(summaries, indent=1)


def calibrate(evaluation, corpus, queries, floors, spans, candidate_floor) -> list[dict]:
    """Hybrid recall once loaded, then rerun for each (floor, ceiling) of the semantic
    similarity calibration: abstention, false abstention and recall@5 for each."""
    from django.contrib.auth import get_user_model

    from memories.embeddings import channel
    from memories.embeddings.embedders import active_embedder
    from memories.embeddings.vectors import backfill

    hints = {row["id"]: row["retrieval_hints"] for row in evaluation.read_jsonl(HINTS_PATH)}
    queries = queries + evaluation.read_jsonl(CROSSLANG_PATH)
    corpus = with_hints(corpus, hints)
    owner = get_user_model().objects.create_user("eval-calibrate")
    actors = evaluation.make_actors(owner, evaluation.agents_named(corpus, queries))
    ids = evaluation.load_corpus(owner, corpus, actors)
    backfill(owner=owner, batch=64)
    model = active_embedder().name
    saved = channel.CALIBRATION.get(model)
    statuses, heads = evaluation.expected_statuses(corpus), evaluation.successors(corpus)
    rows = []
    try:
        for floor in floors:
            for span in spans:
                channel.CALIBRATION[model] = (candidate_floor, floor, floor + span)
                runs = evaluation.run_queries(queries, actors, ids)
                outcomes = [
                    evaluation.score_query(q, r, statuses, heads) for q, r in zip(queries, runs)
                ]
                overall = evaluation.summarize(outcomes)["overall"]
                rows.append({"floor": floor, "ceiling": round(floor + span, 3), **{
                    name: overall[name] for name in ("recall@5", "mrr@10", "abstention", "false_abstention")
                }})  # fmt: skip
                print("  floor {floor:.3f} ceiling {ceiling:.3f}: recall@5 {recall@5:.3f} "
                      "mrr@10 {mrr@10:.3f} abstention {abstention:.3f} "
                      "false abstention {false_abstention:.3f}".format(**rows[-1]), flush=True)  # fmt: skip
    finally:
        if saved is None:
            channel.CALIBRATION.pop(model, None)
        else:
            channel.CALIBRATION[model] = saved
    return rows
