"""WebSocket consumers: a run's events (stored ones first, then live ones) and a pipeline's run changes.

Close codes: 4401 not authenticated, 4404 no such run or pipeline, or not visible to you
(also any path that is no socket of the studio), 4403 access revoked while connected
(``studio.realtime.revocation``, and the periodic check below).
"""
from __future__ import annotations

import asyncio
import logging
import random
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer, AsyncWebsocketConsumer
from django.conf import settings

from studio.access import pipelines_visible_to, runs_visible_to
from studio.json_out import dumps
from studio.models import Run, RunEvent
from studio.realtime.auth import credential_user
from studio.realtime.pipeline_runs import pipeline_group
from studio.realtime.revocation import pipeline_access_group, user_access_group
from studio.runs.events import run_group, serialise_event

logger = logging.getLogger(__name__)

NOT_AUTHENTICATED = 4401
ACCESS_REVOKED = 4403
NOT_FOUND = 4404
CATCH_UP_BATCH = 500
WATCH_INTERVAL_S = 5.0
STOP_RETRY_S = 0.5


class _GroupListener(AsyncJsonWebsocketConsumer):
    """A socket that listens to channel-layer groups and closes when its access is revoked.

    Subclasses authorise in ``connect`` (``_authorise``), then ``_join`` their stream's group;
    ``_visible(user)`` answers whether ``user`` may still see what the socket streams.

    Access is asked again when a revocation signal reaches the socket (``access_changed``)
    and, for changes no signal announces (raw SQL, ``QuerySet.update``), every
    ``settings.SOCKET_ACCESS_RECHECK_S`` seconds while it is open.

    Whatever the socket started in the background (``_background``) ends with it, and it
    leaves its groups, on every path: a normal close, a client that vanished while the
    server was sending (the server's ``send`` raises), the channel layer failing, or the
    server cancelling the socket. ``_ended`` is the subclasses' hook for the same moment.
    Cancelling alone does not end a task: one cancelled inside a ``database_sync_to_async``
    call gets the call's result instead (asgiref cannot stop the thread, and swallows the
    cancellation), so background loops also stop once ``live`` is false, and the end
    cancels again until every task is done.
    """

    joined: tuple[str, ...] = ()
    revoked = False
    ended = False

    async def __call__(self, scope, receive, send):
        self._tasks: set[asyncio.Task] = set()

        async def send_while_connected(message):
            """A client that is gone ends the socket quietly: the server refuses sends once it saw the
            connection drop, and a client that vanished is no error of the studio's."""
            try:
                await send(message)
            except Exception as error:
                logger.debug("socket %s: client gone (%s)", scope.get("path"), error or type(error).__name__)
                raise StopConsumer() from None

        try:
            await super().__call__(scope, receive, send_while_connected)
        finally:
            await self._end()

    async def _authorise(self) -> bool:
        """Close with 4401/4404 unless the user is authenticated and may see the object."""
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=NOT_AUTHENTICATED)
            return False
        if not await database_sync_to_async(self._visible)(user):
            await self.close(code=NOT_FOUND)
            return False
        self.user_id = user.pk
        return True

    async def _join(self, stream_group: str, pipeline_id: int) -> None:
        self.joined = (stream_group, user_access_group(self.user_id), pipeline_access_group(pipeline_id))
        await self._join_groups()

    @property
    def live(self) -> bool:
        """Neither revoked nor ended: background loops go on while this holds."""
        return not self.revoked and not self.ended

    async def _join_groups(self) -> None:
        """Join (again: idempotent) every group; a Redis restart or the layer's group expiry forgets them."""
        for group in self.joined if not self.ended else ():
            await self.channel_layer.group_add(group, self.channel_name)

    async def accept(self, subprotocol=None, headers=None):
        await super().accept(subprotocol, headers)
        self._background(self._recheck_access())

    def _background(self, coroutine) -> asyncio.Task:
        """Run ``coroutine`` for as long as the socket lives: it ends when the socket ends (``_end``)."""
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def disconnect(self, code):
        await self._end()

    async def _end(self) -> None:
        """Cancel the background tasks, leave the groups, run ``_ended``; once, whichever path gets here first."""
        if self.ended:
            return
        self.ended = True
        pending = set(getattr(self, "_tasks", ()))
        while pending:
            for task in pending:
                task.cancel()
            _, pending = await asyncio.wait(pending, timeout=STOP_RETRY_S)
        try:
            for group in self.joined:
                await self.channel_layer.group_discard(group, self.channel_name)
        except Exception as error:  # Redis away: the layer's group expiry forgets the membership
            logger.warning("socket %s could not leave its groups: %s", self.scope.get("path"),
                           error or type(error).__name__)
        try:
            await self._ended()
        except Exception:
            logger.exception("socket %s: clean-up failed", self.scope.get("path"))

    async def _ended(self) -> None:
        """The socket ended (any path): subclasses release what it held."""

    async def receive_json(self, content, **kwargs):
        """Clients only listen; a ping gets a pong so they can check the connection."""
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    @classmethod
    async def encode_json(cls, content):
        return dumps(content)

    async def access_changed(self, message=None):
        """Something that grants access changed: ask again, close (4403) when the answer is no."""
        if self.revoked:
            return
        if not await database_sync_to_async(self._still_allowed)():
            self.revoked = True
            await self.close(code=ACCESS_REVOKED)

    async def _recheck_access(self) -> None:
        """Ask again every ``SOCKET_ACCESS_RECHECK_S`` (the first time after a random part of it, so that
        sockets opened together do not ask together)."""
        period = settings.SOCKET_ACCESS_RECHECK_S
        await asyncio.sleep(random.uniform(0, period))
        while self.live:
            try:
                await self.access_changed()
            except StopConsumer:  # the client is gone: the socket ends
                return
            except Exception as error:  # the database away for a moment: ask again next time
                logger.warning("socket %s: access check failed: %s", self.scope.get("path"),
                               error or type(error).__name__)
            await asyncio.sleep(period)

    def _still_allowed(self) -> bool:
        user = credential_user(self.scope)
        return user is not None and user.pk == self.user_id and self._visible(user)

    def _visible(self, user) -> bool:
        raise NotImplementedError(f"{type(self).__name__} must define ._visible(user)")


class NoSuchSocket(AsyncWebsocketConsumer):
    """Any ``ws/`` path the studio has no socket for: refused with 4404, as an unknown object is."""

    async def connect(self):
        await self.close(code=NOT_FOUND)


class RunEventsConsumer(_GroupListener):
    """Streams ``ws/runs/<id>/?after=<seq>``: every event with a larger seq, in order, once, without gaps.

    The consumer joins the live group before reading the stored events, so an event
    written in between arrives both ways; the seq filter drops the second copy. Seqs of a
    run have no holes, so a live event whose seq is not the next one means the channel
    layer lost some (a full or expired queue, a Redis restart): the consumer then sends
    the missing ones from the database first. A watch task does the same when no live
    event came for ``WATCH_INTERVAL_S`` (the lost events may be the last ones), joins its
    groups again. One lock orders everything sent.
    """

    async def connect(self):
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        if not await self._authorise():
            return
        self.last_seq = _after(self.scope.get("query_string", b""))
        self.sending = asyncio.Lock()
        self.live_seen = False
        await self._join(run_group(self.run_id), await self._pipeline_id())
        await self.accept()
        async with self.sending:
            await self._catch_up()
        self._background(self._watch())

    async def run_event(self, message):
        async with self.sending:
            await self._live(message["event"])

    async def run_events(self, message):
        """Several events of the run, in order (a driver stores and fans out its events in batches)."""
        async with self.sending:
            for event in message["events"]:
                await self._live(event)

    async def _live(self, event) -> None:
        """Send a live event (the missed ones before it from the database first); hold ``sending``."""
        self.live_seen = True
        if event["seq"] > self.last_seq + 1:
            await self._catch_up(until=event["seq"] - 1)
        await self._send_event(event)

    async def _catch_up(self, until: int | None = None) -> None:
        """Send the stored events after ``last_seq`` (up to ``until``), in batches; hold ``sending``."""
        while self.live:  # in batches, so a long history does not sit in memory at once
            events = await self._stored_events_after(self.last_seq, until)
            for event in events:
                await self._send_event(event)
            if len(events) < CATCH_UP_BATCH:
                return

    async def _watch(self) -> None:
        while self.live:
            await asyncio.sleep(WATCH_INTERVAL_S)
            try:
                await self._join_groups()
                async with self.sending:
                    if not self.live_seen:
                        await self._catch_up()
                    self.live_seen = False
            except StopConsumer:  # the client is gone: the socket ends
                return
            except Exception as error:  # Redis or the database away for a moment: try again next time
                logger.warning("run %s socket: watch failed: %s", self.run_id, error or type(error).__name__)

    async def _send_event(self, event):
        if event["seq"] <= self.last_seq or not self.live:
            return
        self.last_seq = event["seq"]
        await self.send_json(event)

    def _visible(self, user) -> bool:
        return runs_visible_to(user).filter(pk=self.run_id).exists()

    @database_sync_to_async
    def _pipeline_id(self) -> int:
        return Run.objects.values_list("pipeline_id", flat=True).get(pk=self.run_id)

    @database_sync_to_async
    def _stored_events_after(self, seq: int, until: int | None) -> list[dict]:
        events = RunEvent.objects.filter(run_id=self.run_id, seq__gt=seq)
        if until is not None:
            events = events.filter(seq__lte=until)
        return [serialise_event(event) for event in events.order_by("seq")[:CATCH_UP_BATCH]]


class PipelineRunsConsumer(_GroupListener):
    """Streams ``ws/pipelines/<id>/``: ``{"type": "run", "ts", "data": run summary}`` whenever a run of
    the pipeline is created or changes status. After (re)connecting, read ``GET /api/pipelines/<id>/runs``
    once: this stream carries changes, not the list."""

    async def connect(self):
        self.pipeline_id = int(self.scope["url_route"]["kwargs"]["pipeline_id"])
        if not await self._authorise():
            return
        await self._join(pipeline_group(self.pipeline_id), self.pipeline_id)
        await self.accept()

    async def pipeline_run(self, message):
        if not self.revoked:
            await self.send_json(message["message"])

    def _visible(self, user) -> bool:
        return pipelines_visible_to(user).filter(pk=self.pipeline_id).exists()


def _after(query_string: bytes) -> int:
    values = parse_qs(query_string.decode("latin-1")).get("after", ["0"])
    try:
        return max(0, int(values[0]))
    except ValueError:
        return 0
