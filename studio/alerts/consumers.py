"""``ws/notifications/``: your notifications as they are raised, and the unread count (the badge).

Messages: ``{"type": "unread", "unread": n}`` on connect and whenever the count changes by
a read; ``{"type": "notification", "notification": {...}, "unread": n}`` for a new one.
Close codes as for run sockets: 4401 not authenticated, 4403 when the credential is revoked.
"""
from __future__ import annotations

from channels.db import database_sync_to_async

from studio.alerts.firing import unread_count, user_notifications_group
from studio.realtime.consumers import _GroupListener
from studio.realtime.revocation import user_access_group


class NotificationsConsumer(_GroupListener):
    async def connect(self):
        if not await self._authorise():
            return
        self.joined = (user_notifications_group(self.user_id), user_access_group(self.user_id))
        await self._join_groups()
        await self.accept()
        await self.send_json({"type": "unread", "unread": await database_sync_to_async(unread_count)(self.user_id)})

    async def notification_created(self, message):
        if not self.revoked:
            await self.send_json({"type": "notification", "notification": message["notification"],
                                  "unread": message["unread"]})

    async def notification_unread(self, message):
        if not self.revoked:
            await self.send_json({"type": "unread", "unread": message["unread"]})

    def _visible(self, user) -> bool:
        return True  # every user has notifications of their own
