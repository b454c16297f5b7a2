"""Errors as data: every 4xx and 5xx is JSON with ``detail``; never HTML or a trace.

Shapes: ``{"detail"}``; a pipeline definition with problems adds ``"errors"`` (every
problem, located); a request body that does not fit its serializer adds ``"fields"``
(the messages per field, as DRF words them).
"""
from __future__ import annotations

import logging

import kombu.exceptions
import redis
from django.http import HttpResponseForbidden, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from studio.trusted_code import TrustedCodeRefused

logger = logging.getLogger(__name__)


class InvalidDefinition(APIException):
    """A pipeline definition with problems; the body lists all of them."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = "the pipeline definition is invalid"

    def __init__(self, errors: list[dict], detail: str | None = None):
        super().__init__(detail)
        self.errors = errors


def rule_violation(field: str, message: str) -> InvalidDefinition:
    """A request that fits its schema but breaks a rule no JSON Schema states (a cron expression's syntax, a
    webhook URL's scheme, exactly one of two fields): answered like a definition's problems, located in
    ``errors``."""
    return InvalidDefinition([{"node": None, "edge": None, "field": field, "message": message}],
                             detail=f"{field}: {message}")


class BadRequest(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = "bad request"


def values_refused(refused, detail: str | None = None) -> APIException:
    """The answer to values refused by ``studio.run_values`` (an environment, a parameter, a secret): a 400 listing
    each node and field (``detail`` first, when given), or the environment's 403, 404 or 409."""
    from rest_framework.exceptions import NotFound, PermissionDenied

    if refused.status == 400:
        return InvalidDefinition(refused.problems, f"{detail}: {refused}" if detail else str(refused))
    return {403: PermissionDenied, 404: NotFound, 409: Conflict}.get(refused.status, BadRequest)(str(refused))


class LoginFailed(APIException):
    """Wrong username or password: 401, as for any request whose credentials are refused."""

    status_code = status.HTTP_401_UNAUTHORIZED
    default_detail = "wrong username or password"
    auth_header = 'Token realm="api"'


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "the request conflicts with the resource's current state"


class ServiceBusy(APIException):
    """The workers an answer needs are all busy (or its budget ran out): 503, retry after ``wait`` seconds."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "the studio is busy; try again in a moment"
    wait = 2  # DRF's handler turns it into Retry-After, as it does a throttle's


class DependencyDown(APIException):
    """Redis (queue, commands, live events) did not answer; nothing was changed, try again."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "a service the studio depends on is down; nothing was changed, try again shortly"


DEPENDENCY_RETRY_AFTER_S = 5
# Redis down or hanging, as redis-py or Celery's publisher (kombu) reports it
DEPENDENCY_ERRORS = (redis.ConnectionError, redis.TimeoutError, kombu.exceptions.OperationalError)


DATABASE_BUSY = "the studio's database is busy (other writers hold it); try again in a moment"


def _database_locked(exc) -> bool:
    """SQLite's writer lock held past the busy timeout (many runs starting and reporting at once)."""
    from django.db import OperationalError

    return isinstance(exc, OperationalError) and "database is locked" in str(exc)


def exception_handler(exc, context):
    """DRF's handler, reshaped so that every error has ``detail``; unexpected errors are a plain 500."""
    if _database_locked(exc):  # the locked-out write did not happen (a run's start is one transaction)
        logger.warning("database locked in %s", context.get("view"))
        return Response({"detail": DATABASE_BUSY}, status=status.HTTP_503_SERVICE_UNAVAILABLE,
                        headers={"Retry-After": str(ServiceBusy.wait)})
    if isinstance(exc, DEPENDENCY_ERRORS):
        logger.warning("dependency down in %s: %s", context.get("view"), exc)
        return Response({"detail": DependencyDown.default_detail}, status=DependencyDown.status_code,
                        headers={"Retry-After": str(DEPENDENCY_RETRY_AFTER_S)})
    if isinstance(exc, InvalidDefinition):
        return Response({"detail": exc.detail, "errors": exc.errors}, status=exc.status_code)
    if isinstance(exc, TrustedCodeRefused):
        return Response({"detail": exc.detail, "errors": exc.errors}, status=status.HTTP_403_FORBIDDEN)
    response = drf_exception_handler(exc, context)
    if response is None:
        logger.exception("unhandled error in %s", context.get("view"), exc_info=exc)
        return Response({"detail": "internal error; see the studio's log"}, status=500)
    if isinstance(exc, ValidationError):
        response.data = {"detail": _summary(exc.detail), "fields": _as_object(exc.detail)}
    elif not isinstance(response.data, dict) or "detail" not in response.data:
        response.data = {"detail": _summary(response.data)}
    return response


def _as_object(detail) -> dict:
    return detail if isinstance(detail, dict) else {"non_field_errors": detail}


def _summary(detail, prefix: str = "") -> str:
    """One readable line from DRF's nested error structure."""
    if isinstance(detail, dict):
        return "; ".join(_summary(value, f"{prefix}{key}: " if key != "non_field_errors" else prefix)
                         for key, value in detail.items()) or "invalid request"
    if isinstance(detail, list):
        return "; ".join(_summary(item, prefix) for item in detail) or "invalid request"
    return f"{prefix}{detail}"


@csrf_exempt  # a JSON 404 whatever the method; never Django's HTML CSRF page
def api_not_found(request, *args, **kwargs):
    """Unknown paths under /api/ answer JSON too."""
    return JsonResponse({"detail": f"no API endpoint at {request.path}"}, status=404)


def json_server_error(request, *args, **kwargs):
    return JsonResponse({"detail": "internal error; see the studio's log"}, status=500)


def csrf_failure(request, reason=""):
    """Django's CSRF rejection (outside DRF views), as JSON under /api/."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": f"CSRF Failed: {reason}"}, status=403)
    return HttpResponseForbidden(f"CSRF verification failed: {reason}", content_type="text/plain")
