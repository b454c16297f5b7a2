"""``/api/environments``, ``/api/promotions``, ``/api/secrets`` and ``/api/runs/{id}/environment``.

A personal environment is its owner's: they change it, start runs in it and ask for promotions into it. A
team's environment (``team``, chosen when it is made by one of the team's admins) is seen by the team's
members, used with the team's pipelines by its editors and up, and changed by its admins. A promotion into
one that requires approval is seen and decided by the users who hold its approval role on the promoted
pipeline (``studio.environments.access``), who see the environment too. A secret is its owner's, or its
team's (used in the team's pipelines by its editors and up, replaced and deleted by its admins), and
write-only: no answer carries its value (``reference`` says what there is to know). Anything not yours
(nor your team's, nor one you approve for) is a 404.
"""
from __future__ import annotations

from django.db import IntegrityError, transaction
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from engine.api import VALUE_NAME
from studio.access import (MANAGE, USE, VIEW, may_on_team_thing, pipelines_runnable_by, pipelines_visible_to,
                           teams_with)
from studio.api.exceptions import Conflict, InvalidDefinition, rule_violation
from studio.api.nested import RunNestedMixin
from studio.api.parameters import bool_param
from studio.api.schema import RUN_ID, responses
from studio.api.serializers.fields import (MAX_INT32, RelatedNameField, StrictBooleanField, StrictCharField,
                                          StrictIntegerField, StrictModelSerializer)
from studio.environments.access import (environments_usable_by, environments_visible_to, may_approve,
                                        may_change_environment, may_manage_secret, promotions_visible_to,
                                        secrets_visible_to)
from studio.environments.models import (NAME, Environment, EnvironmentRun, PromotedVersion, Promotion,
                                        PromotionStatus, Secret)
from studio.environments.promotion import check_promotable, decide, promotion_diff, request_promotion, withdraw
from studio.environments.values import seal_secret
from studio.models import TeamRole
from studio.run_values import ValuesRefused

TAG = ["environments"]
MAX_PARAMETERS = 200
MAX_VALUE_LENGTH = 10_000


def _refused(refused: ValuesRefused) -> Exception:
    if refused.status == 400:
        return InvalidDefinition(refused.problems, str(refused))
    return {403: PermissionDenied, 404: NotFound, 409: Conflict}[refused.status](str(refused))


# --- environments -----------------------------------------------------------------------------


@extend_schema_field({"oneOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]})
class ParameterValueField(serializers.JSONField):
    """A parameter's value: a string, a number or a boolean."""

    def to_internal_value(self, data):
        if not isinstance(data, (str, int, float, bool)):
            raise serializers.ValidationError("a parameter's value is a string, a number or a boolean")
        return data


class EnvironmentSerializer(StrictModelSerializer):
    name = StrictCharField(max_length=100, validators=[NAME], help_text="Unique among your environments (dev, prod).")
    position = StrictIntegerField(min_value=0, max_value=MAX_INT32, required=False, help_text=(
        "Orders your environments: a version is promoted from one into the next."))
    parameters = serializers.DictField(child=ParameterValueField(), required=False, help_text=(
        "The values a definition's ${param:name} take here: strings, numbers or booleans; a string may name "
        "your secrets as ${secret:name}."))
    requires_approval = StrictBooleanField(required=False, help_text=(
        "A promotion into it waits for an approver, and only a promoted version runs in it."))
    approval_role = serializers.ChoiceField(TeamRole.choices, required=False, help_text=(
        "Who approves a promotion into it: a user holding this team role, or a stronger one, on the promoted "
        "pipeline (its team's, or a team it is shared with), never the user who asked. Default operator."))
    owner = serializers.CharField(source="owner.username", read_only=True, help_text=(
        "Who made it (a team's environment is the team's, not theirs)."))
    team = StrictIntegerField(source="team_id", required=False, allow_null=True, min_value=1,
                              max_value=2**63 - 1, help_text=(
        "The team that owns it (chosen when it is made, as one of the team's admins); absent or null: you do. "
        "A team's environment is used with the team's pipelines by its editors and up."))
    team_name = RelatedNameField(source="team.name")
    mine = serializers.SerializerMethodField(help_text="Whether it is your own (no team's): you change and use it.")
    can_change = serializers.SerializerMethodField(help_text=(
        "Whether you may change or delete it: its owner while no team owns it, else an admin of the team."))

    class Meta:
        model = Environment
        fields = ["id", "name", "position", "description", "parameters", "requires_approval", "approval_role", "owner",
                  "team", "team_name", "mine", "can_change", "created_at", "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]

    def get_mine(self, environment) -> bool:
        return environment.team_id is None and environment.owner_id == self.context["request"].user.pk

    def get_can_change(self, environment) -> bool:
        return may_change_environment(self.context["request"].user, environment)

    def validate_team(self, team_id: int | None) -> int | None:
        return _team_chosen_once(self.context["request"].user, self.instance, team_id, "an environment")

    def validate_parameters(self, parameters: dict) -> dict:
        if len(parameters) > MAX_PARAMETERS:
            raise rule_violation("parameters", f"at most {MAX_PARAMETERS} parameters")
        for name, value in parameters.items():
            if not VALUE_NAME.match(name):
                raise rule_violation(f"parameters.{name}", "a parameter's name is letters, digits, '_', '.' and "
                                                           "'-', starting with a letter or '_'")
            if not isinstance(value, (str, int, float, bool)) or value is None:
                raise rule_violation(f"parameters.{name}", "a parameter's value is a string, a number or a boolean")
            if isinstance(value, str) and len(value) > MAX_VALUE_LENGTH:
                raise rule_violation(f"parameters.{name}", f"at most {MAX_VALUE_LENGTH} characters")
            if isinstance(value, str) and "${param:" in value:
                raise rule_violation(f"parameters.{name}", "a parameter's value may name secrets, not parameters")
        return parameters

    def validate(self, data):
        user = self.context["request"].user
        instance = self.instance
        name = data.get("name")
        if name is not None:
            team_id = instance.team_id if instance is not None else data.get("team_id")
            others = (Environment.objects.filter(team_id=team_id) if team_id is not None
                      else Environment.objects.filter(owner=instance.owner_id if instance else user, team__isnull=True))
            if instance is not None:
                others = others.exclude(pk=instance.pk)
            if others.filter(name=name).exists():
                whose = "the team has" if team_id is not None else "you have"
                raise rule_violation("name", f"{whose} an environment named {name!r} already")
        return data


def _team_chosen_once(user, instance, team_id: int | None, what: str) -> int | None:
    """A team given when ``what`` is made must be one of ``user``'s, where they are an admin; it never changes."""
    if instance is not None:
        if team_id != instance.team_id:
            raise rule_violation("team", f"the team of {what} is chosen when it is made")
        return team_id
    if team_id is not None:
        if not may_on_team_thing(user, team_id, VIEW):
            raise rule_violation("team", f"no team {team_id} of yours")
        if not may_on_team_thing(user, team_id, MANAGE):
            raise PermissionDenied(f"only an admin of team {team_id} may give it {what}")
    return team_id


class PromotedVersionSerializer(serializers.ModelSerializer):
    pipeline_name = serializers.CharField(source="pipeline.name")
    version = serializers.IntegerField(source="version.number")
    promotion = serializers.IntegerField(source="promotion_id", allow_null=True)

    class Meta:
        model = PromotedVersion
        fields = ["pipeline", "pipeline_name", "version", "promotion", "updated_at"]


class EnvironmentRunSerializer(serializers.ModelSerializer):
    run = serializers.IntegerField(source="run_id")
    environment = serializers.CharField(source="environment_name")
    pipeline = serializers.IntegerField(source="run.pipeline_id")
    pipeline_name = serializers.CharField(source="run.pipeline.name")
    version = serializers.IntegerField(source="run.version.number")
    status = serializers.CharField(source="run.status")
    created_at = serializers.DateTimeField(source="run.created_at")
    parameters = serializers.DictField(child=ParameterValueField(), help_text=(
        "The parameters it was started with (a secret stays its ${secret:name})."))

    class Meta:
        model = EnvironmentRun
        fields = ["run", "environment", "pipeline", "pipeline_name", "version", "status", "created_at", "parameters"]


def _usable(request):
    """``?usable=true``: the environments the user may use, with ``?pipeline=<id>`` for that pipeline (one they may
    see; another is a 400 naming the parameter), else with any pipeline (their own and those of the teams whose things they use)."""
    user = request.user
    raw = request.query_params.get("pipeline")
    if raw is None:
        return environments_usable_by(user) | Environment.objects.filter(team__in=teams_with(user, USE))
    if not raw.isdigit() or len(raw) > 18:
        raise rule_violation("pipeline", "a pipeline's id is a positive whole number")
    pipeline = pipelines_visible_to(user).filter(pk=int(raw)).first()
    if pipeline is None:  # a filter naming nothing is a bad filter (the list itself exists): a 400, as documented
        raise rule_violation("pipeline", "no pipeline of that id that you may see")
    return environments_usable_by(user, pipeline)


def _owned(request, environment: Environment) -> Environment:
    if not may_change_environment(request.user, environment):
        who = f"an admin of team {environment.team.name}" if environment.team_id else "its owner"
        raise PermissionDenied(f"only {who} may change environment {environment.name!r}")
    return environment


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="Your environments, your teams' and those you approve for",
                       parameters=[OpenApiParameter("usable", bool, description=(
                           "Only those you may use: run, preview and test in (the editor's environment picker): "
                           "your own, and your teams' where your role uses them (with the teams' pipelines).")),
                                   OpenApiParameter("pipeline", int, description=(
                                       "With usable: only those you may use with this pipeline (a team's "
                                       "environments are for the team's pipelines)."))],
                       responses=responses({200: EnvironmentSerializer(many=True)})),
    retrieve=extend_schema(tags=TAG, summary="An environment", responses=responses({200: EnvironmentSerializer}, 404)),
    create=extend_schema(tags=TAG, summary="Create an environment", request=EnvironmentSerializer,
                         responses=responses({201: EnvironmentSerializer})),
    update=extend_schema(tags=TAG, summary="Change an environment (its owner, or a team admin)",
                         request=EnvironmentSerializer,
                         responses=responses({200: EnvironmentSerializer}, 403, 404)),
    partial_update=extend_schema(tags=TAG, summary="Change some fields of an environment (its owner, or a team admin)",
                                 request=EnvironmentSerializer, responses=responses({200: EnvironmentSerializer},
                                                                                    403, 404)),
    destroy=extend_schema(tags=TAG, summary="Delete an environment (its owner, or a team admin)",
                          responses=responses({204: None}, 403, 404)),
)
class EnvironmentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                         mixins.UpdateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    serializer_class = EnvironmentSerializer
    permission_classes = [IsAuthenticated]
    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        if self.action == "list" and bool_param(self.request, "usable"):
            return _usable(self.request).select_related("owner", "team")
        if self.action == "list" and "pipeline" in self.request.query_params:
            raise rule_violation("pipeline", "narrows the environments you may use: it goes with usable=true")
        return environments_visible_to(self.request.user).select_related("owner", "team")

    def perform_create(self, serializer):
        try:
            with transaction.atomic():
                serializer.save(owner=self.request.user)
        except IntegrityError:  # the same name, a moment ago
            raise rule_violation("name", "an environment of that name exists already")

    def update(self, request, *args, **kwargs):
        _owned(request, self.get_object())  # an approver's change is a 403 before what it says is checked
        return super().update(request, *args, **kwargs)

    def perform_destroy(self, instance):
        _owned(self.request, instance).delete()

    @extend_schema(tags=TAG, summary="What runs in the environment: its runs, newest first (at most 200)",
                   responses=responses({200: EnvironmentRunSerializer(many=True)}, 404))
    @action(detail=True, methods=["get"])
    def runs(self, request, pk=None):
        environment = self.get_object()
        found = (EnvironmentRun.objects.filter(environment=environment)
                 .select_related("run", "run__pipeline", "run__version").order_by("-run_id")[:200])
        return Response(EnvironmentRunSerializer(found, many=True).data)

    @extend_schema(tags=TAG, summary="The version of each pipeline the environment has",
                   responses=responses({200: PromotedVersionSerializer(many=True)}, 404))
    @action(detail=True, methods=["get"])
    def versions(self, request, pk=None):
        environment = self.get_object()
        found = PromotedVersion.objects.filter(environment=environment).select_related("pipeline", "version")
        return Response(PromotedVersionSerializer(found, many=True).data)


# --- promotions -------------------------------------------------------------------------------


class VersionPromoteSerializer(serializers.Serializer):
    pipeline = StrictIntegerField(min_value=1, max_value=2**63 - 1)
    version = StrictIntegerField(min_value=1, max_value=MAX_INT32, help_text="The version's number.")
    environment = StrictIntegerField(min_value=1, max_value=2**63 - 1, help_text="The target environment.")
    message = StrictCharField(required=False, allow_blank=True, max_length=500, default="")


class ParameterChangeSerializer(serializers.Serializer):
    name = serializers.CharField()
    source = serializers.JSONField(allow_null=True, help_text="Its value in the environment before (null: none).")
    target = serializers.JSONField(allow_null=True, help_text="Its value in the target environment.")
    missing = serializers.BooleanField(help_text="The target environment does not define it.")
    changes = serializers.BooleanField()


class PromotionDiffSerializer(serializers.Serializer):
    definition = serializers.JSONField(help_text="What changes in the definition's logic (nodes, edges, settings).")
    from_version = serializers.IntegerField(allow_null=True, help_text="The version the target has now.")
    to_version = serializers.IntegerField()
    parameters = ParameterChangeSerializer(many=True)


class PromotionSerializer(serializers.ModelSerializer):
    pipeline_name = serializers.CharField(source="pipeline.name")
    version = serializers.IntegerField(source="version.number")
    source = serializers.CharField(source="source.name", allow_null=True, default=None)
    target = serializers.CharField(source="target.name")
    target_id = serializers.IntegerField()
    requested_by = serializers.CharField(source="requested_by.username", allow_null=True, default=None)
    decided_by = serializers.CharField(source="decided_by.username", allow_null=True, default=None)
    diff = PromotionDiffSerializer()
    approval_role = serializers.SerializerMethodField(help_text=(
        "Who decides it: a user holding this team role (or a stronger one) on the pipeline, not who asked; null "
        "when its environment asks no approval."))
    can_decide = serializers.SerializerMethodField(help_text="Whether you may approve or reject it now.")

    class Meta:
        model = Promotion
        fields = ["id", "pipeline", "pipeline_name", "version", "source", "target", "target_id", "status", "diff",
                  "message", "requested_by", "requested_at", "decided_by", "decided_at", "comment", "approval_role",
                  "can_decide"]
        read_only_fields = fields

    def get_approval_role(self, promotion) -> str | None:
        return promotion.target.approval_role if promotion.target.requires_approval else None

    def get_can_decide(self, promotion) -> bool:
        return promotion.status == "PENDING" and may_approve(self.context["request"].user, promotion) is None


class DecisionSerializer(serializers.Serializer):
    comment = StrictCharField(required=False, allow_blank=True, max_length=500, default="")


def _promotion_target(request, body: dict):
    """The pipeline, version and target environment a promotion request names, each checked."""
    pipeline = pipelines_runnable_by(request.user).filter(pk=body["pipeline"]).first()
    if pipeline is None:
        raise NotFound("no pipeline of that id that you may run")
    version = pipeline.versions.filter(number=body["version"]).first()
    if version is None:
        raise NotFound(f"pipeline {pipeline.pk} has no version {body['version']}")
    target = environments_usable_by(request.user, pipeline).filter(pk=body["environment"]).first()
    if target is None:
        raise NotFound("no environment of that id of yours (or of the pipeline's team, for a role that uses it)")
    return pipeline, version, target


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="Promotions you asked for, into your environments, or for you to approve",
                       parameters=[OpenApiParameter("status", str, enum=[choice for choice, _ in PromotionStatus.choices],
                                                    description="Only promotions in this state.")],
                       responses=responses({200: PromotionSerializer(many=True)})),
    retrieve=extend_schema(tags=TAG, summary="A promotion with its diff and decision",
                           responses=responses({200: PromotionSerializer}, 404)),
)
class PromotionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = PromotionSerializer
    permission_classes = [IsAuthenticated]
    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        found = promotions_visible_to(self.request.user).select_related(
            "pipeline", "version", "source", "target", "requested_by", "decided_by")
        status_filter = self.request.query_params.get("status")
        if status_filter is not None and status_filter not in PromotionStatus.values:
            raise rule_violation("status", f"one of {', '.join(PromotionStatus.values)}")
        return found.filter(status=status_filter) if status_filter else found

    @extend_schema(tags=TAG, summary="Promote a version into an environment (applied at once, or PENDING when the "
                                     "environment requires approval)",
                   request=VersionPromoteSerializer, responses=responses({201: PromotionSerializer}, 404, 409))
    def create(self, request):
        body = VersionPromoteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        pipeline, version, target = _promotion_target(request, body.validated_data)
        try:
            promotion = request_promotion(request.user, pipeline, version, target, body.validated_data["message"])
        except ValuesRefused as refused:
            raise _refused(refused)
        return Response(self.get_serializer(promotion).data, status=status.HTTP_201_CREATED)

    @extend_schema(tags=TAG, summary="What a promotion would change, without asking for it",
                   request=VersionPromoteSerializer, responses=responses({200: PromotionDiffSerializer}, 404, 409))
    @action(detail=False, methods=["post"])
    def preview(self, request):
        body = VersionPromoteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        pipeline, version, target = _promotion_target(request, body.validated_data)
        try:
            source = check_promotable(pipeline, version, target)
        except ValuesRefused as refused:
            raise _refused(refused)
        return Response(promotion_diff(pipeline, version, source, target))

    @extend_schema(tags=TAG, summary="Approve a promotion (a user holding its environment's approval role on the "
                                     "pipeline, not who asked): the "
                                     "environment gets the version",
                   request=DecisionSerializer, responses=responses({200: PromotionSerializer}, 403, 404, 409))
    @action(detail=True, methods=["post"])
    def approve(self, request, pk=None):
        return self._decide(request, approve=True)

    @extend_schema(tags=TAG, summary="Reject a promotion (a user holding its environment's approval role on the "
                                     "pipeline)",
                   request=DecisionSerializer, responses=responses({200: PromotionSerializer}, 403, 404, 409))
    @action(detail=True, methods=["post"])
    def reject(self, request, pk=None):
        return self._decide(request, approve=False)

    @extend_schema(tags=TAG, summary="Withdraw a pending promotion you asked for", request=None,
                   responses=responses({200: PromotionSerializer}, 403, 404, 409))
    @action(detail=True, methods=["post"])
    def withdraw(self, request, pk=None):
        promotion = self.get_object()
        if promotion.requested_by_id != request.user.pk:
            raise PermissionDenied("only the user who asked may withdraw a promotion")
        try:
            withdraw(promotion, request.user)
        except ValuesRefused as refused:
            raise _refused(refused)
        return Response(self.get_serializer(self.get_object()).data)

    def _decide(self, request, approve: bool):
        body = DecisionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        promotion = self.get_object()
        why_not = may_approve(request.user, promotion)
        if why_not:
            raise PermissionDenied(why_not)
        try:
            decide(promotion, request.user, approve, body.validated_data["comment"])
        except ValuesRefused as refused:
            raise _refused(refused)
        return Response(self.get_serializer(self.get_object()).data)


# --- secrets ----------------------------------------------------------------------------------


class SecretSerializer(StrictModelSerializer):
    name = StrictCharField(max_length=100, validators=[NAME], help_text="Unique among your secrets (or the team's).")
    value = StrictCharField(write_only=True, required=False, max_length=MAX_VALUE_LENGTH, trim_whitespace=False,
                            help_text="Kept encrypted and never shown again; required when creating, absent keeps it.")
    reference = serializers.SerializerMethodField(help_text=(
        "What a definition or a parameter holds to use it (a team's secret: in the team's pipelines, where the "
        "team's wins over a member's own of the same name)."))
    team = StrictIntegerField(source="team_id", required=False, allow_null=True, min_value=1,
                              max_value=2**63 - 1, help_text=(
        "The team that owns it (chosen when it is made, as one of the team's admins); absent or null: you do. "
        "The team's editors and up use it in the team's pipelines; only its admins replace or delete it."))
    team_name = RelatedNameField(source="team.name")
    can_change = serializers.SerializerMethodField(help_text=(
        "Whether you may replace or delete it: its owner while no team owns it, else an admin of the team."))

    class Meta:
        model = Secret
        fields = ["id", "name", "value", "description", "reference", "team", "team_name", "can_change", "created_at",
                  "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]

    def get_reference(self, secret) -> str:
        return "${secret:%s}" % secret.name

    def get_can_change(self, secret) -> bool:
        return may_manage_secret(self.context["request"].user, secret)

    def validate_team(self, team_id: int | None) -> int | None:
        return _team_chosen_once(self.context["request"].user, self.instance, team_id, "a secret")

    def validate(self, data):
        if self.instance is None and not data.get("value"):
            raise rule_violation("value", "a secret needs a value")
        if "value" in data:
            if not data["value"]:
                raise rule_violation("value", "a secret's value may not be empty")
            data["sealed"] = seal_secret(data.pop("value"))
        name = data.get("name")
        if name is not None:
            instance = self.instance
            team_id = instance.team_id if instance is not None else data.get("team_id")
            others = (Secret.objects.filter(team_id=team_id) if team_id is not None else Secret.objects.filter(
                owner=instance.owner_id if instance else self.context["request"].user, team__isnull=True))
            if instance is not None:
                others = others.exclude(pk=instance.pk)
            if others.filter(name=name).exists():
                whose = "the team has" if team_id is not None else "you have"
                raise rule_violation("name", f"{whose} a secret named {name!r} already")
        return data


def _secret_managed(request, secret: Secret) -> Secret:
    if not may_manage_secret(request.user, secret):
        raise PermissionDenied(f"only an admin of team {secret.team.name} may replace or delete secret {secret.name!r}")
    return secret


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="Your secrets and your teams' (names only: a value is never shown)",
                       responses=responses({200: SecretSerializer(many=True)})),
    retrieve=extend_schema(tags=TAG, summary="A secret (without its value)", responses=responses({200: SecretSerializer}, 404)),
    create=extend_schema(tags=TAG, summary="Keep a secret (yours, or a team's as its admin)", request=SecretSerializer,
                         responses=responses({201: SecretSerializer}, 403)),
    update=extend_schema(tags=TAG, summary="Replace a secret's value or description (its owner, or a team admin)",
                         request=SecretSerializer, responses=responses({200: SecretSerializer}, 403, 404)),
    partial_update=extend_schema(tags=TAG, summary="Change a secret's value or description (its owner, or a team "
                                                   "admin)",
                                 request=SecretSerializer, responses=responses({200: SecretSerializer}, 403, 404)),
    destroy=extend_schema(tags=TAG, summary="Delete a secret (its owner, or a team admin)",
                          responses=responses({204: None}, 403, 404)),
)
class SecretViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                    mixins.UpdateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    serializer_class = SecretSerializer
    permission_classes = [IsAuthenticated]
    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        return secrets_visible_to(self.request.user).select_related("team")

    def perform_create(self, serializer):
        try:
            with transaction.atomic():
                serializer.save(owner=self.request.user)
        except IntegrityError:
            raise rule_violation("name", "a secret of that name exists already")

    def update(self, request, *args, **kwargs):
        _secret_managed(request, self.get_object())  # a member's change is a 403 before what it says is checked
        return super().update(request, *args, **kwargs)

    def perform_destroy(self, instance):
        _secret_managed(self.request, instance).delete()


# --- a run's environment ----------------------------------------------------------------------


class RunEnvironmentSerializer(serializers.Serializer):
    environment = serializers.CharField(allow_null=True, help_text="Where the run runs (null: in no environment).")
    parameters = serializers.DictField(child=ParameterValueField(), help_text=(
        "The parameters it was started with (a secret stays its ${secret:name})."))


class RunEnvironmentView(RunNestedMixin, APIView):
    permission_classes = [IsAuthenticated]
    action_permissions = {}  # what reading the run needs: view

    @extend_schema(tags=TAG, summary="The environment a run was started in and its parameters", parameters=[RUN_ID],
                   responses=responses({200: RunEnvironmentSerializer}, 404))
    def get(self, request, id=None):
        found = EnvironmentRun.objects.filter(run=self.run).first()
        return Response({"environment": found.environment_name if found else None,
                         "parameters": found.parameters if found else {}})
