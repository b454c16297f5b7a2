"""Environments and secrets as an app of their own: the core asks them for a run's values through
``studio.run_values.register_values_provider``, and a Git binding for its environments' files through
``studio.environment_files.register_environment_files``."""
from django.apps import AppConfig


class EnvironmentsConfig(AppConfig):
    name = "studio.environments"
    label = "environments"
    verbose_name = "Environments and secrets"

    def ready(self):
        from studio.environment_files import register_environment_files
        from studio.environments.models import Secret
        from studio.environments.files import EnvironmentFiles
        from studio.environments.values import SECRETS, EnvironmentValues
        from studio.run_values import register_values_provider
        from studio.secret_box import register_sealed_field

        register_values_provider(EnvironmentValues())
        register_environment_files(EnvironmentFiles())
        register_sealed_field(Secret, "sealed", SECRETS,
                              lambda row: (f"secret {row.name!r} of team {row.team_id}" if row.team_id
                                           else f"secret {row.name!r} of user {row.owner_id}"))
