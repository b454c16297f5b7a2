"""Definitions without a saved pipeline: the operator catalog, validate, diff a draft, plan, preview."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.plan.plan_summary import plan_pipeline
from engine.spec import OPERATOR_CATALOG, normalise_definition, validate_definition
from studio.api.exceptions import InvalidDefinition, ServiceBusy
from studio.api.schema import responses
from studio.api.serializers import (
    DiffSerializer, DraftDiffSerializer, OperatorSerializer, PlanSerializer, PreviewRequestSerializer, PreviewSerializer,
    ValidateSerializer, ValidationResultSerializer,
)
from studio.api.throttling import PreviewThrottle
from studio.preview import PreviewBusy, preview_definition
from studio.versions_diff import diff_definitions


def checked(definition) -> dict:
    """``definition`` when it is valid; otherwise a 400 listing every problem."""
    errors = validate_definition(definition)
    if errors:
        raise InvalidDefinition(errors)
    return definition


def plan_of(definition) -> dict:
    """The planner's summary of a definition; a 400 listing every problem when it is invalid."""
    return plan_pipeline(normalise_definition(checked(definition)))


class OperatorListView(APIView):
    """The operator catalog the editor builds its palette and forms from."""

    @extend_schema(summary="The operator catalog (types, ports, parameter JSON Schemas)",
                   responses=responses({200: OperatorSerializer(many=True)}))
    def get(self, request):
        return Response(OPERATOR_CATALOG)


class ValidateView(APIView):
    @extend_schema(summary="Validate a definition: every problem at once, nothing saved",
                   request=ValidateSerializer, responses=responses({200: ValidationResultSerializer}))
    def post(self, request):
        body = ValidateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        errors = validate_definition(body.validated_data["definition"])
        return Response({"valid": not errors, "errors": errors})


class DraftDiffView(APIView):
    @extend_schema(summary="Diff two definitions (for example a saved version and an unsaved draft)",
                   request=DraftDiffSerializer, responses=responses({200: DiffSerializer}))
    def post(self, request):
        body = DraftDiffSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        return Response({"from": None, "to": None, **diff_definitions(data["from"], data["to"])})


class PlanView(APIView):
    @extend_schema(summary="The planner's job vertices, regions and schedule for a definition",
                   request=ValidateSerializer, responses=responses({200: PlanSerializer}))
    def post(self, request):
        body = ValidateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(plan_of(body.validated_data["definition"]))


class PreviewView(APIView):
    throttle_classes = [PreviewThrottle]

    @extend_schema(summary="Run a definition in-process on a bounded sample; records after every node",
                   request=PreviewRequestSerializer, responses=responses({200: PreviewSerializer}, 429, 503))
    def post(self, request):
        body = PreviewRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        definition = checked(body.validated_data["definition"])
        try:
            return Response(preview_definition(definition, limit=body.validated_data["limit"]))
        except PreviewBusy as busy:
            raise ServiceBusy(str(busy))
