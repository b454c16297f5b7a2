"""``source.postgres_cdc``: change data capture through logical decoding (``pgoutput``).

Records: ``{"op": "snapshot" | "insert" | "update" | "delete", "table": "schema.name",
"key": {key column: value}, "values": {column: value} | None, "lsn": "X/Y"}`` -- values typed
by psycopg's own loaders, as a SELECT would return them; a delete has only the key.

The durable position is the replication slot (``slot``, created when missing). It is never
read from directly: the source reads a *temporary copy* of it
(``pg_copy_logical_replication_slot``, dropped by the server when the session ends) with
``pg_logical_slot_get_binary_changes``, which moves only the copy. The checkpointed offset
is the LSN after the last transaction fully emitted (plus how many changes of the next one
were emitted, since a big transaction may span several polls); when checkpoint n completes
the slot is advanced to n's LSN (``pg_replication_slot_advance``) -- the offset committed
back, so the server can recycle WAL only up to what a completed checkpoint covers. A
restore copies the slot again, advances the copy to the checkpointed LSN and skips the
changes of the partly emitted transaction that were emitted before.

``snapshot: initial`` first emits every row of the tables as ``snapshot`` records, read in
the snapshot the slot exported at its creation (``CREATE_REPLICATION_SLOT ... EXPORT_SNAPSHOT``
on a replication connection), so snapshot and stream meet exactly at the slot's start;
``never`` streams only; ``only`` reads the tables once and ends, with no slot (a bounded
table source; the preview uses it).

A failure during the initial snapshot: the exported snapshot died with the attempt, so
the restored source cannot go on reading in it. Rows are read in primary-key order and the
last key emitted is checkpointed; the restored source creates a temporary slot only to
export a new snapshot (consistent point L2), reads the rest of the table (keys after the
checkpointed one) and the later tables in it, and records the *segment*: "from this key on,
rows were read at L2". When streaming, a change is dropped if its transaction committed
before the LSN its row's segment was read at -- the row read already shows it -- so every
change is emitted once, whether it happened before or after the failure. (A transaction
committing before a slot's consistent point is visible in its exported snapshot, one
committing after is decoded by it: PostgreSQL's guarantee this relies on.) Text key
columns are ordered ``COLLATE "C"``, which is how Python compares the keys. A table
without a primary key cannot be resumed: a failure while reading it fails the run.

One subtask (the first) reads; the others end at once. The publication (``publication``,
default: the slot's name) is created for ``tables`` when missing.

A shadow run (``engine.shadow.sources``) reads through a copy of the slot made before its
snapshot was taken (the job's ``source_forks`` configuration names it): it advances only
the copy, and restores positions of the slot it copied.
"""
from __future__ import annotations

import re
import struct
import uuid

from engine.runtime.operators.base import ConfigurationError
from engine.runtime.operators.connectors.postgres import connect, server_label, table_columns, table_identifier
from engine.runtime.operators.restored_state import is_offset, require, restored_dicts
from engine.runtime.operators.source import END_OF_INPUT, SourceOperator
from engine.runtime.operators.source_lag import split_lag

IDLE_DELAY = 0.1
READ_CHANGES = 5000


def lsn_text(value: int) -> str:
    return f"{value >> 32:X}/{value & 0xFFFFFFFF:X}"


_LSN = re.compile(r"[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}")


def _is_lsn(value) -> bool:
    return isinstance(value, str) and _LSN.fullmatch(value) is not None


def lsn_value(text: str) -> int:
    high, _, low = text.partition("/")
    return (int(high, 16) << 32) + int(low, 16)


class PgOutputDecoder:
    """Turns pgoutput protocol-1 messages into change records, transaction by transaction."""

    def __init__(self, connection):
        from psycopg.adapt import Transformer

        self._transformer = Transformer(connection)
        self._relations: dict[int, tuple] = {}
        self._loaders: dict[int, object] = {}

    def _load(self, oid: int, data: bytes):
        loader = self._loaders.get(oid)
        if loader is None:
            from psycopg.pq import Format

            loader = self._loaders[oid] = self._transformer.get_loader(oid, Format.TEXT)
        return loader.load(data)

    def decode(self, message: bytes):
        """``("commit", (commit_lsn, end_lsn))``, ``("change", record)`` or None (no change in it)."""
        kind = message[:1]
        if kind == b"C":
            _, commit_lsn, end_lsn, _ = struct.unpack_from("!bqqq", message, 1)
            return "commit", (commit_lsn, end_lsn)
        if kind == b"R":
            self._relation(message)
        elif kind in (b"I", b"U", b"D"):
            return "change", self._change(kind, message)
        return None

    def _relation(self, message: bytes) -> None:
        oid, = struct.unpack_from("!I", message, 1)
        position = 5
        namespace, position = _string(message, position)
        name, position = _string(message, position)
        position += 1  # replica identity
        count, = struct.unpack_from("!h", message, position)
        position += 2
        columns = []
        for _ in range(count):
            flags = message[position]
            column, position = _string(message, position + 1)
            type_oid, _ = struct.unpack_from("!Ii", message, position)
            position += 8
            columns.append((column, type_oid, bool(flags & 1)))
        self._relations[oid] = (f"{namespace}.{name}", columns)

    def _change(self, kind: bytes, message: bytes) -> dict:
        oid, = struct.unpack_from("!I", message, 1)
        table, columns = self._relations[oid]
        position = 5
        old = new = None
        while position < len(message):
            marker = message[position:position + 1]
            values, position = self._tuple(columns, message, position + 1)
            if marker == b"N":
                new = values
            else:
                old = values
        source = new if new is not None else old
        key = {name: source.get(name) for name, _, is_key in columns if is_key}
        op = {b"I": "insert", b"U": "update", b"D": "delete"}[kind]
        return {"op": op, "table": table, "key": key, "values": new if op != "delete" else None}

    def _tuple(self, columns, message: bytes, position: int):
        count, = struct.unpack_from("!h", message, position)
        position += 2
        values = {}
        for index in range(count):
            kind = message[position:position + 1]
            position += 1
            name, type_oid, _ = columns[index]
            if kind == b"t":
                length, = struct.unpack_from("!i", message, position)
                position += 4
                values[name] = self._load(type_oid, message[position:position + length])
                position += length
            elif kind == b"n":
                values[name] = None
            # "u": an unchanged TOASTed value is not sent: the column is left out
        return values, position


def _string(message: bytes, position: int) -> tuple[str, int]:
    end = message.index(b"\0", position)
    return message[position:end].decode(), end + 1


class PostgresCdcSource(SourceOperator):
    """Emits the tables' changes from a logical replication slot; the slot moves on completed checkpoints."""

    def __init__(self, node, context):
        super().__init__(node, context)
        params = self.params
        self.url = params.get("url", "")
        self.tables = list(params["tables"])
        fork = (context.config.get("source_forks") or {}).get(node["id"]) or {}
        self.slot = fork.get("slot") or params.get("slot", "")
        """The slot read and advanced: ``slot``, or in a shadow run its copy (``engine.shadow.sources``)."""
        self._own_slots = {params.get("slot", ""), self.slot}
        """Slots a restored position may name: a shadow's copy restores positions of the slot it copied."""
        self.publication = params.get("publication") or params.get("slot", "")
        self.snapshot_mode = params.get("snapshot", "initial")
        self.split: dict | None = None
        self._state = None
        self._connection = None
        self._reader_slot = None
        self._decoder = None
        self._buffer: list = []  # (record, lsn before its transaction, index in it, end lsn or None)
        self._snapshot = None  # (connection, table index, cursor) while reading the initial snapshot
        self._to_confirm: dict[int, str] = {}
        self._segments: list = []  # (table index, key after which, lsn): see the module docstring
        self._segments_end = 0
        self._keys: list[str] = []
        self.changes_emitted = 0

    def initialize_state(self):
        self._state = self.context.operator_state().list_state("position")
        if self.context.is_restored:
            restored = restored_dicts(self.node, self.context, "position", self._state.get())
            self.split = restored[0] if restored else None
            for split in restored:
                require(self._is_own_position(split), self.node, self.context,
                        f"holds the position {split!r:.200}, which is not one of slot {self.slot!r} over this "
                        "source's tables")
        elif self.context.subtask_index == 0:
            phase = "snapshot" if self.snapshot_mode in ("initial", "only") else "stream"
            self.split = {"slot": self.slot, "lsn": None, "skip": 0, "phase": phase, "table": 0, "row": 0,
                          "after": None, "segments": []}

    def _is_own_position(self, split: dict) -> bool:
        """A restored position is data: this source's slot, positions of its tables, LSNs as PostgreSQL writes them."""
        tables = range(len(self.tables) + 1)
        segments = split.get("segments")
        return (split.get("slot") in self._own_slots and split.get("phase") in ("snapshot", "stream")
                and type(split.get("table")) is int and split["table"] in tables
                and is_offset(split.get("row")) and is_offset(split.get("skip"))
                and (split.get("lsn") is None or _is_lsn(split["lsn"]))
                and (split.get("after") is None or isinstance(split["after"], list))
                and (segments is None or isinstance(segments, list) and all(
                    isinstance(segment, list) and len(segment) == 3 and type(segment[0]) is int
                    and segment[0] in tables and (segment[1] is None or isinstance(segment[1], list))
                    and _is_lsn(segment[2]) for segment in segments)))

    def open(self):
        if self.split is None:
            return
        if self.snapshot_mode != "only" and not self.slot:
            raise ConfigurationError(self.node, "no replication slot (params.slot) is set")
        self._connection = connect(self.node, self.url, autocommit=True)
        for table in self.tables:
            table_columns(self.node, self._connection, table, self.url)
        if self.snapshot_mode == "only":
            if self.split["phase"] == "snapshot":  # a restore reads on after the last key, in a new snapshot
                self._begin_snapshot(None)
            return
        level = self._connection.execute("SHOW wal_level").fetchone()[0]
        if level != "logical":
            raise ConfigurationError(self.node, f"the PostgreSQL server at {server_label(self.url)} has "
                                                f"wal_level = {level}; change data capture needs wal_level = logical")
        self._ensure_publication()
        exists = self._connection.execute(
            "SELECT database = current_database() FROM pg_replication_slots WHERE slot_name = %s",
            (self.slot,)).fetchone()
        if exists and not exists[0]:
            raise ConfigurationError(self.node, f"replication slot {self.slot} belongs to another database of "
                                                f"{server_label(self.url)}: slot names are per server")
        if self.split["phase"] == "snapshot":
            if self.context.is_restored:
                self._resume_snapshot()
                return
            if exists:  # e.g. an attempt failed before its first checkpoint: snapshot at a new point
                self._resume_snapshot()
                return
            exported = self._create_slot_with_snapshot(self.slot)
            self.split["segments"] = [[0, None, exported[2]]]
            self._begin_snapshot(exported)
        elif exists is None:
            if self.context.is_restored:
                raise ConfigurationError(self.node, f"replication slot {self.slot} is missing: the changes after "
                                                    "the restored checkpoint are gone")
            self._create_slot()
        if self.split["phase"] == "stream":
            self._start_reading()

    # -- set-up ---------------------------------------------------------------------------------
    def _ensure_publication(self) -> None:
        import psycopg
        from psycopg import sql

        if self._connection.execute("SELECT 1 FROM pg_publication WHERE pubname = %s", (self.publication,)).fetchone():
            return
        try:
            self._connection.execute(sql.SQL("CREATE PUBLICATION {} FOR TABLE {}").format(
                sql.Identifier(self.publication), sql.SQL(", ").join(map(table_identifier, self.tables))))
        except psycopg.Error as error:
            raise ConfigurationError(self.node, f"cannot create publication {self.publication}: "
                                                f"{str(error).strip()}") from None

    def _create_slot(self) -> None:
        import psycopg

        try:
            self._connection.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", (self.slot,))
        except psycopg.Error as error:
            raise ConfigurationError(self.node, f"cannot create replication slot {self.slot}: "
                                                f"{str(error).strip()}") from None

    def _create_slot_with_snapshot(self, name: str, temporary: bool = False):
        """Create a slot on a replication connection: ``(connection, exported snapshot, consistent point)``,
        the connection still open (the snapshot lives as long as it stays idle)."""
        from psycopg import pq

        replication = connect(self.node, self.url, autocommit=True, replication="database")
        result = replication.pgconn.exec_(
            f'CREATE_REPLICATION_SLOT "{name}" {"TEMPORARY " if temporary else ""}LOGICAL pgoutput '
            f'EXPORT_SNAPSHOT'.encode())
        if result.status != pq.ExecStatus.TUPLES_OK:
            message = (result.error_message or b"").decode(errors="replace").strip()
            replication.close()
            raise ConfigurationError(self.node, f"cannot create replication slot {name}: {message}")
        return replication, result.get_value(0, 2).decode(), result.get_value(0, 1).decode()

    def _resume_snapshot(self) -> None:
        """Read (on) in a new snapshot and remember from where: after a failure in the initial
        snapshot, or when the slot existed already (the stream then starts at the slot's position)."""
        self.split.setdefault("segments", [])
        table = self.tables[self.split["table"]] if self.split["table"] < len(self.tables) else None
        if table is not None and self.split.get("after") is None and self.split["row"] and not self._key_columns(table):
            raise ConfigurationError(self.node, f"the initial snapshot of {table}, which has no primary key, was "
                                                f"interrupted and cannot be resumed: drop the replication slot "
                                                f"{self.slot} and start the pipeline again")
        exported = self._create_slot_with_snapshot(f"{self.slot}_resume_{uuid.uuid4().hex[:6]}"[:63],
                                                   temporary=True)
        self.split["segments"].append([self.split["table"], self.split.get("after"), exported[2]])
        self._begin_snapshot(exported)

    def _begin_snapshot(self, exported) -> None:
        connection = connect(self.node, self.url)
        connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        if exported is not None:
            replication, name, _ = exported
            connection.execute("SET TRANSACTION SNAPSHOT %s" % _literal(name))
            replication.close()  # the importing transaction keeps the snapshot
        self._snapshot = [connection, None]

    def _start_reading(self) -> None:
        self._reader_slot = f"{self.slot}_read_{uuid.uuid4().hex[:8]}"[:63]
        self._connection.execute("SELECT pg_copy_logical_replication_slot(%s, %s, true)", (self.slot, self._reader_slot))
        confirmed = self._connection.execute(
            "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = %s",
            (self._reader_slot,)).fetchone()[0]
        position = self.split["lsn"]
        if position is not None and lsn_value(position) < lsn_value(confirmed):
            raise ConfigurationError(self.node, f"replication slot {self.slot} confirmed {confirmed}, past the "
                                                f"restored position {position}: the changes in between are gone")
        if position is not None and lsn_value(position) > lsn_value(confirmed):
            self._connection.execute("SELECT pg_replication_slot_advance(%s, %s::pg_lsn)", (self._reader_slot, position))
        if position is None:
            self.split["lsn"] = confirmed
        self._decoder = PgOutputDecoder(self._connection)
        self._skip = self.split["skip"]
        self._segments = [(table, after, lsn_value(lsn)) for table, after, lsn in self.split.get("segments") or []]
        self._segments_end = max((lsn for _, _, lsn in self._segments), default=0)
        """Changes committed from here on are after every snapshot read: no filtering."""
        self._table_index = {_qualified(table): index for index, table in enumerate(self.tables)}
        self._segment_keys = {index: self._key_columns(table) for index, table in enumerate(self.tables)
                              if any(segment[0] == index for segment in self._segments)}

    # -- reading ------------------------------------------------------------------------------------
    def poll_next(self):
        if self.split is None:
            return END_OF_INPUT
        if self.split["phase"] == "snapshot":
            return self._poll_snapshot()
        if not self._buffer:
            self._fetch()
            if not self._buffer:
                return []
        taken, self._buffer = self._buffer[:self.batch_size], self._buffer[self.batch_size:]
        _, before, index, end = taken[-1]
        self.split["lsn"], self.split["skip"] = (end, 0) if end is not None else (before, index + 1)
        self.changes_emitted += len(taken)
        return [entry[0] for entry in taken]

    def _fetch(self) -> None:
        rows = self._connection.execute(
            "SELECT lsn::text, data FROM pg_logical_slot_get_binary_changes(%s, NULL, %s, 'proto_version', '1', "
            "'publication_names', %s)", (self._reader_slot, READ_CHANGES, self.publication)).fetchall()
        before, pending = self.split["lsn"], []
        for lsn, data in rows:
            decoded = self._decoder.decode(bytes(data))
            if decoded is None:
                continue
            kind, value = decoded
            if kind == "change":
                value["lsn"] = lsn
                pending.append(value)
                continue
            commit_lsn, end_lsn = value
            end = lsn_text(end_lsn)
            if pending and commit_lsn < self._segments_end:
                pending = [record for record in pending if not self._read_before_segment(record, commit_lsn)]
            appended = False
            for index, record in enumerate(pending):
                if self._skip:  # emitted before the restored checkpoint
                    self._skip -= 1
                    continue
                self._buffer.append((record, before, index, end if index == len(pending) - 1 else None))
                appended = True
            if not appended and not self._buffer:  # nothing (new) in it: the position moves past it
                self.split["lsn"], self.split["skip"] = end, 0
            before, pending = end, []

    def _poll_snapshot(self):
        connection, cursor = self._snapshot
        while self.split["table"] < len(self.tables):
            table = self.tables[self.split["table"]]
            if cursor is None:
                cursor = self._snapshot[1] = self._snapshot_cursor(connection, table)
            rows = cursor.fetchmany(self.batch_size)
            if rows:
                keys = self._keys
                self.split["row"] += len(rows)
                if keys:
                    self.split["after"] = [rows[-1][k] for k in keys]
                name = _qualified(table)
                return [{"op": "snapshot", "table": name, "key": {k: row[k] for k in keys}, "values": row,
                         "lsn": None} for row in rows]
            cursor.close()
            self._snapshot[1] = cursor = None
            self.split.update(table=self.split["table"] + 1, row=0, after=None)
        connection.rollback()
        connection.close()
        self._snapshot = None
        if self.snapshot_mode == "only":
            self.split = None
            return END_OF_INPUT
        self.split["phase"] = "stream"
        self._start_reading()
        return []

    def _snapshot_cursor(self, connection, table: str):
        """A server-side cursor over the table's rows after the checkpointed key, in key order."""
        from psycopg import sql
        from psycopg.rows import dict_row

        self._keys = keys = self._key_columns(table)
        query = sql.SQL("SELECT * FROM {}").format(table_identifier(table))
        params: list = []
        if keys:
            collated = self._collated_keys(table, keys)
            if self.split.get("after") is not None:
                query += sql.SQL(" WHERE ({}) > ({})").format(
                    collated, sql.SQL(", ").join(sql.Placeholder() * len(keys)))
                params = list(self.split["after"])
            query += sql.SQL(" ORDER BY {}").format(collated)
        cursor = connection.cursor(name="initial_snapshot", row_factory=dict_row)
        cursor.execute(query, params)
        return cursor

    def _collated_keys(self, table: str, keys: list[str]):
        from psycopg import sql

        collatable = {row[0] for row in self._connection.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(%s) AND attcollation <> 0",
            (table_identifier(table).as_string(self._connection),))}
        return sql.SQL(", ").join(
            sql.SQL('{} COLLATE "C"').format(sql.Identifier(k)) if k in collatable else sql.Identifier(k)
            for k in keys)

    def _key_columns(self, table: str) -> list[str]:
        """The primary key's columns in the index's order, or [] when the table has none."""
        rows = self._connection.execute(
            "SELECT a.attname FROM pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)"
            " JOIN pg_attribute a ON a.attnum = k.attnum"
            " WHERE i.indrelid = to_regclass(%s) AND i.indisprimary AND a.attrelid = i.indrelid"
            " ORDER BY k.position",
            (table_identifier(table).as_string(self._connection),)).fetchall()
        return [row[0] for row in rows]

    def _read_before_segment(self, record: dict, commit_lsn: int) -> bool:
        """Whether the initial snapshot read this change's row after the change committed."""
        index = self._table_index.get(record["table"])
        if index is None:
            return False
        key = None
        for table, after, lsn in reversed(self._segments):
            if table > index:
                continue
            if table == index and after is not None:
                if key is None:
                    key = [record["key"].get(column) for column in self._segment_keys[index]]
                if not key > after:
                    continue
            return commit_lsn < lsn
        return False

    def next_poll_delay(self) -> float:
        return IDLE_DELAY

    # -- checkpoints ------------------------------------------------------------------------------------
    def snapshot_state(self, checkpoint_id):
        self._state.update([dict(self.split)] if self.split is not None else [])
        if self.split is not None and self.split["phase"] == "stream":
            self._to_confirm[checkpoint_id] = self.split["lsn"]

    def notify_checkpoint_complete(self, checkpoint_id):
        done = [n for n in self._to_confirm if n <= checkpoint_id]
        if not done:
            return
        lsn = max((self._to_confirm.pop(n) for n in done), key=lsn_value)
        confirmed = self._connection.execute(
            "SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = %s", (self.slot,)).fetchone()
        if confirmed and lsn_value(lsn) > lsn_value(confirmed[0]):
            self._connection.execute("SELECT pg_replication_slot_advance(%s, %s::pg_lsn)", (self.slot, lsn))

    def close(self):
        if self._snapshot is not None:
            self._snapshot[0].close()
            self._snapshot = None
        if self._connection is not None:
            self._connection.close()  # the temporary reading slot goes with the session
            self._connection = None

    def metrics(self):
        return {"changes_emitted": self.changes_emitted}

    def source_lag(self) -> list[dict] | None:
        """While streaming: the WAL bytes from the position read to the server's current LSN
        (``bytes_behind``) and from the slot's confirmed LSN to it (``pending``: what a completed
        checkpoint does not cover yet), as ``pg_replication_slots`` and ``pg_current_wal_lsn()`` say.
        The initial snapshot has no WAL position yet: no figures then."""
        if self.split is None or self.split["phase"] != "stream" or self._connection is None:
            return None
        current, confirmed = self._connection.execute(
            "SELECT pg_current_wal_lsn()::text, confirmed_flush_lsn::text FROM pg_replication_slots "
            "WHERE slot_name = %s", (self.slot,)).fetchone() or (None, None)
        if current is None:
            return None
        return [split_lag(self.slot, bytes_behind=lsn_value(current) - lsn_value(self.split["lsn"]),
                          pending=None if confirmed is None else lsn_value(current) - lsn_value(confirmed))]


def _qualified(table: str) -> str:
    return table if "." in table else f"public.{table}"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
