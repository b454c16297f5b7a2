"""The Git store as an app of its own: it follows the versions the core saves, the core knows nothing of it."""
from django.apps import AppConfig


class GitStoreConfig(AppConfig):
    name = "studio.gitstore"
    label = "gitstore"
    verbose_name = "Git-backed pipelines"

    def ready(self):
        from django.db.models.signals import post_save

        from studio.models import PipelineVersion

        post_save.connect(_version_saved, sender=PipelineVersion, dispatch_uid="gitstore.version_saved")


def _version_saved(sender, instance, created, **kwargs) -> None:
    """Commit a new version once its transaction commits (a rolled-back save commits nothing)."""
    if not created:
        return
    from django.db import transaction

    from studio.gitstore.sync import commit_saved_version

    transaction.on_commit(lambda: commit_saved_version(instance.pk))
