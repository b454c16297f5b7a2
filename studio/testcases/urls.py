"""``/api/pipelines/<pipeline>/test-runs``, ``.../proofs`` and ``.../test-badges``."""
from django.urls import include, path

from studio.api.routers import StudioRouter
from studio.testcases.api import BadgeViewSet, ProofViewSet, SuiteRunViewSet

PIPELINE = r"pipelines/(?P<id>\d{1,18})"  # the path starts from the pipeline: {id} (studio.api.routers)

router = StudioRouter()
router.register(f"{PIPELINE}/test-runs", SuiteRunViewSet, basename="test-run")
router.register(f"{PIPELINE}/proofs", ProofViewSet, basename="proof")
router.register(f"{PIPELINE}/test-badges", BadgeViewSet, basename="test-badge")

urlpatterns = [path("", include(router.urls))]
