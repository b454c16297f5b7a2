"""``lookup.redis``: enrich each record with a Redis value (GET) or hash (HGETALL).

Per record, ``key`` -- an expression such as ``f"user:{x['user']}"`` -- names the Redis
key. ``command: "get"`` looks up a string (parsed as JSON with ``decode: "json"``);
``"hgetall"`` a hash as a dict of strings. A missing key gives null (also for HGETALL,
where Redis says "empty hash"). The record leaves enriched as ``{**x, field: value}``
(dict records) or ``[x, value]`` (see :mod:`engine.runtime.operators.async_io.lookup`).

The calls go through redis-py's asyncio client on the subtask's event loop, one client
(and connection pool) per operator instance. The Redis URL is the ``url`` parameter,
else the runtime's ``redis_url`` configuration, else ``REDIS_URL``, else
``redis://127.0.0.1:6379/0`` -- as for the Redis Streams operators. Capacity, timeout,
output mode, retries and what a timeout does are the async operator's.
"""
from __future__ import annotations

import json

from engine.runtime.operators.async_io.lookup import LookupOperator
from engine.runtime.operators.base import compile_expression_function
from engine.runtime.operators.connectors.redis_stream import redis_url

COMMANDS = ("get", "hgetall")
DECODINGS = ("string", "json")


class RedisLookupOperator(LookupOperator):
    """Looks each record's key up in Redis on the subtask's event loop."""

    def __init__(self, node, context):
        params = node.get("params") or {}
        self.key = compile_expression_function(params["key"])
        self.command = str(params.get("command") or "get").lower()
        if self.command not in COMMANDS:
            raise ValueError(f"command must be one of {', '.join(COMMANDS)}, not {self.command!r}")
        self.decode = params.get("decode") or "string"
        if self.decode not in DECODINGS:
            raise ValueError(f"decode must be one of {', '.join(DECODINGS)}")
        self.url = redis_url(params, context.config)
        self._client = None
        super().__init__(node, context)

    def request(self, x):
        key = self.key(x)
        if not isinstance(key, (str, bytes, int, float)):
            raise TypeError(f"'{self.node_id}': the key expression gave {type(key).__name__}, not a string")
        return key

    async def open_async(self):
        import redis.asyncio

        self._client = redis.asyncio.Redis.from_url(self.url, decode_responses=True)

    async def invoke(self, key):
        if self.command == "hgetall":
            return await self._client.hgetall(key) or None
        value = await self._client.get(key)
        if value is not None and self.decode == "json":
            return json.loads(value)
        return value

    async def close_async(self):
        if self._client is not None:
            await self._client.aclose()
