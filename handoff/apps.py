from django.apps import AppConfig


class HandoffConfig(AppConfig):
    """Handoff capsules between agents, checkpoints and memory packages."""

    name = "handoff"
    verbose_name = "Handoffs"
