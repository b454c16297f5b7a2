"""WebSocket consumers: a run's events (stored ones first, then live ones) and a pipeline's run changes.

Close codes: 4401 not authenticated, 4404 no such run or pipeline, or not visible to you.
"""
from __future__ import annotations

from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from studio.access import pipelines_visible_to, runs_visible_to
from studio.models import RunEvent
from studio.realtime.events import pipeline_group, run_group, serialise_event

NOT_AUTHENTICATED = 4401
NOT_FOUND = 4404
CATCH_UP_BATCH = 500


class _GroupListener(AsyncJsonWebsocketConsumer):
    """A socket that listens to one channel-layer group (``self.group``, set on connect)."""

    async def disconnect(self, code):
        if getattr(self, "group", None):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content, **kwargs):
        """Clients only listen; a ping gets a pong so they can check the connection."""
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})


class RunEventsConsumer(_GroupListener):
    """Streams ``ws/runs/<id>/?after=<seq>``: every event with a larger seq, in order, once.

    The consumer joins the live group before reading the stored events, so an event
    written in between arrives both ways; the seq filter drops the second copy. Live
    events that arrive while the stored ones are still being sent wait in the channel
    layer's queue, so order holds.
    """

    async def connect(self):
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=NOT_AUTHENTICATED)
            return
        if not await self._run_visible(user):
            await self.close(code=NOT_FOUND)
            return
        self.last_seq = _after(self.scope.get("query_string", b""))
        self.group = run_group(self.run_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        while True:  # catch up in batches, so a long history does not sit in memory at once
            events = await self._stored_events_after(self.last_seq)
            for event in events:
                await self._send_event(event)
            if len(events) < CATCH_UP_BATCH:
                break

    async def run_event(self, message):
        await self._send_event(message["event"])

    async def _send_event(self, event):
        if event["seq"] <= self.last_seq:
            return
        self.last_seq = event["seq"]
        await self.send_json(event)

    @database_sync_to_async
    def _run_visible(self, user) -> bool:
        return runs_visible_to(user).filter(pk=self.run_id).exists()

    @database_sync_to_async
    def _stored_events_after(self, seq: int) -> list[dict]:
        events = RunEvent.objects.filter(run_id=self.run_id, seq__gt=seq).order_by("seq")[:CATCH_UP_BATCH]
        return [serialise_event(event) for event in events]


class PipelineRunsConsumer(_GroupListener):
    """Streams ``ws/pipelines/<id>/``: ``{"type": "run", "ts", "data": run summary}`` whenever a run of
    the pipeline is created or changes status. After (re)connecting, read ``GET /api/pipelines/<id>/runs``
    once: this stream carries changes, not the list."""

    async def connect(self):
        self.pipeline_id = int(self.scope["url_route"]["kwargs"]["pipeline_id"])
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=NOT_AUTHENTICATED)
            return
        if not await self._pipeline_visible(user):
            await self.close(code=NOT_FOUND)
            return
        self.group = pipeline_group(self.pipeline_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def pipeline_run(self, message):
        await self.send_json(message["message"])

    @database_sync_to_async
    def _pipeline_visible(self, user) -> bool:
        return pipelines_visible_to(user).filter(pk=self.pipeline_id).exists()


def _after(query_string: bytes) -> int:
    values = parse_qs(query_string.decode("latin-1")).get("after", ["0"])
    try:
        return max(0, int(values[0]))
    except ValueError:
        return 0
