"""Owner API URLs of the handoff app, included by continuity/owner_urls.py at /api/owner/."""

from rest_framework.routers import SimpleRouter

from handoff.owner_api import HandoffViewSet


class _Router(SimpleRouter):
    def __init__(self):
        super().__init__()
        self.trailing_slash = "/?"


router = _Router()
router.register("handoffs", HandoffViewSet, basename="owner-handoff")

urlpatterns = router.urls
