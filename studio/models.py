"""Pipelines, their immutable versions, runs, checkpoints, savepoint requests and the stored run events.

Ownership: a pipeline belongs to the user who created it, or to a ``Team`` (then its members
hold what their ``TeamRole`` gives, and the creator nothing more than their role); a
``PipelineShare`` grants a group view (always), and optionally edit and run, on it; a
``TeamShare`` grants a team's members a role on it, capped by their role in the team. Runs,
checkpoints and savepoints are visible to whoever may view their pipeline (``studio.access``).
"""
from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from studio.change_tokens import CheckpointQuerySet, PipelineQuerySet, RunQuerySet, SavepointRequestQuerySet, new_token


class TeamRole(models.TextChoices):
    """A member's role in a team, each holding what the one before holds and more
    (``studio.teams.ROLE_PERMISSIONS`` maps them onto the pipeline permissions)."""

    VIEWER = "viewer"
    EDITOR = "editor"
    OPERATOR = "operator"
    ADMIN = "admin"


class Team(models.Model):
    """Users who own pipelines together; only its members see it (``studio.teams``)."""

    name = models.CharField(max_length=100, unique=True)
    description = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class TeamMembership(models.Model):
    """``user`` belongs to ``team`` with ``role``."""

    team = models.ForeignKey(Team, related_name="memberships", on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="team_memberships", on_delete=models.CASCADE)
    role = models.CharField(max_length=16, choices=TeamRole.choices, default=TeamRole.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team", "id"]
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="unique_membership_per_team")]


class Pipeline(models.Model):
    """A named pipeline; its definition lives in immutable versions."""

    name = models.CharField(max_length=200)
    # who created it; it owns the pipeline only while no team does
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="pipelines", null=True, blank=True,
                              on_delete=models.SET_NULL)
    # a team that owns it: its members hold what their role gives (a team with pipelines is not deleted)
    team = models.ForeignKey(Team, related_name="pipelines", null=True, blank=True, on_delete=models.PROTECT)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    isolated = models.BooleanField(default=False, help_text=(
        "Run in a driver and Spark application of its own instead of the studio's shared session "
        "(runs with Python code always are)."))
    # New at every change of this row, and of any of its runs (``studio.change_tokens``): what
    # cached responses are keyed by
    change_token = models.CharField(max_length=16, default=new_token, editable=False)
    runs_change_token = models.CharField(max_length=16, default=new_token, editable=False)

    objects = PipelineQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at", "-id"]
        permissions = [("run_python_code", "Can save and run pipelines with Python code (transform.python)")]
        base_manager_name = "objects"

    def save(self, *args, **kwargs):
        """Save with a new ``change_token``."""
        self.change_token = new_token()
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "change_token"}
        super().save(*args, **kwargs)

    def latest_version(self) -> "PipelineVersion":
        """The newest version (cached on this instance; ``save_version`` keeps the cache right)."""
        if getattr(self, "_latest_version", None) is None:
            self._latest_version = self.versions.order_by("-number").first()
        return self._latest_version

    def save_version(self, definition: dict, message: str = "", user=None) -> "PipelineVersion":
        """Append an immutable version; concurrent saves of one pipeline get distinct numbers."""
        with transaction.atomic():
            locked = Pipeline.objects.select_for_update().get(pk=self.pk)
            last = locked.versions.aggregate(last=models.Max("number"))["last"] or 0
            version = PipelineVersion.objects.create(pipeline=locked, number=last + 1, definition=definition,
                                                     message=message, created_by=user)
            locked.save(update_fields=["updated_at"])
        self.updated_at = locked.updated_at
        self._latest_version = version
        return version


class PipelineShare(models.Model):
    """A group's access to a pipeline: view always, edit and run when granted."""

    pipeline = models.ForeignKey(Pipeline, related_name="shares", on_delete=models.CASCADE)
    group = models.ForeignKey("auth.Group", related_name="pipeline_shares", on_delete=models.CASCADE)
    can_edit = models.BooleanField(default=False)
    can_run = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["pipeline", "group"], name="unique_share_per_group")]

    @property
    def permissions(self) -> list[str]:
        return ["view"] + (["edit"] if self.can_edit else []) + (["run"] if self.can_run else [])


class TeamShare(models.Model):
    """A team's access to a pipeline it does not own: each member holds ``role`` or their own role in
    the team, whichever is less (a team's viewer stays a viewer). Never admin: owning stays with the owner."""

    pipeline = models.ForeignKey(Pipeline, related_name="team_shares", on_delete=models.CASCADE)
    team = models.ForeignKey(Team, related_name="shares", on_delete=models.CASCADE)
    role = models.CharField(max_length=16, choices=TeamRole.choices[:3], default=TeamRole.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["pipeline", "team"], name="unique_share_per_team")]


class PipelineVersion(models.Model):
    """One saved definition of a pipeline; never changed after it is written."""

    pipeline = models.ForeignKey(Pipeline, related_name="versions", on_delete=models.CASCADE)
    number = models.PositiveIntegerField()
    definition = models.JSONField()
    message = models.CharField(max_length=500, blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", null=True, blank=True,
                                   on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["pipeline", "number"], name="unique_version_number")]


class RunStatus(models.TextChoices):
    CREATED = "CREATED"
    SCHEDULING = "SCHEDULING"
    RUNNING = "RUNNING"
    FINISHING = "FINISHING"
    FINISHED = "FINISHED"
    CANCELING = "CANCELING"
    CANCELED = "CANCELED"
    FAILING = "FAILING"
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"


TERMINAL_STATUSES = frozenset({RunStatus.FINISHED, RunStatus.CANCELED, RunStatus.FAILED})


class Run(models.Model):
    """One execution of a pipeline version; its status mirrors the driver's reports."""

    pipeline = models.ForeignKey(Pipeline, related_name="runs", on_delete=models.CASCADE)
    version = models.ForeignKey(PipelineVersion, related_name="runs", on_delete=models.PROTECT)
    mode = models.CharField(max_length=16, default="streaming")
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.CREATED)
    status_history = models.JSONField(default=list, blank=True)  # [{"status", "ts" (epoch ms), "cause"?}]
    failure_cause = models.TextField(null=True, blank=True)
    plan = models.JSONField(null=True, blank=True)
    collected = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", null=True, blank=True,
                                   on_delete=models.SET_NULL)
    restored_from = models.ForeignKey("Checkpoint", related_name="restored_runs", null=True, blank=True,
                                      on_delete=models.SET_NULL)
    restore_path = models.CharField(max_length=1000, blank=True, default="")
    allow_non_restored_state = models.BooleanField(default=False)
    driver_pid = models.IntegerField(null=True, blank=True)
    # The fencing token of the driver that may report for this run; a driver declared lost
    # gets a new one written here, so whatever it still reports is refused (studio.runs.liveness)
    driver_token = models.CharField(max_length=64, blank=True, default="")
    spark_app_id = models.CharField(max_length=200, blank=True, default="")
    # Where its job runs (``studio.runs.placement``): "session" (the shared Spark application) or
    # "own_driver", and why, decided at launch; empty until then
    placement = models.CharField(max_length=16, blank=True, default="")
    placement_reason = models.CharField(max_length=300, blank=True, default="")
    checkpoint_dir = models.CharField(max_length=1000, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # New at every change of this row, its checkpoints and savepoint requests, and whatever
    # else its REST answers show (``studio.change_tokens``): what cached responses are keyed by
    change_token = models.CharField(max_length=16, default=new_token, editable=False, db_index=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status"], name="run_status")]
        base_manager_name = "objects"

    def save(self, *args, **kwargs):
        """Save with a new ``change_token``, and a new ``runs_change_token`` on the pipeline (one transaction)."""
        self.change_token = new_token()
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "change_token"}
        with transaction.atomic(savepoint=False):
            super().save(*args, **kwargs)
            Pipeline.objects.filter(pk=self.pipeline_id).touch_runs()

    def delete(self, *args, **kwargs):
        """Delete, with a new ``runs_change_token`` on the pipeline (one transaction)."""
        with transaction.atomic(savepoint=False):
            deleted = super().delete(*args, **kwargs)
            Pipeline.objects.filter(pk=self.pipeline_id).touch_runs()
            return deleted

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES


class Checkpoint(models.Model):
    """A checkpoint or savepoint of a run, with Flink's statistics field names."""

    run = models.ForeignKey(Run, related_name="checkpoints", on_delete=models.CASCADE)
    checkpoint_id = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, default="checkpoint")  # checkpoint | savepoint | sync-savepoint
    status = models.CharField(max_length=16, default="IN_PROGRESS")
    trigger_timestamp = models.BigIntegerField()
    latest_ack_timestamp = models.BigIntegerField(null=True, blank=True)
    end_to_end_duration = models.BigIntegerField(null=True, blank=True)
    alignment_duration = models.FloatField(null=True, blank=True)  # the slowest subtask's alignment
    unaligned = models.BooleanField(default=False)  # some subtask took it on its first barrier
    persisted_data = models.BigIntegerField(default=0)  # bytes of in-flight data (channel state) persisted
    state_size = models.BigIntegerField(default=0)
    num_acknowledged_subtasks = models.PositiveIntegerField(default=0)
    num_subtasks = models.PositiveIntegerField(default=0)
    external_path = models.CharField(max_length=1000, blank=True, default="")
    failure_message = models.TextField(null=True, blank=True)
    discarded = models.BooleanField(default=False)  # its files were deleted (retention, or by a user)
    trigger = models.CharField(max_length=16, blank=True, default="")  # savepoints: their request's trigger
    subtasks = models.JSONField(default=list, blank=True)

    objects = CheckpointQuerySet.as_manager()

    class Meta:
        ordering = ["-checkpoint_id"]
        constraints = [models.UniqueConstraint(fields=["run", "checkpoint_id"], name="unique_checkpoint_per_run")]
        indexes = [models.Index(fields=["run", "status", "checkpoint_id"], name="checkpoint_run_status_id")]
        base_manager_name = "objects"

    def save(self, *args, **kwargs):
        """Save, and touch the runs that show this checkpoint (one transaction)."""
        with transaction.atomic(savepoint=False):
            super().save(*args, **kwargs)
            Run.objects.showing_checkpoints([self.run_id], [self.pk]).update()

    def delete(self, *args, **kwargs):
        """Delete, and touch the runs that showed it (one transaction)."""
        with transaction.atomic(savepoint=False):
            Run.objects.showing_checkpoints([self.run_id], [self.pk]).update()
            return super().delete(*args, **kwargs)

    @property
    def is_savepoint(self) -> bool:
        return self.kind != "checkpoint"


class SavepointStatus(models.TextChoices):
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"


class SavepointTrigger(models.TextChoices):
    """Who asked for a savepoint: a user, a schedule, or a stop with savepoint."""

    MANUAL = "manual"
    SCHEDULED = "scheduled"
    STOP = "stop"


class SavepointRequest(models.Model):
    """A savepoint asked for over REST (a trigger, or a stop with savepoint) or by a schedule, pollable by its
    request id."""

    request_id = models.CharField(max_length=64, unique=True)
    run = models.ForeignKey(Run, related_name="savepoint_requests", on_delete=models.CASCADE)
    kind = models.CharField(max_length=16, default="savepoint")  # savepoint | sync-savepoint (stop)
    drain = models.BooleanField(null=True, blank=True)  # stop with savepoint only
    trigger = models.CharField(max_length=16, choices=SavepointTrigger.choices, default=SavepointTrigger.MANUAL)
    # the schedule that asked (the schedules app's; a string, so the core imports no feature)
    schedule = models.ForeignKey("schedules.SavepointSchedule", related_name="requests", null=True, blank=True,
                                 on_delete=models.SET_NULL)
    target_directory = models.CharField(max_length=1000, blank=True, default="")
    status = models.CharField(max_length=16, choices=SavepointStatus.choices, default=SavepointStatus.IN_PROGRESS)
    location = models.CharField(max_length=1000, blank=True, default="")
    failure_cause = models.TextField(null=True, blank=True)
    checkpoint = models.ForeignKey(Checkpoint, related_name="requests", null=True, blank=True,
                                   on_delete=models.SET_NULL)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", null=True, blank=True,
                                   on_delete=models.SET_NULL)
    triggered_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)

    objects = SavepointRequestQuerySet.as_manager()

    class Meta:
        ordering = ["-triggered_at", "-id"]
        base_manager_name = "objects"

    def save(self, *args, **kwargs):
        """Save, and touch its run, whose answer lists its savepoint requests (one transaction)."""
        with transaction.atomic(savepoint=False):
            super().save(*args, **kwargs)
            Run.objects.filter(pk=self.run_id).update()

    def delete(self, *args, **kwargs):
        """Delete, and touch its run (one transaction)."""
        with transaction.atomic(savepoint=False):
            Run.objects.filter(pk=self.run_id).update()
            return super().delete(*args, **kwargs)

    @staticmethod
    def new_request_id() -> str:
        return secrets.token_hex(16)


class RunEvent(models.Model):
    """Everything a run reported, in order; stored before it is fanned out to WebSockets.

    Seqs have no holes but those a ``folded`` event accounts for: the history's retention
    (``studio.runs.history``) replaces metrics and checkpoint-progress events that aged out with
    one ``folded`` event at the last seq of the range, its data naming the range and what it held."""

    run = models.ForeignKey(Run, related_name="events", on_delete=models.CASCADE)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    ts = models.BigIntegerField()
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="unique_event_seq_per_run")]
        indexes = [models.Index(fields=["run", "type", "seq"], name="run_event_type_seq")]


class RollupResolution(models.TextChoices):
    """The span of a checkpoint rollup: a minute or an hour of trigger times, or the whole run."""

    MINUTE = "minute"
    HOUR = "hour"
    RUN = "run"


class CheckpointRollup(models.Model):
    """Checkpoints of a run folded out of the detailed history (``studio.runs.history``): per minute or
    hour of their trigger times, and once for the whole run, what the summary and the long-range
    timeline need of them (``studio.runs.rollups``: counts, sums, min, max and a sketch of each
    summarised figure's distribution). Only plain checkpoints are ever folded, never savepoints."""

    run = models.ForeignKey(Run, related_name="checkpoint_rollups", on_delete=models.CASCADE)
    resolution = models.CharField(max_length=8, choices=RollupResolution.choices)
    bucket_start = models.BigIntegerField()  # epoch ms of the minute or hour; 0 for the whole run
    completed = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    unaligned = models.PositiveIntegerField(default=0)
    first_checkpoint_id = models.PositiveIntegerField()
    last_checkpoint_id = models.PositiveIntegerField()
    first_trigger_timestamp = models.BigIntegerField()
    last_trigger_timestamp = models.BigIntegerField()
    figures = models.JSONField(default=dict)  # {figure: {"count", "sum", "min", "max", "sketch"}}: completed ones

    class Meta:
        ordering = ["resolution", "bucket_start"]
        constraints = [models.UniqueConstraint(fields=["run", "resolution", "bucket_start"],
                                               name="unique_rollup_per_bucket")]


class RunHistory(models.Model):
    """Where the retention of a run's event log stands (``studio.runs.history``): every event up to
    ``events_through`` was looked at; of the failed checkpoints' events kept since, their seqs (the
    oldest are folded once there are more than the cap)."""

    run = models.OneToOneField(Run, related_name="history", on_delete=models.CASCADE)
    events_through = models.PositiveIntegerField(default=0)
    failed_event_seqs = models.JSONField(default=list, blank=True)
    folded_at = models.DateTimeField(null=True, blank=True)


class ApiToken(models.Model):
    """A named token for scripts (``Authorization: Token <key>``); only its hash is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="api_tokens", on_delete=models.CASCADE)
    name = models.CharField(max_length=100)
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    @staticmethod
    def hash_key(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()

    @classmethod
    def issue(cls, user, name: str) -> tuple["ApiToken", str]:
        """Create a token; return it with its key, which is never stored and shown only now."""
        key = secrets.token_hex(20)
        token = cls.objects.create(user=user, name=name, key_hash=cls.hash_key(key), prefix=key[:8])
        return token, key


def now_ms() -> int:
    return int(timezone.now().timestamp() * 1000)


class LocationKind(models.TextChoices):
    PATH = "path"
    URL = "url"
    REDIS = "redis"
    POSTGRES = "postgres"
    KAFKA = "kafka"


class StorageLocation(models.Model):
    """A place pipelines may read or write, configured by an administrator (``studio.locations``).

    ``prefix``: a directory or URL prefix (``path``: ``/srv/data``, ``s3://bucket/team``), an HTTP origin
    with an optional path (``url``), ``redis://host:port[/db]``, ``postgresql://host:port[/database]`` or
    ``kafka://host:port,host:port`` (the brokers of one Kafka cluster).
    ``{user}`` in a prefix becomes the user's name and ``{data_dir}`` the studio's data directory, so one
    location can give every user a directory of their own. A sink target inside a location belongs to one
    pipeline unless the location is ``shared``.
    """

    name = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=16, choices=LocationKind.choices)
    prefix = models.CharField(max_length=1000)
    description = models.CharField(max_length=500, blank=True, default="")
    shared = models.BooleanField(default=False, help_text="Several pipelines may write into the same target.")
    all_users = models.BooleanField(default=False, help_text="Granted (read and write) to every user.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind} {self.prefix})"


class LocationGrant(models.Model):
    """A user's, a group's or a team's access to a storage location: read, and write unless ``can_write`` is off.

    A team's grant is its members' while they are members with a role that uses the team's things (an editor
    and up, ``studio.access.teams_with``); it is asked for at every use, as a user's is, so a member who leaves
    (or becomes a viewer) loses it from their next validation, preview or run on."""

    location = models.ForeignKey(StorageLocation, related_name="grants", on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="location_grants", null=True, blank=True,
                             on_delete=models.CASCADE)
    group = models.ForeignKey("auth.Group", related_name="location_grants", null=True, blank=True,
                              on_delete=models.CASCADE)
    team = models.ForeignKey(Team, related_name="location_grants", null=True, blank=True, on_delete=models.CASCADE)
    can_write = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(name="grant_to_user_group_or_team",
                                   condition=(models.Q(user__isnull=False, group__isnull=True, team__isnull=True)
                                              | models.Q(user__isnull=True, group__isnull=False, team__isnull=True)
                                              | models.Q(user__isnull=True, group__isnull=True, team__isnull=False))),
        ]


class SinkClaim(models.Model):
    """A sink target (a resolved directory or URL) written by one pipeline; another pipeline may not
    write into it, nor into a directory above or below it, unless its location is shared."""

    target = models.CharField(max_length=1000, unique=True)
    pipeline = models.ForeignKey(Pipeline, related_name="sink_claims", on_delete=models.CASCADE)
    node = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["target"]


class RescaleStatus(models.TextChoices):
    STOPPING = "STOPPING"  # the old run stops with a savepoint
    STARTING = "STARTING"  # the new run starts from it at the new parallelism
    COMPLETED = "COMPLETED"  # the new run is RUNNING
    ROLLED_BACK = "ROLLED_BACK"  # the new run failed: the old parallelism runs again from the same savepoint
    FAILED = "FAILED"  # the savepoint failed (the old run goes on), or the rollback could not start


class Rescale(models.Model):
    """A one-click rescale of a run: stop with savepoint, then a run of a rescaled version from it."""

    run = models.ForeignKey(Run, related_name="rescales", on_delete=models.CASCADE)
    from_version = models.ForeignKey(PipelineVersion, related_name="+", on_delete=models.CASCADE)
    to_version = models.ForeignKey(PipelineVersion, related_name="+", on_delete=models.CASCADE)
    parallelism = models.JSONField(default=dict)  # {"parallelism": n?, "nodes": {node id: n}}
    savepoint_request = models.ForeignKey(SavepointRequest, related_name="+", null=True, on_delete=models.SET_NULL)
    new_run = models.ForeignKey(Run, related_name="+", null=True, blank=True, on_delete=models.SET_NULL)
    rollback_run = models.ForeignKey(Run, related_name="+", null=True, blank=True, on_delete=models.SET_NULL)
    status = models.CharField(max_length=16, choices=RescaleStatus.choices, default=RescaleStatus.STOPPING)
    message = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", null=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
