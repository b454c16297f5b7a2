"""Migrate a studio's database to today's schema with rows a team owns, back to before teams owned grants,
environments and secrets, and forward again.

``python -m tests.studio.team_owned_migration`` on the (empty) database of ``DATABASE_URL``; prints what it saw
as one JSON object (``tests/studio/test_team_owned_migration.py`` checks it).
"""
from __future__ import annotations

import json
import os

BEFORE = [("environments", "0002_approval_role"), ("studio", "0016_teams")]


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    call_command("migrate", verbosity=0)
    from django.contrib.auth.models import User

    from studio.environments.models import Environment, Secret
    from studio.models import LocationGrant, StorageLocation, Team

    ada = User.objects.create(username="ada")
    team = Team.objects.create(name="payments")
    lake = StorageLocation.objects.create(name="lake", kind="path", prefix="/srv/lake")
    LocationGrant.objects.create(location=lake, team=team)
    LocationGrant.objects.create(location=lake, user=ada, can_write=False)
    Environment.objects.create(owner=ada, name="prod", parameters={"mine": 1})
    Environment.objects.create(owner=ada, team=team, name="prod", parameters={"team": 1})
    Environment.objects.create(owner=ada, team=team, name="staging")
    Secret.objects.create(owner=ada, name="db", sealed="personal")
    Secret.objects.create(owner=ada, team=team, name="db", sealed="team's")

    for app, name in BEFORE:
        call_command("migrate", app, name, verbosity=0)
    old = MigrationExecutor(connection).loader.project_state(BEFORE).apps
    seen = {"back": {
        "grants": sorted((grant.user_id is not None, grant.can_write)
                         for grant in old.get_model("studio", "LocationGrant").objects.all()),
        "environments": sorted((row.name, row.parameters) for row in old.get_model("environments", "Environment")
                               .objects.all()),
        "secrets": sorted(row.sealed for row in old.get_model("environments", "Secret").objects.all()),
    }}
    call_command("migrate", verbosity=0)
    seen["forward"] = {"environments": sorted(Environment.objects.values_list("name", "team_id")),
                       "team_grants": LocationGrant.objects.filter(team__isnull=False).count()}
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
