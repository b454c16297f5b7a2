"""Channels between processes: TCP with credit-based flow control (Flink's netty shuffle, small).

Each slot process runs one :class:`TcpNetwork`. It listens on a port; a producer subtask
whose consumer lives in another slot connects to that slot (one connection per pair of
slots, shared by all channels between them) and opens a channel on it. Channels whose
both ends are in this slot stay in-memory :class:`LocalChannel` objects.

Credit-based flow control
    The receiver grants the sender one *credit* per free buffer slot of the channel's
    queue: ``capacity`` when the channel opens, then one more for each buffer the consuming
    subtask takes, sent in groups of a quarter of the capacity (every frame costs both
    processes a wake-up and a GIL hand-over; a sender still holds three quarters of its
    credit, and one that used all of it is owed at least a group, so nothing stalls). The
    sender sends a buffer only against a credit, and keeps what it may not send yet in its
    own queue; that queue reaching ``capacity`` makes the channel unwritable, which
    backpressures the producing subtask (it suspends its default action until credit
    arrives and the queue drains). So both ends hold at most about ``capacity`` buffers per
    channel, however slow the consumer: memory is bounded.
    Events (barriers, watermarks, end of partition) need no credit -- a barrier must not
    wait for the consumer to take buffers that only the checkpoint would release -- but
    they never overtake buffers queued before them. Nothing at all, not even an event,
    leaves before the receiver's initial credit: that credit also says the receiver has
    bound the channel number to its input channel (the consumer subtask may be built
    after the producer started sending).

Wire format
    Frames ``[4-byte length][1-byte kind][4-byte channel number][body]``. The first frame
    on a connection is HELLO with a msgpack body ``{"slot", "token"}``; the receiver checks
    the token against the one that slot published (``set_peers``) before it unpickles
    anything. OPEN (msgpack channel id) names a channel number; RECORDS and TIMED carry a
    buffer of records (a list, a ``TimestampedBatch``) as msgpack when every value in it
    packs exactly (``engine.runtime.io.wire``: about two thirds of pickle's cost); DATA carries
    any other buffer, and every event, pickled with protocol 5 (records are arbitrary Python
    values); INTS carries a
    buffer of plain integers that a columnar writer handed over as an int64 array
    (``engine.runtime.columnar``), as its little-endian bytes, and the receiver hands the
    consumer the same records as a list of Python ints. Measured on the benchmark job's
    parts of ~1,400 numbers: pickling and unpickling them as a list cost ~50 ns a record,
    the array's bytes and ``tolist`` ~17. CREDIT (msgpack
    int) flows back from receiver to sender, and so does BUFFER_SIZE (msgpack int: buffer
    debloating's announced records per buffer, see ``buffer_debloater``). PRIORITY carries an
    unaligned checkpoint barrier (pickled like DATA): it left the sender ahead of the
    buffers still waiting for credit (the sender persists those as output channel state)
    and goes to the head of the receiver's queue (the receiver persists the buffers it
    overtook there as input channel state).

Threading model
    Each connection has one reader thread. A remote output channel's queue and credit are
    guarded by its lock, which is held while it sends (so frames leave in queue order); a
    connection's socket writes are guarded by the connection's send lock (lock order:
    channel, then connection). A remote input channel is filled by the reader thread and
    emptied by the consuming subtask's thread through the input gate.
"""
from __future__ import annotations

import contextlib
import logging
import pickle
import secrets
import socket
import struct
import threading
from collections import deque
from typing import Callable

import msgpack
import numpy as np

from engine.plan.channels import ChannelId
from engine.runtime.io.events import ChannelError, EndOfPartition, TimestampedBatch
from engine.runtime.io.local_channel import DEFAULT_CAPACITY, InputChannelBase, _barrier_index
from engine.runtime.io.network import LocalNetwork
from engine.runtime.io.port_range import ANY_PORT, bind_listener
from engine.runtime.io.wire import RECORDS_FRAME, TIMED_FRAME, BufferEncoder, decode as decode_buffer
from engine.runtime.thread_names import name_os_thread

logger = logging.getLogger(__name__)

_HEADER = struct.Struct(">IBI")
HELLO, OPEN, DATA, CREDIT, BUFFER_SIZE, PRIORITY, INTS = 1, 2, 3, 4, 5, 6, 7
RECORDS, TIMED = RECORDS_FRAME, TIMED_FRAME
_WIRE_INT64 = np.dtype("<i8")
MAX_FRAME_BYTES = 512 * 1024 * 1024
PEERS_TIMEOUT_S = 60
ACCEPT_STOP_TIMEOUT_S = 5


def _is_buffer(item) -> bool:
    kind = type(item)
    return kind is list or kind is TimestampedBatch or kind is np.ndarray


def _as_records(items: list) -> list:
    """Queued items as channel state holds them: an int64 array's records as a list."""
    return [item.tolist() if type(item) is np.ndarray else item for item in items]


class _Connection:
    """One TCP connection between two slots, carrying frames both ways."""

    def __init__(self, sock: socket.socket, on_frame: Callable[["_Connection", int, int, bytes], None],
                 name: str):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self._on_frame = on_frame
        self._send_lock = threading.Lock()  # guards: writes to self.sock
        self._reader = sock.makefile("rb", buffering=1 << 16)
        self.closed = False
        self.thread = threading.Thread(target=self._read_loop, name=name, daemon=True)

    def send(self, kind: int, channel: int, body: bytes | memoryview) -> None:
        """One frame; ``body`` bytes or a byte-addressed C-contiguous buffer (an array's ``data``)."""
        if type(body) is memoryview and body.itemsize != 1:
            body = body.cast("B")
        header = _HEADER.pack(len(body) + 5, kind, channel)
        with self._send_lock:
            self.sock.sendall(header + body if len(body) < 4096 else header)
            if len(body) >= 4096:
                self.sock.sendall(body)

    def read_frame(self) -> tuple[int, int, bytes]:
        header = self._reader.read(_HEADER.size)
        if len(header) < _HEADER.size:
            raise ConnectionError("connection closed by peer")
        length, kind, channel = _HEADER.unpack(header)
        if length > MAX_FRAME_BYTES:
            raise ConnectionError(f"frame of {length} bytes exceeds {MAX_FRAME_BYTES}")
        body = self._reader.read(length - 5)
        if len(body) < length - 5:
            raise ConnectionError("connection closed by peer")
        return kind, channel, body

    def _read_loop(self) -> None:
        name_os_thread()
        try:
            while True:
                kind, channel, body = self.read_frame()
                self._on_frame(self, kind, channel, body)
        except (OSError, ConnectionError, EOFError) as error:
            if not self.closed:
                self._on_frame(self, -1, 0, str(error).encode())
        except Exception as error:  # a bug: log it, end the connection
            logger.exception("network reader failed")
            self._on_frame(self, -1, 0, repr(error).encode())

    def close(self) -> None:
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class RemoteOutputChannel:
    """The producer end of a channel to another process: sends against credit."""

    takes_int_arrays = True
    """A writer may push int64 arrays of records here (sent as INTS frames)."""

    def __init__(self, channel_id: ChannelId, number: int, connection: _Connection, capacity: int):
        self.channel_id = channel_id
        self.number = number
        self.capacity = capacity
        self._connection = connection
        self._lock = threading.Lock()
        self._sent = threading.Condition(self._lock)  # notified when the queue ran empty
        self._queue: deque = deque()  # guarded by: self._lock; not yet sent
        self._credit = 0  # guarded by: self._lock
        self._bound = False  # guarded by: self._lock; the receiver's first credit arrived
        self._writable_callback: Callable[[], None] | None = None  # guarded by: self._lock
        self.max_queued = 0
        self.int_arrays_sent = 0
        self.encoder = BufferEncoder()  # guarded by: self._lock
        self.failure: str | None = None
        self.buffer_size: int | None = None
        """Records per buffer the receiver announced (buffer debloating); None: whole batches."""

    def push(self, item) -> None:
        """Queue a buffer (a list, or an int64 array of records) or an event and send what credit
        allows. Producer thread."""
        if self.failure is not None:
            raise ConnectionError(f"channel {self.channel_id}: {self.failure}")
        with self._lock:
            self._queue.append(item)
            if len(self._queue) > self.max_queued:
                self.max_queued = len(self._queue)
            self._send_allowed_locked()

    def _send_allowed_locked(self) -> None:
        if not self._bound:
            return  # the receiver has no channel for our number yet: not even an event may go
        queue = self._queue
        while queue:
            head = queue[0]
            buffer = _is_buffer(head)
            if buffer:
                if self._credit <= 0:
                    return
                self._credit -= 1
            queue.popleft()
            if type(head) is np.ndarray:  # its own bytes, not a copy (``bytes`` of a buffer)
                self._connection.send(INTS, self.number, np.ascontiguousarray(head, dtype=_WIRE_INT64).data)
                self.int_arrays_sent += 1
                continue
            frame = self.encoder.encode(head) if buffer else None
            if frame is not None:
                self._connection.send(frame[0], self.number, frame[1])
            else:
                self._connection.send(DATA, self.number, pickle.dumps(head, protocol=5))
        self._sent.notify_all()

    def push_priority(self, event) -> list:
        """An unaligned barrier: send it now, ahead of what waits for credit; return those
        items (output channel state; they are still sent later, after the barrier)."""
        if self.failure is not None:
            raise ConnectionError(f"channel {self.channel_id}: {self.failure}")
        with self._lock:
            overtaken = _as_records(list(self._queue))
            if self._bound:
                self._connection.send(PRIORITY, self.number, pickle.dumps(event, protocol=5))
            else:  # nothing has left yet: at the head it is the first thing the receiver gets
                self._queue.appendleft(event)
        return overtaken

    def holds_barrier(self, checkpoint_id: int) -> bool:
        """Whether barrier ``checkpoint_id`` still waits here for credit (aligned timeout's watch)."""
        with self._lock:
            return _barrier_index(self._queue, checkpoint_id) is not None

    def overtake_barrier(self, barrier) -> list | None:
        """Aligned timeout: send ``barrier`` now in place of the queued one of the same id;
        return the items it overtook, or None when that barrier already left."""
        with self._lock:
            index = _barrier_index(self._queue, barrier.id)
            if index is None:
                return None
            overtaken = _as_records([self._queue[i] for i in range(index)])
            del self._queue[index]
            if self._bound:
                self._connection.send(PRIORITY, self.number, pickle.dumps(barrier, protocol=5))
            else:
                self._queue.appendleft(barrier)
        return overtaken

    def wait_until_sent(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s until everything pushed went out; True when it did (or failed).

        The producing subtask calls it after its EndOfPartition, before it reports finished:
        its slot may close the connection once all its subtasks finished, and what waits
        here for credit would be lost.
        """
        with self._lock:
            if self._queue and self.failure is None:
                self._sent.wait(timeout)
            return not self._queue or self.failure is not None

    def add_credit(self, credit: int) -> None:
        """The receiver freed ``credit`` buffers. Reader thread."""
        callback = None
        with self._lock:
            self._credit += credit
            self._bound = True
            self._send_allowed_locked()
            if self._writable_callback is not None and len(self._queue) < self.capacity:
                callback, self._writable_callback = self._writable_callback, None
        if callback is not None:
            callback()

    def is_writable(self) -> bool:
        return len(self._queue) < self.capacity

    def when_writable(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if len(self._queue) >= self.capacity:
                self._writable_callback = callback
                return
        callback()

    def fail(self, message: str) -> None:
        callback = None
        with self._lock:
            self.failure = message
            callback, self._writable_callback = self._writable_callback, None
            self._sent.notify_all()
        if callback is not None:
            callback()  # wake the producer: its next push raises

    def close(self) -> None:
        """Nothing to release: the connection belongs to the network."""


class RemoteInputChannel(InputChannelBase):
    """The consumer end of a channel from another process: grants credit as buffers are taken."""

    def __init__(self, channel_id: ChannelId, capacity: int = DEFAULT_CAPACITY):
        super().__init__(channel_id, capacity)
        self._grant: Callable[[int], None] | None = None
        self._announce: Callable[[int], None] | None = None
        self._pending_buffer_size: int | None = None
        self._credit_group = max(1, capacity // 4)
        self._ungranted = 0  # consumer thread only: buffers taken whose credit is not sent yet
        self.finished = False

    def bind(self, grant: Callable[[int], None], announce: Callable[[int], None] | None = None) -> None:
        """The sender's connection is known: grant the initial credit. Reader thread."""
        self._grant = grant
        self._announce = announce
        grant(self.capacity)
        if announce is not None and self._pending_buffer_size is not None:
            announce(self._pending_buffer_size)

    def announce_buffer_size(self, records: int) -> None:
        """Tell the sender the buffer size to use (buffer debloating). Consumer thread."""
        self._pending_buffer_size = int(records)
        announce = self._announce
        if announce is not None:
            try:
                announce(int(records))
            except OSError:
                pass  # the sender is gone; the reader thread reports it

    def receive(self, item) -> None:
        """An item arrived from the sender. Reader thread."""
        if type(item) is EndOfPartition:
            self.finished = True
        self._enqueue(item)

    def receive_priority(self, barrier) -> None:
        """An unaligned barrier arrived: it overtakes the queued items, which the consumer
        keeps as input channel state (``take_overtaken``). Reader thread."""
        self._enqueue_priority(barrier, keep=True)

    def _on_consumed(self, item) -> None:
        grant = self._grant
        if grant is None or not _is_buffer(item):
            return
        self._ungranted += 1
        if self._ungranted < self._credit_group:
            return
        credit, self._ungranted = self._ungranted, 0
        try:
            grant(credit)
        except OSError:
            pass  # the sender is gone; the reader thread reports it


class TcpNetwork:
    """The network environment of one slot process: local channels inside, TCP to other slots.

    ``slots_tasks[i]`` lists the subtasks of slot i; this process is slot ``slot_index``.
    Create it (it listens at once), publish ``address`` and ``token`` to the other slots,
    then call ``set_peers`` with every slot's, before building the slot's subtasks (on
    Spark the addresses travel over the control channel, see ``engine.cluster.spark_slot``).
    """

    def __init__(self, slot_index: int, slots_tasks: list[list], *, bind_host: str = "0.0.0.0",
                 advertised_host: str = "127.0.0.1", ports: range | None = None,
                 capacity: int = DEFAULT_CAPACITY):
        self.slot_index = slot_index
        self.capacity = capacity
        self._local = LocalNetwork(capacity)
        self._slot_of = {(task[0], int(task[1])): index for index, tasks in enumerate(slots_tasks) for task in tasks}
        self.token = secrets.token_hex(16)
        self._lock = threading.Lock()
        self._peers: dict[int, tuple[str, int, str]] = {}  # guarded by: self._lock; slot -> (host, port, token)
        self._peers_known = threading.Event()  # set_peers was called: a HELLO can be checked
        self._outgoing: dict[int, _Connection] = {}  # guarded by: self._lock; consumer slot -> connection
        self._output_channels: dict[tuple[int, int], RemoteOutputChannel] = {}  # guarded by: self._lock
        self._next_number: dict[int, int] = {}  # guarded by: self._lock
        self._inputs: dict[ChannelId, RemoteInputChannel] = {}  # guarded by: self._lock
        self._opened: dict[ChannelId, tuple[_Connection, int]] = {}  # guarded by: self._lock
        self._incoming: dict[tuple[int, int], RemoteInputChannel] = {}  # guarded by: self._lock
        self._connections: list[_Connection] = []  # guarded by: self._lock
        self._closed = False
        # ``ports``: the worker host's ENGINE_DATA_PORTS (engine.cluster.addresses); None: any free port
        self._server = bind_listener(bind_host, ports or ANY_PORT, setting="ENGINE_DATA_PORTS")
        self.address = (advertised_host, self._server.getsockname()[1])
        self._accept_thread = threading.Thread(target=self._accept_loop, name=f"network-accept-{slot_index}",
                                               daemon=True)
        self._accept_thread.start()

    # -- setup ---------------------------------------------------------------------------------
    def set_peers(self, peers: list[dict]) -> None:
        """Every slot's ``{"host", "port", "token"}``, indexed by slot."""
        with self._lock:
            for index, peer in enumerate(peers):
                self._peers[index] = (peer["host"], int(peer["port"]), peer["token"])
        self._peers_known.set()

    def peer_info(self) -> dict:
        return {"host": self.address[0], "port": self.address[1], "token": self.token}

    # -- NetworkEnvironment ------------------------------------------------------------------
    def _slot_of_task(self, task) -> int:
        slot = self._slot_of.get((task[0], int(task[1])))
        if slot is None:
            raise ValueError(f"subtask {task[0]}#{task[1]} is not placed on any slot of this network")
        return slot

    def output_channel(self, channel_id: ChannelId):
        consumer_slot = self._slot_of_task(channel_id.consumer)
        if consumer_slot == self.slot_index:
            return self._local.output_channel(channel_id)
        connection = self._connection_to(consumer_slot)
        with self._lock:
            number = self._next_number.get(consumer_slot, 0)
            self._next_number[consumer_slot] = number + 1
            channel = RemoteOutputChannel(channel_id, number, connection, self.capacity)
            self._output_channels[(id(connection), number)] = channel
        connection.send(OPEN, number, msgpack.packb(channel_id.as_list()))
        return channel

    def input_channel(self, channel_id: ChannelId):
        producer_slot = self._slot_of_task(channel_id.producer)
        if producer_slot == self.slot_index:
            return self._local.input_channel(channel_id)
        with self._lock:
            channel = self._inputs.get(channel_id)
            if channel is None:
                channel = self._inputs[channel_id] = RemoteInputChannel(channel_id, self.capacity)
            opened = self._opened.pop(channel_id, None)
        if opened is not None:
            self._bind(channel, *opened)
        return channel

    def remote_channels(self) -> list:
        with self._lock:
            return list(self._output_channels.values()) + list(self._inputs.values())

    def close(self) -> None:
        """Stop listening and close every connection; their threads end.

        Closing a listening socket does not wake a thread blocked in ``accept`` (Linux), so
        it would stay, and keep the port open, in a reused Spark Python worker after every
        run: shutting the socket down first does wake it."""
        with self._lock:
            self._closed = True
            connections = list(self._connections)
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._server.close()
        if self._accept_thread is not threading.current_thread():
            self._accept_thread.join(ACCEPT_STOP_TIMEOUT_S)
        for connection in connections:
            connection.close()

    # -- connections -------------------------------------------------------------------------
    def _connection_to(self, slot: int) -> _Connection:
        with self._lock:
            connection = self._outgoing.get(slot)
            if connection is not None:
                return connection
            if slot not in self._peers:
                raise RuntimeError(f"slot {self.slot_index} does not know the address of slot {slot}")
            host, port, token = self._peers[slot]
        sock = socket.create_connection((host, port), timeout=30)
        sock.settimeout(None)
        connection = _Connection(sock, self._on_frame, f"net-{self.slot_index}-to-{slot}")
        connection.send(HELLO, 0, msgpack.packb({"slot": self.slot_index, "token": self.token}))
        with self._lock:
            existing = self._outgoing.get(slot)
            if existing is not None:  # another thread connected first
                connection.close()
                return existing
            self._outgoing[slot] = connection
            self._connections.append(connection)
        connection.thread.start()
        return connection

    def _accept_loop(self) -> None:
        while True:
            try:
                sock, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._handshake, args=(sock,), daemon=True,
                             name=f"network-handshake-{self.slot_index}").start()

    def _handshake(self, sock: socket.socket) -> None:
        connection = _Connection(sock, self._on_frame, f"net-{self.slot_index}-from-peer")
        try:
            kind, _, body = connection.read_frame()
            hello = msgpack.unpackb(body) if kind == HELLO else {}
            # A peer may learn the addresses and connect before this slot stored them:
            # wait for them rather than refuse a legitimate connection.
            self._peers_known.wait(PEERS_TIMEOUT_S)
            with self._lock:
                peer = self._peers.get(hello.get("slot"))
            if peer is None or not secrets.compare_digest(str(hello.get("token")), peer[2]):
                raise ConnectionError("unknown peer or wrong token")
        except (OSError, ConnectionError, ValueError) as error:
            logger.warning("refused a network connection: %s", error)
            connection.close()
            return
        with self._lock:
            self._connections.append(connection)
        connection.thread.start()

    def _bound_input(self, connection: _Connection, number: int, what: str):
        """The input channel ``number`` of ``connection``; the sender waits for our credit before
        it sends, so a frame for a channel this slot never bound is a protocol error."""
        with self._lock:
            channel = self._incoming.get((id(connection), number))
        if channel is None:
            raise ConnectionError(f"{what} for channel {number}, which this slot never bound")
        return channel

    def _on_frame(self, connection: _Connection, kind: int, number: int, body: bytes) -> None:
        if kind == DATA:
            self._bound_input(connection, number, "data").receive(pickle.loads(body))
        elif kind == RECORDS or kind == TIMED:
            self._bound_input(connection, number, "data").receive(decode_buffer(kind, body))
        elif kind == INTS:
            self._bound_input(connection, number, "data").receive(np.frombuffer(body, dtype=_WIRE_INT64).tolist())
        elif kind == PRIORITY:
            self._bound_input(connection, number, "barrier").receive_priority(pickle.loads(body))
        elif kind == CREDIT:
            with self._lock:
                channel = self._output_channels.get((id(connection), number))
            if channel is not None:
                channel.add_credit(msgpack.unpackb(body))
        elif kind == BUFFER_SIZE:
            with self._lock:
                channel = self._output_channels.get((id(connection), number))
            if channel is not None:
                channel.buffer_size = int(msgpack.unpackb(body))
        elif kind == OPEN:
            channel_id = ChannelId.from_list(msgpack.unpackb(body))
            with self._lock:
                channel = self._inputs.get(channel_id)
                if channel is None:
                    self._opened[channel_id] = (connection, number)
            if channel is not None:
                self._bind(channel, connection, number)
        elif kind == -1:
            self._connection_lost(connection, body.decode(errors="replace"))

    def _bind(self, channel: RemoteInputChannel, connection: _Connection, number: int) -> None:
        with self._lock:
            self._incoming[(id(connection), number)] = channel
        channel.bind(lambda credit: connection.send(CREDIT, number, msgpack.packb(credit)),
                     lambda size: connection.send(BUFFER_SIZE, number, msgpack.packb(size)))

    def _connection_lost(self, connection: _Connection, message: str) -> None:
        with self._lock:
            if self._closed:
                return
            inputs = [c for (conn, _), c in self._incoming.items() if conn == id(connection)]
            outputs = [c for (conn, _), c in self._output_channels.items() if conn == id(connection)]
        for channel in inputs:
            if not channel.finished:
                channel.receive(ChannelError(f"connection to the producer lost: {message}"))
        for channel in outputs:
            channel.fail(f"connection to the consumer lost: {message}")
