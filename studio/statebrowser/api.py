"""``/api/runs/<run>/checkpoints/<checkpoint_id>/state``: a completed checkpoint or savepoint's state, as data.

For a run the user may see (*view*, as reading the run), per operator: the kind of state and
its sizes (``state``), a page of its keys in key order, searched by text or filtered by a key
expression over ``key`` and ``state`` (``.../operators/<node>/keys``), one key's full state
(``.../key?key=<its JSON>``), rows and bytes per key group (``.../sizes``), what changed since
another checkpoint of the run (``.../diff?against=<checkpoint id>``) and every row as JSON lines
or Parquet (``.../export?as=jsonl|parquet``).

Every read runs in a budgeted worker (``studio.processes.budget.read_snapshot``) over a
snapshot checked when it is read (``studio.statebrowser.snapshots``): signed by this studio as
it is, written by the run's pipeline, its state files matching their digests. The snapshot is
read with the engine's data-only loader and never restored into a job.
"""
from __future__ import annotations

import uuid
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.exceptions import APIException
from rest_framework.response import Response

from studio.api.exceptions import BadRequest, Conflict, ServiceBusy
from studio.api.nested import RunNestedMixin
from studio.api.parameters import int_param
from studio.api.schema import RUN_ID, bounded_int, responses
from studio.processes.budget import BudgetExceeded, PoolBusy, WorkerFailed, read_snapshot
from studio.statebrowser.snapshots import BrowsableSnapshot, SnapshotUnavailable, browsable_snapshot

TAG = ["state browser"]
MAX_PAGE = 1000
TEXT_LIMIT = 1000
KEY_LIMIT = 4096
CHANGES = ("added", "removed", "changed")
FORMATS = {"jsonl": "application/x-ndjson", "parquet": "application/vnd.apache.parquet"}

CHECKPOINT = OpenApiParameter("checkpoint_id", int, OpenApiParameter.PATH,
                              description="The checkpoint or savepoint id (as the run's checkpoint history shows it).")
NODE = OpenApiParameter("node", str, OpenApiParameter.PATH, description="An operator's node id.")
OFFSET = OpenApiParameter("offset", bounded_int(), description="Rows to skip (default 0).")
LIMIT = OpenApiParameter("limit", bounded_int(0, MAX_PAGE), description=f"Rows in the page (default 50, at most {MAX_PAGE}).")


class OperatorStateSerializer(serializers.Serializer):
    node = serializers.CharField()
    type = serializers.CharField(allow_null=True)
    vertex = serializers.CharField(allow_null=True)
    parallelism = serializers.IntegerField()
    max_parallelism = serializers.IntegerField(allow_null=True)
    finished = serializers.ListField(child=serializers.IntegerField(), help_text="Subtasks that had finished.")
    keyed = serializers.BooleanField()
    list_states = serializers.DictField(child=serializers.IntegerField(),
                                        help_text="Operator (list) states: elements per state name.")
    coordinator = serializers.BooleanField(help_text="A split enumerator's state is part of it.")
    state_file_bytes = serializers.IntegerField()
    kind = serializers.CharField(help_text="The kind of state: keyed value/map/list, window panes and timers, "
                                           "join buffers, deduplication TTLs, source splits, pending transactions.")
    rows = serializers.IntegerField()
    bytes = serializers.IntegerField(help_text="Bytes of the rows' state as JSON.")


class SnapshotStateSerializer(serializers.Serializer):
    checkpoint_id = serializers.IntegerField()
    kind = serializers.CharField()
    completed_timestamp = serializers.IntegerField(allow_null=True)
    operators = OperatorStateSerializer(many=True)


class StateRowSerializer(serializers.Serializer):
    key = serializers.JSONField(help_text="The key (list state: [state name, subtask, position]).")
    key_json = serializers.CharField(help_text="The key's canonical JSON: what ``key?key=`` takes.")
    key_group = serializers.IntegerField(help_text="-1 for list state and enumerators.")
    subtask = serializers.IntegerField()
    state = serializers.JSONField()
    bytes = serializers.IntegerField()


class StatePageSerializer(serializers.Serializer):
    node = serializers.CharField()
    total = serializers.IntegerField(help_text="Rows matching the search and expression.")
    offset = serializers.IntegerField()
    rows = StateRowSerializer(many=True)


class KeyGroupSizeSerializer(serializers.Serializer):
    key_group = serializers.IntegerField()
    rows = serializers.IntegerField()
    bytes = serializers.IntegerField()


class StateSizesSerializer(serializers.Serializer):
    node = serializers.CharField()
    rows = serializers.IntegerField()
    bytes = serializers.IntegerField()
    key_groups = KeyGroupSizeSerializer(many=True)


class ChangeCountsSerializer(serializers.Serializer):
    added = serializers.IntegerField()
    removed = serializers.IntegerField()
    changed = serializers.IntegerField()
    unchanged = serializers.IntegerField()


class ChangedKeySerializer(serializers.Serializer):
    change = serializers.ChoiceField(CHANGES)
    key = serializers.JSONField()
    key_json = serializers.CharField()
    key_group = serializers.IntegerField()
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField(allow_null=True)


class StateDiffSerializer(serializers.Serializer):
    node = serializers.CharField()
    before = serializers.IntegerField(help_text="The earlier checkpoint's id (``against``).")
    after = serializers.IntegerField(help_text="This checkpoint's id.")
    counts = ChangeCountsSerializer()
    change = serializers.ChoiceField(CHANGES, allow_null=True)
    total = serializers.IntegerField()
    offset = serializers.IntegerField()
    rows = ChangedKeySerializer(many=True)


class ReadFailed(APIException):
    status_code = 422
    default_detail = "the snapshot could not be read"


def _answer(snapshot: BrowsableSnapshot, question: dict, earlier: BrowsableSnapshot | None = None) -> dict:
    """The worker's answer, or the 4xx/503 that says why there is none."""
    try:
        answer = read_snapshot(snapshot.metadata, snapshot.definition, question,
                               cache_dir=str(settings.STATE_BROWSER_CACHE),
                               earlier=earlier.as_args() if earlier is not None else None)
    except BudgetExceeded as exceeded:
        raise ServiceBusy(f"reading the state{_of(question)} exceeded its {exceeded.seconds:g} s budget and "
                          "was stopped")
    except PoolBusy as busy:
        raise ServiceBusy(str(busy))
    except WorkerFailed as failed:
        raise ReadFailed(f"the state{_of(question)} could not be read: {failed}")
    refused = answer.get("refused") if isinstance(answer, dict) else None
    if refused:
        if refused["status"] == 404:
            raise Http404(refused["message"])
        if refused["status"] == 400:
            raise BadRequest(refused["message"])
        raise Conflict(refused["message"])
    return answer


def _of(question: dict) -> str:
    return f" of operator {question['node']!r}" if question.get("node") else ""


class StateBrowserViewSet(RunNestedMixin, viewsets.ViewSet):
    action_permissions = {}  # reading a run's state needs what reading the run needs: view

    def snapshot(self, checkpoint_id) -> BrowsableSnapshot:
        try:
            return browsable_snapshot(self.run, int(checkpoint_id))
        except SnapshotUnavailable as unavailable:
            if unavailable.status == 404:
                raise Http404(str(unavailable))
            raise Conflict(str(unavailable))

    @extend_schema(tags=TAG, summary="Every operator's state in a completed checkpoint or savepoint: kind, rows, bytes",
                   parameters=[RUN_ID, CHECKPOINT], responses=responses({200: SnapshotStateSerializer}, 404, 409))
    def overview(self, request, id=None, checkpoint_id=None):
        return Response(_answer(self.snapshot(checkpoint_id), {"op": "overview"}))

    @extend_schema(tags=TAG, summary="A page of an operator's keys and their state, in key order",
                   parameters=[RUN_ID, CHECKPOINT, NODE, OFFSET, LIMIT,
                               OpenApiParameter("search", {"type": "string", "maxLength": TEXT_LIMIT}, description="Text the key's or state's JSON holds "
                                                                          "(case-insensitive)."),
                               OpenApiParameter("expression", {"type": "string", "maxLength": TEXT_LIMIT}, description="A key expression over `key` and "
                                                                              "`state`, e.g. `state[\"count\"] > 3`.")],
                   responses=responses({200: StatePageSerializer}, 404, 409))
    def keys(self, request, id=None, checkpoint_id=None, node=None):
        snapshot = self.snapshot(checkpoint_id)
        question = {"op": "keys", "node": node, "offset": int_param(request, "offset", 0),
                    "limit": int_param(request, "limit", 50, 0, MAX_PAGE),
                    "search": _text(request, "search"), "expression": _text(request, "expression")}
        return Response(_answer(snapshot, question))

    @extend_schema(tags=TAG, summary="One key's full state",
                   parameters=[RUN_ID, CHECKPOINT, NODE,
                               OpenApiParameter("key", {"type": "string", "minLength": 1, "maxLength": KEY_LIMIT}, required=True,
                                                description="The key's canonical JSON (`key_json` of a page's row).")],
                   responses=responses({200: StateRowSerializer}, 404, 409))
    def key(self, request, id=None, checkpoint_id=None, node=None):
        snapshot = self.snapshot(checkpoint_id)
        key = _text(request, "key")
        if key is None:
            raise BadRequest("key: the key's JSON is required (key_json of a row of the keys page)")
        row = _answer(snapshot, {"op": "key", "node": node, "key": key})["row"]
        if row is None:
            raise Http404(f"operator {node!r} has no state for key {key}")
        return Response(row)

    @extend_schema(tags=TAG, summary="Rows and bytes of an operator's state per key group",
                   parameters=[RUN_ID, CHECKPOINT, NODE], responses=responses({200: StateSizesSerializer}, 404, 409))
    def sizes(self, request, id=None, checkpoint_id=None, node=None):
        return Response(_answer(self.snapshot(checkpoint_id), {"op": "sizes", "node": node}))

    @extend_schema(tags=TAG, summary="Keys added, removed and changed in an operator's state since another checkpoint",
                   parameters=[RUN_ID, CHECKPOINT, NODE, OFFSET, LIMIT,
                               OpenApiParameter("against", bounded_int(0, 10 ** 9 - 1), required=True,
                                                description="The earlier checkpoint or savepoint id of the same run."),
                               OpenApiParameter("change", str, enum=list(CHANGES),
                                                description="Only keys of this change (every change when omitted).")],
                   responses=responses({200: StateDiffSerializer}, 404, 409))
    def diff(self, request, id=None, checkpoint_id=None, node=None):
        snapshot = self.snapshot(checkpoint_id)
        against = int_param(request, "against", None, 0, 10 ** 9 - 1, meaning="a checkpoint id of this run")
        if against is None:
            raise BadRequest("against: the checkpoint id to compare with is required")
        change = _text(request, "change")
        if change is not None and change not in CHANGES:
            raise BadRequest(f"change must be one of {', '.join(CHANGES)}, not {change!r}")
        question = {"op": "diff", "node": node, "change": change, "offset": int_param(request, "offset", 0),
                    "limit": int_param(request, "limit", 50, 0, MAX_PAGE)}
        return Response(_answer(snapshot, question, earlier=self.snapshot(against)))

    @extend_schema(tags=TAG, summary="Every row of an operator's state as JSON lines or Parquet",
                   parameters=[RUN_ID, CHECKPOINT, NODE,
                               OpenApiParameter("as", str, enum=list(FORMATS), description="jsonl (default) or parquet.")],
                   responses={200: OpenApiResponse(description="The file: JSON lines `{key, key_group, subtask, state}` "
                                                               "or Parquet (key and state as JSON text)"),
                              **responses({}, 404, 409)})
    def export(self, request, id=None, checkpoint_id=None, node=None):
        snapshot = self.snapshot(checkpoint_id)
        fmt = _text(request, "as") or "jsonl"  # not "format": DRF takes that for the answer's renderer
        if fmt not in FORMATS:
            raise BadRequest(f"as must be jsonl or parquet, not {fmt!r}")
        exports = Path(settings.STATE_BROWSER_CACHE) / "exports"
        exports.mkdir(parents=True, exist_ok=True)
        path = exports / f"{uuid.uuid4().hex}.{fmt}"  # the studio's name, never the request's
        try:
            _answer(snapshot, {"op": "export", "node": node, "format": fmt, "path": str(path)})
            handle = open(path, "rb")
        finally:
            path.unlink(missing_ok=True)  # the open handle still reads it; nothing is left behind
        name = f"run-{self.run.pk}-checkpoint-{snapshot.checkpoint.checkpoint_id}-{_safe(node)}.{fmt}"
        return FileResponse(handle, as_attachment=True, filename=name, content_type=FORMATS[fmt])


def _text(request, name: str) -> str | None:
    value = request.query_params.get(name)
    if value in (None, ""):
        return None
    limit = KEY_LIMIT if name == "key" else TEXT_LIMIT
    if len(value) > limit:
        raise BadRequest(f"{name} is longer than {limit} characters")
    return value


def _safe(node: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in node)[:60] or "operator"
