"""``GET /api/session``: the shared session's use, as its driver last announced it (``studio.runs.session``).

Any signed-in user may read it: it names no run, pipeline or user, only how full the studio's
shared Spark application is (slots, runs, memory), which says why a run may wait for slots.
"""
from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from studio.api.schema import responses
from studio.runs import session


class SessionUseSerializer(serializers.Serializer):
    enabled = serializers.BooleanField(help_text="Session mode is on (STUDIO_SESSION_MODE).")
    serving = serializers.BooleanField(help_text="A session driver serves now (it announced itself lately).")
    application_id = serializers.CharField(allow_null=True, help_text="Its Spark application.")
    slots = serializers.IntegerField(allow_null=True, help_text="Slots (cores) of the application.")
    slots_used = serializers.IntegerField(allow_null=True)
    runs = serializers.IntegerField(allow_null=True, help_text="Runs it drives.")
    runs_waiting = serializers.IntegerField(allow_null=True, help_text="Runs waiting for slots.")
    memory_mb = serializers.IntegerField(allow_null=True, help_text="Resident memory of its driver, JVM and slots.")


class SessionUseView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="How full the shared session is",
                   responses=responses({200: SessionUseSerializer}))
    def get(self, request):
        serving = session.presence() or {}
        figures = {name: serving.get(name) for name in ("application_id", "slots", "slots_used", "runs",
                                                        "runs_waiting", "memory_mb")}
        return Response(SessionUseSerializer({"enabled": settings.SESSION_MODE, "serving": bool(serving),
                                              **figures}).data)
