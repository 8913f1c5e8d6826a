"""Personal access tokens: issue, authenticate, revoke.

A token is `cont_pat_` + 40 random url-safe characters. Its first 12 characters after the
marker are the lookup prefix; the whole token is kept only as a SHA-256 hash (the secret
carries 240 bits of randomness, so a slow hash adds nothing) and compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from accounts.models import PersonalAccessToken, Scope
from accounts.refusals import note_refusal, unusable_token_error
from foundation.actors import Actor
from foundation.errors import ErrorCode, ServiceError, not_found, validation_error

TOKEN_MARKER = "cont_pat_"
PREFIX_LENGTH = 12
SECRET_LENGTH = 40
TOKEN_PATTERN = re.compile(rf"^{TOKEN_MARKER}[A-Za-z0-9_-]{{{SECRET_LENGTH}}}$")
AGENT_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
MAX_EXPIRY_DAYS = 3650
# Last-used timestamps are written at most this often per token, so auth stays read-only.
LAST_USED_RESOLUTION = timedelta(minutes=1)
INVALID_TOKEN = gettext_noop("Invalid, expired or revoked access token.")


@dataclass(frozen=True)
class TokenPreset:
    """A ready-made set of scopes for a common way of connecting an agent; `client` names
    the client (continuity_client.clients) whose set-up comes first."""

    label: str
    scopes: tuple[str, ...]
    client: str


_HOOKS_AND_MCP = (Scope.CAPTURE_WRITE.value, Scope.MEMORIES_READ.value, Scope.MEMORIES_WRITE.value)
# The hooks capture (capture:write) and inject (memories:read); MCP reads and writes memories.
TOKEN_PRESETS: dict[str, TokenPreset] = {
    "claude-code": TokenPreset(_("Claude Code: hooks and MCP"), _HOOKS_AND_MCP, "claude"),
    "codex": TokenPreset(_("Codex: hooks and MCP"), _HOOKS_AND_MCP, "codex"),
    "mcp": TokenPreset(_("MCP only"), (Scope.MEMORIES_READ.value, Scope.MEMORIES_WRITE.value), ""),
}


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def _new_secret() -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
    return "".join(secrets.choice(alphabet) for _ in range(SECRET_LENGTH))


def token_create(
    *,
    actor: Actor,
    name: str,
    agent_name: str,
    scopes: list[str],
    expires_at: datetime | None = None,
    expires_in_days: int | None = None,
    allowed_projects: list[str] | None = None,
    purpose: str = "",
    preset: str = "",
) -> tuple[PersonalAccessToken, str]:
    """Owner-only. Returns the token row and the raw secret, which is never stored. A
    `preset` (a TOKEN_PRESETS key) sets the scopes, in place of `scopes`."""
    actor.require_owner(gettext_noop("create access tokens"))
    if preset:
        if preset not in TOKEN_PRESETS:
            raise validation_error(
                gettext_noop("preset must be one of %(choices)s, not %(preset)s."),
                field="preset", choices=sorted(TOKEN_PRESETS), preset=repr(preset),
            )  # fmt: skip
        scopes = list(TOKEN_PRESETS[preset].scopes)
    name = (name or "").strip()
    if not name or len(name) > 100:
        raise validation_error(
            gettext_noop("A token needs a name of 1-100 characters."), field="name"
        )
    if not AGENT_NAME_PATTERN.match(agent_name or ""):
        raise validation_error(
            gettext_noop("agent_name must be 1-100 characters: letters, digits, '.', '_' or '-'."),
            field="agent_name",
        )
    valid_scopes = set(Scope.values)
    unknown = sorted(set(scopes) - valid_scopes)
    if not scopes or unknown:
        raise validation_error(
            gettext_noop("scopes must be a non-empty subset of %(scopes)s; unknown: %(unknown)s")
            if unknown
            else gettext_noop("scopes must be a non-empty subset of %(scopes)s"),
            field="scopes", scopes=sorted(valid_scopes), unknown=unknown,
        )  # fmt: skip
    if (expires_at is None) == (expires_in_days is None):
        raise validation_error(
            gettext_noop("Give exactly one of expires_at or expires_in_days."), field="expires_at"
        )
    now = timezone.now()
    if expires_in_days is not None:
        if not 1 <= expires_in_days <= MAX_EXPIRY_DAYS:
            raise validation_error(
                gettext_noop("expires_in_days must be between 1 and %(limit)s."),
                field="expires_in_days", limit=MAX_EXPIRY_DAYS,
            )  # fmt: skip
        expires_at = now + timedelta(days=expires_in_days)
    if expires_at <= now or expires_at > now + timedelta(days=MAX_EXPIRY_DAYS):
        raise validation_error(
            gettext_noop("expires_at must lie in the future, within ten years."), field="expires_at"
        )
    projects = sorted({p.strip() for p in (allowed_projects or []) if p.strip()})

    secret = _new_secret()
    raw = TOKEN_MARKER + secret
    token = PersonalAccessToken.objects.create(
        owner=actor.user,
        name=name,
        purpose=(purpose or "").strip()[:300],
        agent_name=agent_name,
        prefix=secret[:PREFIX_LENGTH],
        secret_hash=hash_token(raw),
        scopes=sorted(set(scopes)),
        allowed_projects=projects,
        expires_at=expires_at,
    )
    return token, raw


def token_authenticate(raw: str) -> PersonalAccessToken:
    """Resolve a presented token; raises UNAUTHORIZED for malformed, unknown, expired or
    revoked tokens, with one message so a caller learns nothing about which it was."""
    failure = ServiceError(ErrorCode.UNAUTHORIZED, INVALID_TOKEN)
    if not raw or not TOKEN_PATTERN.match(raw):
        raise failure
    prefix = raw[len(TOKEN_MARKER) : len(TOKEN_MARKER) + PREFIX_LENGTH]
    token = PersonalAccessToken.objects.select_related("owner").filter(prefix=prefix).first()
    if token is None or not hmac.compare_digest(token.secret_hash, hash_token(raw)):
        raise failure
    if not token.owner.is_active:
        raise failure
    if not token.is_usable:
        note_refusal(token, unusable_token_error(token))
        raise failure
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        PersonalAccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


@transaction.atomic
def token_revoke(*, actor: Actor, token_id: int) -> PersonalAccessToken:
    """Owner-only; idempotent (revoking a revoked token keeps the first revocation time)."""
    actor.require_owner(gettext_noop("revoke access tokens"))
    token = (
        PersonalAccessToken.objects.select_for_update()
        .filter(pk=token_id, owner=actor.user)
        .first()
    )
    if token is None:
        raise not_found("token")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token
