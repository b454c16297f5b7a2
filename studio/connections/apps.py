"""Connection profiles as an app of their own: every policy the core builds learns the profiles its user
may use through ``studio.locations.register_connection_source``."""
from django.apps import AppConfig


class ConnectionsConfig(AppConfig):
    name = "studio.connections"
    label = "connections"
    verbose_name = "Connection profiles"

    def ready(self):
        from studio.connections.models import ConnectionProfile
        from studio.connections.usable import connections_of
        from studio.locations import register_connection_source
        from studio.secret_box import CONNECTIONS, register_sealed_field

        register_connection_source(connections_of)
        register_sealed_field(ConnectionProfile, "secret", CONNECTIONS, lambda row: f"connection profile {row.pk}")
