"""The control channel between Spark slots and the JobMaster: framed msgpack over TCP.

Every message is a 4-byte big-endian length followed by a msgpack map with a ``type``.
Slots connect to the JobMaster (its address travels with the Spark job) and say
``register``, with the address their network listens on (``peer``: host, port, token).
Once every slot of a stage registered, the JobMaster sends each of them ``peers``: every
slot's address, by slot index, from which the slots connect to each other (Spark's
``allGather`` would do the same, but its task side polls once a second). Afterwards both
sides send one-way messages:

- slot to JobMaster, mirroring ``JobMasterGateway``: ``ack``, ``decline``, ``metrics``,
  ``finished``, ``failed``, ``tap``;
- JobMaster to slot, mirroring ``TaskExecutorGateway``: ``trigger``, ``complete``,
  ``aborted``, ``cancel``, ``tap_open``, ``tap_close``.

Threading model: each connection has one reader thread that dispatches messages in order;
``send`` may be called from any thread (guarded by a per-connection lock).
"""
from __future__ import annotations

import logging
import os
import socket
import struct
import threading
from typing import Any, Callable

import msgpack

from engine.cluster.addresses import Endpoint, control_endpoint
from engine.runtime.thread_names import name_os_thread

logger = logging.getLogger(__name__)

_HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 256 * 1024 * 1024


DEAD_PEER_TIMEOUT_S = 15
"""A control connection whose peer is unreachable this long is closed (TCP keepalive while
idle, ``TCP_USER_TIMEOUT`` while data waits for acknowledgement). Without it a network
partition left both ends waiting for the kernel's retransmissions (15 minutes): the driver
never failed the region over, and the partitioned slot ran on. Now the driver fails the
region over, and the slot, whose driver is gone, cancels itself and commits nothing more
(tests/multihost)."""


def _detect_a_dead_peer(sock: socket.socket) -> None:
    """Close ``sock`` once its peer stayed unreachable ``DEAD_PEER_TIMEOUT_S`` (Linux options;
    elsewhere keepalive with the system's timing)."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (("TCP_KEEPIDLE", 5), ("TCP_KEEPINTVL", 2), ("TCP_KEEPCNT", 5),
                          ("TCP_USER_TIMEOUT", DEAD_PEER_TIMEOUT_S * 1000)):
        if hasattr(socket, option):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)


class ControlConnectionClosed(ConnectionError):
    """The peer closed the control connection."""


class FramedConnection:
    """One TCP connection carrying length-prefixed msgpack messages."""

    def __init__(self, sock: socket.socket):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        _detect_a_dead_peer(sock)
        self._sock = sock
        self._reader = sock.makefile("rb")
        self._send_lock = threading.Lock()  # guards: writes to self._sock

    def send(self, message: dict[str, Any]) -> None:
        payload = msgpack.packb(message, use_bin_type=True)
        with self._send_lock:
            self._sock.sendall(_HEADER.pack(len(payload)) + payload)

    def receive(self) -> dict[str, Any]:
        header = self._read_exactly(_HEADER.size)
        (length,) = _HEADER.unpack(header)
        if length > MAX_FRAME_BYTES:
            raise ConnectionError(f"control frame of {length} bytes exceeds {MAX_FRAME_BYTES}")
        return msgpack.unpackb(self._read_exactly(length), raw=False, strict_map_key=False)

    def _read_exactly(self, size: int) -> bytes:
        data = self._reader.read(size)
        if len(data) < size:
            raise ControlConnectionClosed("control connection closed by peer")
        return data

    def close(self) -> None:
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()


class RemoteSlot:
    """The JobMaster's handle of one slot: a ``TaskExecutorGateway`` that sends messages."""

    def __init__(self, slot_index: int, connection: FramedConnection, tasks: list[list], stage_id: int = 1,
                 pid: int | None = None, cpu: int | None = None, peer: dict | None = None):
        self.slot_index = slot_index
        self.stage_id = stage_id  # the barrier stage (one try of one region) the slot belongs to
        self.pid = pid  # the slot's process: its Spark Python worker
        self.cpu = cpu  # the CPU the slot is pinned to, None when it is not
        self.tasks = [tuple(task) for task in tasks]
        self._task_names = {f"{task[0]}#{task[1]}" for task in self.tasks}  # task_name(task), as triggers name them
        self.peer = peer  # where the slot's network listens: {"host", "port", "token"}, or None
        self._connection = connection

    def send_peers(self, peers: list[dict | None]) -> None:
        """Every slot's network address of the stage, by slot index."""
        self._send({"type": "peers", "peers": peers})

    def trigger_checkpoint(self, checkpoint_id: int, timestamp_ms: int, options: dict) -> None:
        """Send the trigger with ``trigger_tasks`` cut down to this slot's subtasks: the slot
        hands it to those only, and the whole list (every source of the job) in every slot's
        trigger made triggers most of a checkpoint's control bytes (500 KB of 830 KB at 1,000
        subtasks, tests/bench/bench_scale.py)."""
        targets = options.get("trigger_tasks")
        if targets is not None:
            options = {**options, "trigger_tasks": sorted(self._task_names.intersection(targets))}
        self._send({"type": "trigger", "checkpoint_id": checkpoint_id, "timestamp": timestamp_ms,
                    "options": options})

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        self._send({"type": "complete", "checkpoint_id": checkpoint_id})

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        self._send({"type": "aborted", "checkpoint_id": checkpoint_id})

    def cancel(self) -> None:
        self._send({"type": "cancel"})

    def open_tap(self, tap_id: str, node_id: str, limits: dict) -> None:
        self._send({"type": "tap_open", "tap": tap_id, "node": node_id, "limits": limits})

    def close_tap(self, tap_id: str) -> None:
        self._send({"type": "tap_close", "tap": tap_id})

    def deliver_operator_event(self, task, node_id: str, event: dict) -> None:
        self._send({"type": "op_event", "task": list(task), "node": node_id, "event": event})

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self._connection.send(message)
        except OSError:
            logger.info("slot %s is gone; dropped %s", self.slot_index, message["type"])


class ControlServer:
    """The JobMaster's listening side: accepts slots and dispatches their messages.

    ``gateway_for(stage_id)`` returns the ``JobMasterGateway`` that receives the messages of
    a slot of that barrier stage; ``on_register(RemoteSlot)`` and ``on_disconnect(RemoteSlot)``
    tell the JobMaster which slots are reachable.
    """

    def __init__(self, gateway_for: Callable[[int], Any], on_register: Callable[[RemoteSlot], None],
                 on_disconnect: Callable[[RemoteSlot], None], endpoint: Endpoint | None = None):
        self._gateway_for = gateway_for
        self._on_register = on_register
        self._on_disconnect = on_disconnect
        self.endpoint = endpoint or control_endpoint()
        self._listener = self.endpoint.listen(backlog=256)
        self._closed = threading.Event()
        self._connections: list[FramedConnection] = []
        self._lock = threading.Lock()  # guards: self._connections
        threading.Thread(target=self._accept_loop, name="control-accept", daemon=True).start()

    @property
    def port(self) -> int:
        return self._listener.getsockname()[1]

    @property
    def advertised_address(self) -> tuple[str, int]:
        """Where the slots connect: the advertised host (see ``addresses``) and the bound port."""
        return self.endpoint.advertised_host or "127.0.0.1", self.port

    def _accept_loop(self) -> None:
        while not self._closed.is_set():
            try:
                sock, _ = self._listener.accept()
            except OSError:
                return
            connection = FramedConnection(sock)
            with self._lock:
                self._connections.append(connection)
            threading.Thread(target=self._serve, args=(connection,), name="control-conn", daemon=True).start()

    def _serve(self, connection: FramedConnection) -> None:
        slot = None
        try:
            hello = connection.receive()
            if hello.get("type") != "register":
                raise ConnectionError(f"expected register, got {hello.get('type')}")
            slot = RemoteSlot(hello["slot"], connection, hello.get("tasks", []), hello.get("stage", 1),
                              hello.get("pid"), hello.get("cpu"), hello.get("peer"))
            gateway = self._gateway_for(slot.stage_id)
            self._on_register(slot)
            while True:
                self._dispatch(gateway, connection.receive())
        except (ConnectionError, OSError):
            pass
        except Exception:
            logger.exception("control connection of slot %s failed", slot and slot.slot_index)
        finally:
            connection.close()
            if slot is not None and not self._closed.is_set():
                self._on_disconnect(slot)

    @staticmethod
    def _dispatch(master, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "ack":
            master.acknowledge_checkpoint(message["ack"])
        elif kind == "decline":
            master.decline_checkpoint(message["checkpoint_id"], tuple(message["task"]), message["reason"])
        elif kind == "metrics":
            master.report_metrics(tuple(message["task"]), message["metrics"])
        elif kind == "finished":
            master.task_finished(tuple(message["task"]), message.get("result") or {})
        elif kind == "failed":
            master.task_failed(tuple(message["task"]), message["error"])
        elif kind == "tap":
            master.report_tap(message["tap"], tuple(message["task"]), message["sample"])
        elif kind == "op_event":
            master.send_operator_event(tuple(message["task"]), message["node"], message["event"])
        else:
            logger.warning("unknown control message %r", kind)

    def close(self) -> None:
        self._closed.set()
        self._listener.close()
        with self._lock:
            for connection in self._connections:
                connection.close()


class ControlClient:
    """A slot's side: a ``JobMasterGateway`` that sends, and a reader that delivers commands.

    ``slot_gateway`` (the local slot, a ``TaskExecutorGateway``) is attached after the
    slot is built; commands arriving before that are not possible, because the
    JobMaster only triggers checkpoints once every slot has registered. When the
    JobMaster goes away (its driver died) the slot is cancelled, so no Spark task lingers.
    """

    def __init__(self, address: tuple[str, int], slot_index: int, tasks: list[tuple[str, int]],
                 stage_id: int = 1, cpu: int | None = None, peer: dict | None = None):
        self._connection = FramedConnection(socket.create_connection(address, timeout=30))
        self._connection._sock.settimeout(None)
        self._slot_gateway = None
        self._closing = False
        self._connection.send({"type": "register", "slot": slot_index, "stage": stage_id, "pid": os.getpid(),
                               "cpu": cpu, "tasks": [list(t) for t in tasks], "peer": peer})

    def wait_for_peers(self) -> list[dict] | None:
        """Block until the JobMaster sent every slot's address (before ``attach``); None when
        it cancelled the stage instead or went away."""
        try:
            while True:
                message = self._connection.receive()
                if message["type"] == "peers":
                    return message["peers"]
                if message["type"] == "cancel":
                    return None
        except (ConnectionError, OSError):
            return None

    def attach(self, slot_gateway) -> None:
        """Start delivering JobMaster commands to the slot (from the reader thread)."""
        self._slot_gateway = slot_gateway
        threading.Thread(target=self._read_loop, name="control-reader", daemon=True).start()

    def _read_loop(self) -> None:
        name_os_thread()
        slot = self._slot_gateway
        try:
            while True:
                message = self._connection.receive()
                kind = message["type"]
                if kind == "trigger":
                    slot.trigger_checkpoint(message["checkpoint_id"], message["timestamp"], message["options"])
                elif kind == "complete":
                    slot.notify_checkpoint_complete(message["checkpoint_id"])
                elif kind == "aborted":
                    slot.notify_checkpoint_aborted(message["checkpoint_id"])
                elif kind == "cancel":
                    slot.cancel()
                elif kind == "tap_open":
                    slot.open_tap(message["tap"], message["node"], message["limits"])
                elif kind == "tap_close":
                    slot.close_tap(message["tap"])
                elif kind == "op_event":
                    slot.deliver_operator_event(tuple(message["task"]), message["node"], message["event"])
                # "peers" of a stage whose slots need no network of their own: nothing to do
        except (ConnectionError, OSError):
            if not self._closing:
                slot.cancel()

    # JobMasterGateway
    def acknowledge_checkpoint(self, ack: dict) -> None:
        self._send({"type": "ack", "ack": ack})

    def decline_checkpoint(self, checkpoint_id: int, task, reason: str) -> None:
        self._send({"type": "decline", "checkpoint_id": checkpoint_id, "task": list(task), "reason": reason})

    def report_metrics(self, task, metrics: dict) -> None:
        self._send({"type": "metrics", "task": list(task), "metrics": metrics})

    def task_finished(self, task, result: dict) -> None:
        self._send({"type": "finished", "task": list(task), "result": result})

    def task_failed(self, task, error: str) -> None:
        self._send({"type": "failed", "task": list(task), "error": error})

    def report_tap(self, tap_id: str, task, sample: dict) -> None:
        self._send({"type": "tap", "tap": tap_id, "task": list(task), "sample": sample})

    def send_operator_event(self, task, node_id: str, event: dict) -> None:
        self._send({"type": "op_event", "task": list(task), "node": node_id, "event": event})

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self._connection.send(message)
        except OSError:
            logger.warning("JobMaster unreachable; dropped %s", message["type"])

    def close(self) -> None:
        self._closing = True
        self._connection.close()
