"""Continuity: a self-hosted memory hub that AI agents share and their owner controls."""

from continuity.celery import app as celery_app

__all__ = ["celery_app"]
