"""Owner API URLs of the inbox, included by continuity/owner_urls.py at /api/owner/."""

from rest_framework.routers import SimpleRouter

from capture.owner_api import (
    CandidateViewSet,
    NeverRememberViewSet,
    RejectionViewSet,
    StripMarkerViewSet,
)


class _Router(SimpleRouter):
    def __init__(self):
        super().__init__()
        self.trailing_slash = "/?"


router = _Router()
router.register("candidates", CandidateViewSet, basename="owner-candidate")
router.register("never-remember", NeverRememberViewSet, basename="owner-never-remember")
router.register("rejections", RejectionViewSet, basename="owner-rejection")
router.register("strip-markers", StripMarkerViewSet, basename="owner-strip-marker")

urlpatterns = router.urls
