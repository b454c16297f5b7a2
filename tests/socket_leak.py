"""Sockets that vanish while the server sends to them, and what they leave behind in the server.

Shared by the socket hygiene test and ``make bench-studio``: ``count`` clients follow a run over
real TCP (the server is ``tests.support.ThreadedAsgiServer``, so its event loop can be looked
into); events they missed are stored and a live one makes each socket catch up, sending; each
client vanishes (a TCP reset, no closing handshake) once the server is sending to it. What is
left once the server saw every socket go: tasks in its event loop beyond those of the idle
server, and members of the run's channel-layer group. Both must be 0.
"""
from __future__ import annotations

import socket
import struct

STORED_EVENTS = 3000


def open_socket(server, run_id: int, token: str):
    import websockets.sync.client

    return websockets.sync.client.connect(
        f"ws://127.0.0.1:{server.port}/ws/runs/{run_id}/?after=1",
        additional_headers={"Authorization": f"Token {token}", "Origin": f"http://127.0.0.1:{server.port}"},
        max_size=None, open_timeout=30)


def reset(client) -> None:
    """Vanish as a crashed client or a dropped network does: RST, no closing handshake."""
    client.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    client.socket.close()


def store_events_without_fan_out(run_id: int, count: int) -> None:
    """Events the sockets missed: they catch up on them when the next live one arrives."""
    from studio.models import RunEvent

    last = RunEvent.objects.filter(run_id=run_id).order_by("-seq").first().seq
    RunEvent.objects.bulk_create([RunEvent(run_id=run_id, seq=last + number, type="metrics", ts=0,
                                           data={"vertices": {}, "padding": "x" * 200})
                                  for number in range(1, count + 1)])


async def group_members(group: str) -> int:
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    connection = layer.connection(layer.consistent_hash(group))
    return await connection.zcard(layer._group_key(group))


def vanish_while_sending(server, run_id: int, token: str, count: int) -> tuple[int, int]:
    """``(tasks left, group members left)`` after ``count`` sockets of the run vanished mid-send."""
    from asgiref.sync import async_to_sync

    from studio.runs.events import run_group, set_status
    from tests.support import wait_until

    idle_tasks = server.tasks()
    clients = [open_socket(server, run_id, token) for _ in range(count)]
    store_events_without_fan_out(run_id, STORED_EVENTS)
    set_status(run_id, "RUNNING")  # a live event after a gap: every socket catches up, sending
    for client in clients:
        client.recv(timeout=30)  # the server is sending this socket its catch-up now
        reset(client)
    wait_until(lambda: server.connections() == 0, 60, "the server to see every socket gone")
    tasks_left = server.tasks_settled_at(idle_tasks) - idle_tasks
    return tasks_left, async_to_sync(group_members)(run_group(run_id))
