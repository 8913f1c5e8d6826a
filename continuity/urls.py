from django.contrib import admin
from django.urls import include, path

from continuity.api import api
from continuity.health import health

admin.site.site_header = "Continuity"
admin.site.site_title = "Continuity"
admin.site.index_title = "Memory administration"

urlpatterns = [
    path("health", health, name="health"),
    path("admin/", admin.site.urls),
    path("api/owner/", include("continuity.owner_urls")),
    path("api/v1/", api.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("dashboard.urls")),
]
