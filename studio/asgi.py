"""ASGI entry point: HTTP through Django (shed past ``MAX_REQUESTS_IN_FLIGHT``), WebSockets through Channels
(the core's socket routes and each feature app's)."""
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")

from studio.asgi_handler import get_sync_chain_asgi_application  # noqa: E402

django_asgi_app = get_sync_chain_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402  (needs Django set up)
from django.conf import settings  # noqa: E402
from django.urls import re_path  # noqa: E402

from studio.alerts import routing as alerts_routing  # noqa: E402
from studio.load_shedding import LoadSheddingMiddleware  # noqa: E402
from studio.processes.budget import warm_pools  # noqa: E402
from studio.realtime import routing as core_routing  # noqa: E402
from studio.realtime.auth import StudioAuthMiddlewareStack  # noqa: E402
from studio.realtime.consumers import NoSuchSocket  # noqa: E402
from studio.realtime.origin import OriginCheck  # noqa: E402
from studio.taps import routing as taps_routing  # noqa: E402

# the core's sockets, then each feature app's
websocket_urlpatterns = [
    *core_routing.websocket_urlpatterns,
    *alerts_routing.websocket_urlpatterns,
    *taps_routing.websocket_urlpatterns,
    re_path(r"", NoSuchSocket.as_asgi()),  # last: any other path is refused (4404), not an error
]

warm_pools()  # validation and preview workers, before the first request needs one

application = ProtocolTypeRouter({
    "http": LoadSheddingMiddleware(django_asgi_app, settings.MAX_REQUESTS_IN_FLIGHT),
    "websocket": OriginCheck(StudioAuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
})
