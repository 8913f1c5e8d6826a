"""`GET /health`: is this instance able to do its work?"""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET


def check_database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any driver error means the same thing here: unreachable
        return {"ok": False, "vendor": connection.vendor, "error": type(error).__name__}
    return {"ok": True, "vendor": connection.vendor}


def check_broker() -> dict:
    from continuity.celery import app

    transport = settings.CELERY_BROKER_URL.split(":", 1)[0]
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, timeout=2)
    except Exception as error:
        return {"ok": False, "transport": transport, "error": type(error).__name__}
    return {"ok": True, "transport": transport}


@require_GET
def health(request):
    database = check_database()
    broker = check_broker()
    healthy = database["ok"] and broker["ok"]
    body = {
        "status": "ok" if healthy else "unhealthy",
        "profile": settings.CONTINUITY_PROFILE,
        "version": settings.VERSION,
        "database": database,
        "broker": broker,
    }
    return JsonResponse(body, status=200 if healthy else 503)
