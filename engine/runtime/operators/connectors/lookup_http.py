"""``lookup.http``: enrich each record with the answer of an HTTP GET or POST (aiohttp).

Per record, ``url`` -- an expression, usually an f-string such as
``f"http://users.internal/profiles/{x['user']}"`` -- gives the address; a POST sends
``body`` (an expression, ``x`` by default) as JSON. The answer's body, parsed as JSON
(``response: "json"``) or kept as text, is the looked-up value; 404 means "not found"
(value null); any other status of 400 or above is an error (retried when the retry
strategy says so, then ``on_error``). The record leaves enriched as ``{**x, field: value}``
(dict records) or ``[x, value]`` (see :mod:`engine.runtime.operators.async_io.lookup`).

Capacity, timeout, ordered/unordered output, retries and what a timeout does are the
async operator's (:mod:`engine.runtime.operators.async_io.settings`). One
``aiohttp.ClientSession`` per operator instance lives on the subtask's event loop, with
a connection pool as large as the capacity and keep-alive.
"""
from __future__ import annotations

from engine.runtime.operators.async_io.lookup import LookupOperator
from engine.runtime.operators.base import compile_expression_function

METHODS = ("GET", "POST")
RESPONSE_FORMATS = ("json", "text")


class HttpStatusError(RuntimeError):
    """The server answered with an error status (other than 404)."""

    def __init__(self, status: int, url: str, text: str):
        super().__init__(f"HTTP {status} from {url}: {text[:200]}")
        self.status = status


class HttpLookupOperator(LookupOperator):
    """Looks each record up with one HTTP request on the subtask's event loop."""

    def __init__(self, node, context):
        params = node.get("params") or {}
        self.url = compile_expression_function(params["url"])
        self.method = str(params.get("method") or "GET").upper()
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, not {self.method!r}")
        self.body = compile_expression_function(params.get("body") or "x") if self.method == "POST" else None
        self.headers = {str(name): str(value) for name, value in (params.get("headers") or {}).items()}
        self.response_format = params.get("response") or "json"
        if self.response_format not in RESPONSE_FORMATS:
            raise ValueError(f"response must be one of {', '.join(RESPONSE_FORMATS)}")
        self._session = None
        super().__init__(node, context)

    def request(self, x):
        url = self.url(x)
        if not isinstance(url, str):
            raise TypeError(f"'{self.node_id}': the url expression gave {type(url).__name__}, not a string")
        return url, (self.body(x) if self.body is not None else None)

    async def open_async(self):
        import aiohttp

        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=self.capacity), timeout=aiohttp.ClientTimeout(total=None),
            headers=self.headers)

    async def invoke(self, request):
        url, body = request
        async with self._session.request(self.method, url, json=body) as response:
            if response.status == 404:
                await response.read()
                return None
            if response.status >= 400:
                raise HttpStatusError(response.status, url, await response.text())
            if self.response_format == "json":
                return await response.json(content_type=None)
            return await response.text()

    async def close_async(self):
        if self._session is not None:
            await self._session.close()
