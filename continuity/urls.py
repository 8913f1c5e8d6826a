from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from continuity.api import api
from continuity.health import health

admin.site.site_header = "Continuity"
admin.site.site_title = "Continuity"
admin.site.index_title = "Memory administration"

urlpatterns = [
    path("health", health, name="health"),
    # Browsers ask every site for /favicon.ico; pages name the SVG, which this points at.
    path("favicon.ico", RedirectView.as_view(url=static("dashboard/favicon.svg"), permanent=True)),
    path("admin/", admin.site.urls),
    path("api/owner/", include("continuity.owner_urls")),
    path("api/v1/", api.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("dashboard.urls")),
]

handler404 = "dashboard.views.errors.not_found"
