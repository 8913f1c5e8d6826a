"""The dashboard's routes, mounted at `/` (namespace `dashboard`): the shell's own pages and
every app's tabs."""

from django.urls import include, path

from accounts import views as site
from dashboard.views import (
    bulk,
    counts,
    overview,
    preferences,
    proposals,
    settings_page,
    theme,
    tokens,
)
from dashboard.views import memory_actions as actions
from dashboard.views import memory_tabs as pages
from handoff import views as handoffs
from injection import views as injection_views

app_name = "dashboard"

urlpatterns = [
    path("", pages.core, name="core"),
    path("overview/", overview.overview, name="overview"),
    path("counts/", counts.counts, name="counts"),
    path("projects/", pages.projects, name="projects"),
    path("recent/", pages.recent, name="recent"),
    path("review/", pages.review, name="review"),
    path("archive/", pages.archive, name="archive"),
    path("inbox/", include("capture.urls")),
    path("activity/", pages.activity, name="activity"),
    path("activity/injections/", injection_views.injections, name="injections"),
    path("search/", pages.search, name="search"),
    path("bulk/", bulk.bulk, name="bulk"),
    path("bulk/undo/", bulk.bulk_undo, name="bulk-undo"),
    path("view/", preferences.memory_view, name="memory-view"),
    path(
        "review/proposals/<int:proposal_id>/<slug:verb>/",
        proposals.answer_proposal,
        name="proposal",
    ),
    path("handoffs/", handoffs.handoffs, name="handoffs"),
    path("handoffs/<uuid:capsule_id>/", handoffs.handoff_detail, name="handoff"),
    path("handoffs/<uuid:capsule_id>/expire/", handoffs.handoff_expire_view, name="handoff-expire"),
    path("settings/", settings_page.settings_page, name="settings"),
    path(
        "settings/retention/<slug:rule>/", settings_page.retention_window, name="retention-window"
    ),
    path("settings/markers/", settings_page.strip_marker_create, name="strip-marker-create"),
    path(
        "settings/markers/<int:marker_id>/delete/",
        settings_page.strip_marker_remove,
        name="strip-marker-delete",
    ),
    path("settings/semantic/", settings_page.semantic_status, name="semantic-status"),
    path("settings/semantic/backfill/", settings_page.semantic_backfill, name="semantic-backfill"),
    path("theme/", theme.theme_set, name="theme"),
    path("tokens/", tokens.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", tokens.token_revoke_view, name="token-revoke"),
    path("signin/", site.SignInView.as_view(), name="signin"),
    path("signout/", site.SignOutView.as_view(), name="signout"),
    path("m/<uuid:memory_id>/", actions.card, name="card"),
    path("m/<uuid:memory_id>/correct/", actions.correct, name="correct"),
    path("m/<uuid:memory_id>/delete/", actions.delete, name="delete"),
    path("m/<uuid:memory_id>/history/", actions.history, name="history"),
    path("m/<uuid:memory_id>/undo/", actions.undo, name="undo"),
    path("m/<uuid:memory_id>/<slug:action>/", actions.act, name="act"),
]
