"""Serves the built single-page frontend for the app's routes; JSON errors under /api/."""
from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import ensure_csrf_cookie


@ensure_csrf_cookie  # the frontend echoes the csrftoken cookie in X-CSRFToken on unsafe requests
def frontend_index(request):
    index = settings.FRONTEND_DIST / "index.html"
    if not index.exists():
        return HttpResponse(
            "The frontend is not built yet: run `make up` (or `npm ci && npm run build` in frontend/).",
            status=503, content_type="text/plain")
    return HttpResponse(index.read_bytes(), content_type="text/html")


def bad_request(request, exception=None):
    """Django's own 400s (a Host not allowed, a malformed request), before any view ran."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "bad request"}, status=400)
    return HttpResponse("Bad request", status=400, content_type="text/plain")


def forbidden(request, exception=None):
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "forbidden"}, status=403)
    return HttpResponse("Forbidden", status=403, content_type="text/plain")


def not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": f"no API endpoint at {request.path}"}, status=404)
    return HttpResponse("Not found", status=404, content_type="text/plain")


def server_error(request):
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "internal error; see the studio's log"}, status=500)
    return HttpResponse("Internal error; see the studio's log", status=500, content_type="text/plain")
