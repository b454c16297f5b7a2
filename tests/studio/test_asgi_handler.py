"""The ASGI application runs Django's middleware chain and the view in one sync thread hop per request."""
import asyncio
import json

import pytest
from asgiref import sync
from channels.testing import HttpCommunicator

from studio.asgi import django_asgi_app
from studio.asgi_handler import SyncChainASGIHandler

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_middleware_chain_is_built_in_sync_mode():
    assert isinstance(django_asgi_app, SyncChainASGIHandler)
    assert not asyncio.iscoroutinefunction(django_asgi_app._middleware_chain)


async def test_a_request_hops_between_the_event_loop_and_a_thread_a_few_times_not_per_middleware(monkeypatch):
    hops = []
    to_thread, to_loop = sync.SyncToAsync.__call__, sync.AsyncToSync.__call__

    async def counted_to_thread(self, *args, **kwargs):
        hops.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await to_thread(self, *args, **kwargs)

    def counted_to_loop(self, *args, **kwargs):
        hops.append(getattr(self.awaitable, "__qualname__", repr(self.awaitable)))
        return to_loop(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counted_to_thread)
    monkeypatch.setattr(sync.AsyncToSync, "__call__", counted_to_loop)
    response = await HttpCommunicator(django_asgi_app, "GET", "/api/health",
                                      headers=[(b"host", b"127.0.0.1")]).get_response()
    assert response["status"] == 200 and json.loads(response["body"])["status"] == "ok"
    # the request_started signal's receivers, the whole chain with the view, the response's close
    assert len(hops) <= 3, hops


def test_a_web_process_keeps_what_it_loaded_at_start_out_of_the_garbage_collector(tmp_path):
    """A full collection of a web process's start-up heap (Django, DRF, every view the URLconf imports) was 110-170
    ms of CPU once in about 200 requests, REST's p99 on a busy machine: studio.asgi loads the URLconf and freezes
    what it holds (``gc.freeze``), so the collector scans only what requests leave behind."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    probe = ("import gc, sys; gc.collect(); import studio.asgi; "
             "print(gc.get_freeze_count(), 'studio.api.runs' in sys.modules, len(gc.get_objects()))")
    env = {**os.environ, "STUDIO_DATA_DIR": str(tmp_path), "PYTHONPATH": str(ROOT),
           "DJANGO_SETTINGS_MODULE": "studio.settings"}
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    frozen, views_loaded, tracked = done.stdout.split()
    assert views_loaded == "True", "the URLconf's views are loaded before the freeze, not by a first request"
    assert int(frozen) > 100_000 and int(tracked) < int(frozen) // 10, done.stdout
