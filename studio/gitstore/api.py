"""``/api/git-bindings``: a pipeline kept in a file of a Git repository.

Binding, pulling and resolving need *edit* on the pipeline (they save versions); reading and
comparing need *view*. The repository is checked against the acting user's grants at every use
(comparing, which only reads it, needs a grant to read).
"""
from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from studio.access import EDIT, can, pipelines_visible_to
from studio.api.exceptions import Conflict, rule_violation
from studio.api.permissions import PipelineAccess
from studio.api.schema import responses
from studio.api.serializers.fields import (
    StrictCharField,
    StrictIntegerField,
    StrictModelSerializer,
    StrictRegexField,
)
from studio.gitstore import sync
from studio.gitstore.models import GitBinding
from studio.gitstore.repository import GitStoreError

TAG = ["git"]


class GitBindingSerializer(StrictModelSerializer):
    pipeline = StrictIntegerField(source="pipeline_id", min_value=1)
    repository = StrictCharField(max_length=1000, help_text="A bare repository's path in a location granted "
                                                           "to you for writing, or an https address.")
    branch = StrictRegexField(r"^[A-Za-z0-9._/-]{1,200}$", required=False, default="main")
    path = StrictRegexField(r"^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$", max_length=500, required=False,
                            help_text="The file in the repository (default: <pipeline name>.pipeline.yaml).")

    class Meta:
        model = GitBinding
        fields = ["id", "pipeline", "repository", "branch", "path", "synced_commit", "synced_version", "conflict",
                  "last_error", "created_at"]
        read_only_fields = ["id", "synced_commit", "synced_version", "conflict", "last_error", "created_at"]

    def validate_path(self, path: str) -> str:
        if any(part in (".", "..", ".git") for part in path.split("/")):
            raise rule_violation("path", "a path in the repository has no '.', '..' or '.git' part")
        return path


class StepsSerializer(serializers.Serializer):
    steps = serializers.ListField(child=serializers.CharField(), help_text="What was committed or saved, in order.")
    binding = GitBindingSerializer()


class ComparisonSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The studio's latest version.")
    commit = serializers.CharField(allow_blank=True, help_text="Git's newest commit on the branch ('' while none).")
    studio_text = serializers.CharField(help_text="The latest version as the file the studio would commit.")
    git_text = serializers.CharField(allow_null=True, help_text="The file in that commit (null: not there).")
    diff = serializers.CharField(allow_blank=True, help_text="A unified diff from Git's file to the studio's.")
    logic_changed = serializers.BooleanField(help_text="Whether the two differ in more than layout and comments.")


class ResolveSerializer(serializers.Serializer):
    take = serializers.ChoiceField(["git", "studio"], help_text="Which side's definition wins (the other stays "
                                                                "in its history).")


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="Git bindings of the pipelines you may view",
                       responses=responses({200: GitBindingSerializer(many=True)})),
    create=extend_schema(tags=TAG, summary="Keep a pipeline in a file of a Git repository",
                         responses=responses({201: StepsSerializer}, 404, 409)),
    retrieve=extend_schema(tags=TAG, summary="A Git binding", responses=responses({200: GitBindingSerializer}, 404)),
    destroy=extend_schema(tags=TAG, summary="Stop keeping the pipeline in Git (the repository keeps its commits)",
                          responses=responses({204: None}, 404)),
)
class GitBindingViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                        mixins.DestroyModelMixin, viewsets.GenericViewSet):
    serializer_class = GitBindingSerializer
    permission_classes = [IsAuthenticated, PipelineAccess]
    action_permissions = {"destroy": EDIT, "pull": EDIT, "resolve": EDIT}
    lookup_value_regex = r"\d{1,18}"

    def get_queryset(self):
        visible = pipelines_visible_to(self.request.user).values("id")
        return GitBinding.objects.filter(pipeline__in=visible).select_related("pipeline")

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        pipeline = pipelines_visible_to(request.user).filter(pk=data["pipeline_id"]).first()
        if pipeline is None:
            raise NotFound(f"pipeline: no pipeline {data['pipeline_id']}, or not one you may view")
        if not can(request.user, EDIT, pipeline):
            raise PermissionDenied(f"you may not edit pipeline {pipeline.id}")
        if GitBinding.objects.filter(pipeline=pipeline).exists():
            raise Conflict(f"pipeline {pipeline.id} is already kept in Git; delete that binding first")
        from engine.api import pipeline_file_name

        binding = GitBinding.objects.create(
            pipeline=pipeline, repository=data["repository"], branch=data.get("branch") or "main",
            path=data.get("path") or pipeline_file_name(pipeline.name), created_by=request.user)
        try:
            steps = sync.bind(binding, request.user)
        except Exception:
            binding.delete()  # a binding that never agreed with its repository is not kept
            raise
        return self._steps(binding, steps, status.HTTP_201_CREATED)

    @extend_schema(tags=TAG, summary="Bring in the commits made in Git since the last agreement, a version each",
                   request=None, responses=responses({200: StepsSerializer}, 404, 409))
    @action(detail=True, methods=["post"])
    def pull(self, request, pk=None):
        binding = self.get_object()
        return self._steps(binding, sync.pull(binding, request.user))

    @extend_schema(tags=TAG, summary="The pipeline's file in the studio next to the file in Git, with their diff",
                   responses=responses({200: ComparisonSerializer}, 404))
    @action(detail=True, methods=["get"])
    def compare(self, request, pk=None):
        return Response(sync.compare(self.get_object(), request.user))

    @extend_schema(tags=TAG, summary="End a conflict by taking one side's definition",
                   description="409 when Git's side cannot be read or the studio's cannot be pushed (someone pushed "
                               "meanwhile: pull, then resolve again).",
                   request=ResolveSerializer, responses=responses({200: StepsSerializer}, 404, 409))
    @action(detail=True, methods=["post"])
    def resolve(self, request, pk=None):
        binding = self.get_object()
        choice = ResolveSerializer(data=request.data)
        choice.is_valid(raise_exception=True)
        return self._steps(binding, sync.resolve(binding, request.user, choice.validated_data["take"]))

    def handle_exception(self, exc):
        if isinstance(exc, sync.Conflict):
            exc = Conflict(f"{exc}: resolve it by taking one side\n{exc.diff}")
        elif isinstance(exc, sync.Refused):
            exc = rule_violation("repository", str(exc))
        elif isinstance(exc, GitStoreError):
            exc = Conflict(str(exc))
        return super().handle_exception(exc)

    def _steps(self, binding: GitBinding, steps: list[str], code: int = status.HTTP_200_OK) -> Response:
        binding.refresh_from_db()
        return Response({"steps": steps, "binding": GitBindingSerializer(binding).data}, status=code)

