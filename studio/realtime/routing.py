from django.urls import path

from studio.realtime.consumers import PipelineRunsConsumer, RunEventsConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:run_id>/", RunEventsConsumer.as_asgi()),
    path("ws/pipelines/<int:pipeline_id>/", PipelineRunsConsumer.as_asgi()),
]
