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

Every hop is checked. With the job's grants (``engine.runtime.grants``) each address is
checked before it is reached: the record's own, and each redirect's ``Location`` (the
client follows no redirect itself; this operator follows up to ``MAX_REDIRECTS`` of them,
each only inside the granted addresses). Without grants a redirect is followed on its own
origin only. A refused hop is the record's error (``on_error``), naming the node and the
address; the refused address is never contacted. Headers that would choose the host
(``Host``) are refused (``engine.spec.http_headers``). A check costs a URL parse per
request, next to the request itself.
"""
from __future__ import annotations

from engine.runtime.grants import Grants, same_origin
from engine.runtime.operators.async_io.lookup import LookupOperator
from engine.runtime.operators.base import ConfigurationError, compile_expression_function
from engine.spec.http_headers import header_problem

METHODS = ("GET", "POST")
RESPONSE_FORMATS = ("json", "text")
MAX_REDIRECTS = 10
REDIRECTS = (301, 302, 303, 307, 308)


class HttpStatusError(RuntimeError):
    """The server answered with an error status (other than 404)."""

    def __init__(self, status: int, url: str, text: str):
        super().__init__(f"HTTP {status} from {url}: {text[:200]}")
        self.status = status


class HopRefused(RuntimeError):
    """An address the lookup may not reach (outside the grants, a redirect off its origin, too many redirects)."""


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
        for name, value in self.headers.items():
            problem = header_problem(name, value)
            if problem:
                raise ConfigurationError(node, f"params.headers: {problem}")
        self.grants = Grants.of(context.config)
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
        import yarl

        url, body = request
        method, previous = self.method, None
        target = yarl.URL(url)  # parsed once: what is checked is what is reached
        for _ in range(MAX_REDIRECTS + 1):
            self._check_hop(str(target), previous)
            async with self._session.request(method, target, json=body, allow_redirects=False) as response:
                location = response.headers.get("Location") if response.status in REDIRECTS else None
                if location:
                    await response.read()
                    previous, target = str(target), response.url.join(yarl.URL(location))
                    if response.status == 303 or (response.status in (301, 302) and method == "POST"):
                        method, body = "GET", None
                    continue
                if response.status == 404:
                    await response.read()
                    return None
                if response.status >= 400:
                    raise HttpStatusError(response.status, url, await response.text())
                if self.response_format == "json":
                    return await response.json(content_type=None)
                return await response.text()
        raise HopRefused(f"node '{self.node_id}': more than {MAX_REDIRECTS} redirects from {url}")

    def _check_hop(self, url: str, redirected_from: str | None) -> None:
        """Refuse an address outside the grants (with grants), or a redirect off its origin (without)."""
        if self.grants is not None:
            allowed = self.grants.allows_url(url)
        else:
            allowed = redirected_from is None or same_origin(url, redirected_from)
        if not allowed:
            hop = f"a redirect from {redirected_from} to {url}" if redirected_from else url
            where = "outside the addresses granted to the run" if self.grants is not None else "off its origin"
            raise HopRefused(f"node '{self.node_id}': {hop} is {where}; it was not followed")

    async def close_async(self):
        if self._session is not None:
            await self._session.close()

