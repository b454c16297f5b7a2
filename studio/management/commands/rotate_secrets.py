"""Re-seal every value kept encrypted (users' secrets, connection profiles' passwords) under the current key.

A key rotation (docs/deployment.md): start the studio with the new key as ``STUDIO_SECRETS_KEY`` and the
keys it replaces in ``STUDIO_SECRETS_OLD_KEYS``; values sealed under an old key still open meanwhile
(``studio.secret_box``). This command then re-seals each such value under the new key, one row at a time
(locked, so a value replaced meanwhile is not overwritten with the old one), and says how many it re-sealed,
how many were under the new key already and which open under no key. Running it again is harmless. Once it
reports nothing left under an old key (``--check`` only counts), remove ``STUDIO_SECRETS_OLD_KEYS``.
It prints names and ids, never a value.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from studio.secret_box import Unreadable, old_roots, resealed, sealed_fields


class Command(BaseCommand):
    help = ("Re-seal every user secret and connection password under STUDIO_SECRETS_KEY (values under a key of "
            "STUDIO_SECRETS_OLD_KEYS still open meanwhile); --check only counts what is left.")

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true",
                            help="change nothing: count the values still sealed under an old key (exit 1 if any)")

    def handle(self, *args, check: bool = False, **options):
        counts = {"resealed": 0, "current": 0, "left": 0}
        unreadable: list[str] = []
        for model, field, purpose, name in sealed_fields():
            for pk in model.objects.exclude(**{field: ""}).order_by("pk").values_list("pk", flat=True).iterator():
                with transaction.atomic():
                    row = model.objects.select_for_update().filter(pk=pk).first()
                    if row is None:  # deleted meanwhile
                        continue
                    try:
                        again = resealed(getattr(row, field), purpose)
                    except Unreadable as error:
                        unreadable.append(f"{name(row)} {error}")
                        continue
                    if again is None:
                        counts["current"] += 1
                    elif check:
                        counts["left"] += 1
                    else:
                        model.objects.filter(pk=pk).update(**{field: again})
                        counts["resealed"] += 1
        for line in unreadable:
            self.stderr.write(line)
        if check:
            self.stdout.write(f"{counts['left']} value(s) still sealed under an old key, {counts['current']} under "
                              f"the current key, {len(unreadable)} unreadable")
        else:
            self.stdout.write(f"re-sealed {counts['resealed']} value(s) under the current key; {counts['current']} "
                              f"were already; {len(unreadable)} unreadable"
                              + ("" if unreadable or not old_roots() else
                                 ": none is left under an old key, STUDIO_SECRETS_OLD_KEYS may be removed"))
        if unreadable:
            raise CommandError(f"{len(unreadable)} value(s) open under no key (listed above); they were left as they are")
        if check and counts["left"]:
            raise CommandError("the rotation is not finished: run manage.py rotate_secrets")
