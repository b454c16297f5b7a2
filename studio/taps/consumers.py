"""``ws/runs/<run>/taps/<tap_id>/``: the samples of one tap, live; the tap closes when the socket does.

On connect the driver is told to start sampling; messages: ``{"type": "opened", "tap",
"edge"}``, then ``{"type": "records", "task", "records": [[json_text, truncated], ...],
"dropped", "ts"}`` (``ts``: epoch ms when the records were sampled on the edge). When the
tap is closed over REST the server closes the socket (1000). Close codes: 4401 not
authenticated, 4404 no such tap of yours on a run you may view, 4409 the run is not
RUNNING, 4410 the tap was closed already, 4403 access revoked while connected.
"""
from __future__ import annotations

import logging

from channels.db import database_sync_to_async

from studio.access import runs_visible_to
from studio.models import RunStatus
from studio.realtime.consumers import _GroupListener
from studio.realtime.revocation import pipeline_access_group, user_access_group
from studio.taps.control import close, open_in_driver, tap_group
from studio.taps.models import Tap

logger = logging.getLogger(__name__)

RUN_NOT_RUNNING = 4409
TAP_CLOSED = 4410


class TapConsumer(_GroupListener):
    tap = None

    async def connect(self):
        kwargs = self.scope["url_route"]["kwargs"]
        self.run_id, self.tap_id = int(kwargs["run_id"]), kwargs["tap_id"]
        if not await self._authorise():
            return
        refusal = await database_sync_to_async(self._open)()
        if refusal is not None:
            await self.close(code=refusal)
            return
        self.joined = (tap_group(self.tap_id), user_access_group(self.user_id),
                       pipeline_access_group(self.tap.run.pipeline_id))
        await self._join_groups()
        await self.accept()
        await self.send_json({"type": "opened", "tap": self.tap_id, "edge": self.tap.edge})

    def _open(self) -> int | None:
        tap = Tap.objects.select_related("run").get(tap_id=self.tap_id)
        if tap.closed_at is not None:
            return TAP_CLOSED
        if tap.run.status != RunStatus.RUNNING:
            close(tap)
            return RUN_NOT_RUNNING
        open_in_driver(tap)
        self.tap = tap
        return None

    async def _ended(self) -> None:
        """However the socket ended, the tap is closed: the driver stops sampling."""
        if self.tap is not None:
            await database_sync_to_async(close)(self.tap)

    async def tap_records(self, message):
        if not self.revoked:
            sample = message["sample"]
            await self.send_json({"type": "records", "task": sample["task"], "records": sample["records"],
                                  "dropped": sample["dropped"], "ts": sample["ts"]})

    async def tap_closed(self, message=None):
        await self.close()

    def _visible(self, user) -> bool:
        return Tap.objects.filter(tap_id=self.tap_id, run__in=runs_visible_to(user).filter(pk=self.run_id),
                                  created_by=user).exists()
