"""The Inbox tab's routes, included by memories/urls.py at /inbox/ (namespace `dashboard`)."""

from django.urls import path

from capture import views

urlpatterns = [
    path("", views.inbox, name="inbox"),
    path("bulk/", views.bulk, name="inbox-bulk"),
    path("never/", views.pattern_add, name="never-add"),
    path("never/<int:pattern_id>/delete/", views.pattern_delete, name="never-delete"),
    path("c/<uuid:candidate_id>/", views.candidate, name="candidate"),
    path("c/<uuid:candidate_id>/approve/", views.approve, name="candidate-approve"),
    path("c/<uuid:candidate_id>/reject/", views.reject, name="candidate-reject"),
    path("c/<uuid:candidate_id>/reopen/", views.reopen, name="candidate-reopen"),
]
