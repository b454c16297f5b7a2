"""The OpenAPI schema is generated once and kept: Swagger UI on a fresh studio waited 4.7 s for it.

Each web process keeps its copy; the first to generate it writes it under the data directory for
the others (and the next start), named after a fingerprint of the code that a change renews."""
from __future__ import annotations

import pytest

from studio.api import schema


class Counting(schema.SchemaGenerator):
    made = 0

    def get_schema(self, *args, **kwargs):
        Counting.made += 1
        return super().get_schema(*args, **kwargs)


class Refusing(schema.SchemaGenerator):
    def get_schema(self, *args, **kwargs):
        raise AssertionError("generated again")


@pytest.fixture
def fresh_process(settings, tmp_path, monkeypatch):
    """A web process that has no schema yet, over an empty data directory."""
    settings.DATA_DIR = tmp_path
    monkeypatch.setattr(schema, "_schema", None)
    Counting.made = 0


def test_the_schema_is_generated_once_and_read_by_the_other_processes(fresh_process, client, monkeypatch):
    first = schema.cached_schema(Counting)
    assert schema.cached_schema(Counting) is first and Counting.made == 1
    assert schema.schema_file().exists()
    monkeypatch.setattr(schema, "_schema", None)  # another web process, or the next start
    assert schema.cached_schema(Refusing) == first
    served = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert served.status_code == 200 and served.json() == first
    assert served.json()["info"]["title"] == "Pipeline studio API"


def test_changed_code_makes_a_new_schema(fresh_process, tmp_path, monkeypatch):
    code = tmp_path / "code"
    code.mkdir()
    source = code / "views.py"
    source.write_text("A = 1\n")
    monkeypatch.setattr(schema, "SCHEMA_CODE", (str(code),))
    before = schema.schema_file()
    assert schema.schema_file() == before and before.parent == tmp_path / "cache"
    source.write_text("A = 22\n")
    assert schema.schema_file() != before


def test_a_damaged_schema_file_is_made_again(fresh_process):
    schema.schema_file().parent.mkdir(parents=True)
    schema.schema_file().write_text('{"openapi": ')  # cut short: a crash while writing, say
    assert schema.cached_schema(Counting)["info"]["title"] == "Pipeline studio API" and Counting.made == 1


def test_make_up_keeps_the_schema_from_a_process_of_its_own(fresh_process, monkeypatch):
    """The supervisor runs ``warm_api_schema`` (niced) once the studio answers: the web processes
    then only read the file."""
    from django.core.management import call_command

    call_command("warm_api_schema", verbosity=0)
    kept = schema.schema_file()
    assert kept.exists()
    monkeypatch.setattr(schema, "_schema", None)  # a web process
    assert schema.cached_schema(Refusing)["info"]["title"] == "Pipeline studio API"
