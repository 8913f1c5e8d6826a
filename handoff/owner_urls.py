"""Owner API URLs of the handoff app, included by continuity/owner_urls.py at /api/owner/."""

from django.urls import re_path
from rest_framework.routers import SimpleRouter

from handoff.owner_api import HandoffViewSet, PackageExportView, PackageImportView


class _Router(SimpleRouter):
    def __init__(self):
        super().__init__()
        self.trailing_slash = "/?"


router = _Router()
router.register("handoffs", HandoffViewSet, basename="owner-handoff")

urlpatterns = [
    re_path(r"^packages/export/?$", PackageExportView.as_view(), name="owner-package-export"),
    re_path(r"^packages/import/?$", PackageImportView.as_view(), name="owner-package-import"),
    *router.urls,
]
