"""Path parameters are named alike across the API: the object a path starts from is ``{id}``, the ones
below it are named for their kind, so a generated client calls every operation on one run with the
same ``id``; the URLs themselves read as they always did."""
import re

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory, force_authenticate
from rest_framework.views import APIView

from studio.api.nested import RunNestedMixin
from studio.models import Pipeline, PipelineVersion, Run
from tests.support import simple_pipeline


def test_every_path_starts_from_id_and_names_what_is_below_it():
    """An object a path starts from by its number is ``{id}`` (one by its name, as a location's files, is
    named); the ones below it are named for their kind; no ``pk`` anywhere."""
    paths = SchemaGenerator().get_schema(public=True)["paths"]
    for path, operations in paths.items():
        names = re.findall(r"{(\w+)}", path)
        for operation in operations.values():
            parameters = {p["name"]: p["schema"] for p in operation.get("parameters", []) if p["in"] == "path"}
            assert sorted(parameters) == sorted(names), (path, parameters)
            if names and parameters[names[0]].get("type") == "integer":
                assert names[0] == "id", f"{path}: the object a path starts from is {{id}}"
        assert not [name for name in names if name == "pk" or name.endswith("_pk")], path
        assert "id" not in names[1:], path
    assert "/api/runs/{id}/checkpoints/{checkpoint_id}/" in paths and "/api/runs/{id}/taps/{tap_id}/" in paths


@pytest.fixture
def run(user):
    pipeline = Pipeline.objects.create(name="p", owner=user)
    return Run.objects.create(pipeline=pipeline, version=PipelineVersion.objects.create(
        pipeline=pipeline, number=1, definition=simple_pipeline()))


@pytest.mark.parametrize("tail", ["checkpoints", "checkpoints/config", "restore-points", "savepoints", "taps"])
def test_a_runs_nested_urls_read_as_before_with_and_without_the_slash(api, run, tail):
    for url in (f"/api/runs/{run.id}/{tail}", f"/api/runs/{run.id}/{tail}/"):
        response = api.get(url)
        assert response.status_code == 200, (url, response.content)
    overview = api.get(f"/api/runs/{run.id}/checkpoints").json()
    assert set(overview) >= {"counts", "summary", "latest", "history"}  # one object, as documented


def test_a_nested_view_routed_with_the_old_run_pk_name_still_finds_its_run(user, other_user, run):
    class Probe(RunNestedMixin, APIView):
        action_permissions = {}

        def get(self, request, **kwargs):
            return Response({"run": self.run.id})

    def get(who, **kwargs):
        request = APIRequestFactory().get("/")
        force_authenticate(request, user=who)
        return Probe.as_view()(request, **kwargs)

    assert get(user, id=str(run.id)).data == {"run": run.id}
    assert get(user, run_pk=str(run.id)).data == {"run": run.id}  # a route written before the names were made alike
    assert get(other_user, run_pk=str(run.id)).status_code == 404
