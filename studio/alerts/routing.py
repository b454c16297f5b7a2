"""``ws/notifications/``: your notifications, live."""
from django.urls import path

from studio.alerts.consumers import NotificationsConsumer

websocket_urlpatterns = [path("ws/notifications/", NotificationsConsumer.as_asgi())]
