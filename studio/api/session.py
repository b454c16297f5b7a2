"""``GET /api/session``: the shared session's use, as its driver last announced it (``studio.runs.session``).

Any signed-in user may read it: it names no run, pipeline or user, only how full the studio's
shared Spark application is (slots, runs, memory), which says why a run may wait for slots. A session on
a Spark master is elastic: it also says its executors (registered, asked for, its minimum and maximum); a
``local[N]`` session's cores are fixed, and those figures are null.
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
    slots_max = serializers.IntegerField(allow_null=True, help_text="The most slots it offers (an elastic "
                                         "session's maximum of executors; else its slots).")
    runs = serializers.IntegerField(allow_null=True, help_text="Runs it drives.")
    runs_waiting = serializers.IntegerField(allow_null=True, help_text="Runs waiting for slots.")
    memory_mb = serializers.IntegerField(allow_null=True, help_text="Resident memory of its driver, JVM and slots.")
    executors = serializers.IntegerField(allow_null=True, help_text="Executors registered now (one slot each); "
                                         "null: local[N], whose cores are fixed.")
    executors_target = serializers.IntegerField(allow_null=True, help_text="Executors it asked the master for.")
    executors_min = serializers.IntegerField(allow_null=True, help_text="Executors it keeps even when idle.")
    executors_max = serializers.IntegerField(allow_null=True, help_text="Executors it grows to at most.")


FIGURES = ("application_id", "slots", "slots_used", "slots_max", "runs", "runs_waiting", "memory_mb", "executors",
           "executors_target", "executors_min", "executors_max")


class SessionUseView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="How full the shared session is",
                   responses=responses({200: SessionUseSerializer}))
    def get(self, request):
        serving = session.presence() or {}
        figures = {name: serving.get(name) for name in FIGURES}
        return Response(SessionUseSerializer({"enabled": settings.SESSION_MODE, "serving": bool(serving),
                                              **figures}).data)
