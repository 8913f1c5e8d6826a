"""URLs of the owner API, included at /api/owner/ (see docs/owner-api.md).

Trailing slashes are optional. `auth/` gives the browsable API its sign-in page. Any other
path under /api/owner/ answers 404 in the error envelope rather than an HTML page.
"""

from django.urls import include, path, re_path
from rest_framework.routers import APIRootView, DefaultRouter

from accounts.owner_api import TokenViewSet
from foundation.drf_door import OwnerSessionAuthentication, not_found_view
from foundation.maintenance.owner_api import RetentionViewSet
from memories.owner_api import MemoryViewSet
from memories.review_api import ProposalViewSet


class OwnerRootView(APIRootView):
    """The browsable index of the owner API."""

    authentication_classes = [OwnerSessionAuthentication]


class OwnerRouter(DefaultRouter):
    APIRootView = OwnerRootView
    include_format_suffixes = False  # ?format=json instead of .json suffixes

    def __init__(self):
        super().__init__()
        self.trailing_slash = "/?"


router = OwnerRouter()
router.register("memories", MemoryViewSet, basename="owner-memory")
router.register("tokens", TokenViewSet, basename="owner-token")
router.register("proposals", ProposalViewSet, basename="owner-proposal")
router.register("retention", RetentionViewSet, basename="owner-retention")

urlpatterns = [
    path("auth/", include("rest_framework.urls")),
    path("", include("handoff.owner_urls")),
    path("", include("portability.owner_urls")),
    path("", include("capture.owner_urls")),
    *router.urls,
    re_path(r"^", not_found_view),
]
