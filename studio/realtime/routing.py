from django.urls import path, re_path

from studio.alerts.consumers import NotificationsConsumer
from studio.realtime.consumers import NoSuchSocket, PipelineRunsConsumer, RunEventsConsumer
from studio.taps.consumers import TapConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:run_id>/", RunEventsConsumer.as_asgi()),
    path("ws/pipelines/<int:pipeline_id>/", PipelineRunsConsumer.as_asgi()),
    path("ws/notifications/", NotificationsConsumer.as_asgi()),
    path("ws/runs/<int:run_id>/taps/<str:tap_id>/", TapConsumer.as_asgi()),
    re_path(r"", NoSuchSocket.as_asgi()),  # last: any other path is refused (4404), not an error
]
