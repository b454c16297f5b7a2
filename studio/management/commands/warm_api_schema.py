"""Generate the API schema once and keep it under the data directory (``studio.api.schema``).

``make up`` runs it in the background, at low priority, when the studio has started: the web
processes then read the kept schema instead of generating it themselves when Swagger UI asks,
which takes seconds of CPU in a process that must keep answering (and, on a loaded machine,
long enough for the web server to take the process for hung).
"""
from django.core.management.base import BaseCommand

from studio.api.schema import cached_schema, schema_file


class Command(BaseCommand):
    help = "Generate the OpenAPI schema once and keep it for the web processes."

    def handle(self, *args, **options):
        cached_schema()
        self.stdout.write(f"API schema kept at {schema_file()}")
