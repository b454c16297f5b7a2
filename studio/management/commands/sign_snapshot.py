"""Sign a snapshot the studio did not sign (written before snapshots were signed) for the pipeline it belongs to.

Runs restore only snapshots this studio signed (``studio.runs.snapshots``). A savepoint or
checkpoint written by an older version has no signature; an administrator who trusts it --
it lies where only its pipeline's runs wrote, or was checked by hand -- signs it here, which
records the digests of its state files as they are now and the pipeline it belongs to.
Nothing is signed that its pipeline's users could have rewritten unless you say so.
"""
from django.core.management.base import BaseCommand, CommandError

from engine.api import SnapshotRefused
from studio.models import Pipeline, Run
from studio.runs.snapshots import sign_snapshot


class Command(BaseCommand):
    help = ("Sign the snapshot (checkpoint or savepoint directory) at PATH as written by pipeline PIPELINE, so its "
            "runs may restore it: for snapshots written before snapshots were signed.")

    def add_arguments(self, parser):
        parser.add_argument("path", help="the snapshot's directory (or its _metadata file)")
        parser.add_argument("--pipeline", type=int, required=True, help="the id of the pipeline that wrote it")
        parser.add_argument("--run", type=int, default=None, help="the id of the run that wrote it, if known")

    def handle(self, *args, path, pipeline, run, **options):
        owner = Pipeline.objects.select_related("owner").filter(pk=pipeline).first()
        if owner is None:
            raise CommandError(f"no pipeline {pipeline}")
        writer = Run.objects.filter(pk=run, pipeline=owner).first() if run is not None else None
        if run is not None and writer is None:
            raise CommandError(f"pipeline {pipeline} has no run {run}")
        try:
            metadata = sign_snapshot(path, owner, writer)
        except (FileNotFoundError, SnapshotRefused) as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"signed {metadata['location']} as written by pipeline {pipeline} "
                          f"({len([h for h in metadata.get('tasks', {}).values() if h])} state files)")
