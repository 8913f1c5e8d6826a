"""Access tokens in the Django admin: listed read-only, revoked through the token service."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils import timezone
from django.utils.translation import ngettext

from accounts.models import PersonalAccessToken
from accounts.tokens import token_revoke
from foundation.actors import Actor
from foundation.admin import OwnerScopedReadOnlyAdmin
from foundation.errors import ServiceError


class TokenStateFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("usable", "Usable"), ("expired", "Expired"), ("revoked", "Revoked")]

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == "usable":
            return queryset.filter(revoked_at__isnull=True, expires_at__gt=now)
        if self.value() == "expired":
            return queryset.filter(revoked_at__isnull=True, expires_at__lte=now)
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        return queryset


@admin.register(PersonalAccessToken)
class PersonalAccessTokenAdmin(OwnerScopedReadOnlyAdmin):
    list_display = (
        "name",
        "agent_name",
        "scope_list",
        "project_list",
        "expires_at",
        "revoked_at",
        "last_used_at",
        "created_at",
    )
    list_filter = (TokenStateFilter, "agent_name")
    list_select_related = ("owner",)
    search_fields = ("name", "agent_name", "purpose")
    # Neither the hash nor the lookup prefix is shown: the prefix is part of the secret.
    fields = (
        "owner",
        "name",
        "purpose",
        "agent_name",
        "scopes",
        "allowed_projects",
        "expires_at",
        "revoked_at",
        "last_used_at",
        "created_at",
    )
    actions = ["revoke_selected"]

    @admin.display(description="scopes")
    def scope_list(self, token: PersonalAccessToken) -> str:
        return ", ".join(token.scopes)

    @admin.display(description="projects")
    def project_list(self, token: PersonalAccessToken) -> str:
        return ", ".join(token.allowed_projects) or "all"

    def has_revoke_permission(self, request) -> bool:
        return request.user.is_active and self.has_view_permission(request)

    @admin.action(description="Revoke selected tokens", permissions=["revoke"])
    def revoke_selected(self, request, queryset):
        actor = Actor.owner(request.user)
        revoked = already = 0
        refused = []
        for token in queryset:
            was_revoked = token.is_revoked
            try:
                token_revoke(actor=actor, token_id=token.pk)
            except ServiceError as error:
                # The service lets an owner revoke only their own tokens; a superuser
                # looking at someone else's token gets that answer here.
                refused.append(f"{token} ({token.owner}): {error.message}")
                continue
            if was_revoked:
                already += 1
            else:
                revoked += 1
        if revoked:
            self.message_user(
                request,
                ngettext("Revoked %d token.", "Revoked %d tokens.", revoked) % revoked,
                messages.SUCCESS,
            )
        if already:
            self.message_user(
                request,
                ngettext(
                    "%d token was already revoked.", "%d tokens were already revoked.", already
                )
                % already,
                messages.INFO,
            )
        for line in refused:
            self.message_user(request, f"Not revoked: {line}", messages.WARNING)
