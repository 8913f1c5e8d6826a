"""The owner's day-one view: Django admin, read-mostly, with filters.

Every change to a memory or a token goes through a service (history, trust and scope rules
live there), so these pages only show rows. The one write offered here, revoking tokens,
calls the token service like any other door.
"""

from __future__ import annotations

from django.contrib import admin


class OwnerScopedReadOnlyAdmin(admin.ModelAdmin):
    """Shows rows without offering add, edit or delete.

    Non-superuser staff see only the rows they own. A superuser is the operator of this
    single-owner deployment and sees every row.
    """

    owner_field = "owner"

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(**{self.owner_field: request.user})

    def get_list_display(self, request):
        display = list(super().get_list_display(request))
        if request.user.is_superuser and self.owner_field not in display:
            display.append(self.owner_field)
        return display

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        # Without change permission Django renders the change page read-only.
        return False

    def has_delete_permission(self, request, obj=None):
        # The owner deletes through the service, which also scrubs the history.
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
