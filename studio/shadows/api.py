"""``/api/runs/<id>/shadows``: shadow runs of a candidate version beside a run, their diffs, promote and discard.

``POST`` (permission *run*) starts one: ``candidate_version`` (a version number of the run's
pipeline), ``snapshot`` (``take``: production takes a savepoint now, the default; ``latest``: its
newest completed checkpoint) and caps (``max_seconds``, ``max_output_bytes``, ``max_slots``, each
at most the studio's). It answers 201 at once; the shadow goes PENDING, SNAPSHOTTING, RUNNING,
then COMPLETED with ``diff`` (per sink: counts of rows only in production, only in the shadow,
changed by key, the same; and samples of each) or FAILED with ``failure``. ``outputs/<node>``
pages what either side's redirected sink committed. ``promote`` records the run that deployed
the candidate with production's state (started as the Deploy dialog does: stop with a savepoint,
start the candidate from it); ``discard`` ends a shadow and deletes its outputs.
"""
from __future__ import annotations

import os
import secrets
import shutil

from django.conf import settings
from django.db import transaction
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from engine.api import committed_records
from studio.access import RUN, visible_run
from studio.api.exceptions import BadRequest, Conflict, InvalidDefinition, rule_violation, values_refused
from studio.api.nested import RunNestedMixin
from studio.api.parameters import int_param
from studio.api.schema import RUN_ID, bounded_int, responses
from studio.api.serializers.fields import StrictIntegerField
from studio.locations import policy_for, workspace_of
from studio.models import Checkpoint, PipelineVersion, Run, RunStatus
from studio.processes.budget import validate_definition
from studio.run_values import CHECK, ValuesRefused, fill_values
from studio.shadows.models import ENDED, ShadowRun, ShadowStatus
from studio.trusted_code import require_code_permission

TAG = ["shadows"]
SHADOW_ID = OpenApiParameter("shadow_id", int, OpenApiParameter.PATH, description="The shadow run's id.")
SIDES = ("production", "candidate")
MAX_PAGE = 1000


class NewShadowSerializer(serializers.Serializer):
    candidate_version = StrictIntegerField(min_value=1, max_value=2 ** 31 - 1, help_text="A version number of the run's pipeline.")
    snapshot = serializers.ChoiceField(["take", "latest"], default="take",
                                       help_text="take: production takes a savepoint now; latest: its newest "
                                                 "completed checkpoint.")
    max_seconds = StrictIntegerField(required=False, min_value=1, max_value=settings.SHADOW_MAX_SECONDS,
                                     help_text="How long the shadow job may run (default 60 s).")
    max_output_bytes = StrictIntegerField(required=False, min_value=1024,
                                          max_value=settings.SHADOW_MAX_OUTPUT_BYTES, help_text="Bytes both sides' outputs may reach (default 64 MiB).")
    max_slots = StrictIntegerField(required=False, min_value=1, max_value=settings.SHADOW_MAX_SLOTS,
                                   help_text="Slots the shadow job may take at once.")


class SinkCountsSerializer(serializers.Serializer):
    production = serializers.IntegerField(help_text="Rows (keys, when keyed) production's side wrote.")
    candidate = serializers.IntegerField()
    only_production = serializers.IntegerField()
    only_candidate = serializers.IntegerField()
    changed = serializers.IntegerField(help_text="Keys both wrote with different rows (keyed sinks).")
    same = serializers.IntegerField()


class SinkSamplesSerializer(serializers.Serializer):
    only_production = serializers.ListField(child=serializers.JSONField())
    only_candidate = serializers.ListField(child=serializers.JSONField())
    changed = serializers.ListField(child=serializers.JSONField(), help_text="{key, production, candidate}")


class SinkDiffSerializer(serializers.Serializer):
    node = serializers.CharField()
    type = serializers.CharField(help_text="The sink's type in the definition (it wrote JSON lines in the sandbox).")
    keyed = serializers.BooleanField()
    key = serializers.CharField(allow_null=True, help_text="What rows are compared by, when keyed.")
    in_production = serializers.BooleanField()
    in_candidate = serializers.BooleanField()
    counts = SinkCountsSerializer()
    samples = SinkSamplesSerializer()


class ShadowSerializer(serializers.ModelSerializer):
    production = serializers.IntegerField(source="production_id", read_only=True, help_text="The production run.")
    candidate_version = serializers.IntegerField(source="candidate.number", read_only=True)
    production_version = serializers.IntegerField(source="production.version.number", read_only=True)
    checkpoint_id = serializers.SerializerMethodField(help_text="The checkpoint or savepoint both sides start from.")
    sinks = serializers.SerializerMethodField(help_text="Per sink: where each side's output is (JSON lines).")
    shared = serializers.ListField(child=serializers.CharField(), read_only=True,
                                   help_text="Nodes alike in both versions: they run once and feed both sides.")
    diff = SinkDiffSerializer(many=True, allow_null=True, read_only=True)
    promoted_run = serializers.IntegerField(source="promoted_run_id", read_only=True, allow_null=True)

    class Meta:
        model = ShadowRun
        fields = ["id", "production", "production_version", "candidate_version", "status", "snapshot",
                  "checkpoint_id", "max_seconds", "max_output_bytes", "max_slots", "shared", "sinks", "diff",
                  "ended_by", "failure", "promoted_run", "created_at", "started_at", "ended_at"]
        read_only_fields = fields

    def get_checkpoint_id(self, shadow) -> int | None:
        return shadow.checkpoint.checkpoint_id if shadow.checkpoint_id else None

    def get_sinks(self, shadow) -> list[dict]:
        return [{"node": sink["node"], **{side: (sink[side] or {}).get("path") for side in SIDES}}
                for sink in shadow.sinks]


class ShadowPromoteSerializer(serializers.Serializer):
    run = StrictIntegerField(min_value=1, max_value=2 ** 62, help_text="The run of the candidate version restored from a savepoint of "
                                       "production (as the Deploy dialog starts it).")


class OutputPageSerializer(serializers.Serializer):
    node = serializers.CharField()
    side = serializers.ChoiceField(SIDES)
    total = serializers.IntegerField()
    offset = serializers.IntegerField()
    records = serializers.ListField(child=serializers.JSONField())


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="The run's shadow runs, newest first", parameters=[RUN_ID],
                       responses=responses({200: ShadowSerializer(many=True)}, 404)),
    create=extend_schema(tags=TAG, summary="Start a shadow run of a candidate version beside this run",
                         parameters=[RUN_ID], request=NewShadowSerializer,
                         responses=responses({201: ShadowSerializer}, 404, 409)),
    retrieve=extend_schema(tags=TAG, summary="A shadow run, with its diff per sink once it COMPLETED",
                           parameters=[RUN_ID, SHADOW_ID], responses=responses({200: ShadowSerializer}, 404)),
)
class ShadowViewSet(RunNestedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = ShadowSerializer
    action_permissions = {"create": RUN, "promote": RUN, "discard": RUN}
    lookup_field = "pk"
    lookup_url_kwarg = "shadow_id"

    def get_queryset(self):
        return (ShadowRun.objects.filter(production=self.run)
                .select_related("production__version", "candidate", "checkpoint"))

    def create(self, request, *args, **kwargs):
        body = NewShadowSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        run = self.run
        candidate = PipelineVersion.objects.filter(pipeline=run.pipeline, number=data["candidate_version"]).first()
        if candidate is None:
            raise rule_violation("candidate_version", f"pipeline {run.pipeline_id} has no version "
                                                      f"{data['candidate_version']}")
        require_code_permission(request.user, candidate.definition, "run")
        if data["snapshot"] == "take" and run.status != RunStatus.RUNNING:
            raise Conflict(f"run {run.pk} is {run.status}; a shadow that takes a savepoint needs a RUNNING run "
                           "(snapshot: latest starts from its newest checkpoint)")
        if data["snapshot"] == "latest":
            slots = [node["id"] for node in run.version.definition.get("nodes", [])
                     if node.get("type") == "source.postgres_cdc"]
            if slots:
                raise rule_violation("snapshot", f"node {slots[0]!r} reads a replication slot: its copy must be made "
                                                 "before the snapshot, so the shadow must take one (snapshot: take)")
            if not Checkpoint.objects.filter(run=run, status="COMPLETED", discarded=False).exclude(
                    external_path="").exists():
                raise Conflict(f"run {run.pk} has no completed checkpoint to start a shadow from")
        try:  # production's parameters and the user's secrets, as the shadow's driver fills them in
            definition = fill_values(candidate.definition, user=request.user, run=run, secrets=CHECK).definition
        except ValuesRefused as refused:
            raise values_refused(refused, f"candidate v{candidate.number} cannot run")
        errors = validate_definition(definition, policy_for(request.user, run.pipeline))
        if errors:
            raise InvalidDefinition(errors, detail=f"candidate v{candidate.number} has {len(errors)} problem(s)")
        if ShadowRun.objects.filter(production=run).exclude(status__in=ENDED).exists():
            raise Conflict(f"run {run.pk} already has a shadow running: wait for it or discard it")
        from studio.shadows.tasks import run_shadow

        with transaction.atomic():
            shadow = ShadowRun.objects.create(
                production=run, candidate=candidate, created_by=request.user, snapshot=data["snapshot"],
                max_seconds=data.get("max_seconds", 60), max_output_bytes=data.get("max_output_bytes", 64 * 2 ** 20),
                max_slots=data.get("max_slots", settings.SHADOW_MAX_SLOTS))
            # a name of its own, even where an earlier database's shadow of the same id wrote
            shadow.output_dir = str(workspace_of(run.pipeline) / "shadows" / f"shadow-{shadow.pk}-{secrets.token_hex(4)}")
            shadow.save(update_fields=["output_dir"])
            run_shadow.delay(shadow.pk)
        return Response(ShadowSerializer(shadow).data, status=status.HTTP_201_CREATED)

    @extend_schema(tags=TAG, summary="Record the run that deployed the candidate with production's state",
                   parameters=[RUN_ID, SHADOW_ID], request=ShadowPromoteSerializer,
                   responses=responses({200: ShadowSerializer}, 404, 409))
    @action(detail=True, methods=["post"])
    def promote(self, request, *args, **kwargs):
        shadow = self.get_object()
        body = ShadowPromoteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if shadow.status != ShadowStatus.COMPLETED:
            raise Conflict(f"shadow {shadow.pk} is {shadow.status}; only a COMPLETED shadow is promoted")
        deployed = visible_run(request.user, body.validated_data["run"], "version", "restored_from")
        if (deployed is None or deployed.pipeline_id != shadow.production.pipeline_id
                or deployed.version_id != shadow.candidate_id or deployed.restored_from is None
                or deployed.restored_from.run_id != shadow.production_id):
            raise rule_violation("run", f"run {body.validated_data['run']} is not the candidate v"
                                        f"{shadow.candidate.number} restored from a savepoint of run "
                                        f"{shadow.production_id}")
        ShadowRun.objects.filter(pk=shadow.pk).update(status=ShadowStatus.PROMOTED, promoted_run=deployed)
        return Response(ShadowSerializer(self.get_object()).data)

    @extend_schema(tags=TAG, summary="End the shadow (if it runs) and delete its outputs",
                   parameters=[RUN_ID, SHADOW_ID], request=None, responses=responses({200: ShadowSerializer}, 404, 409))
    @action(detail=True, methods=["post"])
    def discard(self, request, *args, **kwargs):
        shadow = self.get_object()
        if shadow.status == ShadowStatus.DISCARDED:
            raise Conflict(f"shadow {shadow.pk} was discarded already")
        from django.utils import timezone

        ShadowRun.objects.filter(pk=shadow.pk).update(status=ShadowStatus.DISCARDED,
                                                      ended_at=shadow.ended_at or timezone.now())
        # the studio's own path (never the request's), below the pipeline's workspace; the running driver, if any,
        # is killed by its task, which then releases the forks
        root = os.path.realpath(workspace_of(shadow.production.pipeline) / "shadows")
        if shadow.output_dir and os.path.realpath(shadow.output_dir).startswith(root + os.sep):
            shutil.rmtree(shadow.output_dir, ignore_errors=True)
        return Response(ShadowSerializer(self.get_object()).data)

    @extend_schema(tags=TAG, summary="A page of what one side's redirected sink committed",
                   parameters=[RUN_ID, SHADOW_ID,
                               OpenApiParameter("node", {"type": "string", "pattern": r"^[A-Za-z0-9_.:-]{1,100}$"},
                                                OpenApiParameter.PATH, description="The sink's node id."),
                               OpenApiParameter("side", str, enum=list(SIDES), required=True),
                               OpenApiParameter("offset", bounded_int()),
                               OpenApiParameter("limit", bounded_int(0, MAX_PAGE))],
                   responses=responses({200: OutputPageSerializer}, 404, 409))
    def outputs(self, request, *args, node=None, **kwargs):
        shadow = self.get_object()
        side = request.query_params.get("side")
        if side not in SIDES:
            raise BadRequest(f"side must be production or candidate, not {side!r}")
        if shadow.status == ShadowStatus.DISCARDED:
            raise Conflict(f"shadow {shadow.pk} was discarded: its outputs are deleted")
        sink = next((sink for sink in shadow.sinks if sink["node"] == node), None)
        if sink is None or not sink.get(side):
            raise Http404(f"the {side} side of shadow {shadow.pk} has no sink {node!r}")
        path = os.path.realpath(sink[side]["path"])
        if not path.startswith(os.path.realpath(shadow.output_dir) + os.sep):
            raise Http404(f"the {side} side of shadow {shadow.pk} has no sink {node!r}")
        offset = int_param(request, "offset", 0)
        limit = int_param(request, "limit", 100, 0, MAX_PAGE)
        records = committed_records(path, max_bytes=shadow.max_output_bytes * 2)
        return Response({"node": node, "side": side, "total": len(records), "offset": offset,
                         "records": records[offset:offset + limit]})
