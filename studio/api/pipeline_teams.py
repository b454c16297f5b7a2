"""A pipeline and teams: which team owns it, and which teams it is shared with (owners only).

``PipelineTeamActions`` is a mixin of ``PipelineViewSet`` (``pipelines/<id>/team``,
``pipelines/<id>/team-shares``). Moving a pipeline into a team needs *own* on the pipeline and
at least the editor role in the team; taking it out makes the one who does it its owner.
"""
from __future__ import annotations

from django.db import IntegrityError, transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from studio.access import OWN
from studio.api.exceptions import Conflict, rule_violation
from studio.api.schema import responses
from studio.api.serializers.pipelines import PipelineSerializer
from studio.api.serializers.teams import PipelineTeamSerializer, TeamShareSerializer
from studio.models import Team, TeamRole, TeamShare
from studio.teams import at_least, role_in, teams_of


def team_for_pipelines(user, team_id: int) -> Team:
    """Team ``team_id`` when ``user`` may put pipelines there (editor or more); a 400 naming the field when they
    are not in it (the same answer as for no such team: a team is seen by its members only), a 403 when their
    role is too weak."""
    team = teams_of(user).filter(pk=team_id).first()
    if team is None:
        raise rule_violation("team", f"no team {team_id} among your teams")
    role = TeamRole.ADMIN if user.is_superuser else role_in(user, team)
    if not at_least(role, TeamRole.EDITOR):
        raise PermissionDenied(f"team: your role in team {team.name!r} is {role}; putting a pipeline there needs "
                               "editor or more")
    return team


class PipelineTeamActions:
    """The team actions of a pipeline viewset (``self.get_object()`` is the pipeline)."""

    team_action_permissions = {"team": OWN, "team_shares:POST": OWN, "team_share": OWN}

    @extend_schema(summary="Move the pipeline to a team, or out of it to yourself (owner only)",
                   request=PipelineTeamSerializer, responses=responses({200: PipelineSerializer}, 404))
    @action(detail=True, methods=["post"])
    def team(self, request, pk=None):
        pipeline = self.get_object()
        body = PipelineTeamSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        team_id = body.validated_data["team"]
        if team_id is not None:
            pipeline.team = team_for_pipelines(request.user, team_id)
        else:
            pipeline.team, pipeline.owner = None, request.user
        pipeline.save(update_fields=["team", "owner"])
        return Response(PipelineSerializer(pipeline, context=self.get_serializer_context()).data)

    @extend_schema(methods=["get"], summary="The teams the pipeline is shared with",
                   responses=responses({200: TeamShareSerializer(many=True)}, 404))
    @extend_schema(methods=["post"], summary="Share with a team, with the most its members may do (owner only)",
                   request=TeamShareSerializer, responses=responses({201: TeamShareSerializer}, 404, 409))
    @action(detail=True, methods=["get", "post"], url_path="team-shares")
    def team_shares(self, request, pk=None):
        pipeline = self.get_object()
        if request.method == "GET":
            return Response(TeamShareSerializer(pipeline.team_shares.select_related("team"), many=True).data)
        body = TeamShareSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        name = body.validated_data["team"]["name"]
        team = teams_of(request.user).filter(name=name).first()
        if team is None:
            raise rule_violation("team", f"no team named {name!r} among your teams")
        if team.pk == pipeline.team_id:
            raise Conflict(f"team {team.name!r} owns pipeline {pipeline.id}; its members' roles apply already")
        try:
            with transaction.atomic():
                share = TeamShare.objects.create(pipeline=pipeline, team=team, role=body.validated_data["role"])
        except IntegrityError:
            raise Conflict(f"pipeline {pipeline.id} is already shared with team {team.name!r}")
        return Response(TeamShareSerializer(share).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Stop sharing with a team (owner only)",
                   parameters=[OpenApiParameter("share_id", int, OpenApiParameter.PATH)],
                   responses=responses({204: None}, 404))
    @action(detail=True, methods=["delete"], url_path=r"team-shares/(?P<share_id>\d{1,18})")
    def team_share(self, request, pk=None, share_id=None):
        pipeline = self.get_object()
        get_object_or_404(TeamShare, pipeline=pipeline, pk=share_id).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
