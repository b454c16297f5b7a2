"""``/api/runs/<run>/taps``: create a tap on an edge of a RUNNING run, list, read, close.

A tap samples the records on its edge only while its WebSocket (``websocket`` in the
answer) is connected; closing the socket closes the tap for good. Taps need the same
permission as reading the run (*view*); a tap is its creator's: no one else's socket may
attach to it.
"""
from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.response import Response

from studio.api.exceptions import Conflict, rule_violation
from studio.api.nested import RunNestedMixin
from studio.api.schema import RUN_ID, responses
from studio.api.serializers.fields import StrictCharField, StrictIntegerField, StrictModelSerializer
from studio.models import RunStatus
from studio.taps.control import close
from studio.taps.models import Tap

TAG = ["taps"]
TAP_ID = OpenApiParameter("tap_id", str, OpenApiParameter.PATH, description="From the create answer.")


class TapSerializer(StrictModelSerializer):
    edge = StrictCharField(max_length=200, help_text="The id of an edge of the run's pipeline.")
    records_per_second = StrictIntegerField(required=False, min_value=1, max_value=1000,
                                            help_text="Records a second at most (default 20).")
    bytes_per_second = StrictIntegerField(required=False, min_value=64, max_value=1024 * 1024,
                                          help_text="Bytes of record JSON a second at most (default 32 KiB).")
    max_record_bytes = StrictIntegerField(required=False, min_value=16, max_value=64 * 1024,
                                          help_text="A record's JSON beyond this is cut (default 1 KiB).")
    state = serializers.ChoiceField(choices=["waiting", "open", "closed"], read_only=True)
    websocket = serializers.CharField(source="websocket_path", read_only=True,
                                      help_text="Connect here to receive the samples; closing it closes the tap.")

    class Meta:
        model = Tap
        fields = ["tap_id", "run", "edge", "records_per_second", "bytes_per_second", "max_record_bytes", "state",
                  "websocket", "created_at", "opened_at", "closed_at"]
        read_only_fields = ["tap_id", "run", "created_at", "opened_at", "closed_at"]


@extend_schema_view(
    list=extend_schema(tags=TAG, summary="Your taps on the run, newest first", parameters=[RUN_ID],
                       responses=responses({200: TapSerializer(many=True)}, 404)),
    create=extend_schema(tags=TAG, summary="Open a tap on an edge of a RUNNING run; connect its WebSocket next",
                         parameters=[RUN_ID], responses=responses({201: TapSerializer}, 404, 409)),
    retrieve=extend_schema(tags=TAG, summary="A tap", parameters=[RUN_ID, TAP_ID],
                           responses=responses({200: TapSerializer}, 404)),
    destroy=extend_schema(tags=TAG, summary="Close a tap (its socket is closed too)", parameters=[RUN_ID, TAP_ID],
                          responses=responses({204: None}, 404)),
)
class TapViewSet(RunNestedMixin, mixins.ListModelMixin, mixins.CreateModelMixin, mixins.RetrieveModelMixin,
                 mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """A run's live taps: the records crossing one edge, sampled while the tap's socket is open."""

    serializer_class = TapSerializer
    action_permissions = {}  # reading a run's records needs what reading the run needs: view
    lookup_field = "tap_id"

    def get_queryset(self):
        return Tap.objects.filter(run=self.run, created_by=self.request.user).select_related("run")

    def perform_create(self, serializer):
        run = self.run
        edges = [edge["id"] for edge in run.version.definition.get("edges", [])]
        edge = serializer.validated_data["edge"]
        if edge not in edges:
            raise rule_violation("edge", f"edge '{edge}' is not an edge of run {run.id}'s pipeline "
                                         f"(its edges: {', '.join(edges) or 'none'})")
        if run.status != RunStatus.RUNNING:
            raise Conflict(f"run {run.id} is {run.status}; taps need a RUNNING run")
        serializer.save(run=run, created_by=self.request.user, tap_id=Tap.new_tap_id())

    def destroy(self, request, *args, **kwargs):
        close(self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)
