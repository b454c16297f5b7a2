"""The core's sockets: a run's events and a pipeline's runs. Features add theirs from their own
``routing`` modules; ``studio.asgi`` composes them, and refuses any other path last."""
from django.urls import path

from studio.realtime.consumers import PipelineRunsConsumer, RunEventsConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:run_id>/", RunEventsConsumer.as_asgi()),
    path("ws/pipelines/<int:pipeline_id>/", PipelineRunsConsumer.as_asgi()),
]
