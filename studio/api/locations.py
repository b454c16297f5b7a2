"""Storage locations and their grants: administrators list and create them; every user lists what they may reach.

``GET /api/locations`` answers an administrator with every location and its grants, and
anyone else with the locations granted to them (to them, a group of theirs, a team where they
are an editor or more, or everyone), prefixes expanded (``{user}`` filled in), so the editor
can say where files may go. Creating, changing and deleting locations and grants to a user, a
group or a team (``/api/locations/<id>/grants``) is for staff users, as in the Django admin.
"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticated
from rest_framework.response import Response

from studio.api.schema import responses
from studio.api.serializers.fields import StrictModelSerializer, StrictSlugRelatedField
from studio.locations import expand_prefix, locations_granted_to, may_write_location
from studio.models import LocationGrant, LocationKind, StorageLocation, Team

PREFIX_SCHEMES = {"url": ("http://", "https://"), "redis": ("redis://", "rediss://"),
                  "postgres": ("postgresql://", "postgres://"), "kafka": ("kafka://",)}


class IsStaffOrReadOnly(BasePermission):
    """Reading is for every signed-in user (they see their own grants); changes are for staff."""

    message = "only administrators (staff users) may change storage locations and grants"

    def has_permission(self, request, view) -> bool:
        return request.method in SAFE_METHODS or bool(request.user and request.user.is_staff)


class GrantSerializer(StrictModelSerializer):
    user = StrictSlugRelatedField(slug_field="username", queryset=get_user_model().objects.all(),
                                  required=False, allow_null=True)
    group = StrictSlugRelatedField(slug_field="name", queryset=Group.objects.all(), required=False,
                                   allow_null=True)
    team = StrictSlugRelatedField(slug_field="name", queryset=Team.objects.all(), required=False, allow_null=True,
                                  help_text=("A team: its editors, operators and admins get the location while they "
                                             "are (viewers do not)."))

    class Meta:
        model = LocationGrant
        fields = ["id", "user", "group", "team", "can_write", "created_at"]
        read_only_fields = ["id", "created_at"]

    def validate(self, data):
        if sum(bool(data.get(field)) for field in ("user", "group", "team")) != 1:
            raise serializers.ValidationError("a grant names exactly one of user, group or team")
        return data


class LocationSerializer(StrictModelSerializer):
    grants = GrantSerializer(many=True, read_only=True, help_text="Who may reach it (administrators see them; "
                                                                  "others get an empty list).")
    resolved_prefix = serializers.SerializerMethodField(help_text="The prefix for you ({user} filled in).")
    can_write = serializers.SerializerMethodField(help_text="Whether you may write there.")

    class Meta:
        model = StorageLocation
        fields = ["id", "name", "kind", "prefix", "resolved_prefix", "can_write", "description", "shared",
                  "all_users", "grants", "created_at"]
        read_only_fields = ["id", "created_at"]

    def to_representation(self, location):
        data = super().to_representation(location)
        if not self.context["request"].user.is_staff:
            data["grants"] = []  # who else may reach it is the administrators' business
        return data

    def get_resolved_prefix(self, location) -> str:
        return expand_prefix(location.prefix, self.context["request"].user)

    def get_can_write(self, location) -> bool:
        return may_write_location(self.context["request"].user, location)

    def validate_prefix(self, prefix: str) -> str:
        prefix = prefix.strip()
        if "\x00" in prefix or ".." in prefix.split("/") or "::" in prefix:
            raise serializers.ValidationError("a prefix may not contain NUL, '..' or '::'")
        return prefix

    def validate(self, data):
        kind = data.get("kind", getattr(self.instance, "kind", None))
        prefix = data.get("prefix", getattr(self.instance, "prefix", ""))
        if kind == LocationKind.PATH:
            if not (prefix.startswith(("/", "{data_dir}")) or "://" in prefix):
                raise serializers.ValidationError({"prefix": "a path location is an absolute directory "
                                                             "({data_dir}/... works) or a URL prefix"})
        elif kind in PREFIX_SCHEMES and not prefix.lower().startswith(PREFIX_SCHEMES[kind]):
            raise serializers.ValidationError({"prefix": f"a {kind} location starts with "
                                                         f"{' or '.join(PREFIX_SCHEMES[kind])}"})
        return data


LOCATION_ID = OpenApiParameter("grant_id", int, OpenApiParameter.PATH, description="The grant's id.")


@extend_schema_view(
    list=extend_schema(summary="Storage locations: all (administrators) or those granted to you",
                       responses=responses({200: LocationSerializer(many=True)})),
    retrieve=extend_schema(summary="A storage location", responses=responses({200: LocationSerializer}, 404)),
    create=extend_schema(summary="Configure a storage location (administrators)", request=LocationSerializer,
                         responses=responses({201: LocationSerializer})),
    update=extend_schema(summary="Change a storage location (administrators)", request=LocationSerializer,
                         responses=responses({200: LocationSerializer}, 404)),
    destroy=extend_schema(summary="Delete a storage location and its grants (administrators)",
                          responses=responses({204: None}, 404)),
)
class LocationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                      mixins.UpdateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    serializer_class = LocationSerializer
    permission_classes = [IsAuthenticated, IsStaffOrReadOnly]
    lookup_value_regex = r"\d{1,18}"
    http_method_names = ["get", "post", "put", "delete"]

    def get_queryset(self):
        user = self.request.user
        locations = StorageLocation.objects.prefetch_related("grants__user", "grants__group", "grants__team")
        if user.is_staff:
            return locations
        return locations.filter(pk__in=locations_granted_to(user).values("id"))

    @extend_schema(methods=["get"], summary="The location's grants", responses=responses({200: GrantSerializer(many=True)}, 404))
    @extend_schema(methods=["post"], summary="Grant the location to a user, a group or a team (administrators)",
                   request=GrantSerializer, responses=responses({201: GrantSerializer}, 404))
    @action(detail=True, methods=["get", "post"])
    def grants(self, request, pk=None):
        location = self.get_object()
        if not request.user.is_staff:
            raise PermissionDenied(IsStaffOrReadOnly.message)
        if request.method == "GET":
            return Response(GrantSerializer(location.grants.select_related("user", "group", "team"), many=True).data)
        body = GrantSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        grant = body.save(location=location)
        return Response(GrantSerializer(grant).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Revoke a grant (administrators)", parameters=[LOCATION_ID],
                   responses=responses({204: None}, 404))
    @action(detail=True, methods=["delete"], url_path=r"grants/(?P<grant_id>\d{1,18})")
    def grant(self, request, pk=None, grant_id=None):
        get_object_or_404(LocationGrant, location=self.get_object(), pk=grant_id).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)



