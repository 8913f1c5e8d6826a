"""The Tokens tab: the owner's access tokens, created (the secret shown once, with the
set-up for each client) and revoked."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import Scope
from accounts.tokens import TOKEN_PRESETS, token_create, token_revoke
from dashboard.selectors import owner_tokens
from dashboard.setup_guide import setup_guide
from foundation.errors import ServiceError
from foundation.htmx import answer
from foundation.views import owner_actor

MAX_TOKENS_SHOWN = 200
EXPIRY_CHOICES = (7, 30, 90, 365)
DEFAULT_FORM = {
    "scopes": ["memories:read", "memories:write"],
    "expires_in_days": "90",
    "preset": "",
}


def _tokens_answer(request: HttpRequest, status: int = 200, **extra) -> HttpResponse:
    """The page, or for htmx its panel (which changed the token count, so the tab bar
    re-fetches it)."""
    context = {
        "tab": "tokens", "tokens": owner_tokens(request.user, limit=MAX_TOKENS_SHOWN),
        "scopes": Scope.choices, "expiry_choices": EXPIRY_CHOICES, "form": DEFAULT_FORM,
        "presets": TOKEN_PRESETS, **extra,
    }  # fmt: skip
    return answer(
        request, "dashboard/tokens.html", context,
        fragment="panel", status=status, counts_changed=request.method == "POST",
    )  # fmt: skip


def _form(request: HttpRequest) -> dict:
    """The new-token form as typed (shown again if it is refused)."""
    fields = ("name", "purpose", "agent_name", "projects", "expires_in_days", "preset")
    form = {name: request.POST.get(name, "") for name in fields}
    form["agent_name"] = form["agent_name"].strip()
    form["expires_in_days"] = form["expires_in_days"] or "90"
    return {**form, "scopes": request.POST.getlist("scopes")}


def _days(raw: str) -> int:
    """A number of days; anything else becomes 0, which the service refuses by name."""
    try:
        return int(raw)
    except ValueError:
        return 0


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    """GET: the owner's tokens. POST: create one; the secret is shown in this answer once."""
    if request.method == "GET":
        return _tokens_answer(request)
    form = _form(request)
    try:
        token, secret = token_create(
            actor=owner_actor(request), name=form["name"], purpose=form["purpose"],
            agent_name=form["agent_name"], scopes=form["scopes"],
            allowed_projects=form["projects"].replace("\n", ",").split(","),
            expires_in_days=_days(form["expires_in_days"]), preset=form["preset"],
        )  # fmt: skip
    except ServiceError as error:
        field = error.details[0]["field"] if error.details else ""
        return _tokens_answer(
            request, error.http_status, form=form, error=error.localized, error_field=field
        )
    guide = setup_guide(
        server_url=request.build_absolute_uri("/"), token=secret, scopes=token.scopes,
        preset=form["preset"],
    )  # fmt: skip
    return _tokens_answer(request, created=token, secret=secret, setup=guide)


@login_required
@require_POST
def token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = token_revoke(actor=owner_actor(request), token_id=token_id)
    except ServiceError as error:
        raise Http404(error.localized) from error
    if request.htmx:
        return _tokens_answer(request, revoked=token)
    messages.success(request, _("Token “%(name)s” was revoked.") % {"name": token.name})
    return redirect("dashboard:tokens")
