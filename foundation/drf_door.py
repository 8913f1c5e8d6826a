"""The owner API's door framework (Django REST framework, `/api/owner/`): what every
endpoint of every app shares.

Only a signed-in owner session reaches this API (CSRF enforced on unsafe methods); agent
tokens are refused outright. Every error, DRF's own included, leaves in the one envelope
of DESIGN §5. Endpoints stay thin: parse, call one service or selector as
`Actor.owner(request.user)`, shape the answer. Every queryset starts from the signed-in
user, so another user's ids behave as if they did not exist (NOT_FOUND).
"""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Q, QuerySet
from django.http import Http404, JsonResponse
from django.utils.translation import gettext_noop
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, serializers, viewsets
from rest_framework.authentication import SessionAuthentication
from rest_framework.pagination import BasePagination
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import set_rollback

from foundation.actors import Actor
from foundation.errors import (
    AMONG,
    CODE_FOR_STATUS,
    LIMIT_RANGE,
    ErrorCode,
    ServiceError,
    envelope,
    shown_name,
    unavailable_error,
    validation_error,
)
from foundation.paging import INVALID as INVALID_CURSOR
from foundation.paging import cursor_decode, cursor_encode, moment_of, query_key

logger = logging.getLogger(__name__)

# The largest request body the owner API reads. The biggest legitimate one (a memory with
# its 16 kB value, tags and hints) is far smaller.
MAX_BODY_BYTES = 256 * 1024
AGENT_TOKEN_REFUSED = (
    "The owner API accepts only a signed-in owner session; agent access tokens are refused "
    "here. Agents use /api/v1/ or /mcp."
)
NOT_SIGNED_IN = (
    "Sign in first: the owner API takes a browser session (sign in at /admin/login/ or "
    "/api/owner/auth/login/)."
)


# --- authentication ------------------------------------------------------------------------


class OwnerSessionAuthentication(SessionAuthentication):
    """Django's session, with DRF's CSRF check on unsafe methods. A request carrying a bearer
    token is refused even alongside a session: an agent's credential never works here.
    Other Authorization schemes (a reverse proxy's Basic auth) are left alone."""

    def authenticate(self, request):
        scheme = request.META.get("HTTP_AUTHORIZATION", "").split(None, 1)[:1]
        if scheme and scheme[0].lower() == "bearer":
            raise exceptions.AuthenticationFailed(AGENT_TOKEN_REFUSED)
        return super().authenticate(request)

    def authenticate_header(self, request) -> str:
        # With a challenge DRF answers 401, the status the UNAUTHORIZED code stands for,
        # instead of coercing "not signed in" to 403. No browser acts on this scheme.
        return 'Session realm="Continuity owner API"'


# --- errors --------------------------------------------------------------------------------


def _flatten(detail, path: str = "") -> list[dict]:
    """DRF's nested error detail as [{"field": "scopes.0", "message": "..."}]."""
    if isinstance(detail, dict):
        items = []
        for key, value in detail.items():
            key = "" if key == "non_field_errors" else str(key)
            items += _flatten(value, f"{path}.{key}" if path and key else path or key)
        return items
    if isinstance(detail, list):
        items = []
        for value in detail:
            items += _flatten(value, path)
        return items
    return [{"field": path or None, "message": str(detail)}]


def _error_of(exc) -> tuple[int, dict, dict]:
    """(status, envelope, headers) for any exception DRF hands the handler."""
    if isinstance(exc, ServiceError):
        return exc.http_status, exc.as_envelope(), exc.headers
    if unavailable := unavailable_error(exc):
        return unavailable.http_status, unavailable.as_envelope(), unavailable.headers
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    if not isinstance(exc, exceptions.APIException):
        return 500, envelope(ErrorCode.INTERNAL_ERROR, "Something went wrong on our side."), {}

    headers = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if getattr(exc, "wait", None):
        headers["Retry-After"] = str(int(exc.wait))
    status = exc.status_code
    if isinstance(exc, exceptions.ValidationError):
        details = _flatten(exc.detail)
        first = details[0] if details else {"field": None, "message": "Invalid input."}
        message = f"{first['field']}: {first['message']}" if first["field"] else first["message"]
        return status, envelope(ErrorCode.VALIDATION_ERROR, message, details), headers
    if isinstance(exc, exceptions.NotAuthenticated):
        return status, envelope(ErrorCode.UNAUTHORIZED, NOT_SIGNED_IN), headers
    if isinstance(exc, exceptions.NotFound):
        return status, envelope(ErrorCode.NOT_FOUND, "Not found."), headers
    # 406 and 415 are the caller's mistakes about the request: VALIDATION_ERROR, with the
    # exact HTTP status kept.
    fallback = ErrorCode.INTERNAL_ERROR if status >= 500 else ErrorCode.VALIDATION_ERROR
    return status, envelope(CODE_FOR_STATUS.get(status, fallback), str(exc.detail)), headers


def envelope_exception_handler(exc, context):
    """REST_FRAMEWORK["EXCEPTION_HANDLER"]: every error, in the envelope."""
    status, body, headers = _error_of(exc)
    if status >= 500:
        logger.error("owner API request failed", exc_info=exc)
    set_rollback()
    return Response(body, status=status, headers=headers)


@csrf_exempt
def not_found_view(request, *args, **kwargs):
    """Paths under /api/owner/ that match no endpoint: a 404 in the envelope, not HTML."""
    return JsonResponse(envelope(ErrorCode.NOT_FOUND, "No such endpoint."), status=404)


# --- input ---------------------------------------------------------------------------------


class StrictCharField(serializers.CharField):
    """A string, never a number turned into one."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictSerializer(serializers.Serializer):
    """Unknown fields are refused, not ignored: a misspelt field must not silently do nothing."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted({shown_name(name) for name in set(data) - set(self.fields)})
            if unknown:
                raise exceptions.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


class EmptyIn(StrictSerializer):
    """An action that takes no input."""


def reject_unknown_params(request, allowed) -> None:
    unknown = sorted(
        {shown_name(name) for name in set(request.query_params) - set(allowed) - {"format"}}
    )
    if unknown:
        raise ServiceError(
            ErrorCode.VALIDATION_ERROR,
            gettext_noop("Unknown query parameter: %(names)s."),
            [{"field": name, "message": "Unknown query parameter."} for name in unknown],
            params={"names": ", ".join(unknown)},
        )


def query_choices(request, name: str, choices) -> list[str]:
    """Enum filter values: repeated (?kind=a&kind=b) or comma-separated; unknown ones refused."""
    values = [item.strip() for raw in request.query_params.getlist(name) for item in raw.split(",")]
    values = [value for value in values if value]
    unknown = [value for value in values if value not in choices.values]
    if unknown:
        raise validation_error(AMONG, field=name, name=name, choices=", ".join(choices.values))
    return values


class OwnerViewSet(viewsets.GenericViewSet):
    """Base of every owner endpoint: the actor, bounded bodies, strictly parsed input."""

    authentication_classes = [OwnerSessionAuthentication]
    serializer_classes: dict[str, type[serializers.Serializer]] = {}
    # Owner endpoints read through selectors and offer no filter form; the browsable API asks
    # every list view for a queryset to build one, and DRF's default answer is an assertion
    # (HTTP 500). A view that has a queryset of its own overrides this.
    filter_backends = ()

    def get_queryset(self):
        return ()

    @property
    def actor(self) -> Actor:
        return Actor.owner(self.request.user)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # authentication, CSRF, permissions
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > MAX_BODY_BYTES:
            raise ServiceError(
                ErrorCode.PAYLOAD_TOO_LARGE,
                gettext_noop("The request body is %(size)s bytes; the limit is %(limit)s."),
                params={"size": f"{length:,}", "limit": f"{MAX_BODY_BYTES:,}"},
            )

    def get_serializer_class(self):
        return self.serializer_classes.get(self.action, EmptyIn)

    def parse(self) -> dict:
        """The request body, validated by this action's serializer; absent fields omitted."""
        serializer = self.get_serializer(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)


# --- pagination ----------------------------------------------------------------------------


class KeysetPagination(BasePagination):
    """Newest first by `time_field`, ties broken by ascending id, paged by keyset.

    `?limit=` (1-100, default 50) and an opaque `?cursor=` naming the last row seen
    (`foundation.paging`'s signed codec), bound to the list and filters it came from. Any page costs what the first costs.
    A row whose time changes while someone pages moves to the front: it is not shown twice.
    """

    time_field = "created_at"
    default_limit = 50
    max_limit = 100
    query_params = ("cursor", "limit")

    def paginate_queryset(self, queryset: QuerySet, request, view=None) -> list:
        self.request = request
        limit = self._limit(request)
        field = self.time_field
        queryset = queryset.order_by(f"-{field}", "id")
        cursor = request.query_params.get("cursor")
        if cursor:
            moment, last_id = self._decode(cursor, request, queryset.model)
            queryset = queryset.filter(
                Q(**{f"{field}__lt": moment}) | Q(**{field: moment, "id__gt": last_id})
            )
        rows = list(queryset[: limit + 1])
        self.next_cursor = self._encode(rows[limit - 1], request) if len(rows) > limit else None
        return rows[:limit]

    def get_paginated_response(self, data) -> Response:
        next_url = None
        if self.next_cursor:
            next_url = replace_query_param(
                self.request.build_absolute_uri(), "cursor", self.next_cursor
            )
        return Response({"results": data, "next_cursor": self.next_cursor, "next": next_url})

    def _limit(self, request) -> int:
        raw = request.query_params.get("limit")
        if raw is None:
            return self.default_limit
        if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= self.max_limit:
            raise validation_error(LIMIT_RANGE, field="limit", limit=self.max_limit)
        return int(raw)

    @staticmethod
    def _query(request) -> str:
        """The list (its path) and every filter of this request: what a cursor is bound to."""
        filters = sorted(
            (key, value)
            for key, values in request.query_params.lists()
            if key not in ("cursor", "limit", "format")
            for value in values
        )
        return query_key("owner-api", request.path, filters)

    def _encode(self, row, request) -> str:
        position = [getattr(row, self.time_field).isoformat(), str(row.pk)]
        return cursor_encode(position, query=self._query(request))

    def _decode(self, cursor: str, request, model):
        position = cursor_decode(cursor, query=self._query(request))
        try:
            moment, last_id = moment_of(position[0]), model._meta.pk.to_python(position[1])
        except (IndexError, KeyError, TypeError, DjangoValidationError):
            raise validation_error(INVALID_CURSOR, field="cursor") from None
        if last_id is None:
            raise validation_error(INVALID_CURSOR, field="cursor")
        return moment, last_id
