"""What ran: a version's test cases (a suite run), and the exactly-once proof of one test case.

Both belong to their pipeline (``owning_pipeline``) and follow its sharing. A suite run of a
draft (the editor's unsaved definition) has no version; a proof is always of a saved version:
its verdict is a badge on that version. Inputs and outputs of both are files in the
pipeline's workspace (``workdir``).
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from studio.models import Pipeline, PipelineVersion


class Verdict(models.TextChoices):
    QUEUED = "queued", "queued"
    RUNNING = "running", "running"
    PASSED = "passed", "passed"
    FAILED = "failed", "failed"
    ERROR = "error", "error"
    INCONCLUSIVE = "inconclusive", "inconclusive (the output depends on the parallelism)"


FINAL = (Verdict.PASSED, Verdict.FAILED, Verdict.ERROR, Verdict.INCONCLUSIVE)


class SuiteRun(models.Model):
    """A run of some or all of a definition's test cases, bounded and streaming, in a budgeted worker."""

    pipeline = models.ForeignKey(Pipeline, related_name="suite_runs", on_delete=models.CASCADE)
    version = models.ForeignKey(PipelineVersion, related_name="suite_runs", null=True, blank=True,
                                on_delete=models.CASCADE)
    status = models.CharField(max_length=16, choices=Verdict.choices, default=Verdict.RUNNING)
    cases = models.JSONField(default=list)
    """The names of the test cases it ran, in the definition's order."""
    results = models.JSONField(default=list)
    """``engine.api.run_test_case``'s result per test case."""
    error = models.TextField(blank=True)
    environment = models.CharField(max_length=100, null=True, blank=True)
    """The environment whose parameters it ran with, by name (null: none, the definition as written)."""
    parameters = models.JSONField(default=dict, blank=True)
    """Those parameters as they were when it ran (a secret stays a reference), as a run's ``EnvironmentRun`` keeps them."""
    duration_s = models.FloatField(null=True, blank=True)
    workdir = models.CharField(max_length=1000, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", null=True, blank=True,
                                   on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["pipeline", "version", "-created_at"])]

    @property
    def owning_pipeline(self) -> Pipeline:
        return self.pipeline

    def counts(self) -> dict:
        statuses = [result.get("status") for result in self.results or []]
        return {status: statuses.count(status) for status in ("passed", "failed", "error")}


class Proof(models.Model):
    """The exactly-once proof of a version on one of its test cases: killed and restored on Spark."""

    pipeline = models.ForeignKey(Pipeline, related_name="proofs", on_delete=models.CASCADE)
    version = models.ForeignKey(PipelineVersion, related_name="proofs", on_delete=models.CASCADE)
    test_case = models.CharField(max_length=200)
    kills = models.PositiveIntegerField(default=10)
    seed = models.BigIntegerField()
    rescale = models.BooleanField(default=True)
    status = models.CharField(max_length=16, choices=Verdict.choices, default=Verdict.QUEUED)
    message = models.TextField(blank=True)
    result = models.JSONField(default=dict)
    """``engine.api.prove_exactly_once``'s result: phases, kills planned and fired, sinks, the first difference."""
    workdir = models.CharField(max_length=1000, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", null=True, blank=True,
                                   on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["pipeline", "version", "-created_at"])]

    @property
    def owning_pipeline(self) -> Pipeline:
        return self.pipeline

    @property
    def is_final(self) -> bool:
        return self.status in FINAL
