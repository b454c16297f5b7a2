"""Catalog entries of the connectors to outside systems: PostgreSQL, Parquet, Redis consumer groups.

Kept beside ``engine.spec.catalog`` (which appends them to ``OPERATOR_CATALOG``) because
their parameters are mostly about reaching a system -- locations, tables, slots, groups --
and each names its location kind with ``"x-location"``.
"""
from __future__ import annotations

from typing import Any

from engine.spec.catalog_schema import EXPRESSION, operator_entry, params_object

POSTGRES_URL = {"type": "string", "minLength": 1, "x-location": "postgres",
                "description": "Connection URL, for example postgresql://user:password@host:5432/database."}
TABLE = {"type": "string", "minLength": 1, "maxLength": 127,
         "description": "The table, optionally schema-qualified (schema.table); names are taken literally."}
COLUMN_LIST = {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "uniqueItems": True}


def connector_operators() -> list[dict[str, Any]]:
    postgres_sink = params_object({
        "url": POSTGRES_URL,
        "table": {**TABLE, "x-sink-target": True},
        "mode": {"type": "string", "enum": ["insert", "upsert"], "default": "insert",
                 "description": "insert: every record adds a row. upsert: a record replaces the row with the "
                                "same key (INSERT ... ON CONFLICT DO UPDATE)."},
        "key": {**COLUMN_LIST, "description": "upsert: the columns of a unique key or primary key."},
        "columns": {"type": "object", "additionalProperties": EXPRESSION, "propertyNames": {"minLength": 1},
                    "description": "Column -> expression over the record x, for example {\"user\": \"x[0]\", "
                                   "\"total\": \"x[1]\"}. Empty: each column takes the dict record's field of "
                                   "the same name; columns with a default keep it."},
    }, ["url", "table"])
    postgres_sink["if"] = {"properties": {"mode": {"const": "upsert"}}, "required": ["mode"]}
    postgres_sink["then"] = {"required": ["key"]}
    return [
        operator_entry(
            "source.parquet", "Parquet source",
            "Reads the rows of Parquet files below a path as dicts, in splits of row groups handed to "
            "whichever subtask asks next; the row position is checkpointed. Directories named field=value "
            "(as the Parquet sink's partitions) add that field.",
            params_object({
                "path": {"type": "string", "minLength": 1, "x-location": "path",
                         "description": "A file, a directory or a glob; a URL works."},
                "columns": {**COLUMN_LIST, "description": "Read only these columns (empty: all)."},
                "split_bytes": {"type": "integer", "minimum": 1, "maximum": 1 << 40, "default": 4 << 20,
                                "description": "Bytes per split, counted as the row groups' uncompressed sizes "
                                               "(about: splits hold whole row groups; at most 10,000 per source)."},
            }, ["path"]),
            inputs=0,
        ),
        operator_entry(
            "sink.parquet", "Parquet sink (exactly-once)",
            "Writes dict records as Parquet rows with two-phase commit: files become visible when the "
            "checkpoint that covers them completes. Optionally partitioned by a field (field=value folders).",
            params_object({
                "path": {"type": "string", "minLength": 1, "x-location": "path",
                         "description": "Target directory; a URL works."},
                "partition_by": {"type": "string", "minLength": 1,
                                 "description": "A field whose value picks the folder <field>=<value>."},
                "row_group_size": {"type": "integer", "minimum": 1, "maximum": 10000000, "default": 65536,
                                   "description": "Rows collected in memory before a row group is written."},
            }, ["path"]),
            outputs=0,
        ),
        operator_entry(
            "source.postgres_cdc", "PostgreSQL change data capture",
            "Emits inserts, updates and deletes of tables through logical decoding (pgoutput) as records "
            "{op, table, key, values, lsn}, optionally after a snapshot of the rows consistent with the slot's "
            "start. The LSN is checkpointed; the replication slot advances when a checkpoint completes. The "
            "server needs wal_level = logical.",
            params_object({
                "url": POSTGRES_URL,
                "tables": {"type": "array", "items": TABLE, "minItems": 1, "uniqueItems": True,
                           "description": "The tables whose changes are read."},
                "slot": {"type": "string", "pattern": "^[a-z0-9_]{1,50}$",
                         "description": "The replication slot holding the position (created when missing)."},
                "publication": {"type": "string", "minLength": 1, "maxLength": 63,
                                "description": "The publication (created for the tables when missing); "
                                               "empty: the slot's name."},
                "snapshot": {"type": "string", "enum": ["initial", "never", "only"], "default": "initial",
                             "description": "initial: every row first, then the changes after it. never: changes "
                                            "only. only: read the tables once and end (no slot)."},
            }, ["url", "tables"]),
            inputs=0,
        ),
        operator_entry(
            "sink.postgres", "PostgreSQL sink (exactly-once)",
            "Writes rows into a table with two-phase commit: each subtask's rows of a checkpoint are a "
            "prepared transaction (PREPARE TRANSACTION), committed when the checkpoint completes; after a "
            "failure the sink commits what the restored checkpoint covers and rolls back the rest. The "
            "server needs max_prepared_transactions > 0.",
            postgres_sink, outputs=0,
        ),
    ]
