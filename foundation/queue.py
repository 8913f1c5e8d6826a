"""Enqueue a Celery task by its registered name.

Services never import tasks (tasks import services): a service that hands work to a worker
names the task instead. `celery.current_app` is the project's app once Django has loaded it,
so this respects its configuration, CELERY_TASK_ALWAYS_EAGER included.
"""

from __future__ import annotations

from celery import current_app
from django.utils.module_loading import autodiscover_modules


def enqueue(task_name: str, *args, queue: str | None = None, **kwargs):
    """Send `task_name(*args, **kwargs)` to `queue` (the task's default queue when None).
    Raises KeyError for a name no task registered, and whatever the broker raises."""
    if task_name not in current_app.tasks:
        # A web process imports no tasks module until one is needed (a worker imports them
        # all at start): register every app's tasks, as the worker would.
        autodiscover_modules("tasks")
    options = {"queue": queue} if queue else {}
    return current_app.tasks[task_name].apply_async(args=args, kwargs=kwargs, **options)
