"""Definitions without a saved pipeline: the operator catalog, validate, diff a draft, plan, preview."""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.api import OPERATOR_CATALOG
from studio.access import pipelines_visible_to
from studio.api.exceptions import InvalidDefinition, ServiceBusy, values_refused
from studio.api.schema import responses
from studio.processes import budget
from studio.api.serializers.definitions import (
    DiffSerializer, DraftDiffSerializer, OperatorSerializer, PlanRequestSerializer, PlanSerializer,
    PreviewRequestSerializer, PreviewSerializer, ValidateSerializer, ValidationResultSerializer,
)
from studio.api.throttling import PreviewThrottle
from studio.locations import policy_for, sink_conflicts, sink_uses
from studio.run_values import CHECK, FILL, FilledValues, ValuesRefused, fill_values
from studio.trusted_code import require_code_permission
from studio.versions_diff import diff_definitions


def checked(definition, user, pipeline=None) -> dict:
    """``definition`` when it is valid and stays inside the locations granted to ``user``; otherwise a 400
    listing every problem (a budget overrun, an escaping location, another pipeline's sink target included)."""
    errors = problems_of(definition, user, pipeline)
    if errors:
        raise InvalidDefinition(errors)
    return definition


def problems_of(definition, user, pipeline=None) -> list[dict]:
    """Every problem of ``definition`` for ``user``: validation, locations, sink ownership."""
    policy = policy_for(user, pipeline)
    errors = budget.validate_definition(definition, policy)
    return errors + sink_conflicts(pipeline, sink_uses(definition, policy))


def problems_and_warnings(definition, user, pipeline=None) -> tuple[list[dict], list[dict]]:
    """``problems_of`` and, when there are none, the warnings (``studio.source_files``), checked within the
    same validation budget."""
    policy = policy_for(user, pipeline)
    errors, warnings = budget.validate_with_warnings(definition, policy)
    errors += sink_conflicts(pipeline, sink_uses(definition, policy))
    return errors, [] if errors else warnings


def workspace_pipeline(user, pipeline_id):
    """The pipeline a validate or preview request names for its workspace; 404 when the user may not view it."""
    if pipeline_id is None:
        return None
    pipeline = pipelines_visible_to(user).filter(pk=pipeline_id).first()
    if pipeline is None:
        raise NotFound(f"no pipeline {pipeline_id}")
    return pipeline


def filled_for(user, pipeline, definition: dict, environment: str | None) -> FilledValues:
    """``definition`` as a run of ``user`` in ``environment`` would execute it (``studio.run_values.fill_values``):
    its parameters and ``user``'s secrets filled in; a 400 naming each unknown one, the environment's 404."""
    try:
        return fill_values(definition, user=user, pipeline=pipeline, environment=environment or None, secrets=FILL)
    except ValuesRefused as refused:
        raise values_refused(refused)


def in_environment(user, pipeline, definition: dict, environment: str | None) -> tuple[dict, list[dict]]:
    """What validation checks of ``definition`` in ``environment``: its parameters filled in (secrets still named,
    checked to be ``user``'s), or, when some are missing there, the definition as written and a problem for each
    missing one at its node and field. Without an environment the definition as written; the environment's 404."""
    if not environment:
        return definition, []
    try:
        return fill_values(definition, user=user, pipeline=pipeline, environment=environment, secrets=CHECK).definition, []
    except ValuesRefused as refused:
        if refused.status != 400:
            raise values_refused(refused)
        return definition, refused.problems


def plan_of(definition) -> dict:
    """The planner's summary of a definition; a 400 listing every problem when it is invalid."""
    plan = budget.plan_definition(definition)
    if "errors" in plan:
        raise InvalidDefinition(plan["errors"])
    return plan


class OperatorListView(APIView):
    """The operator catalog the editor builds its palette and forms from."""

    @extend_schema(summary="The operator catalog (types, ports, parameter JSON Schemas)",
                   responses=responses({200: OperatorSerializer(many=True)}))
    def get(self, request):
        return Response(OPERATOR_CATALOG)


class ValidateView(APIView):
    @extend_schema(summary="Validate a definition: every problem at once, nothing saved",
                   description="Validation runs in a worker process within a budget (2 s by default); one that "
                               "overruns it answers valid: false with one problem located where it was stopped. "
                               "Location parameters (paths, URLs, Redis, PostgreSQL) must stay inside the "
                               "locations granted to you. `warnings` lists what is allowed but likely wrong "
                               "(checked within the same budget): "
                               "a local file source whose path matches no file yet.",
                   request=ValidateSerializer, responses=responses({200: ValidationResultSerializer}, 404))
    def post(self, request):
        body = ValidateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        pipeline = workspace_pipeline(request.user, data.get("pipeline"))
        definition, missing = in_environment(request.user, pipeline, data["definition"], data.get("environment"))
        errors, warnings = problems_and_warnings(definition, request.user, pipeline)
        errors = missing + errors
        return Response({"valid": not errors, "errors": errors, "warnings": ([] if errors else warnings)})


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
                   request=PlanRequestSerializer, responses=responses({200: PlanSerializer}))
    def post(self, request):
        body = PlanRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(plan_of(body.validated_data["definition"]))


class PreviewView(APIView):
    throttle_classes = [PreviewThrottle]

    @extend_schema(summary="Run a definition on a bounded sample; records after every node",
                   description="The run happens in a worker process within a budget (10 s by default, validation "
                               "included); one that overruns it answers status CANCELED with the overrun as its "
                               "failure.",
                   request=PreviewRequestSerializer, responses=responses({200: PreviewSerializer}, 404, 429))
    def post(self, request):
        body = PreviewRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        require_code_permission(request.user, data["definition"], "preview")
        pipeline = workspace_pipeline(request.user, data.get("pipeline"))
        policy = policy_for(request.user, pipeline)
        filled = filled_for(request.user, pipeline, data["definition"], data.get("environment"))
        try:
            preview = budget.preview_definition(filled.definition, limit=data["limit"], policy=policy,
                                                secrets=filled.secrets)
        except budget.PoolBusy as busy:
            raise ServiceBusy(str(busy))
        if "errors" in preview:
            raise InvalidDefinition(preview["errors"])
        return Response({"environment": filled.values.environment, **preview})
