"""How recall latency grows with the size of the store: 1k, 10k and 100k memories.

    .venv/bin/python bench/recall_latency.py [--sizes 1000,10000,100000] [--queries 200]

Runs against a fresh SQLite database in a temporary data directory (or the PostgreSQL in
DATABASE_URL + REDIS_URL, into a scratch database it creates and drops). For each size it
bulk-loads memories up to that count (derived search columns computed as a bulk writer
must: `Memory.refresh_search_fields()`, the full-text index filled by the database), then
times `recall(limit=10)` at the service level, as an agent, for a fixed mix of queries:
English need phrasing, Chinese two-character keywords, Chinese phrases, mixed
Chinese/English, and queries nothing matches. It prints p50/p95/p99 per size, p95 per
kind of query, the 100k/1k p95 ratio and the process's peak memory (ru_maxrss).

The store looks like one heavy user's: 10% global memories, the rest over `--projects`
projects of which the first holds 40% of everything; half the queries ask in that big
project, half in the others. English, Chinese and mixed statements with tags, some keys
and retrieval hints; some memories superseded. After each load the index is left as the
compaction job leaves it (SQLite: FTS5 segments merged; PostgreSQL: GIN pending lists
merged and ANALYZE), and SQLite is ANALYZEd too, as a user running ANALYZE or PRAGMA
optimize may; recall's query plans must hold either way.

Targets: p95 ≤ 15 ms at 100k on SQLite, ≤ 25 ms on PostgreSQL, 100k/1k p95 ratio ≤ 3,
peak memory ≤ 300 MB.

Semantic channel (unless --no-semantic): every size is timed twice, lexical channels only
and with the semantic channel (target p95 ≤ 40 ms at 100k on both backends). The first
1,000 memories are embedded for real by the back-fill (`memories.embeddings.vectors.
backfill`), which gives the embedding throughput (memories/s on this one process) and the
back-fill time for 100k, extrapolated from it. Embedding 100k for real would take most of
an hour here, so the memories beyond the first 1,000 get vectors made from those real ones
(a real vector plus noise, re-normalised): the matrix is as big as the real one and the
query is embedded by the real model, so the timing is representative; the ranking is not.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGENT = "bench-agent"
LIMIT = 10
BATCH = 2000
WARMUP = 20
TARGET_P95_MS = {"sqlite": 15.0, "postgresql": 25.0}
TARGET_RATIO = 3.0
TARGET_PEAK_MB = 300.0
TARGET_SEMANTIC_P95_MS = 40.0

# --- fabricated content -----------------------------------------------------------------

SERVICES = ["the api service", "the web app", "the billing worker", "the docs site", "the CLI",
            "the ingestion pipeline", "the search service", "the mobile backend"]  # fmt: skip
TECH = ["PostgreSQL", "Redis", "Kubernetes", "pnpm", "uv", "Celery", "Vite", "ClickHouse",
        "NATS", "Docker", "nginx", "gRPC", "Django", "React", "Go", "Rust", "MinIO",
        "dbt"]  # fmt: skip
TOPICS = ["cache", "deploy", "migration", "branch", "image", "queue", "timeout", "retry",
          "index", "schema", "rollback", "release", "lint", "webhook", "backfill",
          "partition", "replica", "bucket", "cron", "logging", "metrics", "fixtures",
          "rate limit", "feature flag", "lockfile", "healthcheck"]  # fmt: skip
RULES = ["must go through review", "runs on weekdays only", "is pinned in the lockfile",
         "needs a changelog entry", "is owned by the platform team", "was rolled back twice",
         "is tested in staging first", "is documented in the runbook"]  # fmt: skip
CN_SUBJECTS = [
    "支付服务",
    "前端项目",
    "数据管道",
    "订单系统",
    "网关",
    "账本服务",
    "报表任务",
    "用户中心",
]
CN_TOPICS = ["缓存", "分支", "镜像", "部署", "迁移", "队列", "超时", "重试", "索引", "回滚",
             "发布", "日志", "监控", "限流", "分区", "对账", "测试", "配置"]  # fmt: skip
CN_RULES = ["必须经过评审", "只在工作日执行", "需要先在预发验证", "由平台组负责",
            "上线前要通知值班", "出过两次事故", "写在运维手册里", "从下个版本开始生效"]  # fmt: skip
KINDS = ["fact", "decision", "constraint", "procedure", "lesson", "preference"]


def statement(index: int) -> tuple[str, list[str], list[str]]:
    """A distinct memory (content, tags, hints): 60% English, 25% Chinese, 15% mixed."""
    pick = random.Random(index)
    service, tech, topic = pick.choice(SERVICES), pick.choice(TECH), pick.choice(TOPICS)
    cn_subject, cn_topic = pick.choice(CN_SUBJECTS), pick.choice(CN_TOPICS)
    flavour = index % 20
    if flavour < 12:
        content = (f"The {topic} of {service} uses {tech}; it {pick.choice(RULES)} "
                   f"and {pick.choice(RULES)} (note {index}).")  # fmt: skip
        tags = [topic.replace(" ", "-"), tech.lower()]
        hints = [f"how does {service} handle {topic}"] if index % 3 == 0 else []
    elif flavour < 17:
        other = f"{pick.choice(CN_SUBJECTS)}的{pick.choice(CN_TOPICS)}{pick.choice(CN_RULES)}"
        content = f"{cn_subject}的{cn_topic}{pick.choice(CN_RULES)}，{other}（记录 {index}）。"
        tags = [cn_topic]
        hints = [f"{cn_subject} {cn_topic}"] if index % 3 == 0 else []
    else:
        content = (f"{cn_subject}的{cn_topic}用 {tech} 实现，{topic} {pick.choice(RULES)}；"
                   f"{pick.choice(CN_RULES)}（note {index}）。")  # fmt: skip
        tags = [cn_topic, tech.lower()]
        hints = [f"{tech} {cn_topic}"] if index % 3 == 0 else []
    return content, tags, hints


def query_mix(count: int) -> list[tuple[str, str]]:
    """(kind, query) pairs, deterministic: English, Chinese keyword, Chinese phrase, mixed,
    no match, in the proportions 35/20/15/20/10."""
    pick = random.Random(7)
    makers = [
        ("english", 35, lambda: pick.choice([
            f"how do we handle {pick.choice(TOPICS)} in {pick.choice(SERVICES)}?",
            f"what is the {pick.choice(TOPICS)} rule for {pick.choice(TECH)}?",
            f"{pick.choice(TECH)} {pick.choice(TOPICS)} before release",
        ])),
        ("chinese-2char", 20, lambda: pick.choice(CN_TOPICS)),
        ("chinese", 15, lambda: f"{pick.choice(CN_SUBJECTS)}的{pick.choice(CN_TOPICS)}怎么处理"),
        ("mixed", 20, lambda: f"{pick.choice(TECH)} {pick.choice(CN_TOPICS)} 规则"),
        ("no-match", 10, lambda: pick.choice([
            "kafka topic naming convention", "ios signing certificate renewal",
            "安卓推送证书", "marketing site font", "vpn laptop setup", "年终奖发放时间",
        ])),
    ]  # fmt: skip
    total = sum(weight for _, weight, _ in makers)
    queries = []
    for kind, weight, make in makers:
        queries.extend((kind, make()) for _ in range(round(count * weight / total)))
    pick.shuffle(queries)
    return queries[:count]


def project_key(number: int) -> str:
    return f"github:bench-org/project-{number:02d}"


def scope_of(index: int, projects: int) -> tuple[str, str]:
    """10% global; of the rest, the first project holds 40% of everything."""
    slot = random.Random(index * 7919).random()
    if slot < 0.10:
        return "global", ""
    if slot < 0.50 or projects == 1:
        return "project", project_key(0)
    return "project", project_key(1 + index % (projects - 1))


# --- seeding ----------------------------------------------------------------------------


def load(owner, start: int, stop: int, projects: int) -> None:
    from django.utils import timezone

    from memories import text
    from memories.models import Memory

    now = timezone.now()
    batch = []
    for index in range(start, stop):
        content, tags, hints = statement(index)
        scope_type, scope_key = scope_of(index, projects)
        kind = KINDS[index % len(KINDS)]
        memory = Memory(
            id=uuid.uuid4(), owner=owner, content=content, kind=kind,
            type="procedural" if kind == "procedure" else "semantic",
            scope_type=scope_type, scope_key=scope_key,
            key=f"bench.key.{index}" if index % 10 == 0 else None,
            trust="confirmed" if index % 4 == 0 else "inferred",
            status="superseded" if index % 25 == 0 else "active",
            origin="agent", source_agent=AGENT,
            fingerprint=text.fingerprint(content, scope_type, scope_key),
            tags=tags, retrieval_hints=hints,
            created_at=now - timedelta(minutes=index), updated_at=now - timedelta(minutes=index),
        )  # fmt: skip
        memory.refresh_search_fields()
        batch.append(memory)
        if len(batch) == BATCH:
            Memory.objects.bulk_create(batch)
            batch = []
    if batch:
        Memory.objects.bulk_create(batch)


def add_vectors(owner, start: int, stop: int) -> None:
    """Vectors for the memories that have none (the `stop - start` loaded last), derived
    from the real vectors of the first memories (see the module docstring)."""
    import numpy as np

    from memories.embeddings.models import MemoryVector
    from memories.models import Memory

    real = list(MemoryVector.objects.filter(owner=owner).order_by("id")[:1000])
    pool = np.stack([row.as_array() for row in real])
    model, noise = real[0].model, np.random.default_rng(start)
    ids = Memory.objects.filter(owner=owner, vectors__isnull=True).values_list("id", flat=True)
    batch = []
    for offset, memory_id in enumerate(ids.iterator(BATCH)):
        vector = pool[(start + offset) % len(pool)] + noise.normal(0, 0.02, pool.shape[1])
        vector = (vector / np.linalg.norm(vector)).astype("<f4")
        batch.append(MemoryVector(memory_id=memory_id, owner=owner, model=model, dimension=len(vector),
                                  vector=vector.tobytes(), content_hash="bench"))  # fmt: skip
        if len(batch) == BATCH:
            MemoryVector.objects.bulk_create(batch)
            batch = []
    MemoryVector.objects.bulk_create(batch)


def embed_for_real(owner, count: int) -> float:
    """Embed the first `count` memories (load order) with the real model through the
    back-fill's own function; memories per second."""
    from memories.embeddings.vectors import embed_memories
    from memories.models import Memory

    ids = list(Memory.objects.filter(owner=owner).values_list("id", flat=True)[:count])
    started = time.perf_counter()
    written = sum(embed_memories(memory_ids=ids[at : at + 32]) for at in range(0, len(ids), 32))
    return written / (time.perf_counter() - started)


def analyze() -> None:
    from django.db import connection

    from memories.compaction import optimize_index

    # The index as the compaction job leaves it in a running instance (SQLite: segments
    # merged; PostgreSQL: GIN pending lists merged, planner statistics), plus SQLite's
    # planner statistics, which a user may gather with ANALYZE at any time.
    optimize_index()
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE memories_memory")


def check_index_sees_bulk_rows(actor, projects: int) -> None:
    """A bulk-loaded memory must be findable, or the figures would time an empty index."""
    from memories.retrieval import recall

    index = 12  # an English statement in some scope
    content, _, _ = statement(index)
    scope_type, scope_key = scope_of(index, projects)
    result = recall(actor=actor, query=content, project_key=scope_key or None, limit=LIMIT)
    if content not in [item.content for item in result.memories]:
        raise SystemExit("recall does not find bulk-loaded memories: is the search index filled?")


# --- timing -----------------------------------------------------------------------------


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def time_queries(
    actor, queries: list[tuple[str, str]], projects: int, semantic: bool
) -> dict[str, list[float]]:
    from memories.embeddings.channel import SemanticChannel
    from memories.retrieval import recall
    from memories.retrieval.channels import register_semantic_channel

    register_semantic_channel(SemanticChannel() if semantic else None)

    samples: dict[str, list[float]] = {}
    for number, (kind, query) in enumerate(queries):
        big = number % 2 == 0 or projects == 1
        project = project_key(0) if big else project_key(1 + number % (projects - 1))
        started = time.perf_counter()
        recall(actor=actor, query=query, project_key=project, limit=LIMIT)
        samples.setdefault(kind, []).append((time.perf_counter() - started) * 1000)
    return samples


def scratch_database_name(connection) -> None:
    """A PostgreSQL scratch database of this run's own: the default test_<name> is also
    what the test suite uses, and setting one up drops whatever holds that name."""
    if connection.vendor == "postgresql":
        test = connection.settings_dict.setdefault("TEST", {})
        test["NAME"] = f"test_{connection.settings_dict['NAME']}_latency_{os.getpid()}"


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--projects", type=int, default=20)
    parser.add_argument("--no-semantic", action="store_true", help="lexical channels only")
    args = parser.parse_args()
    semantic = not args.no_semantic
    sizes = sorted(int(size) for size in args.sizes.split(","))

    made_data_dir = None
    if "CONTINUITY_DATA_DIR" not in os.environ:
        made_data_dir = tempfile.mkdtemp(prefix="continuity-bench-")
        os.environ["CONTINUITY_DATA_DIR"] = made_data_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "continuity.settings")
    sys.path.insert(0, str(ROOT))
    try:
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test.utils import setup_databases, teardown_databases

        from accounts.tokens import token_create
        from foundation.actors import Actor

        scratch_database_name(connection)
        old_config = setup_databases(verbosity=0, interactive=False)
        try:
            owner = get_user_model().objects.create_user("bench-owner")
            token, _ = token_create(
                actor=Actor.owner(owner), name="latency bench", agent_name=AGENT,
                scopes=["memories:read"], expires_in_days=1,
            )  # fmt: skip
            actor = Actor.agent(token)
            vendor = connection.vendor
            queries = query_mix(args.queries)
            kinds = sorted({kind for kind, _ in queries})
            print(f"database: {vendor}; {len(queries)} recall calls per size (limit {LIMIT}), "
                  f"{args.projects} projects, agent {AGENT}")  # fmt: skip
            counts = Counter(kind for kind, _ in queries)
            print("p95 by query kind: " + ", ".join(f"{kind} ({counts[kind]})" for kind in kinds))
            header = (f"{'memories':>9} {'load s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7}"
                      f" {'max ms':>7} " + " ".join(f"{kind[:9]:>9}" for kind in kinds)
                      + f" {'rss MB':>7}")  # fmt: skip
            print(f"{'channels':<9}" + header)
            p95s, semantic_p95s = {}, {}
            loaded = 0
            rate = None
            for size in sizes:
                started = time.perf_counter()
                load(owner, loaded, size, args.projects)
                analyze()
                load_seconds = time.perf_counter() - started
                if semantic:
                    if rate is None:
                        real = min(size, 1000)
                        rate = embed_for_real(owner, real)
                        add_vectors(owner, real, size)
                    else:
                        add_vectors(owner, loaded, size)
                loaded = size
                check_index_sees_bulk_rows(actor, args.projects)
                for channels in ["lexical", "semantic"] if semantic else ["lexical"]:
                    time_queries(actor, queries[:WARMUP], args.projects, channels == "semantic")
                    samples = time_queries(actor, queries, args.projects, channels == "semantic")
                    every = [value for values in samples.values() for value in values]
                    (semantic_p95s if channels == "semantic" else p95s)[size] = percentile(
                        every, 0.95
                    )
                    by_kind = " ".join(f"{percentile(samples[kind], 0.95):>9.2f}" for kind in kinds)
                    print(f"{channels:<9}{size:>9} {load_seconds:>7.1f} {statistics.median(every):>7.2f}"
                          f" {percentile(every, 0.95):>7.2f} {percentile(every, 0.99):>7.2f}"
                          f" {max(every):>7.2f} {by_kind} {peak_mb():>7.0f}")  # fmt: skip
        finally:
            from memories.access import access_log

            access_log.flush()  # pending read counts go to the scratch broker before it is removed
            teardown_databases(old_config, verbosity=0)
    finally:
        if made_data_dir:
            shutil.rmtree(made_data_dir, ignore_errors=True)

    smallest, largest = sizes[0], sizes[-1]
    ratio = p95s[largest] / p95s[smallest]
    peak = peak_mb()
    target = TARGET_P95_MS.get(vendor)
    print()
    goal = f" (target <= {target:.0f} ms)" if target else ""
    print(f"p95 at {largest}: {p95s[largest]:.2f} ms{goal}")
    print(f"p95 ratio {largest}/{smallest}: {ratio:.2f} (target <= {TARGET_RATIO:.0f})")
    print(f"peak memory (maxrss): {peak:.0f} MB (target <= {TARGET_PEAK_MB:.0f} MB)")
    if semantic:
        print(f"p95 at {largest} with the semantic channel: {semantic_p95s[largest]:.2f} ms"
              f" (target <= {TARGET_SEMANTIC_P95_MS:.0f} ms)")  # fmt: skip
        print(f"embedding throughput (real back-fill of the first {min(sizes[0], 1000)} memories, "
              f"one process): {rate:.1f} memories/s")  # fmt: skip
        print(
            f"back-fill of 100,000 memories at that rate: {100_000 / rate / 60:.0f} min"
            " (extrapolated, not measured)"
        )
    load_1, load_5, _ = os.getloadavg()
    print(f"machine load: {load_1:.1f} (1 min), {load_5:.1f} (5 min) on {os.cpu_count()} CPUs"
          " - figures from a busy machine overstate latency")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
