from django.apps import AppConfig


class CaptureConfig(AppConfig):
    """Conversation inbox: captured threads, redaction, candidate memories."""

    name = "capture"
    verbose_name = "Capture"
