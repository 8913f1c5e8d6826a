"""Enqueue a Celery task by its name, so the code that asks for background work never
imports the module that does it (tasks import services, never the reverse).

`apply_async` on the registered task, not `send_task`: it honours CELERY_TASK_ALWAYS_EAGER
(tasks run inline in unit tests) and the task's routes. Task modules are discovered on first
use, since a web process has no reason to import them before.
"""

from __future__ import annotations

from celery import current_app


def enqueue(task_name: str, *args, queue: str | None = None, retry: bool = True):
    """Send `task_name(*args)`; `queue` overrides the task's route, `retry=False` fails at
    once when the broker is away instead of retrying the publish. Raises KeyError for a
    task nobody defines, and whatever the broker raises."""
    app = current_app
    task = app.tasks.get(task_name)
    if task is None:
        app.loader.import_default_modules()
        task = app.tasks[task_name]
    options: dict = {"retry": retry}
    if queue is not None:
        options["queue"] = queue
    return task.apply_async(args=list(args), **options)
