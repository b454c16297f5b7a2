"""``ws/runs/<run>/taps/<tap>/``: a tap's samples, live."""
from django.urls import path

from studio.taps.consumers import TapConsumer

websocket_urlpatterns = [path("ws/runs/<int:run_id>/taps/<str:tap_id>/", TapConsumer.as_asgi())]
