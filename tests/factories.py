"""Fabricated data for tests and benchmarks: varied, deterministic, English and Chinese."""

from __future__ import annotations

SUBJECTS = [
    "the api service",
    "the web app",
    "CI",
    "the worker",
    "the docs site",
    "支付服务",
    "前端项目",
    "数据管道",
]
VERBS = [
    "uses",
    "prefers",
    "deploys with",
    "is tested with",
    "caches through",
    "使用",
    "依赖",
    "部署在",
]
OBJECTS = [
    "PostgreSQL 16",
    "Redis",
    "pnpm",
    "uv",
    "GitHub Actions",
    "Kubernetes",
    "缓存层",
    "消息队列",
    "镜像仓库",
]
QUALIFIERS = [
    "on weekdays",
    "in staging",
    "since March",
    "for every release",
    "在生产环境",
    "从下个版本开始",
    "",
]


def statement(index: int) -> str:
    """A plausible memory statement; distinct for every index."""
    parts = [
        SUBJECTS[index % len(SUBJECTS)],
        VERBS[(index // len(SUBJECTS)) % len(VERBS)],
        OBJECTS[(index // 7) % len(OBJECTS)],
        QUALIFIERS[(index // 11) % len(QUALIFIERS)],
    ]
    return " ".join(part for part in parts if part) + f" (note {index})"
