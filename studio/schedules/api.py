"""``/api/schedules``: savepoint schedules of a pipeline (all its running runs) or of one run.

Reading needs *view* on the pipeline; creating, changing and deleting need *run*, as
triggering a savepoint by hand does.
"""
from __future__ import annotations

from croniter import croniter
from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticated

from studio.access import RUN, can, pipelines_visible_to, runs_visible_to
from studio.api.exceptions import rule_violation
from studio.api.permissions import PipelineAccess
from studio.api.schema import responses
from studio.api.serializers.fields import StrictCharField, StrictIntegerField, StrictModelSerializer
from studio.schedules.models import SavepointSchedule

MAX_INTERVAL_S = 366 * 24 * 3600
MAX_RETAIN = 1000
TAG = ["schedules"]


class ScheduleSerializer(StrictModelSerializer):
    pipeline = StrictIntegerField(source="pipeline_id", required=False, allow_null=True, min_value=1,
                                  help_text="Every RUNNING run of this pipeline (give this or run).")
    run = StrictIntegerField(source="run_id", required=False, allow_null=True, min_value=1,
                             help_text="This run only (give this or pipeline).")
    interval_s = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=MAX_INTERVAL_S,
                                    help_text="Seconds between savepoints (give this or cron).")
    cron = StrictCharField(required=False, allow_blank=True, max_length=100,
                           help_text="A cron expression, UTC, e.g. '*/15 * * * *' (give this or interval_s).")
    retain = StrictIntegerField(required=False, min_value=1, max_value=MAX_RETAIN,
                                help_text="How many of its completed savepoints to keep (default 3).")
    created_by = serializers.CharField(source="created_by.username", read_only=True, allow_null=True, default=None)

    class Meta:
        model = SavepointSchedule
        fields = ["id", "pipeline", "run", "interval_s", "cron", "retain", "enabled", "next_due_at",
                  "last_triggered_at", "last_error", "created_by", "created_at"]
        read_only_fields = ["id", "next_due_at", "last_triggered_at", "last_error", "created_by", "created_at"]

    def validate_cron(self, cron: str) -> str:
        cron = cron.strip()
        if cron and not croniter.is_valid(cron):
            raise rule_violation("cron", f"{cron!r} is not a cron expression (minute hour day month weekday)")
        return cron

    def validate(self, data):
        merged = {field: getattr(self.instance, field) for field in ("interval_s", "cron")} if self.instance else {}
        merged.update({field: data[field] for field in ("interval_s", "cron") if field in data})
        if bool(merged.get("interval_s")) == bool(merged.get("cron")):
            raise rule_violation("interval_s", "give exactly one of interval_s and cron")
        if self.instance is None:
            targets = [field for field in ("pipeline_id", "run_id") if data.get(field)]
            if len(targets) != 1:
                raise rule_violation("pipeline", "give exactly one of pipeline and run")
        elif any(field in data and data[field] != getattr(self.instance, field) for field in ("pipeline_id", "run_id")):
            # a PUT repeats the target it read: only a different one is a change
            raise rule_violation("pipeline", "a schedule's pipeline or run cannot change; delete it and create another")
        return data


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="Savepoint schedules of the pipelines you may view",
                       responses=responses({200: ScheduleSerializer(many=True)})),
    create=extend_schema(tags=TAG, summary="Schedule savepoints of a pipeline's runs or of one run",
                         responses=responses({201: ScheduleSerializer}, 404)),
    retrieve=extend_schema(tags=TAG, summary="A savepoint schedule", responses=responses({200: ScheduleSerializer}, 404)),
    update=extend_schema(tags=TAG, summary="Change a schedule", responses=responses({200: ScheduleSerializer}, 404)),
    partial_update=extend_schema(tags=TAG, summary="Change some of a schedule (enable, interval, retention)",
                                 responses=responses({200: ScheduleSerializer}, 404)),
    destroy=extend_schema(tags=TAG, summary="Delete a schedule (its savepoints stay)",
                          responses=responses({204: None}, 404)),
)
class ScheduleViewSet(viewsets.ModelViewSet):
    serializer_class = ScheduleSerializer
    permission_classes = [IsAuthenticated, PipelineAccess]
    action_permissions = {"create": RUN, "update": RUN, "partial_update": RUN, "destroy": RUN}
    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        visible = pipelines_visible_to(self.request.user).values("id")
        return (SavepointSchedule.objects.filter(pipeline__in=visible)
                | SavepointSchedule.objects.filter(run__pipeline__in=visible)).select_related(
            "created_by", "pipeline", "run__pipeline")

    def perform_create(self, serializer):
        data = serializer.validated_data
        if data.get("pipeline_id"):
            target = pipelines_visible_to(self.request.user).filter(pk=data["pipeline_id"]).first()
            if target is None:
                raise NotFound(f"pipeline: no pipeline {data['pipeline_id']}, or not one you may view")
            pipeline = target
        else:
            target = runs_visible_to(self.request.user).select_related("pipeline").filter(pk=data["run_id"]).first()
            if target is None:
                raise NotFound(f"run: no run {data['run_id']}, or not one you may view")
            pipeline = target.pipeline
        if not can(self.request.user, RUN, pipeline):
            raise PermissionDenied(f"you may not run pipeline {pipeline.id}")
        schedule = SavepointSchedule(**data, created_by=self.request.user)
        schedule.next_due_at = schedule.next_after(timezone.now())
        schedule.save()
        serializer.instance = schedule

    def perform_update(self, serializer):
        schedule = serializer.save()
        if {"interval_s", "cron", "enabled"} & set(serializer.validated_data):
            schedule.next_due_at = schedule.next_after(timezone.now())
            schedule.save(update_fields=["next_due_at"])
