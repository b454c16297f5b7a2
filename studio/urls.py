"""URLs: the API under /api/, its OpenAPI schema, and the single-page frontend."""
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from studio.frontend import frontend_index

urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/", include("studio.api.urls")),
    re_path(r"^(?:pipelines(?:/.*)?|runs/.*)?$", frontend_index, name="frontend"),
]
