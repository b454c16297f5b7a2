"""A body's strings, booleans, numbers and objects named by a string or an id take only that JSON type, as
the schema says: DRF's own fields would take the number 0 for the string "0", 1 or "yes" for true, the
string "2", 2.0 and true where an integer goes, "2.5" where a number goes, and look a group up by the
number 0 as "0" (the fuzz found one: a team named 0). Every field a request body is read through is
checked here, so a new serializer cannot bring the coercion back; each kind is sent for real."""
from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers

from studio.alerts.models import AlertRule
from studio.api.serializers.fields import (StrictBooleanField, StrictCharField, StrictFloatField, StrictIntegerField,
                                          StrictModelSerializer, StrictPrimaryKeyRelatedField,
                                          StrictSlugRelatedField)
from studio.models import Pipeline, PipelineVersion, Run
from studio.runs.events import set_status
from studio.schedules.models import SavepointSchedule
from tests.support import simple_pipeline

STRICT = {serializers.CharField: StrictCharField, serializers.BooleanField: StrictBooleanField,
          serializers.IntegerField: StrictIntegerField, serializers.FloatField: StrictFloatField,
          serializers.DecimalField: StrictFloatField,  # it takes strings too: a decimal goes as a number
          serializers.SlugRelatedField: StrictSlugRelatedField,
          serializers.PrimaryKeyRelatedField: StrictPrimaryKeyRelatedField}
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


def test_every_string_boolean_number_and_named_object_of_a_body_takes_only_its_own_type():
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


@pytest.mark.parametrize("value", [2, 0, -3, 2**62])
def test_an_integer_field_takes_a_json_integer(value):
    assert StrictIntegerField().run_validation(value) == value


@pytest.mark.parametrize("value", ["2", 2.0, 2.5, 1e3, True, False, None, [2], {"value": 2}, float("nan")])
def test_an_integer_field_refuses_every_other_json_value(value):
    with pytest.raises(serializers.ValidationError):
        StrictIntegerField().run_validation(value)


@pytest.mark.parametrize("value, taken", [(2, 2.0), (2.5, 2.5), (0, 0.0), (-1e300, -1e300)])
def test_a_number_field_takes_a_json_integer_or_fraction_as_a_float(value, taken):
    assert StrictFloatField().run_validation(value) == taken


@pytest.mark.parametrize("value", ["2", "2.5", True, False, None, [2.5], float("nan"), float("inf"),
                                   -float("inf"), 10**400])
def test_a_number_field_refuses_strings_booleans_and_what_is_no_finite_number(value):
    with pytest.raises(serializers.ValidationError):
        StrictFloatField().run_validation(value)


@pytest.mark.django_db
def test_a_model_serializer_builds_strict_numbers_and_ids_from_the_model(pipeline):
    class Rule(StrictModelSerializer):
        class Meta:
            model = AlertRule
            fields = ["pipeline", "threshold", "duration_s"]

    fields = Rule().fields
    assert isinstance(fields["pipeline"], StrictPrimaryKeyRelatedField)
    assert isinstance(fields["threshold"], StrictFloatField)
    assert isinstance(fields["duration_s"], StrictIntegerField)
    assert Rule(data={"pipeline": pipeline.id, "threshold": 1, "duration_s": 1}).is_valid()
    loose = Rule(data={"pipeline": str(pipeline.id), "threshold": "1", "duration_s": True})
    assert not loose.is_valid() and set(loose.errors) == {"pipeline", "threshold", "duration_s"}, loose.errors


@pytest.fixture
def run(user, pipeline):
    run = Run.objects.create(pipeline=pipeline, version=pipeline.versions.get(), created_by=user)
    set_status(run.id, "SCHEDULING")
    set_status(run.id, "RUNNING")
    return run


LOOSE = [("2", "a string"), (2.0, "a float"), (True, "a boolean")]
"""Values DRF's IntegerField took for the integer 2 (or 1)."""

BODIES = {
    "alert rule": ("POST", "/api/alerts/rules/", {"pipeline": "{pipeline}", "name": "r", "kind": "backpressure",
                                                  "threshold": 0.5, "duration_s": 10}),
    "schedule": ("POST", "/api/schedules/", {"pipeline": "{pipeline}", "interval_s": 60, "retain": 3}),
    "run start": ("POST", "/api/pipelines/{pipeline}/runs/", {"version": 1}),
    "rescale": ("POST", "/api/runs/{run}/rescale/", {"parallelism": 2}),
    "rescale nodes": ("POST", "/api/runs/{run}/rescale/", {"nodes": {"gen": 2}}),
    "tap": ("POST", "/api/runs/{run}/taps/", {"edge": "e1", "records_per_second": 5, "bytes_per_second": 4096,
                                             "max_record_bytes": 256}),
    "preview": ("POST", "/api/preview/", {"definition": simple_pipeline(), "limit": 5}),
    "environment": ("POST", "/api/environments/", {"name": "dev", "position": 1}),
    "pipeline": ("POST", "/api/pipelines/", {"name": "n", "definition": simple_pipeline(), "team": 1}),
    "rollback": ("POST", "/api/pipelines/{pipeline}/rollback/", {"version": 1}),
}
"""A body of each kind, its integers valid (not all would succeed: the rows they name need not exist)."""

INTEGERS = [(name, field) for name, field in [
    ("alert rule", "duration_s"), ("alert rule", "pipeline"), ("schedule", "interval_s"), ("schedule", "retain"),
    ("schedule", "pipeline"), ("run start", "version"), ("rescale", "parallelism"), ("rescale nodes", "nodes"),
    ("tap", "records_per_second"), ("tap", "bytes_per_second"), ("tap", "max_record_bytes"), ("preview", "limit"),
    ("environment", "position"), ("pipeline", "team"), ("rollback", "version")]]


def filled(value, pipeline, run):
    """``value`` with ``"{pipeline}"`` and ``"{run}"`` replaced by those ids."""
    if isinstance(value, dict):
        return {key: filled(item, pipeline, run) for key, item in value.items()}
    if isinstance(value, str) and value in ("{pipeline}", "{run}"):
        return pipeline.id if value == "{pipeline}" else run.id
    return value


def with_value(body: dict, field: str, value):
    """``body`` with ``field`` (or, for a map of integers, its one entry) set to ``value``."""
    if isinstance(body[field], dict):
        return {**body, field: {key: value for key in body[field]}}
    return {**body, field: value}


def named_fields(answer) -> str:
    return json.dumps(answer.json().get("fields", {}))


@pytest.mark.django_db
@pytest.mark.parametrize("value, kind", LOOSE, ids=[kind for _, kind in LOOSE])
@pytest.mark.parametrize("name, field", INTEGERS, ids=[f"{name}.{field}" for name, field in INTEGERS])
def test_an_integer_in_a_body_is_a_json_integer_or_the_400_naming_it(api, pipeline, run, name, field, value, kind):
    method, path, body = BODIES[name]
    path = path.format(pipeline=pipeline.id, run=run.id)
    rows = (Pipeline.objects.count(), Run.objects.count(), AlertRule.objects.count(), SavepointSchedule.objects.count())
    answer = api.generic(method, path, json.dumps(with_value(filled(body, pipeline, run), field, value)),
                         content_type="application/json")
    assert answer.status_code == 400, (answer.status_code, answer.content[:300])
    assert field in named_fields(answer) and "integer" in named_fields(answer), answer.json()
    assert rows == (Pipeline.objects.count(), Run.objects.count(), AlertRule.objects.count(),
                    SavepointSchedule.objects.count())


@pytest.mark.django_db
@pytest.mark.parametrize("threshold", ["0.5", True, "NaN"])
def test_an_alert_threshold_is_a_json_number_or_the_400_naming_it(api, pipeline, threshold):
    body = {"pipeline": pipeline.id, "name": "r", "kind": "backpressure", "threshold": threshold}
    answer = api.post("/api/alerts/rules/", body, format="json")
    assert answer.status_code == 400 and "threshold" in named_fields(answer), answer.json()
    assert not AlertRule.objects.exists()


@pytest.mark.django_db
def test_an_alert_threshold_takes_an_integer_or_a_fraction_and_a_patch_with_a_string_changes_nothing(api, pipeline):
    created = api.post("/api/alerts/rules/", {"pipeline": pipeline.id, "name": "r", "kind": "checkpoint_failures",
                                              "threshold": 3}, format="json")
    assert created.status_code == 201 and created.json()["threshold"] == 3, created.json()
    rule = created.json()["id"]
    assert api.patch(f"/api/alerts/rules/{rule}/", {"kind": "backpressure", "threshold": 0.25},
                     format="json").json()["threshold"] == 0.25
    answer = api.patch(f"/api/alerts/rules/{rule}/", {"threshold": "0.5", "duration_s": "30"}, format="json")
    assert answer.status_code == 400, answer.json()
    assert {"threshold", "duration_s"} <= set(answer.json()["fields"]), answer.json()
    assert (AlertRule.objects.get(pk=rule).threshold, AlertRule.objects.get(pk=rule).duration_s) == (0.25, None)


@pytest.mark.django_db
@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_number_that_is_not_finite_is_the_400_naming_where_it_is(api, pipeline, token):
    """Python's json.dumps writes NaN and Infinity tokens (no JSON), and its parser reads 1e999 as an infinity."""
    raw = '{"pipeline": %d, "name": "r", "kind": "backpressure", "threshold": %s}' % (pipeline.id, token)
    answer = api.post("/api/alerts/rules/", raw, content_type="application/json")
    assert answer.status_code == 400 and "threshold is not a finite number" in answer.json()["detail"], answer.json()
    definition = json.dumps({"definition": simple_pipeline()}).replace('"rate": 0', f'"rate": {token}')
    answer = api.post("/api/pipelines/validate/", definition, content_type="application/json")
    assert answer.status_code == 400, answer.json()
    assert "definition.nodes[0].params.rate is not a finite number" in answer.json()["detail"], answer.json()
    assert not AlertRule.objects.exists()
