"""A body's strings, booleans and objects named by a string take only that JSON type, as the schema says:
DRF's own fields would take the number 0 for the string "0", 1 or "yes" for true, and look a group up by
the number 0 as "0" (the fuzz found one: a team named 0). Every field a request body is read through is
checked here, so a new serializer cannot bring the coercion back; a few are sent for real."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers

from studio.api.serializers.fields import StrictBooleanField, StrictCharField, StrictSlugRelatedField
from studio.models import Pipeline, PipelineVersion
from tests.support import simple_pipeline

STRICT = {serializers.CharField: StrictCharField, serializers.BooleanField: StrictBooleanField,
          serializers.SlugRelatedField: StrictSlugRelatedField}
"""Each DRF field that coerces another JSON type into its own, and the field that takes only its own."""


def request_serializers():
    """``(operation, serializer)`` for every operation whose body a serializer reads."""
    generator = SchemaGenerator()
    generator._initialise_endpoints()
    for path, path_regex, method, view in generator._get_paths_and_endpoints():
        if method not in ("POST", "PUT", "PATCH"):
            continue
        view.schema.method, view.schema.path, view.schema.path_regex = method, path, path_regex
        serializer = view.schema.get_request_serializer()
        serializer = serializer() if isinstance(serializer, type) else serializer
        if isinstance(serializer, serializers.BaseSerializer):
            yield f"{method} {path}", serializer


def coercing_fields(field, where: str):
    """Where in ``field`` (a serializer, a list or dict of them, or a leaf) a writable field coerces."""
    if isinstance(field, serializers.ListSerializer):
        field = field.child
    if isinstance(field, serializers.Serializer):
        for name, child in field.fields.items():
            if not child.read_only:
                yield from coercing_fields(child, f"{where}.{name}")
    elif isinstance(field, (serializers.ListField, serializers.DictField)):
        yield from coercing_fields(field.child, f"{where}[]")
    else:
        for loose, strict in STRICT.items():
            if isinstance(field, loose) and not isinstance(field, strict):
                yield f"{where}: {type(field).__name__} (use {strict.__name__})"


def test_every_string_boolean_and_named_object_of_a_body_takes_only_its_own_type():
    read = dict(request_serializers())
    assert "POST /api/git-bindings/" in read and "POST /api/runs/{id}/stop/" in read  # the walk reaches them
    loose = [problem for operation, serializer in sorted(read.items())
             for problem in coercing_fields(serializer, f"{operation} {type(serializer).__name__}")]
    assert not loose, "fields that coerce another JSON type into theirs:\n" + "\n".join(loose)


@pytest.fixture
def pipeline(user):
    pipeline = Pipeline.objects.create(name="strict", owner=user)
    PipelineVersion.objects.create(pipeline=pipeline, number=1, definition=simple_pipeline())
    return pipeline


@pytest.mark.django_db
@pytest.mark.parametrize("body, field", [({"isolated": 1}, "isolated"), ({"isolated": "yes"}, "isolated")])
def test_a_boolean_is_true_or_false_only(api, pipeline, body, field):
    answer = api.post(f"/api/pipelines/{pipeline.id}/isolation/", body, format="json")
    assert answer.status_code == 400 and field in str(answer.json()), answer.json()
    pipeline.refresh_from_db()
    assert pipeline.isolated is False


@pytest.mark.django_db
def test_a_group_is_named_by_a_string_only(api, pipeline):
    Group.objects.create(name="0")
    answer = api.post(f"/api/pipelines/{pipeline.id}/shares/", {"group": 0}, format="json")
    assert answer.status_code == 400 and "group" in str(answer.json()), answer.json()
    assert api.post(f"/api/pipelines/{pipeline.id}/shares/", {"group": "0"}, format="json").status_code == 201


@pytest.mark.django_db
def test_a_git_branch_is_a_string_only(api, pipeline):
    answer = api.post("/api/git-bindings/", {"pipeline": pipeline.id, "repository": "/nowhere.git", "branch": 0},
                      format="json")
    assert answer.status_code == 400 and "branch" in str(answer.json()), answer.json()
