"""Stored vectors: one per memory and model.

A row is never updated in place: re-embedding deletes the old row and inserts a new one,
so the highest id per owner is a generation counter the in-process index can trust to
notice every change cheaply (see memories.embeddings.index).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models

if TYPE_CHECKING:
    import numpy as np


class MemoryVector(models.Model):
    id = models.BigAutoField(primary_key=True)
    memory = models.ForeignKey("memories.Memory", on_delete=models.CASCADE, related_name="vectors")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=200)
    dimension = models.PositiveSmallIntegerField()
    # float32, little-endian, unit length: bytea on PostgreSQL (no pgvector needed), a
    # BLOB on SQLite; scored with NumPy over a per-process cached matrix.
    vector = models.BinaryField()
    # sha256 of exactly what was embedded: a memory whose text changed no longer matches.
    content_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "memories"
        indexes = [models.Index(fields=["owner", "model", "id"], name="memvec_owner_model_idx")]
        constraints = [
            models.UniqueConstraint(fields=["memory", "model"], name="memvec_one_per_model"),
            models.CheckConstraint(
                condition=models.Q(dimension__gte=1), name="memvec_dimension_positive"
            ),
        ]

    def as_array(self) -> np.ndarray:
        # Imported here: every process loads the models, few of them score vectors.
        import numpy as np

        return np.frombuffer(bytes(self.vector), dtype="<f4")
