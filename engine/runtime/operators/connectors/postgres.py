"""What the PostgreSQL connectors share: connecting with clear errors, naming tables, reading columns.

Every failure a user can fix (a refused connection, a wrong password, a missing table, a
server without the needed setting) becomes a :class:`ConfigurationError` naming the node,
the server (``host:port/database``, never the password) and the cause.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.runtime.operators.base import ConfigurationError

CONNECT_TIMEOUT_S = 10


def server_label(url: str) -> str:
    """``host:port/database`` of a connection URL, without credentials."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:
        return "an unparsable connection URL"
    return f"{parts.get('host', 'localhost')}:{parts.get('port', 5432)}/{parts.get('dbname', '')}"


def connect(node: dict, url: str, *, autocommit: bool = False, **options):
    """A psycopg connection, or a ConfigurationError saying why there is none."""
    import psycopg

    if not url:
        raise ConfigurationError(node, "no PostgreSQL connection URL (params.url) is set")
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT_S,
                               application_name=f"pipeline node {node['id']}"[:63], **options)
    except psycopg.Error as error:
        cause = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
        raise ConfigurationError(node, f"cannot connect to PostgreSQL at {server_label(url)}: {cause}") from None


def table_identifier(table: str):
    """``"schema.table"`` or ``"table"`` as a composable identifier (names taken literally)."""
    from psycopg import sql

    return sql.Identifier(*table.split(".", 1))


@dataclass(frozen=True)
class Column:
    name: str
    type_oid: int
    type_name: str
    has_default: bool
    """A default, identity or generated value: left out when the record does not name it."""
    generated: bool


def table_columns(node: dict, connection, table: str, url: str) -> list[Column]:
    """The table's columns in order, or a ConfigurationError when there is no such table."""
    identifier = table_identifier(table).as_string(connection)
    found = connection.execute("SELECT to_regclass(%s)::oid", (identifier,)).fetchone()[0]
    if found is None:
        raise ConfigurationError(node, f"table {identifier} does not exist in {server_label(url)}")
    rows = connection.execute(
        "SELECT attname, atttypid::int, format_type(atttypid, atttypmod),"
        "       atthasdef OR attidentity <> '' OR attgenerated <> '', attgenerated <> ''"
        "  FROM pg_attribute WHERE attrelid = %s AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
        (found,)).fetchall()
    return [Column(*row) for row in rows]
