"""ASGI entry point: HTTP through Django (shed past ``MAX_REQUESTS_IN_FLIGHT``), WebSockets through Channels
(the core's socket routes and each feature app's: an installed app with a ``routing`` module brings its
``websocket_urlpatterns``, found here as Django finds ``admin`` modules, so the project names no feature)."""
import gc
import os
from importlib import import_module

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")

from studio.asgi_handler import get_sync_chain_asgi_application  # noqa: E402

django_asgi_app = get_sync_chain_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402  (needs Django set up)
from django.apps import apps  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import get_resolver, re_path  # noqa: E402
from django.utils.module_loading import module_has_submodule  # noqa: E402

from studio.load_shedding import LoadSheddingMiddleware  # noqa: E402
from studio.processes.budget import warm_pools  # noqa: E402
from studio.realtime import routing as core_routing  # noqa: E402
from studio.realtime.auth import StudioAuthMiddlewareStack  # noqa: E402
from studio.realtime.consumers import NoSuchSocket  # noqa: E402
from studio.realtime.origin import OriginCheck  # noqa: E402



def feature_socket_routes() -> list:
    """The ``websocket_urlpatterns`` of every feature app of the studio with a ``routing`` module, in app order
    (a third-party app's ``routing``, such as Channels' own, is not a socket route list)."""
    return [route for config in apps.get_app_configs()
            if config.name.startswith("studio.") and module_has_submodule(config.module, "routing")
            for route in import_module(f"{config.name}.routing").websocket_urlpatterns]


# the core's sockets, then each feature app's
websocket_urlpatterns = [
    *core_routing.websocket_urlpatterns,
    *feature_socket_routes(),
    re_path(r"", NoSuchSocket.as_asgi()),  # last: any other path is refused (4404), not an error
]

warm_pools()  # validation and preview workers, before the first request needs one

application = ProtocolTypeRouter({
    "http": LoadSheddingMiddleware(django_asgi_app, settings.MAX_REQUESTS_IN_FLIGHT),
    "websocket": OriginCheck(StudioAuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
})

# What a web process holds once started (Django, DRF, the views the URLconf imports, loaded now rather than by a
# first request: some 200,000 objects that live as long as the process) is kept out of the cyclic garbage
# collector. A full collection scanned it all, 110-170 ms of CPU once in about 200 requests per process, and on a
# machine that many runs keep busy that request took 1-1.4 s: REST's p99 (docs/performance.md, issue 40, seventh
# wave). Younger objects are collected as before.
get_resolver().url_patterns  # noqa: B018
gc.freeze()
