"""``/api/alerts``: rules of a pipeline (CRUD, a test firing, their webhook deliveries) and your notifications.

Rules follow their pipeline's permissions: *view* to read them and their deliveries,
*run* to create, change, delete or test them (they act on the runs). Notifications are
each user's own: ``/api/alerts/notifications`` lists yours, newest first; marking them
read updates the unread badge of every socket you have open (``ws/notifications/``).
"""
from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from studio.access import RUN, can, pipelines_visible_to
from studio.alerts.firing import RuleSuspended, fire, unread_count, user_notifications_group
from studio.alerts.models import AlertKind, AlertRule, Notification, WebhookDelivery
from studio.alerts.webhooks import WebhookUrlError, check_webhook_url
from studio.api.exceptions import BadRequest, rule_violation
from studio.api.parameters import int_param
from studio.api.permissions import PipelineAccess
from studio.api.schema import bounded_int, responses
from studio.api.serializers.fields import StrictCharField, StrictFloatField, StrictIntegerField, StrictModelSerializer
from studio.fanout import broadcast

TAG = ["alerts"]
NEEDS_THRESHOLD = {AlertKind.CHECKPOINT_FAILURES: (1, 10_000), AlertKind.CHECKPOINT_DURATION: (0, 86_400_000),
                   AlertKind.BACKPRESSURE: (0, 1), AlertKind.VIOLATION_RATE: (0, 1)}


def _flag(request, name: str) -> bool:
    """A boolean query parameter: ``true`` or ``false``, once; anything else is a 400 naming it."""
    values = request.query_params.getlist(name)
    if not values:
        return False
    if len(values) > 1 or values[0] not in ("true", "false"):
        raise BadRequest(f"{name} must be true or false, once")
    return values[0] == "true"


class AlertRuleSerializer(StrictModelSerializer):
    pipeline = StrictIntegerField(source="pipeline_id", min_value=1, help_text="The pipeline whose runs it watches.")
    kind = serializers.ChoiceField(choices=AlertKind.choices, help_text="; ".join(
        f"{value}: {label}" for value, label in AlertKind.choices))
    threshold = StrictFloatField(required=False, allow_null=True, min_value=0, max_value=86_400_000,
                                 help_text="How many failures; ms; or a ratio 0..1 (backpressure, violation rate).")
    duration_s = StrictIntegerField(required=False, allow_null=True, min_value=0, max_value=86_400,
                                    help_text="Backpressure: for how long (default 0: one sample).")
    webhook_url = StrictCharField(required=False, allow_blank=True, max_length=2000,
                                  help_text="An http(s) URL to POST each firing to as JSON (optional).")
    created_by = serializers.CharField(source="created_by.username", read_only=True, allow_null=True, default=None)

    class Meta:
        model = AlertRule
        fields = ["id", "pipeline", "name", "kind", "threshold", "duration_s", "vertex", "webhook_url", "enabled",
                  "created_by", "created_at"]
        read_only_fields = ["id", "created_by", "created_at"]

    def validate_webhook_url(self, url: str) -> str:
        if not url:
            return ""
        owner = self.instance.created_by if self.instance is not None else None
        try:
            return check_webhook_url(url, self.context["request"].user, owner)
        except WebhookUrlError as error:
            raise rule_violation("webhook_url", str(error))

    def validate(self, data):
        kind = data.get("kind", self.instance.kind if self.instance else None)
        threshold = data["threshold"] if "threshold" in data else (self.instance.threshold if self.instance else None)
        if kind in NEEDS_THRESHOLD:
            low, high = NEEDS_THRESHOLD[kind]
            if threshold is None:
                raise rule_violation("threshold", f"a {kind} rule needs a threshold")
            if not low <= threshold <= high:
                raise rule_violation("threshold", f"a {kind} threshold is between {low} and {high}")
        if self.instance is not None and "pipeline_id" in data and data["pipeline_id"] != self.instance.pipeline_id:
            raise rule_violation("pipeline", "a rule's pipeline cannot change")
        return data


class AttemptSerializer(serializers.Serializer):
    at = serializers.IntegerField(help_text="Epoch ms.")
    status_code = serializers.IntegerField(required=False)
    error = serializers.CharField(required=False)


class DeliverySerializer(StrictModelSerializer):
    attempts = AttemptSerializer(many=True, read_only=True)

    class Meta:
        model = WebhookDelivery
        fields = ["id", "rule", "url", "payload", "status", "attempts", "created_at", "delivered_at"]


class NotificationSerializer(StrictModelSerializer):
    class Meta:
        model = Notification
        fields = ["id", "rule", "run", "pipeline", "kind", "message", "data", "created_at", "read_at"]


class UnreadSerializer(serializers.Serializer):
    unread = serializers.IntegerField()


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="Alert rules of the pipelines you may view",
                       parameters=[OpenApiParameter("pipeline", bounded_int(),
                                                    description="Only this pipeline's rules.")],
                       responses=responses({200: AlertRuleSerializer(many=True)})),
    create=extend_schema(tags=TAG, summary="Create an alert rule",
                         responses=responses({201: AlertRuleSerializer}, 404)),
    retrieve=extend_schema(tags=TAG, summary="An alert rule", responses=responses({200: AlertRuleSerializer}, 404)),
    update=extend_schema(tags=TAG, summary="Change an alert rule", responses=responses({200: AlertRuleSerializer}, 404)),
    partial_update=extend_schema(tags=TAG, summary="Change some of an alert rule",
                                 responses=responses({200: AlertRuleSerializer}, 404)),
    destroy=extend_schema(tags=TAG, summary="Delete an alert rule", responses=responses({204: None}, 404)),
)
class AlertRuleViewSet(viewsets.ModelViewSet):
    serializer_class = AlertRuleSerializer
    permission_classes = [IsAuthenticated, PipelineAccess]
    action_permissions = {"create": RUN, "update": RUN, "partial_update": RUN, "destroy": RUN, "test": RUN}
    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        rules = AlertRule.objects.filter(pipeline__in=pipelines_visible_to(self.request.user).values("id"))
        if self.action == "list" and self.request.query_params.get("pipeline") == "":
            raise BadRequest("pipeline must be an integer, not empty")
        pipeline = int_param(self.request, "pipeline") if self.action == "list" else None
        if pipeline is not None:
            rules = rules.filter(pipeline_id=pipeline)
        return rules.select_related("pipeline", "created_by")

    def perform_create(self, serializer):
        pipeline = pipelines_visible_to(self.request.user).filter(pk=serializer.validated_data["pipeline_id"]).first()
        if pipeline is None:
            raise NotFound(f"pipeline: no pipeline {serializer.validated_data['pipeline_id']}, "
                           "or not one you may view")
        if not can(self.request.user, RUN, pipeline):
            raise PermissionDenied(f"you may not run pipeline {pipeline.id}")
        serializer.save(created_by=self.request.user)

    @extend_schema(tags=TAG, summary="Fire the rule once as a test: a notification, and its webhook if it has one",
                   request=None, responses=responses({202: NotificationSerializer(many=True)}, 404))
    @action(detail=True, methods=["post"])
    def test(self, request, pk=None):
        rule = self.get_object()
        try:
            notifications = fire(rule, None, f"test of alert rule {rule.name!r}", {"test": True})
        except RuleSuspended as suspended:
            raise PermissionDenied(str(suspended))
        return Response(NotificationSerializer(notifications, many=True).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(tags=TAG, summary="The rule's webhook deliveries, newest first, with every attempt",
                   responses=responses({200: DeliverySerializer(many=True)}, 404))
    @action(detail=True, methods=["get"])
    def deliveries(self, request, pk=None):
        rule = self.get_object()
        return Response(DeliverySerializer(rule.deliveries.all()[:200], many=True).data)


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="Your notifications, newest first (200 at most)",
                       parameters=[OpenApiParameter("unread", bool, description="Only unread ones.")],
                       responses=responses({200: NotificationSerializer(many=True)})),
)
class NotificationViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    serializer_class = NotificationSerializer
    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        notifications = Notification.objects.filter(user=self.request.user)
        if self.action == "list" and _flag(self.request, "unread"):
            notifications = notifications.filter(read_at=None)
        return notifications

    def list(self, request, *args, **kwargs):
        return Response(self.get_serializer(self.get_queryset()[:200], many=True).data)

    @extend_schema(tags=TAG, summary="How many of your notifications are unread (the badge)",
                   responses=responses({200: UnreadSerializer}))
    @action(detail=False, methods=["get"], url_path="unread-count")
    def unread_count(self, request):
        return Response({"unread": unread_count(request.user.pk)})

    @extend_schema(tags=TAG, summary="Mark one notification read", request=None,
                   responses=responses({200: UnreadSerializer}, 404))
    @action(detail=True, methods=["post"])
    def read(self, request, pk=None):
        self.get_object()
        Notification.objects.filter(pk=pk, read_at=None).update(read_at=timezone.now())
        return Response(self._badge_changed())

    @extend_schema(tags=TAG, summary="Mark all your notifications read", request=None,
                   responses=responses({200: UnreadSerializer}))
    @action(detail=False, methods=["post"], url_path="read-all")
    def read_all(self, request):
        Notification.objects.filter(user=request.user, read_at=None).update(read_at=timezone.now())
        return Response(self._badge_changed())

    def _badge_changed(self) -> dict:
        unread = unread_count(self.request.user.pk)
        broadcast(user_notifications_group(self.request.user.pk), {"type": "notification.unread", "unread": unread})
        return {"unread": unread}
