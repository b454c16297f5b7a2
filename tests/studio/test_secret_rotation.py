"""Rotating the key secrets are sealed with (``manage.py rotate_secrets``, ``studio.secret_box``): with the new key
set and the old one still accepted for reading, every user's secret and connection profile's password opens (a
run's driver fills them in), the command re-seals each under the new key (rows written through the REST API),
and afterwards they open under the new key alone; a value under no known key is reported and left as it is; the
command's output never holds a value."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from studio.connections.models import ConnectionProfile
from studio.environments.models import Secret
from studio.environments.values import SECRETS
from studio.models import PipelineVersion, Run
from studio.secret_box import CONNECTIONS, seal, unseal
from tests.support import simple_pipeline

pytestmark = pytest.mark.django_db

VALUES = {"token": "hunter2-S3cr3t/+value", "pg": "p@ss-w0rd"}
OLD, NEW = "the-old-secrets-key", "the-new-secrets-key"


def rotate(*args) -> tuple[str, str | None]:
    """What ``manage.py rotate_secrets`` printed, and the error it ended with (None: none)."""
    out, err, error = StringIO(), StringIO(), None
    try:
        call_command("rotate_secrets", *args, stdout=out, stderr=err)
    except CommandError as raised:
        error = str(raised)
    printed = out.getvalue() + err.getvalue()
    assert not any(value in printed + (error or "") for value in (*VALUES.values(), "s3cret", "new-one")), printed
    return printed, error


@pytest.fixture
def sealed_rows(api, other_api, settings):
    """Two users' secrets and a connection password, sealed under the old key through the REST API."""
    settings.SECRETS_KEY, settings.SECRETS_OLD_KEYS = OLD, []
    for client, (name, value) in zip((api, other_api), VALUES.items()):
        assert client.post("/api/secrets", {"name": name, "value": value}, format="json").status_code == 201
    profile = api.post("/api/connections", {"kind": "postgres", "name": "shop",
                                            "address": "postgresql://app:s3cret@db.internal:5432/shop"}, format="json")
    assert profile.status_code == 201, profile.content
    return {row.name: row.sealed for row in Secret.objects.all()}, ConnectionProfile.objects.get().secret


def opened() -> dict[str, str]:
    found = {row.name: unseal(row.sealed, SECRETS) for row in Secret.objects.all()}
    found["connection"] = unseal(ConnectionProfile.objects.get().secret, CONNECTIONS)
    return found


def test_a_rotation_reseals_every_value_under_the_new_key_and_the_old_key_reads_until_it_finished(
        api, user, settings, sealed_rows):
    from studio.run_values import driver_definition

    before_secrets, before_connection = sealed_rows
    expected = {**VALUES, "connection": "s3cret"}
    settings.SECRETS_KEY = NEW
    assert opened() == {"token": "", "pg": "", "connection": ""}  # without the old key: unreadable
    settings.SECRETS_OLD_KEYS = [OLD]
    assert opened() == expected  # the old key still reads: runs go on during the rotation
    saved = api.post("/api/pipelines", {"name": "authed", "definition": simple_pipeline(
        expression="x if '${secret:token}' else 0")}, format="json").json()
    run = Run.objects.create(pipeline_id=saved["id"], version=PipelineVersion.objects.get(pipeline_id=saved["id"]),
                             created_by=user)
    assert driver_definition(run)[1] == [VALUES["token"]]
    assert api.post("/api/secrets", {"name": "fresh", "value": "new-one"}, format="json").status_code == 201
    expected["fresh"] = "new-one"  # sealed under the new key at once

    printed, error = rotate("--check")
    assert "3 value(s) still sealed under an old key, 1 under the current key" in printed
    assert "not finished" in error
    assert rotate() == ("re-sealed 3 value(s) under the current key; 1 were already; 0 unreadable: none is left under "
                        "an old key, STUDIO_SECRETS_OLD_KEYS may be removed\n", None)
    assert {row.name: row.sealed for row in Secret.objects.exclude(name="fresh")}.keys() == before_secrets.keys()
    assert all(Secret.objects.get(name=name).sealed != sealed for name, sealed in before_secrets.items())
    assert ConnectionProfile.objects.get().secret != before_connection

    settings.SECRETS_OLD_KEYS = []  # the rotation finished: the old key is gone
    assert opened() == expected
    assert driver_definition(run)[1] == [VALUES["token"]]
    assert rotate("--check") == ("0 value(s) still sealed under an old key, 4 under the current key, 0 unreadable\n",
                                 None)
    assert rotate()[0].startswith("re-sealed 0 value(s) under the current key; 4 were already")
    settings.SECRETS_KEY = OLD
    assert set(opened().values()) == {""}  # the old key alone opens nothing any more


def test_a_value_no_key_opens_is_reported_and_left_while_the_rest_rotate(api, settings, sealed_rows):
    settings.SECRETS_KEY = "a-key-nobody-kept"
    lost = Secret.objects.get(name="token")
    lost.sealed = seal("whatever", SECRETS)
    lost.save()
    settings.SECRETS_KEY, settings.SECRETS_OLD_KEYS = NEW, [OLD]
    printed, error = rotate()
    assert f"secret 'token' of user {lost.owner_id} opens under no key" in printed
    assert "re-sealed 2 value(s)" in printed and error.startswith("1 value(s) open under no key")
    assert Secret.objects.get(name="token").sealed == lost.sealed  # left as it was
    settings.SECRETS_OLD_KEYS = []
    assert opened() == {"token": "", "pg": VALUES["pg"], "connection": "s3cret"}
