"""``/api/teams``: teams, their members and roles (``studio.teams`` says what each role may do).

A user sees only the teams they belong to: any other team's id is a 404, as another user's
pipeline is. Members see the team and who is in it; only its admins rename it, delete it and
add, change or remove members. A team keeps at least one admin, and a team that owns
pipelines or environments is not deleted (move or delete them first). Anyone may start a team; they become its admin.
"""
from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from studio.api.exceptions import Conflict
from studio.api.schema import responses
from studio.api.serializers.teams import MemberSerializer, RoleSerializer, TeamLocationSerializer, TeamSerializer
from studio.models import Team, TeamMembership, TeamRole
from studio.teams import may_manage, teams_of

TAG = ["teams"]
MEMBER_ID = OpenApiParameter("member_id", int, OpenApiParameter.PATH, description="The membership's id.")


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="The teams you belong to, with your role in each",
                       responses=responses({200: TeamSerializer(many=True)})),
    create=extend_schema(tags=TAG, summary="Start a team (you become its admin)",
                         responses=responses({201: TeamSerializer}, 409)),
    retrieve=extend_schema(tags=TAG, summary="A team you belong to", responses=responses({200: TeamSerializer}, 404)),
    update=extend_schema(tags=TAG, summary="Rename a team or change its description (admins only)",
                         responses=responses({200: TeamSerializer}, 404, 409)),
    destroy=extend_schema(tags=TAG, summary="Delete a team that owns no pipelines nor environments (admins only)",
                          responses=responses({204: None}, 404, 409)),
)
class TeamViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                  mixins.UpdateModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    serializer_class = TeamSerializer
    permission_classes = [IsAuthenticated]
    lookup_value_regex = r"\d{1,18}"
    http_method_names = ["get", "post", "put", "delete"]

    def get_queryset(self):
        return teams_of(self.request.user).distinct().order_by("name")

    def get_serializer_context(self):
        roles = dict(TeamMembership.objects.filter(user=self.request.user).values_list("team_id", "role"))
        return {**super().get_serializer_context(), "roles": roles}

    def perform_create(self, serializer):
        self._unique_name(serializer.validated_data["name"])
        try:
            with transaction.atomic():
                team = serializer.save()
                TeamMembership.objects.create(team=team, user=self.request.user, role=TeamRole.ADMIN)
        except IntegrityError:  # taken a moment ago
            raise Conflict(f"the team name {serializer.validated_data['name']!r} is taken")

    def perform_update(self, serializer):
        self._require_admin(serializer.instance)
        self._unique_name(serializer.validated_data["name"], serializer.instance)
        serializer.save()

    def perform_destroy(self, team):
        self._require_admin(team)
        try:
            team.delete()
        except ProtectedError as protected:
            owned = sorted(team.pipelines.values_list("id", flat=True))
            if owned:
                raise Conflict(f"team {team.name!r} owns pipelines {owned}; move or delete them first")
            kinds = sorted({str(row._meta.verbose_name_plural) for row in protected.protected_objects})
            raise Conflict(f"team {team.name!r} owns {', '.join(kinds)}; delete them first")

    @extend_schema(methods=["get"], tags=TAG, summary="The team's members and their roles",
                   responses=responses({200: MemberSerializer(many=True)}, 404))
    @extend_schema(methods=["post"], tags=TAG, summary="Add a member with a role (admins only)",
                   request=MemberSerializer, responses=responses({201: MemberSerializer}, 404, 409))
    @action(detail=True, methods=["get", "post"])
    def members(self, request, pk=None):
        team = self.get_object()
        if request.method == "GET":
            return Response(MemberSerializer(team.memberships.select_related("user"), many=True).data)
        self._require_admin(team)
        body = MemberSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = body.validated_data["user"]
        try:
            with transaction.atomic():
                member = body.save(team=team)
        except IntegrityError:
            raise Conflict(f"{user.get_username()} is already a member of {team.name!r}; change their role instead")
        return Response(MemberSerializer(member).data, status=status.HTTP_201_CREATED)

    @extend_schema(tags=TAG, summary="The storage locations granted to the team (its editors and up use them)",
                   description="Administrators grant them (``/api/locations/{id}/grants`` with a team, or the Django "
                               "admin); every member sees them, and an editor, operator or admin of the team gets "
                               "them in every validation, preview and run, checked at each use.",
                   responses=responses({200: TeamLocationSerializer(many=True)}, 404))
    @action(detail=True, methods=["get"])
    def locations(self, request, pk=None):
        team = self.get_object()
        grants = team.location_grants.select_related("location").order_by("location__name", "id")
        return Response(TeamLocationSerializer(grants, many=True).data)

    @extend_schema(methods=["put"], tags=TAG, summary="Change a member's role (admins only)", parameters=[MEMBER_ID],
                   request=RoleSerializer, responses=responses({200: MemberSerializer}, 404, 409))
    @extend_schema(methods=["delete"], tags=TAG, summary="Remove a member (admins; any member may leave)",
                   parameters=[MEMBER_ID], responses=responses({204: None}, 404, 409))
    @action(detail=True, methods=["put", "delete"], url_path=r"members/(?P<member_id>\d{1,18})")
    def member(self, request, pk=None, member_id=None):
        team = self.get_object()
        with transaction.atomic():
            member = get_object_or_404(team.memberships.select_for_update().select_related("user"), pk=member_id)
            leaving = request.method == "DELETE" and member.user_id == request.user.pk
            if not leaving:
                self._require_admin(team)
            if request.method == "DELETE":
                self._keep_an_admin(team, member, None)
                member.delete()
                return Response(status=status.HTTP_204_NO_CONTENT)
            body = RoleSerializer(data=request.data)
            body.is_valid(raise_exception=True)
            self._keep_an_admin(team, member, body.validated_data["role"])
            member.role = body.validated_data["role"]
            member.save(update_fields=["role"])
        return Response(MemberSerializer(member).data)

    def _require_admin(self, team: Team) -> None:
        if not may_manage(self.request.user, team):
            raise PermissionDenied(f"only an admin of team {team.name!r} may change it or its members")

    @staticmethod
    def _keep_an_admin(team: Team, member: TeamMembership, new_role: str | None) -> None:
        """A team always has an admin: the last one may not leave nor step down."""
        if member.role != TeamRole.ADMIN or new_role == TeamRole.ADMIN:
            return
        admins = team.memberships.select_for_update().filter(role=TeamRole.ADMIN).exclude(pk=member.pk)
        if not admins.exists():
            raise Conflict(f"{member.user.get_username()} is the last admin of team {team.name!r}; "
                           "make another member admin first")

    @staticmethod
    def _unique_name(name: str, team: Team | None = None) -> None:
        taken = Team.objects.filter(name__iexact=name)
        if team is not None:
            taken = taken.exclude(pk=team.pk)
        if taken.exists():
            raise Conflict(f"the team name {name!r} is taken")
