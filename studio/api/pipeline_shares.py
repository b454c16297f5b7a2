"""Who a pipeline is shared with: list, share with a group, stop sharing (the owner only).

``PipelineShareActions`` is a mixin of ``PipelineViewSet`` (``pipelines/<id>/shares``).
"""
from __future__ import annotations

from django.db import IntegrityError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.response import Response

from studio.access import OWN
from studio.api.exceptions import Conflict
from studio.api.schema import responses
from studio.api.serializers.pipelines import ShareSerializer
from studio.models import PipelineShare


class PipelineShareActions:
    """The share actions of a pipeline viewset (``self.get_object()`` is the pipeline)."""

    share_action_permissions = {"shares:POST": OWN, "share": OWN}

    @extend_schema(methods=["get"], summary="The groups the pipeline is shared with",
                   responses=responses({200: ShareSerializer(many=True)}, 404))
    @extend_schema(methods=["post"], summary="Share with a group (owner only)", request=ShareSerializer,
                   responses=responses({201: ShareSerializer}, 404, 409))
    @action(detail=True, methods=["get", "post"])
    def shares(self, request, pk=None):
        pipeline = self.get_object()
        if request.method == "GET":
            return Response(ShareSerializer(pipeline.shares.select_related("group"), many=True).data)
        body = ShareSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if pipeline.shares.filter(group=body.validated_data["group"]).exists():
            raise Conflict(f"pipeline {pipeline.id} is already shared with {body.validated_data['group'].name}")
        try:
            share = body.save(pipeline=pipeline)
        except IntegrityError:
            raise Conflict(f"pipeline {pipeline.id} is already shared with that group")
        return Response(ShareSerializer(share).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Stop sharing with a group (owner only)",
                   parameters=[OpenApiParameter("share_id", int, OpenApiParameter.PATH)],
                   responses=responses({204: None}, 404))
    @action(detail=True, methods=["delete"], url_path=r"shares/(?P<share_id>\d+)")
    def share(self, request, pk=None, share_id=None):
        pipeline = self.get_object()
        get_object_or_404(PipelineShare, pipeline=pipeline, pk=share_id).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
