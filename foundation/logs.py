"""Request lines in the logs carry no query string.

A recall's query travels in the URL of `GET /api/v1/recall?query=...`, and an owner's search
in `/search/?q=...`: whatever a user typed, a pasted secret included, would land verbatim in
the access log. The web server's access log (uvicorn) and Django's development server log each
request line; this filter keeps the path and replaces the query string with `?…`.
"""

from __future__ import annotations

import logging
import re

# A path with a query, alone ("/recall?query=x") or inside a request line ("GET /a?b HTTP/1.1").
_QUERY = re.compile(r"(/[^\s?]*)\?[^\s\"]*")
REQUEST_LOGGERS = ("uvicorn.access", "django.server")


def without_query(text: str) -> str:
    return _QUERY.sub(r"\1?…", text)


class DropQueryStrings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                without_query(arg) if isinstance(arg, str) and "?" in arg else arg
                for arg in record.args
            )
        if isinstance(record.msg, str) and "?" in record.msg:
            record.msg = without_query(record.msg)
        return True


def install() -> None:
    """Attach the filter to the request loggers (idempotent)."""
    for name in REQUEST_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(existing, DropQueryStrings) for existing in logger.filters):
            logger.addFilter(DropQueryStrings())
