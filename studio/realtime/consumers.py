"""WebSocket consumers: a run's events, stored ones first, then live ones."""
from __future__ import annotations

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from studio.models import Run, RunEvent
from studio.realtime.events import run_group, serialise_event


class RunEventsConsumer(AsyncJsonWebsocketConsumer):
    """Streams ``ws/runs/<id>/?after=<seq>``: every event with a larger seq, in order, once.

    The consumer joins the live group before reading the stored events, so an event
    written in between arrives both ways; the seq filter drops the second copy.
    """

    async def connect(self):
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        if not await self._run_exists():
            await self.close(code=4404)
            return
        self.last_seq = _after(self.scope.get("query_string", b""))
        self.group = run_group(self.run_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        for event in await self._stored_events_after(self.last_seq):
            await self._send_event(event)

    async def disconnect(self, code):
        if getattr(self, "group", None):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content, **kwargs):
        """Clients only listen; a ping gets a pong so they can check the connection."""
        if content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def run_event(self, message):
        await self._send_event(message["event"])

    async def _send_event(self, event):
        if event["seq"] <= self.last_seq:
            return
        self.last_seq = event["seq"]
        await self.send_json(event)

    @database_sync_to_async
    def _run_exists(self) -> bool:
        return Run.objects.filter(pk=self.run_id).exists()

    @database_sync_to_async
    def _stored_events_after(self, seq: int) -> list[dict]:
        events = RunEvent.objects.filter(run_id=self.run_id, seq__gt=seq).order_by("seq")
        return [serialise_event(event) for event in events]


def _after(query_string: bytes) -> int:
    from urllib.parse import parse_qs

    values = parse_qs(query_string.decode()).get("after", ["0"])
    try:
        return max(0, int(values[0]))
    except ValueError:
        return 0
