"""``python manage.py retain``: one retention pass now (what every Celery worker does periodically)."""
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Fold run histories into rollups, sweep old checkpoints, logs and orphaned workspaces, measure disk use."

    def add_arguments(self, parser):
        parser.add_argument("--no-files", action="store_true", help="fold histories only")

    def handle(self, *args, **options):
        from studio.retention.loop import retain_once

        done = retain_once(with_files=not options["no_files"])
        self.stdout.write(f"{done.runs} runs: {done.checkpoints} checkpoints and {done.events} events folded; "
                          f"files deleted: {done.files or 'not swept'}")
