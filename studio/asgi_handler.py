"""Django's ASGI handler with the middleware chain run in one thread hop per request.

Django's own ``ASGIHandler`` builds its middleware chain in async mode. Our chain mixes
sync-only middleware (load shedding, body limit, WhiteNoise) with ``MiddlewareMixin`` ones,
which Django then runs in async mode; such a middleware hops to a thread for its
``process_request`` and again for its ``process_response``, and the chain hops back to the
event loop below WhiteNoise and once more into a thread for the (sync) view: about a dozen
hops between the event loop and a thread per request. On a small machine these hops cost
about as much CPU as a small GET itself. Every view and middleware of the studio is sync,
so this handler builds the chain in sync mode, as a WSGI server would, and runs the whole
chain in one hop (``sync_to_async``, thread-sensitive as Django runs sync views).

A body sent without ``Content-Length`` (chunked) is read whole here, as any body is, but
Django's request then has no ``CONTENT_LENGTH`` and DRF reads no body at all: the handler
sets it to the bytes received. Bytes past ``DATA_UPLOAD_MAX_MEMORY_SIZE`` are counted, not
kept, so that such a body is refused (413, ``studio.api.body_limit``) without being stored.

Threading model: as Django's, each request gets its thread-sensitive context
(``ASGIHandler.__call__``); the chain, its middleware and the view all run in that
request's one sync thread.
"""
from __future__ import annotations

import tempfile
from contextvars import ContextVar

import django
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler

_request_path: ContextVar[str] = ContextVar("request_path", default="")


class SyncChainASGIHandler(ASGIHandler):
    """``ASGIHandler`` whose middleware chain and view run in one sync thread hop per request."""

    def load_middleware(self, is_async=False):
        super().load_middleware(is_async=False)

    async def handle(self, scope, receive, send):
        _request_path.set(scope.get("path", ""))  # this request's task's own: read_body has no scope
        return await super().handle(scope, receive, send)

    async def get_response_async(self, request):
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)

    async def read_body(self, receive):
        """The body, as Django reads it, with ``received_bytes``; bytes past the body limit (the path's own in
        ``settings.BODY_LIMITS_BY_PATH``, an upload's) are not kept."""
        limit = settings.BODY_LIMITS_BY_PATH.get(_request_path.get(), settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        body_file = tempfile.SpooledTemporaryFile(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE, mode="w+b")
        received = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                body_file.close()
                raise RequestAborted()
            chunk = message.get("body", b"")
            received += len(chunk)
            if limit is None or received <= limit:
                body_file.write(chunk)
            if not message.get("more_body", False):
                break
        body_file.seek(0)
        body_file.received_bytes = received
        return body_file

    def create_request(self, scope, body_file):
        request, error_response = super().create_request(scope, body_file)
        if request is not None and "CONTENT_LENGTH" not in request.META:
            request.META["CONTENT_LENGTH"] = str(body_file.received_bytes)
        return request, error_response


def get_sync_chain_asgi_application() -> SyncChainASGIHandler:
    """Like ``django.core.asgi.get_asgi_application``, with the one-hop handler."""
    django.setup(set_prefix=False)
    return SyncChainASGIHandler()
