"""Bodies over the limit are refused with 413 before anyone reads them."""
from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse, JsonResponse


class BodyLimitMiddleware:
    """Answer 413 when ``Content-Length`` is over ``settings.DATA_UPLOAD_MAX_MEMORY_SIZE`` (or the path's own
    limit in ``settings.BODY_LIMITS_BY_PATH``: an upload's).

    Django checks that limit only when ``request.body`` is read, and DRF's parsers read the
    stream instead; a body without a length (chunked) reaches DRF as an empty one.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.BODY_LIMITS_BY_PATH.get(request.path, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if limit is not None and length > limit:
            message = f"the request body has {length:,} bytes; the limit is {limit:,}"
            if request.path.startswith("/api/"):
                return JsonResponse({"detail": message}, status=413)
            return HttpResponse(message, status=413, content_type="text/plain")
        return self.get_response(request)
