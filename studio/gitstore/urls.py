"""``/api/git-bindings/``: pipelines kept in Git."""
from django.urls import include, path

from studio.api.routers import StudioRouter
from studio.gitstore.api import GitBindingViewSet

router = StudioRouter()
router.register("git-bindings", GitBindingViewSet, basename="git-binding")

urlpatterns = [path("", include(router.urls))]
