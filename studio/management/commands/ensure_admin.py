"""Make sure the local ``admin`` user exists, and say how to log in.

The password is ``STUDIO_ADMIN_PASSWORD`` when set (an existing admin's password is
updated to it); otherwise one is generated once and kept in ``var/admin-password``
(readable by its owner only), so it survives restarts.
"""
import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

USERNAME = "admin"


class Command(BaseCommand):
    help = "Create the local admin user if missing; print its login."

    def handle(self, *args, **options):
        password = os.environ.get("STUDIO_ADMIN_PASSWORD") or self._stored_password()
        users = get_user_model()
        user = users.objects.filter(username=USERNAME).first()
        if user is None:
            users.objects.create_superuser(USERNAME, password=password)
        elif os.environ.get("STUDIO_ADMIN_PASSWORD") and not user.check_password(password):
            user.set_password(password)
            user.save(update_fields=["password"])
        self.stdout.write(f"login: {USERNAME} / {password}")

    def _stored_password(self) -> str:
        path = settings.ADMIN_PASSWORD_FILE
        if path.exists():
            return path.read_text().strip()
        password = secrets.token_urlsafe(12)
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(password + "\n")
        return password
