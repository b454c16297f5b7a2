"""Which file of which repository and branch a pipeline lives in, and how far the two agree."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from studio.models import Pipeline


class GitBinding(models.Model):
    """``pipeline`` is kept in ``path`` on ``branch`` of ``repository``.

    ``synced_commit`` and ``synced_version`` are the last point where both held the same
    definition: what changed after it on either side is new there, and a change on both sides
    is a conflict, recorded in ``conflict`` until someone chooses which side to take. The environment
    files beside it (``studio.environment_files``) agree file by file, in ``environments_agreed``."""

    pipeline = models.OneToOneField(Pipeline, related_name="git_binding", on_delete=models.CASCADE)
    repository = models.CharField(max_length=1000)
    branch = models.CharField(max_length=200, default="main")
    path = models.CharField(max_length=500)
    synced_commit = models.CharField(max_length=40, blank=True, default="")
    synced_version = models.PositiveIntegerField(null=True, blank=True)
    conflict = models.TextField(blank=True, default="")
    # the environment files beside the pipeline's where both sides last held the same text: {path: sha256 of it}
    environments_agreed = models.JSONField(default=dict, blank=True)
    last_error = models.TextField(blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", null=True, blank=True,
                                   on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    @property
    def owning_pipeline(self) -> Pipeline:
        return self.pipeline
