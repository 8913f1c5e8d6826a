"""The index's vocabulary: term statistics, and prefixes spelled out as the words they begin."""

import pytest

from memories.retrieval import index, recall
from memories.retrieval.analysis import query_terms
from memories.services import memory_remember

pytestmark = pytest.mark.django_db


def remember(actor, content):
    return memory_remember(actor=actor, content=content, kind="fact").id


@pytest.mark.sqlite  # FTS5's vocabulary table
def test_a_prefix_counts_the_memories_holding_any_word_it_begins(owner_actor):
    remember(owner_actor, "PostgreSQL holds the orders")
    remember(owner_actor, "PostgreSQL holds the invoices too")
    remember(owner_actor, "postgres is what the team calls it")
    (prefix,) = query_terms("postgres")  # 'postgr'

    known = index.vocabulary([prefix, "order"])
    assert known.frequencies == {prefix: 3, "order": 1}


@pytest.mark.sqlite  # FTS5's vocabulary table
def test_a_prefix_beginning_few_words_is_spelled_out_and_one_beginning_many_is_not(owner_actor):
    remember(owner_actor, "PostgreSQL and postgres are the same database")
    for letter in "abcdefghijk"[: index.MAX_SPELLED_OUT + 1]:
        remember(owner_actor, f"config{letter}xyz is a setting")
    (prefix,) = query_terms("postgres")

    known = index.vocabulary([prefix, "config"])
    assert known.completions[prefix] == ("postgr", "postgresql")
    assert "config" not in known.completions
    assert known.frequencies["config"] == index.MAX_SPELLED_OUT + 1


def test_recall_finds_longer_words_by_prefix(owner_actor, agent_actor):
    wanted = remember(owner_actor, "Backups of PostgreSQL run nightly at 02:00")
    remember(owner_actor, "The docs site is built with Hugo")
    result = recall(actor=agent_actor, query="postgres backups")
    assert result.memories[0].id == str(wanted)


@pytest.mark.postgres
def test_postgres_learns_words_as_memories_are_written_and_spells_prefixes_out(
    owner_actor, agent_actor, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        wanted = remember(
            owner_actor, "Backups of PostgreSQL run nightly; postgres logs rotate daily"
        )
    (prefix,) = query_terms("postgres")

    assert index.vocabulary([prefix]).completions == {prefix: ("postgr", "postgresql")}
    result = recall(actor=agent_actor, query="postgres backups")
    assert result.memories[0].id == str(wanted)


@pytest.mark.postgres
def test_postgres_dictionary_catches_up_with_bulk_writes_at_compaction(owner_actor):
    from memories.compaction import optimize_index
    from memories.models import Memory

    memory = Memory(owner=owner_actor.user, content="Kubernetes manifests live in deploy/k8s", kind="fact",
                    type="semantic", trust="confirmed", origin="import", fingerprint="bulk-kubernetes")  # fmt: skip
    memory.refresh_search_fields()
    Memory.objects.bulk_create([memory])  # no save(): the dictionary does not hear of it
    (prefix,) = query_terms("kubernet")
    assert prefix not in index.vocabulary([prefix]).completions

    optimize_index()
    assert index.vocabulary([prefix]).completions == {prefix: ("kubernet",)}


def test_a_word_no_memory_holds_counts_zero_on_both_backends(owner_actor):
    """Every term is looked up, concept phrasings included: a phrasing counted present
    without a look made its concept a rare known unit, and a query over common words
    then matched nothing."""
    remember(owner_actor, "The replica of the api uses Vite")
    frequencies = index.vocabulary(["replica", "vite", "rule", "规则"]).frequencies
    assert frequencies["rule"] == 0 and frequencies["规则"] == 0
    assert frequencies["replica"] >= 1 and frequencies["vite"] >= 1
