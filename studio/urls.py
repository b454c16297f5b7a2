"""URLs: the API under /api/, its OpenAPI schema, the admin, and the single-page frontend."""
from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from studio.frontend import frontend_index

urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/", include("studio.api.urls")),
    path("admin/", admin.site.urls),
    re_path(r"^(?:pipelines(?:/.*)?|runs/.*|jobs|login|tokens)?/?$", frontend_index, name="frontend"),
]

handler400 = "studio.frontend.bad_request"
handler403 = "studio.frontend.forbidden"
handler404 = "studio.frontend.not_found"
handler500 = "studio.frontend.server_error"
