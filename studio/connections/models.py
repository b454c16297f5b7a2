"""Connection profiles and who they are shared with."""
from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

PROFILE_NAME = RegexValidator(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$",
                              "a profile name is letters, digits, '.', '_' and '-', starting with a letter or digit")


class ConnectionKind(models.TextChoices):
    KAFKA = "kafka", "Kafka cluster (host:port,host:port)"
    POSTGRES = "postgres", "PostgreSQL database (postgresql://user@host:port/database)"
    REDIS = "redis", "Redis server (redis://host:port/db)"


class ConnectionProfile(models.Model):
    """A named address a user owns: nodes name it (``connection:<name>``) and get its address when a job is
    built. ``address`` holds no password; ``secret`` holds it encrypted (``studio.secret_box``).
    The location grants apply to the address whoever names the profile, checked when it is used."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="connection_profiles", on_delete=models.CASCADE)
    # a team that owns it: its members use it by role (``studio.access.teams_with``), its creator no more than
    # their role; a team deleted hands its profiles back to their creators
    team = models.ForeignKey("studio.Team", related_name="connection_profiles", null=True, blank=True,
                             on_delete=models.SET_NULL)
    name = models.CharField(max_length=100, validators=[PROFILE_NAME])
    kind = models.CharField(max_length=16, choices=ConnectionKind.choices)
    address = models.CharField(max_length=2000)
    secret = models.TextField(blank=True, default="")
    description = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="unique_profile_name_per_owner")]

    def __str__(self) -> str:
        return f"{self.owner_id}/{self.name} ({self.kind})"


class ConnectionShare(models.Model):
    """A user's or a group's right to use a profile (name it in their nodes, test it, browse it); only the
    owner changes, deletes or shares it, and nobody else sees its secret."""

    profile = models.ForeignKey(ConnectionProfile, related_name="shares", on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="connection_shares", null=True, blank=True,
                             on_delete=models.CASCADE)
    group = models.ForeignKey("auth.Group", related_name="connection_shares", null=True, blank=True,
                              on_delete=models.CASCADE)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(name="connection_share_to_user_or_group",
                                   condition=(models.Q(user__isnull=False, group__isnull=True)
                                              | models.Q(user__isnull=True, group__isnull=False))),
        ]
