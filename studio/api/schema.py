"""OpenAPI helpers: the error answers every endpoint documents next to its success."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse

from studio.api.serializers.errors import DefinitionErrorSerializer, ErrorSerializer

_DESCRIPTIONS = {
    400: "Invalid request: `detail`, and `fields` (per field) or `errors` (every problem of a definition)",
    401: "Not authenticated (no session, no token, or a revoked token)",
    403: "Not permitted (missing pipeline permission, or a session request without its CSRF token)",
    404: "No such object, or not visible to you",
    409: "The resource's current state does not allow this",
    429: "Too many requests; retry later",
    503: "The studio is busy; retry later",
}
AUTHENTICATED = (400, 401, 403)


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """``{code: OpenApiResponse}`` for ``extend_schema(responses=...)``; 401 and 403 always included."""
    wanted = sorted({401, 403, *codes})
    return {code: OpenApiResponse(DefinitionErrorSerializer if code == 400 else ErrorSerializer,
                                  description=_DESCRIPTIONS[code]) for code in wanted}


def responses(success: dict, *codes: int) -> dict:
    return {**success, **errors(400, *codes)}


def bounded_int(minimum: int = 0, maximum: int = 2 ** 31) -> dict:
    """The schema of an integer query parameter that ``int_param`` reads with these bounds."""
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


VERSION_PARAMETER = OpenApiParameter("version", bounded_int(), description="A version number; the latest when omitted.")
