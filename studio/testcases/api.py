"""``/api/pipelines/<pipeline>/test-runs``, ``.../proofs``, ``.../test-badges``: a pipeline's test cases run,
its versions proven exactly-once, and what each version's latest verdicts are.

- A **suite run** runs a version's test cases (``version``, the latest when omitted) or a
  draft's (``definition``, the editor's unsaved pipeline), all of them or those named in
  ``cases``, in a budgeted worker (``STUDIO_TEST_BUDGET_S``), and answers when they ended:
  per test case passed, failed (each failing assertion with its first difference) or error.
  It is kept: a version's suite runs are its test history. ``.../junit`` gives one as a
  JUnit XML report for CI jobs.
- A **proof** of a version runs one of its test cases on Spark while its subtasks are killed
  (``kills``, drawn from ``seed``; once restored at another parallelism) and compares each
  sink's output with a failure-free run. It is queued (202) and ends passed, failed (the
  first difference, the kills and the seed to replay them), inconclusive or error; one
  proof of a pipeline at a time.

Everything follows the pipeline's sharing: *view* reads, *run* runs tests and proofs. Inputs
and outputs are files in the pipeline's workspace (``tests/suite-<id>``, ``tests/proof-<id>``).
"""
from __future__ import annotations

import random
import shutil
import time

from django.core.validators import ProhibitNullCharactersValidator
from django.db import transaction
from django.http import Http404, HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from studio.access import RUN, pipelines_visible_to
from studio.api.definitions import filled_for
from studio.api.exceptions import Conflict, InvalidDefinition, ServiceBusy, rule_violation
from studio.api.parameters import int_param
from studio.api.permissions import check_pipeline_permission
from studio.api.schema import bounded_int, responses
from studio.api.serializers.fields import (DraftField, JSONObjectField, StrictBooleanField, StrictCharField,
                                          StrictIntegerField)
from studio.locations import policy_for, workspace_of
from studio.models import Pipeline, PipelineVersion
from studio.processes import budget
from studio.testcases.models import FINAL, Proof, SuiteRun, Verdict
from studio.trusted_code import require_code_permission

TAG = ["test cases"]
PIPELINE_ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The pipeline's id.")
TEST_RUN_ID = OpenApiParameter("test_run_id", int, OpenApiParameter.PATH, description="A run of test cases.")
PROOF_ID = OpenApiParameter("proof_id", int, OpenApiParameter.PATH, description="A proof.")
VERSION_FILTER = OpenApiParameter("version", bounded_int(1), description="Only this version's (a number).")
KEPT_WORKDIRS = 20


class CaseNameField(StrictCharField):
    """A test case's name as a request gives it: any string, matched against the definition's names (one
    that matches none, NUL characters and all, is the 400 naming the names there are)."""

    def __init__(self, **kwargs):
        super().__init__(trim_whitespace=False, **kwargs)
        self.validators = [validator for validator in self.validators
                           if not isinstance(validator, ProhibitNullCharactersValidator)]
        
"""Suite runs per pipeline whose input and output files stay in its workspace (the newest)."""


class PipelineNestedMixin:
    """Gives ``self.pipeline``: the URL's pipeline if the user may view it (404) and may do the action (403)."""

    @property
    def pipeline(self) -> Pipeline:
        if not hasattr(self, "_pipeline"):
            pipeline = pipelines_visible_to(self.request.user).filter(pk=self.kwargs["id"]).first()
            if pipeline is None:
                raise Http404("No pipeline matches the given query.")
            check_pipeline_permission(self.request, self, pipeline)
            self._pipeline = pipeline
        return self._pipeline

    def version_of(self, number: int | None, field: str = "version") -> PipelineVersion:
        if number is None:
            return self.pipeline.latest_version()
        version = self.pipeline.versions.filter(number=number).first()
        if version is None:
            raise rule_violation(field, f"pipeline {self.pipeline.id} has no version {number}")
        return version


def _version_filter(request, queryset):
    number = int_param(request, "version", minimum=1)
    return queryset if number is None else queryset.filter(version__number=number)


# --- suite runs ----------------------------------------------------------------------------------


class SuiteRunRequestSerializer(serializers.Serializer):
    version = StrictIntegerField(required=False, min_value=1, max_value=2 ** 31 - 1,
                                 help_text="The version whose test cases run; the latest when omitted.")
    definition = DraftField(required=False, help_text="A draft (the editor's unsaved pipeline) whose test cases run "
                                                      "instead of a version's; nothing of it is saved.")
    cases = serializers.ListField(child=CaseNameField(max_length=200), required=False, max_length=100,
                                  help_text="The names of the test cases to run; all when omitted.")
    environment = StrictCharField(required=False, allow_blank=True, max_length=100, help_text=(
        "The environment whose parameters the definition's ${param:name} take (by name), as a run started there "
        "gets them; none when empty. Your ${secret:name} are filled in and masked in the results."))

    def validate(self, data):
        if "version" in data and "definition" in data:
            raise rule_violation("definition", "give a version or a draft definition, not both")
        return data


class SuiteRunSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="version.number", read_only=True, allow_null=True, default=None,
                                       help_text="The version it ran; null for a draft.")
    created_by = serializers.CharField(source="created_by.username", read_only=True, allow_null=True, default=None)
    counts = serializers.SerializerMethodField()
    environment = serializers.CharField(read_only=True, allow_null=True, help_text=(
        "The environment whose parameters its ${param:name} took, by name (null: none, the definition as written)."))
    parameters = JSONObjectField(read_only=True, help_text=(
        "Those parameters as they were when it ran ({} without an environment); a secret stays a reference."))
    results = serializers.ListField(child=JSONObjectField(), help_text=(
        "Per test case: name, status (passed, failed, error), modes, assertions (each passed or not, its message "
        "and first difference), agreement of the bounded and streaming runs, nodes (per node: count, first "
        "records, status), failures (one line each), duration_s."))

    class Meta:
        model = SuiteRun
        fields = ["id", "pipeline", "version", "environment", "parameters", "status", "cases", "counts", "results",
                  "error", "duration_s", "created_by", "created_at", "finished_at"]
        read_only_fields = fields

    def get_counts(self, run: SuiteRun) -> dict[str, int]:
        return run.counts()


class SuiteRunListSerializer(SuiteRunSerializer):
    class Meta(SuiteRunSerializer.Meta):
        fields = [name for name in SuiteRunSerializer.Meta.fields if name != "results"]
        read_only_fields = fields


def _overrun(results: list[dict]) -> str:
    """The budget's message when the engine itself stopped a test case's job for running past its
    share of the budget (on a quick machine it does so before the worker's own budget fires)."""
    from django.conf import settings

    for result in results:
        for mode in (result.get("runs") or {}).values():
            if mode.get("status") == "CANCELED" and str(mode.get("failure", "")).startswith("the job did not finish"):
                return (f"the test cases exceeded their {settings.STUDIO_TEST_BUDGET_S:g} s budget and were stopped "
                        f"in test case '{result.get('name')}'")
    return ""


def verdict_of(results: list[dict]) -> str:
    statuses = {result["status"] for result in results}
    return Verdict.ERROR if "error" in statuses else Verdict.FAILED if "failed" in statuses else Verdict.PASSED


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="Runs of the pipeline's test cases, newest first (without their results)",
                       parameters=[PIPELINE_ID, VERSION_FILTER],
                       responses=responses({200: SuiteRunListSerializer(many=True)}, 404)),
    retrieve=extend_schema(tags=TAG, summary="One run of test cases with every result",
                           parameters=[PIPELINE_ID, TEST_RUN_ID], responses=responses({200: SuiteRunSerializer}, 404)),
    create=extend_schema(tags=TAG, summary="Run a version's (or a draft's) test cases now; answers when they ended",
                         description="Runs in a worker within a budget (STUDIO_TEST_BUDGET_S, 60 s by default); "
                                     "each test case runs bounded and streaming unless it names one mode.",
                         parameters=[PIPELINE_ID], request=SuiteRunRequestSerializer,
                         responses=responses({201: SuiteRunSerializer}, 404)),
)
class SuiteRunViewSet(PipelineNestedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    lookup_url_kwarg = "test_run_id"  # below the pipeline's {id}
    serializer_class = SuiteRunSerializer
    action_permissions = {"create": RUN}
    pagination_class = None

    def get_queryset(self):
        runs = SuiteRun.objects.filter(pipeline=self.pipeline).select_related("version", "created_by")
        return _version_filter(self.request, runs)[:200] if self.action == "list" else runs

    def get_serializer_class(self):
        return SuiteRunListSerializer if self.action == "list" else SuiteRunSerializer

    def create(self, request, *args, **kwargs):
        pipeline = self.pipeline
        body = SuiteRunRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        version = None if "definition" in data else self.version_of(data.get("version"))
        definition = data["definition"] if version is None else version.definition
        names = _case_names(definition, data.get("cases"))
        require_code_permission(request.user, definition, "test")
        filled = filled_for(request.user, pipeline, definition, data.get("environment"))
        run = SuiteRun.objects.create(pipeline=pipeline, version=version, cases=names, created_by=request.user,
                                      environment=filled.values.environment, parameters=filled.values.parameters)
        workdir = workspace_of(pipeline) / "tests" / f"suite-{run.id}"
        workdir.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        try:
            outcome = budget.run_test_cases(filled.definition, data.get("cases"), str(workdir),
                                            policy_for(request.user, pipeline), secrets=filled.secrets)
        except budget.PoolBusy as busy:
            run.delete()
            raise ServiceBusy(str(busy))
        except BaseException:
            run.delete()
            raise
        if "errors" in outcome:
            run.delete()
            shutil.rmtree(workdir, ignore_errors=True)
            raise InvalidDefinition(outcome["errors"])
        run.results = outcome.get("results") or []
        run.error = outcome.get("error", "") or _overrun(run.results)
        run.status = Verdict.ERROR if run.error else verdict_of(run.results)
        run.duration_s = round(time.monotonic() - started, 3)
        run.workdir, run.finished_at = str(workdir), timezone.now()
        run.save()
        _forget_old_workdirs(pipeline)
        return Response(SuiteRunSerializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(tags=TAG, summary="One run of test cases as a JUnit XML report",
                   parameters=[PIPELINE_ID, TEST_RUN_ID],
                   responses=responses({(200, "application/xml"): OpenApiTypes.STR}, 404))
    @action(detail=True, methods=["get"])
    def junit(self, request, *args, **kwargs):
        from engine.api import junit_report

        run = self.get_object()
        results = list(run.results)
        if run.error:
            results.append({"name": "(budget)", "status": "error", "error": run.error, "failures": [run.error]})
        name = f"{run.pipeline.name} v{run.version.number}" if run.version else f"{run.pipeline.name} (draft)"
        name += f" in {run.environment}" if run.environment else ""
        return HttpResponse(junit_report(name, results), content_type="application/xml")


def _case_names(definition: dict, wanted: list[str] | None) -> list[str]:
    """The names of the test cases a run runs; a 400 when there are none or one asked for is not there."""
    tests = definition.get("tests") if isinstance(definition, dict) else None
    names = [case.get("name") for case in tests or [] if isinstance(case, dict)]
    if not names:
        raise rule_violation("definition.tests", "the pipeline has no test cases: add one in the editor's Tests "
                                                 "panel (or as \"tests\" in its definition)")
    if wanted is None:
        return names
    missing = [name for name in wanted if name not in names]
    if missing:
        raise rule_violation("cases", f"no test case named {', '.join(repr(name) for name in missing)} "
                                      f"(the pipeline's: {', '.join(repr(name) for name in names)})")
    return [name for name in names if name in wanted]


def _forget_old_workdirs(pipeline: Pipeline) -> None:
    """Only the newest suite runs keep their files; the older ones' results stay in the database."""
    old = SuiteRun.objects.filter(pipeline=pipeline).exclude(workdir="").order_by("-created_at", "-id")[KEPT_WORKDIRS:]
    for run in list(old):
        shutil.rmtree(run.workdir, ignore_errors=True)
        SuiteRun.objects.filter(pk=run.pk).update(workdir="")


# --- proofs -------------------------------------------------------------------------------------------


class ProofRequestSerializer(serializers.Serializer):
    version = StrictIntegerField(required=False, min_value=1, max_value=2 ** 31 - 1,
                                 help_text="The version to prove; the latest when omitted.")
    test_case = CaseNameField(required=False, max_length=200,
                                help_text="The test case whose input the proof runs; the version's first when omitted.")
    kills = StrictIntegerField(required=False, default=10, min_value=1, max_value=50,
                               help_text="How many times subtasks are killed (default 10).")
    seed = StrictIntegerField(required=False, min_value=0, max_value=2 ** 31 - 1,
                              help_text="The seed the kills are drawn from: a failed proof's seed replays it.")
    rescale = StrictBooleanField(required=False, default=True,
                                 help_text="Restore once at another parallelism (default true).")


class ProofSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="version.number", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, allow_null=True, default=None)
    result = JSONObjectField(help_text=(
        "The proof's report: rows, records_per_checkpoint, planned (kills per phase), phases (parallelism, "
        "restarts, kills fired, checkpoints), sinks (expected, found, missing, doubled), difference (the first), "
        "replay (seed, kills, rescale, test_case)."))

    class Meta:
        model = Proof
        fields = ["id", "pipeline", "version", "test_case", "kills", "seed", "rescale", "status", "message", "result",
                  "created_by", "created_at", "started_at", "finished_at"]
        read_only_fields = fields


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="Exactly-once proofs of the pipeline's versions, newest first",
                       parameters=[PIPELINE_ID, VERSION_FILTER],
                       responses=responses({200: ProofSerializer(many=True)}, 404)),
    retrieve=extend_schema(tags=TAG, summary="One proof", parameters=[PIPELINE_ID, PROOF_ID],
                           responses=responses({200: ProofSerializer}, 404)),
    create=extend_schema(tags=TAG, summary="Prove a version exactly-once on one of its test cases (queued)",
                         description="Runs on Spark: a failure-free run, then the same job killed `kills` times at "
                                     "points drawn from `seed` and restored (once at another parallelism); every "
                                     "sink's output must equal the failure-free run's. One proof of a pipeline at "
                                     "a time (409 while one is queued or running).",
                         parameters=[PIPELINE_ID], request=ProofRequestSerializer,
                         responses=responses({202: ProofSerializer}, 404, 409)),
)
class ProofViewSet(PipelineNestedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    lookup_url_kwarg = "proof_id"  # below the pipeline's {id}
    serializer_class = ProofSerializer
    action_permissions = {"create": RUN}
    pagination_class = None

    def get_queryset(self):
        proofs = Proof.objects.filter(pipeline=self.pipeline).select_related("version", "created_by")
        return _version_filter(self.request, proofs)[:200] if self.action == "list" else proofs

    def create(self, request, *args, **kwargs):
        from studio.testcases.tasks import prove

        pipeline = self.pipeline
        body = ProofRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        version = self.version_of(data.get("version"))
        names = _case_names(version.definition, None)
        test_case = data.get("test_case") or names[0]
        if test_case not in names:
            raise rule_violation("test_case", f"version {version.number} has no test case named {test_case!r} "
                                              f"(its: {', '.join(repr(name) for name in names)})")
        require_code_permission(request.user, version.definition, "prove")
        seed = data["seed"] if "seed" in data else random.randrange(2 ** 31)
        with transaction.atomic():
            busy = Proof.objects.select_for_update().filter(pipeline=pipeline).exclude(status__in=FINAL).first()
            if busy is not None:
                raise Conflict(f"proof {busy.id} of this pipeline is {busy.status}; one proof at a time")
            proof = Proof.objects.create(pipeline=pipeline, version=version, test_case=test_case, kills=data["kills"],
                                         seed=seed, rescale=data["rescale"], created_by=request.user)
            transaction.on_commit(lambda: prove.delay(proof.id))
        return Response(ProofSerializer(proof).data, status=status.HTTP_202_ACCEPTED)


# --- badges --------------------------------------------------------------------------------------------


class VerdictSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Verdict.choices)
    at = serializers.DateTimeField()
    seed = serializers.IntegerField(required=False)
    environment = serializers.CharField(required=False, allow_null=True,
                                        help_text="A test run's environment, by name (null: none).")


class BadgeSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    tests = VerdictSerializer(allow_null=True, help_text="The version's latest run of its test cases.")
    proof = VerdictSerializer(allow_null=True, help_text="The version's latest exactly-once proof.")


@extend_schema_view(list=extend_schema(
    tags=TAG, summary="Per version: its latest test-case run and exactly-once proof (the badges of the history)",
    parameters=[PIPELINE_ID], responses=responses({200: BadgeSerializer(many=True)}, 404)))
class BadgeViewSet(PipelineNestedMixin, viewsets.ViewSet):
    action_permissions: dict = {}

    def list(self, request, *args, **kwargs):
        pipeline = self.pipeline
        badges: dict[int, dict] = {}
        runs = SuiteRun.objects.filter(pipeline=pipeline, version__isnull=False).order_by("-created_at", "-id")
        for run_id, number, verdict, at, environment in runs.values_list(
                "id", "version__number", "status", "created_at", "environment")[:1000]:
            badges.setdefault(number, {"version": number, "tests": None, "proof": None})
            if badges[number]["tests"] is None:
                badges[number]["tests"] = {"id": run_id, "status": verdict, "at": at, "environment": environment}
        proofs = Proof.objects.filter(pipeline=pipeline).order_by("-created_at", "-id")
        for proof_id, number, verdict, at, seed in proofs.values_list("id", "version__number", "status", "created_at",
                                                                      "seed")[:1000]:
            badges.setdefault(number, {"version": number, "tests": None, "proof": None})
            if badges[number]["proof"] is None:
                badges[number]["proof"] = {"id": proof_id, "status": verdict, "at": at, "seed": seed}
        ordered = [badges[number] for number in sorted(badges, reverse=True)]
        return Response(BadgeSerializer(ordered, many=True).data)
