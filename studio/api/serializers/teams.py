"""Teams, their members, and the teams a pipeline is shared with."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.validators import RegexValidator
from rest_framework import serializers

from studio.api.serializers.fields import (
    StrictCharField,
    StrictIntegerField,
    StrictModelSerializer,
    StrictSlugRelatedField,
)
from studio.models import LocationGrant, Team, TeamMembership, TeamRole, TeamShare

ROLE_HELP = ("viewer: sees the team's pipelines and runs; editor: also saves versions and uses Git; operator: "
             "also starts, stops and restores runs and takes savepoints; admin: also deletes, shares and moves "
             "pipelines and manages the team's members.")


class TeamSerializer(StrictModelSerializer):
    name = StrictCharField(max_length=100, validators=[RegexValidator(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}$")],
                           help_text="Letters, digits, spaces, '.', '_' and '-'; unique in the studio.")
    description = StrictCharField(max_length=500, required=False, allow_blank=True, default="")
    role = serializers.SerializerMethodField(help_text="Your role in the team.")
    members = serializers.SerializerMethodField(help_text="How many members the team has.")

    class Meta:
        model = Team
        fields = ["id", "name", "description", "role", "members", "created_at"]
        read_only_fields = ["id", "created_at"]
        validators = []  # a name taken is a 409, answered by the view

    def get_role(self, team: Team) -> str | None:
        roles = self.context.get("roles") or {}
        return roles.get(team.pk)

    def get_members(self, team: Team) -> int:
        return team.memberships.count()


class MemberSerializer(StrictModelSerializer):
    username = StrictSlugRelatedField(source="user", slug_field="username",
                                      queryset=get_user_model().objects.filter(is_active=True),
                                      help_text="The member's user name.")
    role = serializers.ChoiceField(TeamRole.choices, default=TeamRole.VIEWER, help_text=ROLE_HELP)

    class Meta:
        model = TeamMembership
        fields = ["id", "username", "role", "created_at"]
        read_only_fields = ["id", "created_at"]
        validators = []  # a second membership of one user is a 409, answered by the view


class RoleSerializer(serializers.Serializer):
    role = serializers.ChoiceField(TeamRole.choices, help_text=ROLE_HELP)


class TeamShareSerializer(StrictModelSerializer):
    team = StrictCharField(source="team.name", max_length=100, help_text="The name of one of your teams.")
    role = serializers.ChoiceField(TeamRole.choices[:3], default=TeamRole.VIEWER,
                                   help_text="The most its members may do (each also within their own role).")

    class Meta:
        model = TeamShare
        fields = ["id", "team", "role", "created_at"]
        read_only_fields = ["id", "created_at"]
        validators = []  # the view answers a second share with the same team with 409


class PipelineTeamSerializer(serializers.Serializer):
    team = StrictIntegerField(min_value=1, allow_null=True,
                              help_text="The team that is to own the pipeline (you must be at least its "
                                        "editor), or null: you own it yourself.")


class TeamLocationSerializer(serializers.ModelSerializer):
    """A storage location granted to a team, as its members see it (an administrator grants it)."""

    id = serializers.IntegerField(source="location.id", help_text="The location's id.")
    name = serializers.CharField(source="location.name")
    kind = serializers.CharField(source="location.kind")
    prefix = serializers.CharField(source="location.prefix", help_text="As configured ({user} stands for each member).")
    description = serializers.CharField(source="location.description")

    class Meta:
        model = LocationGrant
        fields = ["id", "name", "kind", "prefix", "description", "can_write"]
