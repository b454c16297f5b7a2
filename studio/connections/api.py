"""``/api/connections``: connection profiles (CRUD, Test connection, shares) and ``/api/kafka``: the topic browser.

Everyone lists and uses (tests, browses, names in nodes) the profiles they own and those
shared with them; only the owner changes, deletes or shares one, and only the owner's answers
say whom it is shared with. A team's profile is its members' by role (``studio.access.teams_with``):
viewers see it, editors and operators use it, admins change, share and delete it. Another user's
profile that is not shared with you, or a team's you are not in, is a 404, as if it did not exist. No answer carries a password: ``has_password`` says whether there is one.

The topic browser reads a Kafka cluster named by ``bootstrap_servers``, a broker list or a
profile (``connection:<name>``); the address is checked against your grants first (403
otherwise), as a node's would be.
"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import IntegrityError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from studio.api.exceptions import Conflict, rule_violation
from studio.api.parameters import int_param
from studio.api.schema import bounded_int, responses
from studio.api.serializers.fields import (RelatedNameField, StrictCharField, StrictIntegerField,
                                          StrictModelSerializer, StrictSlugRelatedField)
from studio.connections.models import PROFILE_NAME, ConnectionKind, ConnectionProfile, ConnectionShare
from studio.connections.probes import test_connection
from studio.connections.schema_inference import infer_fields, records_of
from studio.secret_box import seal, unseal
from studio.access import MANAGE, VIEW, may_on_team_thing
from studio.connections.usable import (full_address, may_manage, profiles_usable_by, profiles_visible_to, reference_of,
                                       split_password, with_password)
from studio.location_policy import KAFKA, LocationRefused, kafka_brokers, resolve
from studio.locations import policy_for

TAG = ["connections"]
TOPIC_PATTERN = r"[A-Za-z0-9._-]{1,249}"
SAMPLE_FORMATS = ("json", "csv", "string", "raw")
MAX_SAMPLE = 200


def check_address(kind: str, address: str) -> str:
    """``address`` when it has the shape a ``kind`` connection's address has, else a 400 naming the field."""
    from urllib.parse import urlsplit

    address = address.strip()
    if kind == ConnectionKind.KAFKA:
        try:
            kafka_brokers(address)
        except LocationRefused as refused:
            raise rule_violation("address", str(refused))
        return address
    schemes = {ConnectionKind.REDIS: ("redis", "rediss"), ConnectionKind.POSTGRES: ("postgresql", "postgres")}[kind]
    try:
        parts = urlsplit(address)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as error:
        raise rule_violation("address", f"not a URL: {error}")
    if parts.scheme.lower() not in schemes or not parts.hostname:
        raise rule_violation("address", f"a {kind} address is {schemes[0]}://host:port/...")
    return address


class ConnectionShareSerializer(StrictModelSerializer):
    user = StrictSlugRelatedField(slug_field="username", queryset=get_user_model().objects.all(),
                                  required=False, allow_null=True, help_text="Share with this user ...")
    group = StrictSlugRelatedField(slug_field="name", queryset=Group.objects.all(), required=False,
                                   allow_null=True, help_text="... or with this group.")

    class Meta:
        model = ConnectionShare
        fields = ["id", "user", "group", "created_at"]
        read_only_fields = ["id", "created_at"]

    def validate(self, data):
        if bool(data.get("user")) == bool(data.get("group")):
            raise rule_violation("user", "a share names exactly one of user or group")
        return data


class ConnectionProfileSerializer(StrictModelSerializer):
    name = StrictCharField(max_length=100, validators=[PROFILE_NAME],
                           help_text="Unique among your profiles; nodes name it connection:<name>.")
    kind = serializers.ChoiceField(choices=ConnectionKind.choices, help_text="; ".join(
        f"{value}: {label}" for value, label in ConnectionKind.choices))
    address = StrictCharField(max_length=2000, help_text="Kafka: host:port,host:port; Redis: redis://host:port/db; "
                                                         "PostgreSQL: postgresql://user@host:port/database. A "
                                                         "password in it is kept apart, like `password`.")
    password = StrictCharField(write_only=True, required=False, allow_blank=True, max_length=1000,
                               help_text="Kept encrypted and never shown; empty removes it, absent keeps it.")
    has_password = serializers.SerializerMethodField(help_text="Whether a password is kept.")
    owner = serializers.CharField(source="owner.username", read_only=True)
    team = StrictIntegerField(source="team_id", required=False, allow_null=True, min_value=1, help_text=(
        "The team that owns it (chosen when it is made, as one of the team's admins); absent or null: you do."))
    team_name = RelatedNameField(source="team.name")
    mine = serializers.SerializerMethodField(help_text="Whether you may change, share and delete it: its owner while "
                                                       "no team owns it, else an admin of the team.")
    reference = serializers.SerializerMethodField(help_text="What a node's address parameter holds to use it.")
    granted = serializers.SerializerMethodField(help_text="Whether your location grants cover its address now "
                                                          "(checked again whenever it is used).")
    grant_message = serializers.SerializerMethodField(help_text="Why not, when not.")
    shares = serializers.SerializerMethodField(help_text="Whom it is shared with (the owner sees them; "
                                                         "others get an empty list).")

    class Meta:
        model = ConnectionProfile
        fields = ["id", "name", "kind", "address", "password", "has_password", "description", "owner", "team",
                  "team_name", "mine", "reference", "granted", "grant_message", "shares", "created_at", "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]

    def _user(self):
        return self.context["request"].user

    def get_has_password(self, profile) -> bool:
        return bool(profile.secret)

    def get_mine(self, profile) -> bool:
        return may_manage(self._user(), profile)

    def get_reference(self, profile) -> str:
        return reference_of(profile, self._user())

    def _grant(self, profile) -> str:
        cache = self.context.setdefault("grant_cache", {})
        if profile.pk not in cache:
            policy = self.context.setdefault("policy", policy_for(self._user()))
            try:
                resolve(profile.kind, full_address(profile), policy)
                cache[profile.pk] = ""
            except LocationRefused as refused:
                cache[profile.pk] = str(refused)
        return cache[profile.pk]

    def get_granted(self, profile) -> bool:
        return not self._grant(profile)

    def get_grant_message(self, profile) -> str:
        return self._grant(profile)

    def get_shares(self, profile) -> list[dict]:
        if not may_manage(self._user(), profile):
            return []
        return ConnectionShareSerializer(profile.shares.select_related("user", "group"), many=True).data

    def validate_team(self, team_id: int | None) -> int | None:
        if self.instance is not None and team_id != self.instance.team_id:
            raise rule_violation("team", "a profile's team is chosen when it is made")
        if team_id is not None and self.instance is None:
            if not may_on_team_thing(self._user(), team_id, VIEW):
                raise rule_violation("team", f"no team {team_id} of yours")
            if not may_on_team_thing(self._user(), team_id, MANAGE):
                raise PermissionDenied(f"only an admin of team {team_id} may give it a connection profile")
        return team_id

    def validate(self, data):
        instance = self.instance
        kind = data.get("kind", getattr(instance, "kind", None))
        if instance is not None and "kind" in data and data["kind"] != instance.kind and "address" not in data:
            raise rule_violation("address", "a profile that changes its kind needs a new address")
        if "address" in data:
            address, password = split_password(kind, check_address(kind, data["address"]))
            data["address"] = address
            if password and "password" not in data:
                data["password"] = password
        if "password" in data:
            password = data.pop("password")
            if password and kind == ConnectionKind.KAFKA:
                raise rule_violation("password", "a Kafka profile has no password")
            data["secret"] = seal(password)
        name = data.get("name")
        if name is not None:
            owner = instance.owner_id if instance is not None else self._user().pk
            team_id = instance.team_id if instance is not None else data.get("team_id")
            for others, whose in ((ConnectionProfile.objects.filter(owner_id=owner, name=name), "its maker has"),
                                  (ConnectionProfile.objects.filter(team_id=team_id, name=name), "the team has")):
                if instance is not None:
                    others = others.exclude(pk=instance.pk)
                if (whose == "its maker has" or team_id is not None) and others.exists():
                    raise rule_violation("name", f"{whose} a profile named {name!r} already")
        return data


class ConnectionTestRequestSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=ConnectionKind.choices)
    address = StrictCharField(max_length=2000)
    password = StrictCharField(required=False, allow_blank=True, max_length=1000)


class ConnectionTestResultSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    stage = serializers.ChoiceField(choices=["grants", "connect", "done"],
                                    help_text="grants: refused before connecting; connect: the server did not "
                                              "answer as it should; done: it answered.")
    message = serializers.CharField()
    elapsed_ms = serializers.IntegerField()
    details = serializers.DictField()


def _owned(request, profile: ConnectionProfile) -> ConnectionProfile:
    if not may_manage(request.user, profile):
        who = f"an admin of team {profile.team.name}" if profile.team_id else "its owner"
        raise PermissionDenied(f"only {who} may change, share or delete connection profile {profile.name!r}")
    return profile


SHARE_ID = OpenApiParameter("share_id", int, OpenApiParameter.PATH, description="The share's id.")


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="Your connection profiles and those shared with you",
                       responses=responses({200: ConnectionProfileSerializer(many=True)})),
    retrieve=extend_schema(tags=TAG, summary="A connection profile", responses=responses({200: ConnectionProfileSerializer}, 404)),
    create=extend_schema(tags=TAG, summary="Create a connection profile", request=ConnectionProfileSerializer,
                         responses=responses({201: ConnectionProfileSerializer})),
    update=extend_schema(tags=TAG, summary="Change a connection profile (owner only)", request=ConnectionProfileSerializer,
                         responses=responses({200: ConnectionProfileSerializer}, 404)),
    partial_update=extend_schema(tags=TAG, summary="Change some fields of a connection profile (owner only)",
                                 request=ConnectionProfileSerializer, responses=responses({200: ConnectionProfileSerializer}, 404)),
    destroy=extend_schema(tags=TAG, summary="Delete a connection profile (owner only)",
                          responses=responses({204: None}, 404)),
)
class ConnectionProfileViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                               mixins.UpdateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    serializer_class = ConnectionProfileSerializer
    permission_classes = [IsAuthenticated]
    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        return profiles_visible_to(self.request.user).order_by("name", "id")

    def perform_create(self, serializer):
        serializer.save(owner=self.request.user)

    def perform_update(self, serializer):
        _owned(self.request, serializer.instance)
        serializer.save()

    def perform_destroy(self, instance):
        _owned(self.request, instance).delete()

    @extend_schema(tags=TAG, summary="Test connection: your grants, then the server itself", request=None,
                   description="Checks the profile's address against your location grants (never connecting when "
                               "they do not cover it), then connects: Kafka lists its topics, Redis answers INFO, "
                               "PostgreSQL a query. The answer says how far it got.",
                   responses=responses({200: ConnectionTestResultSerializer}, 404))
    @action(detail=True, methods=["post"])
    def test(self, request, pk=None):
        profile = self.get_object()
        if not profiles_usable_by(request.user).filter(pk=profile.pk).exists():
            raise PermissionDenied(f"your role in team {profile.team.name if profile.team_id else '?'} shows you "
                                   f"connection profile {profile.name!r}; using it takes an editor")
        return Response(test_connection(request.user, profile.kind, full_address(profile), unseal(profile.secret)))

    @extend_schema(tags=TAG, summary="Test connection of a profile not saved yet", request=ConnectionTestRequestSerializer,
                   operation_id="connections_test_unsaved",
                   responses=responses({200: ConnectionTestResultSerializer}))
    @action(detail=False, methods=["post"], url_path="test")
    def test_unsaved(self, request):
        body = ConnectionTestRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        kind = body.validated_data["kind"]
        address, typed = split_password(kind, check_address(kind, body.validated_data["address"]))
        password = body.validated_data.get("password") or typed
        return Response(test_connection(request.user, kind, with_password(kind, address, password), password))

    @extend_schema(methods=["get"], tags=TAG, summary="Whom the profile is shared with (owner only)",
                   responses=responses({200: ConnectionShareSerializer(many=True)}, 404))
    @extend_schema(methods=["post"], tags=TAG, summary="Share the profile with a user or a group (owner only)",
                   request=ConnectionShareSerializer, responses=responses({201: ConnectionShareSerializer}, 404, 409))
    @action(detail=True, methods=["get", "post"])
    def shares(self, request, pk=None):
        profile = _owned(request, self.get_object())
        if request.method == "GET":
            return Response(ConnectionShareSerializer(profile.shares.select_related("user", "group"), many=True).data)
        body = ConnectionShareSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if data.get("user") is not None and data["user"].pk == profile.owner_id:
            raise rule_violation("user", "the profile is yours already")
        if profile.shares.filter(user=data.get("user"), group=data.get("group")).exists():
            raise Conflict(f"connection profile {profile.name!r} is shared with them already")
        try:
            share = body.save(profile=profile)
        except IntegrityError:
            raise Conflict("that share exists already")
        return Response(ConnectionShareSerializer(share).data, status=status.HTTP_201_CREATED)

    @extend_schema(tags=TAG, summary="Stop sharing the profile (owner only)", parameters=[SHARE_ID],
                   responses=responses({204: None}, 404))
    @action(detail=True, methods=["delete"], url_path=r"shares/(?P<share_id>\d{1,18})")
    def share(self, request, pk=None, share_id=None):
        profile = _owned(request, self.get_object())
        get_object_or_404(ConnectionShare, profile=profile, pk=share_id).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- the topic browser ------------------------------------------------------------------------------


BOOTSTRAP = OpenApiParameter("bootstrap_servers", str, required=True,
                             description="host:port[,host:port...] or connection:<profile name>")


def _bootstrap(request) -> str:
    """The brokers of the request's ``bootstrap_servers``, checked against the user's grants (403 otherwise)."""
    value = request.query_params.get("bootstrap_servers", "").strip()
    if not value:
        raise rule_violation("bootstrap_servers", "required: host:port[,host:port...] or connection:<profile name>")
    if len(value) > 2000:
        raise rule_violation("bootstrap_servers", "at most 2000 characters")
    try:
        return resolve(KAFKA, value, policy_for(request.user)).value
    except LocationRefused as refused:
        raise PermissionDenied(f"bootstrap_servers: {refused}")


class KafkaPartitionSerializer(serializers.Serializer):
    partition = serializers.IntegerField()
    earliest = serializers.IntegerField()
    latest = serializers.IntegerField()


class KafkaTopicSerializer(serializers.Serializer):
    topic = serializers.CharField()
    partitions = KafkaPartitionSerializer(many=True)
    messages = serializers.IntegerField(help_text="Latest minus earliest offsets, over the partitions.")


class KafkaMessageSerializer(serializers.Serializer):
    partition = serializers.IntegerField()
    offset = serializers.IntegerField()
    timestamp = serializers.IntegerField()
    key = serializers.CharField(allow_null=True)
    headers = serializers.DictField()
    value = serializers.JSONField(allow_null=True, help_text="Decoded as the source would (null: it does not decode).")
    text = serializers.CharField(allow_null=True)


class InferredFieldSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="The field as an expression over the record x.")
    types = serializers.ListField(child=serializers.CharField())
    present = serializers.IntegerField(help_text="In how many of the sampled records it is.")
    example = serializers.CharField(allow_null=True)


class KafkaSampleSerializer(serializers.Serializer):
    topic = serializers.CharField()
    emit = serializers.CharField()
    messages = KafkaMessageSerializer(many=True)
    fields = InferredFieldSerializer(many=True)


class KafkaTopicsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(tags=TAG, summary="The topics of a Kafka cluster, their partitions and offsets",
                   parameters=[BOOTSTRAP], responses=responses({200: KafkaTopicSerializer(many=True)}))
    def get(self, request):
        from engine.api import kafka_topics

        try:
            topics = kafka_topics(_bootstrap(request))
        except ValueError as error:
            raise rule_violation("bootstrap_servers", f"cannot read the Kafka cluster: {error}")
        for topic in topics:
            topic["messages"] = sum(part["latest"] - part["earliest"] for part in topic["partitions"])
        return Response(topics)


class KafkaSampleView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(tags=TAG, summary="A topic's latest messages and the fields inferred from them",
                   description="Reads at most `limit` of the newest messages (across partitions), decodes them as a "
                               "Kafka source with these parameters would, and infers the fields its records offer "
                               "to expressions.",
                   parameters=[BOOTSTRAP, OpenApiParameter("topic", str, required=True),
                               OpenApiParameter("limit", bounded_int(1, MAX_SAMPLE), description="Default 20."),
                               OpenApiParameter("value_format", str, enum=list(SAMPLE_FORMATS),
                                                description="The source's format (default json)."),
                               OpenApiParameter("columns", str, description="csv: the fields of a row, comma-separated."),
                               OpenApiParameter("delimiter", str, description="csv: the field separator."),
                               OpenApiParameter("emit", str, enum=["record", "value"],
                                                description="What the source emits (default record).")],
                   responses=responses({200: KafkaSampleSerializer}))
    def get(self, request):
        import re

        from engine.api import kafka_sample

        query = request.query_params
        topic = query.get("topic", "")
        if not re.fullmatch(TOPIC_PATTERN, topic):
            raise rule_violation("topic", "a topic name is letters, digits, '.', '_' and '-'")
        limit = int_param(request, "limit", 20, 1, MAX_SAMPLE)
        emit = query.get("emit", "record")
        if emit not in ("record", "value"):
            raise rule_violation("emit", "record or value")
        params = {"format": query.get("value_format", "json")}  # (?format= is DRF's renderer choice)
        if params["format"] not in SAMPLE_FORMATS:
            raise rule_violation("value_format", f"one of {', '.join(SAMPLE_FORMATS)}")
        if params["format"] == "csv":
            columns = [column.strip() for column in query.get("columns", "").split(",") if column.strip()]
            if not columns:
                raise rule_violation("columns", "the csv format needs columns: the names of a row's fields, comma-separated")
            params["columns"] = columns
            if query.get("delimiter"):
                if len(query["delimiter"]) != 1:
                    raise rule_violation("delimiter", "one character")
                params["delimiter"] = query["delimiter"]
        bootstrap = _bootstrap(request)
        try:
            messages = kafka_sample(bootstrap, topic, limit, **params)
        except ValueError as error:
            raise rule_violation("topic", f"cannot sample topic {topic!r}: {error}")
        return Response({"topic": topic, "emit": emit, "messages": messages,
                         "fields": infer_fields(records_of(messages, topic, emit))})
