"""Health for launchers, monitors and load balancers: public, and honest about the dependencies.

``{"status": "ok"}`` (200) when the database and Redis answer; ``{"status": "degraded"}``
(503) naming each dependency that does not, while the web server itself still answers.
Redis carries the Celery queue, the runs' commands and the live events: without it runs
cannot start or be controlled, and sockets hear nothing live. Each check is bounded by
``CHECK_TIMEOUT_S``, so a hung dependency makes health slow by that much, not hang.
"""
import redis
from django.conf import settings
from django.db import connection
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

CHECK_TIMEOUT_S = 1.0


def redis_problem() -> str | None:
    """None when Redis answers a PING, else what went wrong."""
    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=CHECK_TIMEOUT_S,
                                  socket_connect_timeout=CHECK_TIMEOUT_S)
    try:
        client.ping()
        return None
    except redis.RedisError as error:
        return str(error) or type(error).__name__
    finally:
        client.close()


def database_problem() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return None
    except Exception as error:
        return str(error) or type(error).__name__


class HealthView(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]

    @extend_schema(summary="The studio and its dependencies answer (no authentication needed)", auth=[],
                   responses={200: inline_serializer("Health", {
                       "status": serializers.ChoiceField(["ok", "degraded"]),
                       "dependencies": serializers.DictField(child=serializers.CharField())}),
                              503: inline_serializer("HealthDegraded", {
                                  "status": serializers.ChoiceField(["degraded"]),
                                  "dependencies": serializers.DictField(child=serializers.CharField())})})
    def get(self, request):
        problems = {"database": database_problem(), "redis": redis_problem()}
        dependencies = {name: f"down: {problem}" if problem else "ok" for name, problem in problems.items()}
        if any(problems.values()):
            return Response({"status": "degraded", "dependencies": dependencies}, status=503,
                            headers={"Retry-After": "5"})
        return Response({"status": "ok", "dependencies": dependencies})
