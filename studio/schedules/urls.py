"""``/api/schedules/``: savepoint schedules."""
from django.urls import include, path

from studio.api.routers import StudioRouter
from studio.schedules.api import ScheduleViewSet

router = StudioRouter()
router.register("schedules", ScheduleViewSet, basename="schedule")

urlpatterns = [path("", include(router.urls))]
