"""Read-only admin for memories, their history and their links.

Edits, trust changes and deletes go through memories.services (they append events and,
for a delete, scrub the history), so nothing here writes.
"""

from __future__ import annotations

from django.contrib import admin
from django.forms.models import BaseInlineFormSet
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import Truncator

from foundation.admin import OwnerScopedReadOnlyAdmin, ReadOnlyInline
from memories.models import Memory, MemoryEvent, MemoryLink

# A memory page shows its newest events inline; the full history is one link away.
INLINE_EVENT_LIMIT = 50


def events_url(memory_id) -> str:
    return reverse("admin:memories_memoryevent_changelist") + f"?memory={memory_id}"


class NewestEventsFormSet(BaseInlineFormSet):
    """Bounds the inline history, which is display-only and never saved."""

    def get_queryset(self):
        if not hasattr(self, "_limited_queryset"):
            self._limited_queryset = super().get_queryset()[:INLINE_EVENT_LIMIT]
        return self._limited_queryset


class MemoryEventInline(ReadOnlyInline):
    model = MemoryEvent
    formset = NewestEventsFormSet
    fields = ("event_type", "version", "actor", "reason", "patch", "result", "created_at")
    readonly_fields = fields
    verbose_name_plural = f"history (newest {INLINE_EVENT_LIMIT} events)"

    @admin.display(description="actor")
    def actor(self, event: MemoryEvent) -> str:
        return event.actor_label


class LinkOutInline(ReadOnlyInline):
    model = MemoryLink
    fk_name = "from_memory"
    fields = ("relation", "to_memory", "uri", "created_by_agent", "created_at")
    readonly_fields = fields
    verbose_name = "link to"
    verbose_name_plural = "links from this memory"


class LinkInInline(ReadOnlyInline):
    model = MemoryLink
    fk_name = "to_memory"
    fields = ("from_memory", "relation", "created_by_agent", "created_at")
    readonly_fields = fields
    verbose_name = "link from"
    verbose_name_plural = "links to this memory"


@admin.register(Memory)
class MemoryAdmin(OwnerScopedReadOnlyAdmin):
    list_display = (
        "short_content",
        "kind",
        "type",
        "scope_type",
        "scope_key",
        "trust",
        "status",
        "source_agent",
        "version",
        "updated_at",
    )
    list_filter = (
        "kind",
        "type",
        "trust",
        "status",
        "scope_type",
        "visibility",
        "origin",
        "source_agent",
    )
    list_select_related = ("owner",)
    search_fields = ("content", "key", "scope_key")
    fieldsets = (
        (None, {"fields": ("content", "key", "value", "owner")}),
        ("Classification", {"fields": ("type", "kind", "scope_type", "scope_key")}),
        ("Standing", {"fields": ("trust", "status", "visibility")}),
        (
            "Provenance",
            {
                "fields": (
                    "origin",
                    "source_agent",
                    "created_by_token",
                    "confidence",
                    "confidence_basis",
                )
            },
        ),
        (
            "Evolution",
            {"fields": ("version", "supersedes", "fingerprint", "full_history")},
        ),
        ("Retrieval", {"fields": ("tags", "retrieval_hints")}),
        (
            "Usage",
            {
                "fields": (
                    "access_count",
                    "last_accessed_at",
                    "verified_at",
                    "created_at",
                    "updated_at",
                )
            },
        ),
    )
    readonly_fields = ("full_history",)
    inlines = (MemoryEventInline, LinkOutInline, LinkInInline)

    @admin.display(description="content", ordering="content")
    def short_content(self, memory: Memory) -> str:
        return Truncator(memory.content).chars(80)

    @admin.display(description="history")
    def full_history(self, memory: Memory) -> str:
        return format_html('<a href="{}">all events of this memory</a>', events_url(memory.pk))


@admin.register(MemoryEvent)
class MemoryEventAdmin(OwnerScopedReadOnlyAdmin):
    # `memory` itself is never a column or a select_related join: after an owner's delete
    # the tombstone events point at a memory that no longer exists, and an inner join
    # would hide them.
    list_display = ("event_type", "memory_ref", "version", "actor", "reason", "created_at")
    list_filter = ("event_type", "actor_agent")
    list_select_related = ("owner",)
    search_fields = ("reason", "idempotency_key")
    fields = (
        "memory_ref",
        "owner",
        "event_type",
        "version",
        "actor_agent",
        "actor_token",
        "patch",
        "result",
        "reason",
        "idempotency_key",
        "created_at",
    )
    readonly_fields = ("memory_ref",)

    @admin.display(description="memory")
    def memory_ref(self, event: MemoryEvent) -> str:
        url = reverse("admin:memories_memory_change", args=[event.memory_id])
        return format_html('<a href="{}">{}</a>', url, event.memory_id)

    @admin.display(description="actor", ordering="actor_agent")
    def actor(self, event: MemoryEvent) -> str:
        return event.actor_label


@admin.register(MemoryLink)
class MemoryLinkAdmin(OwnerScopedReadOnlyAdmin):
    list_display = ("from_memory", "relation", "target", "created_by_agent", "created_at")
    list_filter = ("relation", "created_by_agent")
    list_select_related = ("owner", "from_memory", "to_memory")
    search_fields = ("uri", "from_memory__content", "to_memory__content")
    fields = (
        "owner",
        "from_memory",
        "relation",
        "to_memory",
        "uri",
        "created_by_agent",
        "created_at",
    )

    @admin.display(description="to")
    def target(self, link: MemoryLink) -> str:
        return str(link.to_memory) if link.to_memory_id else link.uri
