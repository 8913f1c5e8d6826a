"""Agent authentication for the HTTP doors: `Authorization: Bearer cont_pat_...` → `Actor`.

`actor_from_authorization` and `authenticate_agent` know nothing about any web framework, so
the agent API (ninja) and the MCP endpoint share them; `AgentTokenAuth` adapts them to
django-ninja. Every failure is a ServiceError with code UNAUTHORIZED (an `AuthenticationFailed`)
that also knows the `WWW-Authenticate` challenge its 401 response carries (RFC 6750).
"""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.translation import gettext_noop
from ninja.security.http import HttpBearer

from accounts.ratelimit import rate_limit_hit
from accounts.refusals import note_refusal
from accounts.tokens import token_authenticate
from foundation.actors import Actor
from foundation.errors import AuthenticationFailed, ServiceError


def actor_from_authorization(header: str | None) -> Actor:
    """The agent acting with the bearer token in this `Authorization` header value.

    Raises AuthenticationFailed (UNAUTHORIZED) when the header is missing or is not
    `Bearer <token>`, and when the token is malformed, unknown, expired or revoked — the
    last four with one message, so a caller learns nothing about which it was.
    """
    if header is None or not header.strip():
        raise AuthenticationFailed(
            gettext_noop(
                "This endpoint needs an access token: send 'Authorization: Bearer cont_pat_...'."
            )
        )
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() != "bearer":
        raise AuthenticationFailed(
            gettext_noop("The Authorization header must be 'Bearer cont_pat_...'."),
            oauth_error="invalid_request",
        )
    try:
        token = token_authenticate(parts[1])
    except ServiceError as error:
        raise AuthenticationFailed(error.message, oauth_error="invalid_token") from None
    return Actor.agent(token)


def authenticate_agent(header: str | None) -> Actor:
    """Authenticate, then count the request against the token's rate limit (RATE_LIMITED)."""
    actor = actor_from_authorization(header)
    try:
        rate_limit_hit(actor.token.pk)
    except ServiceError as refused:
        note_refusal(actor.token, refused)
        raise
    return actor


class AgentTokenAuth(HttpBearer):
    """django-ninja auth: sets `request.actor`. Unlike ninja's HttpBearer it raises on a
    missing or foreign header too, so every 401 carries our message and challenge."""

    def __call__(self, request: HttpRequest) -> Actor:
        actor = authenticate_agent(request.headers.get(self.header))
        request.actor = actor
        return actor

    def authenticate(self, request: HttpRequest, token: str) -> Actor:  # pragma: no cover
        return authenticate_agent(f"Bearer {token}")
