"""Continuity: a self-hosted memory hub that AI agents share and their owner controls.

The Celery app (continuity/celery.py) loads with Django (ContinuityConfig.ready), so that
`shared_task`s bind to it in every process, and `celery -A continuity` finds it as
`continuity.celery`; importing this package alone stays cheap (the stdio front needs that).
"""


def __getattr__(name: str):
    if name == "celery_app":
        from continuity.celery import app

        return app
    raise AttributeError(name)
