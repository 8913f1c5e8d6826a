"""Owner API URLs of memory packages, included by continuity/owner_urls.py at /api/owner/."""

from django.urls import re_path

from portability.owner_api import PackageExportView, PackageImportView

urlpatterns = [
    re_path(r"^packages/export/?$", PackageExportView.as_view(), name="owner-package-export"),
    re_path(r"^packages/import/?$", PackageImportView.as_view(), name="owner-package-import"),
]
