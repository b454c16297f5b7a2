"""Serves the built single-page frontend for the app's routes."""
from django.conf import settings
from django.http import HttpResponse


def frontend_index(request):
    index = settings.FRONTEND_DIST / "index.html"
    if not index.exists():
        return HttpResponse(
            "The frontend is not built yet: run `make up` (or `npm ci && npm run build` in frontend/).",
            status=503, content_type="text/plain")
    return HttpResponse(index.read_bytes(), content_type="text/html")
