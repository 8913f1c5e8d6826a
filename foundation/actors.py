"""Who is acting: the owner, or an agent holding a personal access token.

Every service takes an `Actor`. Doors build it (from the signed-in user or from a
verified token); services decide what it may do. The agent identity always comes from
the token, never from anything a model says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext_noop

from foundation.errors import forbidden
from foundation.messages import known

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from accounts.models import PersonalAccessToken

# Refusals an owner reads later on the token that met them (accounts.refusals).
LACKS_SCOPE = known(gettext_noop("This token lacks the '%(scope)s' scope."))
# `action` is a phrase of the calling service, itself a msgid, so it reads translated too.
OWNER_ONLY = known(gettext_noop("Only the owner can %(action)s; agents never can."))


@dataclass(frozen=True)
class Actor:
    user: AbstractBaseUser  # the owner whose memory is touched
    token: PersonalAccessToken | None = None

    @classmethod
    def owner(cls, user) -> Actor:
        return cls(user=user)

    @classmethod
    def agent(cls, token: PersonalAccessToken) -> Actor:
        return cls(user=token.owner, token=token)

    @property
    def is_owner(self) -> bool:
        return self.token is None

    @property
    def is_agent(self) -> bool:
        return self.token is not None

    @property
    def agent_name(self) -> str:
        return self.token.agent_name if self.token else ""

    @property
    def label(self) -> str:
        return f"agent:{self.agent_name}" if self.token else f"owner:{self.user.get_username()}"

    def has_scope(self, scope: str) -> bool:
        return self.is_owner or scope in self.token.scopes

    def require_scope(self, scope: str) -> None:
        if not self.has_scope(scope):
            raise forbidden(LACKS_SCOPE, scope=scope)

    def require_owner(self, action: str) -> None:
        if not self.is_owner:
            raise forbidden(OWNER_ONLY, action=action)

    @property
    def can_read_private(self) -> bool:
        return self.has_scope("private:read")

    def may_touch_project(self, project_key: str) -> bool:
        return (
            self.is_owner
            or not self.token.allowed_projects
            or (project_key in self.token.allowed_projects)
        )

    @property
    def idempotency_namespace(self) -> str:
        """Idempotency keys are per caller: two agents may pick the same key independently."""
        return f"token:{self.token.pk}" if self.token else f"user:{self.user.pk}"
