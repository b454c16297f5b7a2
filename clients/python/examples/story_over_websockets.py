"""The README's REST story (create, run, checkpoint, savepoint, stop with a savepoint) and on to a restore
from the stop's savepoint, a rescale and the rescaled run's checkpoint, with its waiting done on the run's
WebSocket instead of asking again.

A script's socket: the token in the handshake's ``Authorization`` header and no ``Origin`` (a browser
page must come from the studio's own origin; a script sends none). ``ws/runs/<id>/`` sends the run's
stored events first, then live ones, each once and in order (``seq``), so a socket opened after
something happened still sees it.

    STUDIO_URL=http://127.0.0.1:8000 STUDIO_TOKEN=... python story_over_websockets.py
"""
import json
import os

from websockets.sync.client import connect

from studio_client import AuthenticatedClient
from studio_client.api.pipelines import pipelines_create, pipelines_runs_create
from studio_client.api.runs import (
    runs_cancel_create, runs_rescale_create, runs_savepoints_create, runs_savepoints_retrieve, runs_stop_create,
)
from studio_client.models import (
    PipelineWriteRequest, RescaleRequestRequest, RunStartRequest, SavepointTriggerRequest, StopRequest,
)

URL, TOKEN = os.environ["STUDIO_URL"], os.environ["STUDIO_TOKEN"]
studio = AuthenticatedClient(URL, token=TOKEN, prefix="Token")


ENDED = ("FINISHED", "CANCELED", "FAILED")


def first(run_id: int, wanted, timeout: float = 300, may_end: bool = False) -> dict:
    """The run's first event for which ``wanted(type, data)`` holds (its ``data``), from its socket; an error
    when the run ends first (unless it ``may_end``), or nothing comes for ``timeout`` seconds."""
    socket_url = URL.replace("http", "ws", 1) + f"/ws/runs/{run_id}/"
    with connect(socket_url, additional_headers={"Authorization": f"Token {TOKEN}"}, open_timeout=30) as socket:
        while True:
            event = json.loads(socket.recv(timeout=timeout))
            kind, data = event["type"], event["data"]
            if wanted(kind, data):
                return data
            if kind == "status" and data["status"] in ENDED and not may_end:
                raise RuntimeError(f"run {run_id} ended {data['status']} first: {data.get('cause')}")


def status(*names):
    return lambda kind, data: kind == "status" and data["status"] in names


def savepoint(request_id):
    return lambda kind, data: kind == "savepoint" and data.get("request_id") == request_id \
        and data["status"] in ("COMPLETED", "FAILED")


def checkpoint_completed(kind, data):
    return kind == "checkpoint" and data.get("event") == "completed"


definition = {"format": 1, "name": "doubler", "checkpointing": {"interval_ms": 500},
              "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": None, "rate": 100}},
                        {"id": "double", "type": "transform.map", "params": {"expression": "x * 2"}},
                        {"id": "out", "type": "sink.collect", "params": {}}],
              "edges": [{"id": "e1", "from": "gen", "to": "double"}, {"id": "e2", "from": "double", "to": "out"}]}
pipeline = pipelines_create.sync(client=studio, body=PipelineWriteRequest.from_dict({"definition": definition}))
run = pipelines_runs_create.sync(pipeline.id, client=studio, body=RunStartRequest())
print("run", first(run.id, status("RUNNING", "FAILED"))["status"])
print("checkpoint", first(run.id, checkpoint_completed)["event"])
request = runs_savepoints_create.sync(run.id, client=studio, body=SavepointTriggerRequest())
print("savepoint", first(run.id, savepoint(request.request_id))["status"])
request = runs_stop_create.sync(run.id, client=studio, body=StopRequest(drain=False))
print("stopped with savepoint", first(run.id, savepoint(request.request_id), may_end=True)["status"],
      first(run.id, status("FINISHED", "FAILED", "CANCELED"))["status"])
stop = runs_savepoints_retrieve.sync(run.id, request.request_id, client=studio)
restored = pipelines_runs_create.sync(pipeline.id, client=studio,
                                      body=RunStartRequest.from_dict({"restore_from": {"pk": stop.checkpoint_pk}}))
print("restored", first(restored.id, status("RUNNING", "FAILED"))["status"])
rescale = runs_rescale_create.sync(restored.id, client=studio, body=RescaleRequestRequest(parallelism=2))
done = first(restored.id, lambda kind, data: kind == "rescale" and data["status"] in ("COMPLETED", "ROLLED_BACK",
                                                                                      "FAILED"), may_end=True)
print("rescaled to", done["parallelism"], done["status"])
print("the rescaled run", first(done["new_run"], status("RUNNING", "FAILED"))["status"],
      "checkpoint", first(done["new_run"], checkpoint_completed)["event"])
runs_cancel_create.sync(done["new_run"], client=studio)
print("canceled", first(done["new_run"], status("CANCELED", "FAILED", "FINISHED"))["status"])
