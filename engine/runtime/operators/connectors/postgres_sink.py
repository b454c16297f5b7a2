"""``sink.postgres``: rows into a table, exactly once, by PostgreSQL's two-phase commit.

Each subtask writes its rows into an ordinary transaction on its own connection (``COPY``
for inserts, batched ``INSERT ... ON CONFLICT DO UPDATE`` for upserts). At the snapshot of
checkpoint n the transaction becomes ``PREPARE TRANSACTION '<prefix>-<subtask>-<n>'``:
durable on the server, invisible to readers, surviving a crash of the writer. When
checkpoint n (or a later one) completed, ``COMMIT PREPARED`` makes it visible, on a
second, autocommit connection (the first one may be in the middle of the next
transaction). On every start the sink lists its prepared transactions in
``pg_prepared_xacts``: the ones the restored checkpoint covers are committed, all others
rolled back (recover-and-commit, recover-and-abort; see ``two_phase_commit``).

Rows: ``columns`` maps column names to expressions over the record ``x``; without it each
column takes the dict record's field of the same name, and columns with a default
(serials, identities, ``DEFAULT ...``) are left to it.

Upserts (``mode: upsert``, rows replace the row with the same ``key``) go through a staging
table beside the target (``<table>__pipeline_staging``): a prepared transaction holds the
locks of every row it touched until its commit, so upserting a key into the table itself
would make the next transaction wait for the commit of the previous one -- which only this
subtask's own mailbox thread can run: a deadlock. Staged rows are new rows and lock nothing
of the target. On commit the prepared transaction is committed, then one short transaction
merges its staged rows into the target (the last row per key wins, keys in order so two
subtasks' merges cannot deadlock) and deletes them. Recovery also merges committed staged
rows that the restored checkpoint covers and deletes the others.

The server must allow prepared transactions (``max_prepared_transactions`` > 0; at least
twice the sink's parallelism): the sink checks at the start and names the setting when it
does not. With checkpointing off the sink commits plainly at the end of input.
"""
from __future__ import annotations

import logging

from engine.runtime.operators.base import ConfigurationError
from engine.runtime.operators.connectors.postgres import connect, server_label, table_columns, table_identifier
from engine.runtime.operators.two_phase_commit import CommitError, TwoPhaseCommitSink

logger = logging.getLogger(__name__)

LOCK_TIMEOUT_MS = 30_000
"""How long a write may wait for a row lock before the sink fails instead of hanging. In insert
mode a key the table holds unique, written again while the checkpoint that wrote it first is
still prepared, waits for that prepared transaction -- which only this subtask could commit."""


def _dumps(value) -> str:
    import json

    return json.dumps(value, default=str)


class PostgresSink(TwoPhaseCommitSink):
    """Inserts or upserts rows; one prepared transaction per subtask and checkpoint."""

    prefix_label = "pg"

    def __init__(self, node, context):
        super().__init__(node, context)
        params = self.params
        self.url = params.get("url", "")
        self.table = params["table"]
        self.mode = params.get("mode", "insert")
        self.key = list(params.get("key") or [])
        self.column_expressions: dict = dict(params.get("columns") or {})
        self._staging = None  # upsert: the staging table's identifier
        self._merge = None  # upsert: the statement merging one transaction's staged rows
        self._writer = None  # the connection transactions are written on
        self._committer = None  # autocommit: COMMIT/ROLLBACK PREPARED
        self._names: list[str] = []
        self._row_function = None
        self._statement = None
        self.rows_written = 0

    # -- connect and check the configuration ------------------------------------------------
    def connect(self):
        self._writer = connect(self.node, self.url)
        self._writer.execute(f"SET lock_timeout = {int(LOCK_TIMEOUT_MS)}")
        self._writer.commit()
        self._committer = connect(self.node, self.url, autocommit=True)
        if self.checkpointing:
            allowed = int(self._committer.execute("SHOW max_prepared_transactions").fetchone()[0])
            if allowed == 0:
                raise ConfigurationError(
                    self.node, f"the PostgreSQL server at {server_label(self.url)} does not allow prepared "
                    "transactions (max_prepared_transactions = 0), which this exactly-once sink commits by: "
                    "set max_prepared_transactions to at least twice the sink's parallelism and restart "
                    "the server")
        columns = table_columns(self.node, self._committer, self.table, self.url)
        self._prepare_rows(columns)

    def _prepare_rows(self, columns) -> None:
        from psycopg import sql

        from engine.spec.expressions import compile_batch_expression

        by_name = {column.name: column for column in columns}
        if self.column_expressions:
            unknown = [name for name in self.column_expressions if name not in by_name]
            if unknown:
                raise ConfigurationError(self.node, f"table {self.table} has no column(s) {', '.join(unknown)}")
            names = list(self.column_expressions)
            functions = [compile_batch_expression(self.column_expressions[name]) for name in names]
            self._row_function = lambda batch: list(zip(*[function(batch) for function in functions]))
        else:
            names = [column.name for column in columns if not column.has_default]
            if not names:
                raise ConfigurationError(self.node, f"every column of {self.table} has a default: say which "
                                                    "to write in params.columns")
            self._row_function = lambda batch: [tuple(map(record.get, names)) for record in batch]
        missing_key = [name for name in self.key if name not in by_name]
        if missing_key:
            raise ConfigurationError(self.node, f"table {self.table} has no key column(s) {', '.join(missing_key)}")
        self._names = names
        oids = [by_name[name].type_oid for name in names]
        # COPY adapts by column type when psycopg knows every type (dicts into jsonb ...), else by value
        self._types = oids if all(self._committer.adapters.types.get(oid) for oid in oids) else None
        table = table_identifier(self.table)
        column_list = sql.SQL(", ").join(map(sql.Identifier, names))
        if self.mode == "upsert":
            self._prepare_upsert(table, names)
        else:
            self._statement = sql.SQL("COPY {} ({}) FROM STDIN").format(table, column_list)

    def _prepare_upsert(self, table, names: list[str]) -> None:
        from psycopg import sql
        from psycopg.types.json import Jsonb

        schema, _, name = self.table.rpartition(".")
        staging_name = f"{name}__pipeline_staging"[:63]
        self._staging = sql.Identifier(schema, staging_name) if schema else sql.Identifier(staging_name)
        with self._committer.transaction():  # subtasks start together: one creates, the others wait
            self._committer.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (staging_name,))
            self._committer.execute(sql.SQL(
                "CREATE TABLE IF NOT EXISTS {} (gid text NOT NULL, seq bigint NOT NULL, row jsonb NOT NULL)"
            ).format(self._staging))
        self._statement = sql.SQL("COPY {} (gid, seq, row) FROM STDIN").format(self._staging)
        rows = self._row_function
        self._row_function = lambda batch: [Jsonb(dict(zip(names, row)), dumps=_dumps) for row in rows(batch)]
        keys = sql.SQL(", ").join(sql.SQL("r.{}").format(sql.Identifier(k)) for k in self.key)
        updates = [n for n in names if n not in self.key]
        action = sql.SQL("DO NOTHING") if not updates else sql.SQL("DO UPDATE SET {}").format(
            sql.SQL(", ").join(sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(n)) for n in updates))
        self._merge = sql.SQL(
            "INSERT INTO {table} ({columns}) SELECT {selected} FROM ("
            " SELECT DISTINCT ON ({keys}) r.* FROM {staging} s"
            " CROSS JOIN LATERAL jsonb_populate_record(NULL::{table}, s.row) r"
            " WHERE s.gid = %(gid)s ORDER BY {keys}, s.seq DESC) r ORDER BY {keys}"
            " ON CONFLICT ({key_columns}) {action}").format(
            table=table, columns=sql.SQL(", ").join(map(sql.Identifier, names)),
            selected=sql.SQL(", ").join(sql.SQL("r.{}").format(sql.Identifier(n)) for n in names),
            keys=keys, staging=self._staging, key_columns=sql.SQL(", ").join(map(sql.Identifier, self.key)),
            action=action)

    # -- transactions -------------------------------------------------------------------------------
    def begin_transaction(self):
        return {"rows": 0}

    def write(self, transaction, batch):
        import psycopg

        try:
            self._copy(transaction, self._row_function(batch))
        except psycopg.errors.LockNotAvailable:
            raise ConfigurationError(self.node, (
                f"a write into table {self.table} waited over {LOCK_TIMEOUT_MS} ms for a row lock: another "
                "transaction holds a row with the same unique key (in insert mode, often this sink's own "
                "checkpoint that wrote the key and is not committed yet); to replace rows by key use mode "
                "upsert with that key")) from None
        except psycopg.errors.UniqueViolation as error:
            cause = str(error).strip().splitlines()[0]
            raise ConfigurationError(self.node, (
                f"{cause} in table {self.table}: insert mode adds a row per record, so a key the table holds "
                "unique can be written once only; to replace rows by key use mode upsert with that key")) from None

    def _copy(self, transaction, rows) -> None:
        with self._writer.cursor().copy(self._statement) as copy:
            if self._staging is None:
                if self._types is not None:
                    copy.set_types(self._types)
                for row in rows:
                    copy.write_row(row)
            else:
                gid, sequence = self._open_gid(), transaction["rows"]
                for offset, row in enumerate(rows):
                    copy.write_row((gid, sequence + offset, row))
        transaction["rows"] += len(rows)
        self.rows_written += len(rows)

    def _open_gid(self) -> str:
        """Staged rows of the open transaction: named after it before its checkpoint is known."""
        return f"{self.transaction_prefix}-{self.context.subtask_index}-open-{self.attempt_token}"

    def _gid(self, checkpoint_id: int) -> str:
        return f"{self.transaction_prefix}-{self.context.subtask_index}-{checkpoint_id}"

    def pre_commit(self, transaction, checkpoint_id):
        from psycopg import sql

        gid = self._gid(checkpoint_id)
        if self._staging is not None:
            self._writer.execute(sql.SQL("UPDATE {} SET gid = %s WHERE gid = %s").format(self._staging),
                                 (gid, self._open_gid()))
        if not self.checkpointing:
            self._writer.commit()
            self._merge_staged(gid)
            return {"gid": None, "rows": transaction["rows"]}
        self._writer.execute(sql.SQL("PREPARE TRANSACTION {}").format(sql.Literal(gid)))
        return {"gid": gid, "rows": transaction["rows"]}

    def commit(self, committable):
        if committable.get("gid"):
            self._finish_prepared("COMMIT", committable["gid"])
            self._merge_staged(committable["gid"])

    def _merge_staged(self, gid: str) -> None:
        """Upsert: move one committed transaction's staged rows into the target, atomically."""
        if self._staging is None:
            return
        from psycopg import sql

        with self._committer.transaction():
            self._committer.execute(self._merge, {"gid": gid})
            self._committer.execute(sql.SQL("DELETE FROM {} WHERE gid = %s").format(self._staging), (gid,))

    def abort(self, transaction):
        try:
            self._writer.rollback()
        except Exception as error:  # the connection may be gone: the server rolled it back then
            logger.debug("rollback of %s failed: %s", self.node_id, error)

    def _finish_prepared(self, verb: str, gid: str) -> None:
        import psycopg
        from psycopg import sql

        try:
            self._committer.execute(sql.SQL(verb + " PREPARED {}").format(sql.Literal(gid)))
        except psycopg.errors.UndefinedObject:
            raise CommitError(f"prepared transaction {gid} of node '{self.node_id}' is gone: another "
                              "session committed or rolled it back") from None

    # -- recovery ------------------------------------------------------------------------------------
    def leftovers(self):
        """Prepared transactions of this sink, and (upsert) committed staged rows not merged yet."""
        from psycopg import sql

        prefix = self.transaction_prefix + "-"
        prepared = {gid for (gid,) in self._committer.execute(
            "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, %s)",
            (prefix,))}
        staged = set()
        if self._staging is not None:
            staged = {gid for (gid,) in self._committer.execute(
                sql.SQL("SELECT DISTINCT gid FROM {} WHERE starts_with(gid, %s)").format(self._staging), (prefix,))}
        found = []
        for gid in prepared | staged:
            subtask, _, checkpoint = gid[len(prefix):].partition("-")
            if subtask.isdigit():
                found.append((int(subtask), int(checkpoint) if checkpoint.isdigit() else None,
                              (gid, gid in prepared)))
        return found

    def commit_leftover(self, handle):
        gid, prepared = handle
        if prepared:
            self._finish_prepared("COMMIT", gid)
        self._merge_staged(gid)

    def abort_leftover(self, handle):
        from psycopg import sql

        gid, prepared = handle
        if prepared:
            self._finish_prepared("ROLLBACK", gid)
        if self._staging is not None:
            self._committer.execute(sql.SQL("DELETE FROM {} WHERE gid = %s").format(self._staging), (gid,))

    def close(self):
        try:
            super().close()
        finally:
            for connection in (self._writer, self._committer):
                if connection is not None:
                    connection.close()
            self._writer = self._committer = None

    def metrics(self):
        return {**super().metrics(), "rows_written": self.rows_written}
