"""Errors as data: every 4xx carries ``detail`` or the definition's ``errors``; never a trace."""
from __future__ import annotations

import logging

from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)


class InvalidDefinition(APIException):
    """A pipeline definition with problems; the body lists all of them."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = "the pipeline definition is invalid"

    def __init__(self, errors: list[dict]):
        super().__init__()
        self.errors = errors


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "the request conflicts with the resource's current state"


def exception_handler(exc, context):
    """Render InvalidDefinition as ``{"detail", "errors"}``; unexpected errors as a plain 500."""
    if isinstance(exc, InvalidDefinition):
        return Response({"detail": exc.detail, "errors": exc.errors}, status=exc.status_code)
    response = drf_exception_handler(exc, context)
    if response is None:
        logger.exception("unhandled error in %s", context.get("view"), exc_info=exc)
        return Response({"detail": "internal error; see the studio's log"}, status=500)
    return response
