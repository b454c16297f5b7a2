"""``/api/alerts/``: rules and notifications."""
from django.urls import include, path

from studio.alerts.api import AlertRuleViewSet, NotificationViewSet
from studio.api.routers import StudioRouter

router = StudioRouter()
router.register("alerts/rules", AlertRuleViewSet, basename="alert-rule")
router.register("alerts/notifications", NotificationViewSet, basename="notification")

urlpatterns = [path("", include(router.urls))]
