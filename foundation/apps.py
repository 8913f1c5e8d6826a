from django.apps import AppConfig


class FoundationConfig(AppConfig):
    name = "foundation"

    def ready(self) -> None:
        from foundation import logs

        logs.install()
