"""URLs: the API under /api/ (the core's routes, then each feature app's), its OpenAPI schema, the admin,
and the single-page frontend."""
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from studio.api.exceptions import api_not_found
from studio.frontend import frontend_index

api = [
    path("", include("studio.api.urls")),
    path("", include("studio.alerts.urls")),
    path("", include("studio.schedules.urls")),
    path("", include("studio.taps.urls")),
    re_path(r"^.*$", api_not_found),  # unknown API paths answer JSON 404s
]

urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/", include(api)),
    path("admin/", admin.site.urls),
    re_path(r"^(?:pipelines(?:/.*)?|runs/.*|jobs|login|tokens)?/?$", frontend_index, name="frontend"),
]

handler400 = "studio.frontend.bad_request"
handler403 = "studio.frontend.forbidden"
handler404 = "studio.frontend.not_found"
handler500 = "studio.frontend.server_error"
