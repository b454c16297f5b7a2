"""Environments with their parameters, the versions promoted to them, promotions awaiting approval, what
runs where, and secrets."""
from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from studio.models import Pipeline, PipelineVersion, Run, Team, TeamRole

NAME = RegexValidator(r"^[A-Za-z_][A-Za-z0-9_.-]{0,99}$",
                      "a name is letters, digits, '_', '.' and '-', starting with a letter or '_'")


class Environment(models.Model):
    """A place pipelines run in (dev, staging, prod), owned by a user or by a team, with the values of the
    parameters definitions name. ``position`` orders an owner's (or a team's) environments: a version is
    promoted from one to the next. With ``requires_approval``, a promotion into it waits for a user who holds
    ``approval_role`` (or a stronger team role) on the promoted pipeline (``studio.access.holds_role``), never
    the user who asked; and only a version promoted into it runs in it.

    A team's environment (``team``) is used with the team's pipelines by its members whose role uses the
    team's things (``studio.environments.access``), and changed by the team's admins; ``owner`` is then
    only who made it."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="environments", on_delete=models.CASCADE)
    # a team that owns it; a team is not deleted while it owns environments
    team = models.ForeignKey(Team, related_name="environments", null=True, blank=True, on_delete=models.PROTECT)
    name = models.CharField(max_length=100, validators=[NAME])
    position = models.PositiveIntegerField(default=0)
    description = models.CharField(max_length=500, blank=True, default="")
    parameters = models.JSONField(default=dict, blank=True)
    requires_approval = models.BooleanField(default=False)
    approval_role = models.CharField(max_length=16, choices=TeamRole.choices, default=TeamRole.OPERATOR)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], condition=models.Q(team__isnull=True),
                                    name="unique_environment_name_per_owner"),
            models.UniqueConstraint(fields=["team", "name"], condition=models.Q(team__isnull=False),
                                    name="unique_environment_name_per_team"),
        ]

    def __str__(self) -> str:
        return f"team {self.team_id}/{self.name}" if self.team_id else f"{self.owner_id}/{self.name}"

    def siblings(self) -> models.QuerySet:
        """The environments of the same owner, or of the same team: the chain a version is promoted along."""
        if self.team_id is not None:
            return Environment.objects.filter(team_id=self.team_id)
        return Environment.objects.filter(owner_id=self.owner_id, team__isnull=True)

    def previous(self) -> "Environment | None":
        """The environment a version comes from when it is promoted into this one (None: the first)."""
        return self.siblings().filter(position__lt=self.position).order_by("-position", "-id").first()


class PromotedVersion(models.Model):
    """The version of a pipeline an environment has now (by its last applied promotion)."""

    environment = models.ForeignKey(Environment, related_name="promoted", on_delete=models.CASCADE)
    pipeline = models.ForeignKey(Pipeline, related_name="+", on_delete=models.CASCADE)
    version = models.ForeignKey(PipelineVersion, related_name="+", on_delete=models.CASCADE)
    promotion = models.ForeignKey("Promotion", related_name="+", null=True, blank=True, on_delete=models.SET_NULL)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["environment", "pipeline"]
        constraints = [models.UniqueConstraint(fields=["environment", "pipeline"],
                                               name="one_promoted_version_per_environment")]

    @property
    def owning_pipeline(self) -> Pipeline:
        return self.pipeline


class PromotionStatus(models.TextChoices):
    PENDING = "PENDING", "waiting for an approver"
    APPLIED = "APPLIED", "the environment has the version"
    REJECTED = "REJECTED", "an approver refused it"
    WITHDRAWN = "WITHDRAWN", "the user who asked withdrew it"


class Promotion(models.Model):
    """A request to put ``version`` into ``target`` (from ``source``, the environment before it), with the
    diff the approver sees, who asked and who decided, when and why."""

    pipeline = models.ForeignKey(Pipeline, related_name="+", on_delete=models.CASCADE)
    version = models.ForeignKey(PipelineVersion, related_name="+", on_delete=models.CASCADE)
    source = models.ForeignKey(Environment, related_name="+", null=True, blank=True, on_delete=models.SET_NULL)
    target = models.ForeignKey(Environment, related_name="promotions", on_delete=models.CASCADE)
    status = models.CharField(max_length=16, choices=PromotionStatus.choices, default=PromotionStatus.PENDING)
    diff = models.JSONField(default=dict)
    message = models.CharField(max_length=500, blank=True, default="")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", null=True,
                                     on_delete=models.SET_NULL)
    requested_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", null=True, blank=True,
                                   on_delete=models.SET_NULL)
    decided_at = models.DateTimeField(null=True, blank=True)
    comment = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["-requested_at", "-id"]

    @property
    def owning_pipeline(self) -> Pipeline:
        return self.pipeline


class EnvironmentRun(models.Model):
    """What runs where: the environment a run was started in and the parameters it got (as they were
    then; a secret stays a reference)."""

    run = models.OneToOneField(Run, related_name="+", primary_key=True, on_delete=models.CASCADE)
    environment = models.ForeignKey(Environment, related_name="runs", null=True, on_delete=models.SET_NULL)
    environment_name = models.CharField(max_length=100)
    parameters = models.JSONField(default=dict)

    class Meta:
        ordering = ["-run"]

    @property
    def owning_pipeline(self) -> Pipeline:
        return self.run.pipeline


class Secret(models.Model):
    """A value a user's runs may use as ``${secret:name}``: sealed at rest (``studio.secret_box``), filled in
    only inside a run's driver, and never part of an answer.

    A team's secret (``team``) is filled into the team's pipelines for its members whose role uses the team's
    things, and only the team's admins replace or delete it (``studio.environments.access``); ``owner`` is
    then only who made it. A team deleted takes its secrets with it."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="secrets", on_delete=models.CASCADE)
    team = models.ForeignKey(Team, related_name="secrets", null=True, blank=True, on_delete=models.CASCADE)
    name = models.CharField(max_length=100, validators=[NAME])
    sealed = models.TextField()
    description = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], condition=models.Q(team__isnull=True),
                                    name="unique_secret_name_per_owner"),
            models.UniqueConstraint(fields=["team", "name"], condition=models.Q(team__isnull=False),
                                    name="unique_secret_name_per_team"),
        ]

    def __str__(self) -> str:
        return f"team {self.team_id}/{self.name}" if self.team_id else f"{self.owner_id}/{self.name}"
