"""Issue an API token for a user from the command line (for the first script, or an admin)."""
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from studio.models import ApiToken


class Command(BaseCommand):
    help = "Create an API token for USERNAME and print its key (shown only now)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="cli")

    def handle(self, *args, username, name, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user {username!r}")
        _, key = ApiToken.issue(user, name)
        self.stdout.write(key)
