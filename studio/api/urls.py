"""The core's API routes: pipelines, runs and their savepoints and checkpoints, definitions, auth,
locations, teams. Features add theirs from their own ``urls`` modules (``studio.urls`` composes them)."""
from django.urls import include, path

from studio.api.auth import LoginView, LogoutView, MeView, TokenViewSet
from studio.api.checkpoints import CheckpointViewSet
from studio.api.definitions import DraftDiffView, OperatorListView, PlanView, PreviewView, ValidateView
from studio.api.health import HealthView
from studio.api.locations import LocationViewSet
from studio.api.pipelines import PipelineViewSet
from studio.api.routers import RUN, StudioRouter, route
from studio.api.runs import RunViewSet
from studio.api.savepoints import SavepointRequestViewSet, SavepointViewSet
from studio.api.session import SessionUseView
from studio.api.teams import TeamViewSet

router = StudioRouter()
router.register("pipelines", PipelineViewSet, basename="pipeline")
router.register("runs", RunViewSet, basename="run")
router.register("savepoints", SavepointViewSet, basename="savepoint")
router.register("auth/tokens", TokenViewSet, basename="token")
router.register("locations", LocationViewSet, basename="location")
router.register("teams", TeamViewSet, basename="team")

urlpatterns = [
    route("health", HealthView.as_view(), "health"),
    route("operators", OperatorListView.as_view(), "operators"),
    route("session", SessionUseView.as_view(), "session"),
    route("pipelines/validate", ValidateView.as_view(), "pipeline-validate"),
    route("pipelines/diff", DraftDiffView.as_view(), "pipeline-draft-diff"),
    route("plan", PlanView.as_view(), "plan"),
    route("preview", PreviewView.as_view(), "preview"),
    route("auth/login", LoginView.as_view(), "login"),
    route("auth/logout", LogoutView.as_view(), "logout"),
    route("auth/me", MeView.as_view(), "me"),
    route(f"{RUN}/savepoints", SavepointRequestViewSet.as_view({"get": "list", "post": "create"}),
          "run-savepoints"),
    route(rf"{RUN}/savepoints/(?P<request_id>[0-9a-f]{{1,64}})",
          SavepointRequestViewSet.as_view({"get": "retrieve"}), "run-savepoint"),
    route(f"{RUN}/checkpoints", CheckpointViewSet.as_view({"get": "overview"}), "run-checkpoints"),
    route(f"{RUN}/checkpoints/config", CheckpointViewSet.as_view({"get": "config"}), "run-checkpoint-config"),
    route(f"{RUN}/checkpoints/timeline", CheckpointViewSet.as_view({"get": "timeline"}), "run-checkpoint-timeline"),
    route(f"{RUN}/restore-points", CheckpointViewSet.as_view({"get": "restore_points"}), "run-restore-points"),
    route(rf"{RUN}/checkpoints/(?P<checkpoint_id>\d{{1,9}})", CheckpointViewSet.as_view({"get": "retrieve"}),
          "run-checkpoint"),
    path("", include(router.urls)),
]
