from django.apps import AppConfig


class ContinuityConfig(AppConfig):
    name = "continuity"
    verbose_name = "Continuity"

    def ready(self) -> None:
        # Bind shared tasks to Continuity's Celery app in every Django process.
        import continuity.celery  # noqa: F401
