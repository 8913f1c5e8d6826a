"""How the cost of `memory_remember` grows with the size of the store.

    .venv/bin/python bench/remember.py [--sizes 1000,10000,100000] [--writes 200]

Runs against a fresh SQLite database in a temporary data directory (or the PostgreSQL in
DATABASE_URL + REDIS_URL, into a scratch database it creates and drops). For each store
size it bulk-loads that many memories into one project scope, then times `--writes`
remember calls of new statements in the same scope and prints p50/p95/p99 latency and
the ratio to the smallest store. Each write is judged against its close memories (full
text, recent, nearest vectors: docs/evolution.md) and embeds its statement first; `--agent`
writes as an agent (the poisoning screen's classifier reads the same embedding) and
`--vectors` gives the loaded store vectors, so the judge's vector search scans all of it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("CONTINUITY_DATA_DIR", tempfile.mkdtemp(prefix="continuity-bench-"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_databases, teardown_databases  # noqa: E402

from foundation.actors import Actor  # noqa: E402
from memories import text  # noqa: E402
from memories.models import Memory  # noqa: E402
from memories.services import memory_remember  # noqa: E402
from tests.factories import statement  # noqa: E402

SCOPE = ("project", "github:acme/bench")


def load_vectors(owner) -> None:
    """Random unit vectors for the memories that have none, under the active model's name:
    the nearest-neighbour search of the relation judge then scans a store of this size (its
    cost does not depend on what the vectors say; embedding 100,000 texts would take half an
    hour)."""
    import numpy as np

    from memories.embeddings.embedders import active_embedder
    from memories.embeddings.models import MemoryVector

    embedder = active_embedder()
    if embedder is None:
        return
    missing = Memory.objects.filter(owner=owner, vectors__isnull=True).values_list("pk", flat=True)
    generator = np.random.default_rng(7)
    batch = []
    for memory_id in missing.iterator(chunk_size=5000):
        vector = generator.standard_normal(embedder.dimension).astype("<f4")
        vector /= np.linalg.norm(vector)
        batch.append(MemoryVector(memory_id=memory_id, owner=owner, model=embedder.name,
                                  dimension=embedder.dimension, vector=vector.tobytes(),
                                  content_hash="bench"))  # fmt: skip
        if len(batch) == 5000:
            MemoryVector.objects.bulk_create(batch)
            batch = []
    MemoryVector.objects.bulk_create(batch)


def load(owner, count: int) -> None:
    existing = Memory.objects.filter(owner=owner).count()
    batch = []
    for index in range(existing, count):
        content = statement(index)
        batch.append(
            Memory(
                id=uuid.uuid4(),
                owner=owner,
                content=content,
                kind="fact",
                type="semantic",
                scope_type=SCOPE[0],
                scope_key=SCOPE[1],
                trust="inferred",
                origin="agent",
                source_agent="bench",
                fingerprint=text.fingerprint(content, *SCOPE),
            )  # fmt: skip
        )
        if len(batch) == 5000:
            Memory.objects.bulk_create(batch)
            batch = []
    Memory.objects.bulk_create(batch)


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument(
        "--agent", action="store_true", help="write as an agent (the poisoning screen runs too)"
    )
    parser.add_argument(
        "--vectors", action="store_true", help="give the loaded store vectors (random, unit)"
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]

    if connection.vendor == "postgresql":
        # A scratch database of this run's own, never the test suite's test_<name>.
        settings_dict = connection.settings_dict
        settings_dict.setdefault("TEST", {})["NAME"] = (
            f"test_{settings_dict['NAME']}_remember_{os.getpid()}"
        )
    old_config = setup_databases(verbosity=0, interactive=False)
    try:
        call_command("migrate", verbosity=0)
        owner = get_user_model().objects.create_user("bench-owner")
        actor = Actor.owner(owner)
        if args.agent:
            from tests.factories import TokenFactory

            actor = Actor.agent(TokenFactory(owner=owner, agent_name="bench"))
        print(
            f"database: {connection.vendor}; {args.writes} writes per size as "
            f"{'an agent' if args.agent else 'the owner'}; store vectors: {args.vectors}"
        )
        print(f"{'memories':>10} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'p50 ratio':>10}")
        baseline = None
        # The models load on first use (the embedder, the poisoning classifier): not timed.
        memory_remember(actor=actor, content="bench warm-up write", kind="fact",
                        scope_type=SCOPE[0], scope_key=SCOPE[1])  # fmt: skip
        for size in sizes:
            load(owner, size)
            if args.vectors:
                load_vectors(owner)
            samples = []
            for index in range(args.writes):
                started = time.perf_counter()
                memory_remember(
                    actor=actor, content=f"bench write {size}-{index}: {statement(10**7 + index)}",
                    kind="fact", scope_type=SCOPE[0], scope_key=SCOPE[1],
                )  # fmt: skip
                samples.append((time.perf_counter() - started) * 1000)
            p50 = statistics.median(samples)
            baseline = baseline or p50
            print(
                f"{size:>10} {p50:>8.2f} {percentile(samples, 0.95):>8.2f} "
                f"{percentile(samples, 0.99):>8.2f} {p50 / baseline:>10.2f}"
            )
    finally:
        teardown_databases(old_config, verbosity=0)


if __name__ == "__main__":
    main()
