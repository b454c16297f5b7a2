"""Liveness for launchers and load balancers: public, cheap, no database."""
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView


class HealthView(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]

    @extend_schema(summary="The studio answers (no authentication needed)", auth=[],
                   responses={200: inline_serializer("Health", {"status": serializers.CharField()})})
    def get(self, request):
        return Response({"status": "ok"})
