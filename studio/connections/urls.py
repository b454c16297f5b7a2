"""``/api/connections/`` (profiles) and ``/api/kafka/`` (the topic browser)."""
from django.urls import include, path

from studio.api.routers import StudioRouter, route
from studio.connections.api import ConnectionProfileViewSet, KafkaSampleView, KafkaTopicsView

router = StudioRouter()
router.register("connections", ConnectionProfileViewSet, basename="connection")

urlpatterns = [
    path("", include(router.urls)),
    route("kafka/topics", KafkaTopicsView.as_view(), "kafka-topics"),
    route("kafka/sample", KafkaSampleView.as_view(), "kafka-sample"),
]
