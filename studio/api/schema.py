"""OpenAPI helpers: the error answers every endpoint documents next to its success (those its view gives,
and those every operation may get whatever its view: ``document_common_answers``), and the schema's view,
which keeps the schema once generated."""
from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

import drf_spectacular
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from drf_spectacular.views import SpectacularAPIView
from rest_framework.response import Response

from studio.api.serializers.errors import DefinitionErrorSerializer, ErrorSerializer
from studio.load_shedding import NEVER_SHED

_DESCRIPTIONS = {
    400: "Invalid request: `detail`, and `fields` (per field) or `errors` (every problem of a definition)",
    401: "Not authenticated (no session, no token, or a revoked token)",
    403: "Not permitted (missing pipeline permission, or a session request without its CSRF token)",
    404: "No such object, or not visible to you",
    409: "The resource's current state does not allow this",
    429: "Too many requests; retry after `Retry-After` seconds",
}
AUTHENTICATED = (400, 401, 403)


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """``{code: OpenApiResponse}`` for ``extend_schema(responses=...)``; 401 and 403 always included.
    503 and 413 are not the view's to list: every operation gets them (``document_common_answers``)."""
    wanted = sorted({401, 403, *codes})
    unknown = [code for code in wanted if code not in _DESCRIPTIONS]
    if unknown:
        raise ValueError(f"errors(): no error answer {unknown} to document (503 and 413 are documented on every "
                         "operation that can get them by studio.api.schema.document_common_answers)")
    return {code: OpenApiResponse(DefinitionErrorSerializer if code == 400 else ErrorSerializer,
                                  description=_DESCRIPTIONS[code]) for code in wanted}


def responses(success: dict, *codes: int) -> dict:
    return {**success, **errors(400, *codes)}


BUSY = ("The studio is busy, or a service it depends on is down; nothing was changed. The web worker has too many "
        "requests in flight (or this read waited too long for it), Redis did not answer, or the workers this "
        "operation needs are all busy. Ask again after `Retry-After` seconds.")
TOO_LARGE = ("The request body is over the studio's limit (`STUDIO_MAX_BODY_BYTES`, an upload's "
             "`STUDIO_MAX_UPLOAD_BYTES`); nothing of it was kept.")
RETRY_AFTER = {"Retry-After": {"schema": {"type": "integer", "minimum": 0}, "required": True,
                               "description": "Seconds to wait before asking again."}}
OPERATION_METHODS = ("get", "put", "post", "patch", "delete")


def document_common_answers(result: dict, generator, request, public) -> dict:
    """drf-spectacular postprocessing hook (``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``): the answers
    an operation may get whatever its view says, so that no view has to remember them.

    - 503 with ``Retry-After``, for every operation but the health check (which answers its own 503):
      ``studio.load_shedding`` sheds any request past the worker's limit, the exception handler
      answers 503 when Redis is down, a budgeted worker pool that is full is ``ServiceBusy``;
    - 413, for every operation that takes a body: ``studio.api.body_limit`` refuses it unread;
    - 404, for every operation with an object in its path (it may not be there, or not be yours)."""
    if "Error" not in result.get("components", {}).get("schemas", {}):
        raise ValueError("document_common_answers: the schema has no Error component (ErrorSerializer) to refer to")
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, item in result["paths"].items():
        for method, operation in item.items():
            if method not in OPERATION_METHODS:
                continue
            answers = operation["responses"]
            if path not in NEVER_SHED:
                answers["503"] = {"content": error, "headers": RETRY_AFTER, "description": BUSY}
            if "requestBody" in operation:
                answers.setdefault("413", {"content": error, "description": TOO_LARGE})
            if "{" in path:
                answers.setdefault("404", {"content": error, "description": _DESCRIPTIONS[404]})
            operation["responses"] = dict(sorted(answers.items()))
    return result


def bounded_int(minimum: int = 0, maximum: int = 2 ** 31) -> dict:
    """The schema of an integer query parameter that ``int_param`` reads with these bounds."""
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


RUN_ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The run's id.")
"""The run of a path under ``/api/runs/{id}/`` (a view of its own does not know the run's model)."""

VERSION_PARAMETER = OpenApiParameter("version", bounded_int(), description="A version number; the latest when omitted.")


SCHEMA_CODE = ("studio", "engine/spec")
"""Where the code the schema is generated from lives (serializers, views, the catalog's enums)."""

_schema: dict | None = None  # guarded by: _schema_lock
_schema_lock = threading.Lock()


class CachedSchemaView(SpectacularAPIView):
    """``/api/schema/``: the OpenAPI schema, generated once and kept.

    It is the same for everyone (served without authentication) and depends on the code only,
    but generating it takes seconds (Swagger UI waited 4.7 s for it on a fresh studio). Each web
    process keeps it once it has it; the first to generate it writes it under the data directory
    (named after a fingerprint of the code, so a changed studio makes a new one) for the other
    processes and the next start, and ``make up`` asks for it once when the studio has started."""

    def _get_schema_response(self, request):
        return Response(data=cached_schema(self.generator_class),
                        headers={"Content-Disposition": f'inline; filename="{self._get_filename(request, None)}"'})


def cached_schema(generator_class=SchemaGenerator) -> dict:
    """The schema: this process's copy, the data directory's for this code, or generated now (and kept)."""
    global _schema
    with _schema_lock:
        if _schema is None:
            path = schema_file()
            try:
                _schema = json.loads(path.read_bytes())
            except (OSError, ValueError):
                generated = generator_class().get_schema(request=None, public=True)
                body = OpenApiJsonRenderer().render(generated, renderer_context={})
                _schema = json.loads(body)
                path.parent.mkdir(parents=True, exist_ok=True)
                partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
                partial.write_bytes(body)
                os.replace(partial, path)
        return _schema


def schema_file() -> Path:
    """Where the schema of this code is kept: ``<data dir>/cache/openapi-<fingerprint>.json``, the
    fingerprint a hash of every source file's path, size and modification time, and of the
    schema's settings."""
    root = Path(settings.BASE_DIR)
    digest = hashlib.sha256(repr((drf_spectacular.__version__, settings.SPECTACULAR_SETTINGS)).encode())
    for folder in SCHEMA_CODE:
        for source in sorted((root / folder).rglob("*.py")):
            stat = source.stat()
            digest.update(f"{folder}/{source.relative_to(root / folder)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return Path(settings.DATA_DIR) / "cache" / f"openapi-{digest.hexdigest()[:16]}.json"
