"""Small helpers shared by the memory tests."""

import random
import string

import pytest
from django.core.exceptions import FieldDoesNotExist
from django.db import models

from foundation.errors import ErrorCode, ServiceError
from memories.models import Memory, MemoryEvent, MemoryLink
from memories.services import memory_remember


def remember(actor, content="Use uv to manage Python environments.", kind="preference", **fields):
    return memory_remember(actor=actor, content=content, kind=kind, **fields)


def row_counts() -> tuple[int, int, int]:
    return Memory.objects.count(), MemoryEvent.objects.count(), MemoryLink.objects.count()


class raises:
    """`with raises(ErrorCode.X):` — a ServiceError with exactly that code."""

    def __init__(self, code):
        self.code = code

    def __enter__(self):
        self._context = pytest.raises(ServiceError)
        self.info = self._context.__enter__()
        return self.info

    def __exit__(self, *exc_info):
        handled = self._context.__exit__(*exc_info)
        assert self.info.value.code == self.code, repr(self.info.value)
        return handled


def planted_token() -> str:
    """A token of Continuity's own shape, made at run time (no credential-shaped literal in the
    repository), lower case and short enough to survive as a folded tag."""
    generator = random.Random("planted-token")
    return (
        "cont_"
        + "pat_"
        + "".join(generator.choice(string.ascii_lowercase + string.digits) for _ in range(24))
    )


def free_text_fields(model) -> set[str]:
    """The fields of `model` that keep whatever text or JSON a writer gives: what the secret
    gate must see. Fields with choices, numbers, dates, ids and references are closed: a
    secret is not a valid value for them. Columns derived on save (not editable) are out."""
    return {
        field.name
        for field in model._meta.concrete_fields
        if isinstance(field, (models.CharField, models.TextField, models.JSONField))
        and not field.choices
        and field.editable
    }


def is_free_text(model, name: str, annotation: str = "") -> bool:
    """Whether a write parameter or record field `name` is free text: by the model field of
    that name when there is one, else by its annotation (strings, lists and dicts are text;
    numbers, dates and unannotated memory references are closed)."""
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return any(annotation.startswith(kind) for kind in ("str", "list", "dict"))
    return field.name in free_text_fields(model)


def shaped(secret: str, example=None, annotation: str = ""):
    """The secret in the shape the field takes: in a list, in a JSON object, or as is."""
    if isinstance(example, list) or annotation.startswith("list"):
        return [secret]
    if isinstance(example, dict) or annotation.startswith("dict"):
        return {"note": secret}
    return secret


def expected_refusal(free_text: bool) -> set[ErrorCode]:
    """A secret in a free-text field is SECRET_REJECTED; in a closed one it is not a valid
    value (VALIDATION_ERROR), or reaches the gate through a text it is copied into."""
    if free_text:
        return {ErrorCode.SECRET_REJECTED}
    return {ErrorCode.VALIDATION_ERROR, ErrorCode.SECRET_REJECTED}
