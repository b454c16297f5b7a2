"""URLs: the API under /api/ (the core's routes, then each feature app's), its OpenAPI schema, the admin,
and the single-page frontend."""
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularSwaggerView

from studio.api.exceptions import api_not_found
from studio.api.schema import CachedSchemaView
from studio.frontend import frontend_index

api = [
    path("", include("studio.api.urls")),
    path("", include("studio.alerts.urls")),
    path("", include("studio.schedules.urls")),
    path("", include("studio.taps.urls")),
    path("", include("studio.statebrowser.urls")),
    path("", include("studio.testcases.urls")),
    path("", include("studio.gitstore.urls")),
    path("", include("studio.shadows.urls")),
    path("", include("studio.retention.urls")),
    path("", include("studio.connections.urls")),
    path("", include("studio.environments.urls")),
    path("", include("studio.uploads.urls")),
    re_path(r"^.*$", api_not_found),  # unknown API paths answer JSON 404s
]

urlpatterns = [
    path("api/schema/", CachedSchemaView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/", include(api)),
    path("admin/", admin.site.urls),
    path("", include("studio.observability.urls")),
    re_path(r"^(?:pipelines(?:/.*)?|runs/.*|jobs|alerts|login|tokens|connections|environments|files|teams(?:/\d+)?)?/?$", frontend_index, name="frontend"),
]

handler400 = "studio.frontend.bad_request"
handler403 = "studio.frontend.forbidden"
handler404 = "studio.frontend.not_found"
handler500 = "studio.frontend.server_error"
