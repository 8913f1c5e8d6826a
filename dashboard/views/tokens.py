"""The Tokens tab: the owner's access tokens, created (the secret shown once) and revoked."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import PersonalAccessToken, Scope
from accounts.tokens import token_create, token_revoke
from foundation.actors import Actor
from foundation.errors import ServiceError

MAX_TOKENS_SHOWN = 200
EXPIRY_CHOICES = (7, 30, 90, 365)


def _tokens_context(request: HttpRequest, **extra) -> dict:
    tokens = list(
        PersonalAccessToken.objects.filter(owner=request.user).order_by("-created_at")[
            :MAX_TOKENS_SHOWN
        ]
    )
    return {
        "tab": "tokens",
        "tokens": tokens,
        "scopes": Scope.choices,
        "expiry_choices": EXPIRY_CHOICES,
        "form": {"scopes": ["memories:read", "memories:write"], "expires_in_days": "90"},
        **extra,
    }


def _tokens_answer(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    if request.htmx:
        response = render(request, "dashboard/tokens.html#panel", context, status=200)
        response.write(render(request, "dashboard/_counts.html", {**context, "oob": True}).content)
        return response
    return render(request, "dashboard/tokens.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    """GET: the owner's tokens. POST: create one; the secret is shown in this answer once."""
    if request.method == "GET":
        return render(request, "dashboard/tokens.html", _tokens_context(request))
    form = {
        "name": request.POST.get("name", ""),
        "purpose": request.POST.get("purpose", ""),
        "agent_name": request.POST.get("agent_name", "").strip(),
        "scopes": request.POST.getlist("scopes"),
        "projects": request.POST.get("projects", ""),
        "expires_in_days": request.POST.get("expires_in_days", "90"),
    }
    try:
        days = int(form["expires_in_days"])
    except ValueError:
        days = 0
    try:
        token, secret = token_create(
            actor=Actor.owner(request.user),
            name=form["name"],
            purpose=form["purpose"],
            agent_name=form["agent_name"],
            scopes=form["scopes"],
            allowed_projects=[p for p in form["projects"].replace("\n", ",").split(",")],
            expires_in_days=days,
        )
    except ServiceError as error:
        field = error.details[0]["field"] if error.details else ""
        context = _tokens_context(request, form=form, error=error.message, error_field=field)
        return _tokens_answer(request, context, status=400)
    context = _tokens_context(request, created=token, secret=secret)
    return _tokens_answer(request, context)


@login_required
@require_POST
def token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = token_revoke(actor=Actor.owner(request.user), token_id=token_id)
    except ServiceError as error:
        raise Http404(error.message) from error
    if request.htmx:
        return _tokens_answer(request, _tokens_context(request, revoked=token))
    messages.success(request, _("Token “%(name)s” was revoked.") % {"name": token.name})
    return redirect("dashboard:tokens")
