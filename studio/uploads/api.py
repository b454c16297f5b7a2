"""``/api/files``: the local directories granted to you, browsed; ``/api/uploads``: a file put into one.

``GET /api/files`` lists the places (your path grants that are local directories),
``GET /api/files/<location>?path=dir`` a directory's entries (names, kinds, sizes, and the
absolute ``path`` a source node names), ``GET /api/files/<location>/preview?path=file`` the
first lines (or a Parquet file's schema and first rows). ``POST /api/uploads?location=...&
directory=...&name=...`` takes the file as the request body (``application/octet-stream``),
up to ``STUDIO_MAX_UPLOAD_BYTES``, into a location you may write, creating the directories;
its name is sanitised and said in the answer. Another user's location is a 404; a
location granted for reading only is a 403 to upload into.
"""
from __future__ import annotations

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.parsers import BaseParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from studio.api.exceptions import Conflict, rule_violation
from studio.api.schema import responses
from studio.uploads.places import (PlaceRefused, absolute_path, entries, parts_of, place_of, places_of,
                                   sanitised_name)
from studio.uploads.preview import preview
from studio.uploads.receive import UploadExists, UploadTooLarge, receive

TAG = ["files"]


def _refused(refused: PlaceRefused, field: str = "path"):
    if refused.status == 404:
        return NotFound(str(refused))
    if refused.status == 403:
        return PermissionDenied(str(refused))
    return rule_violation(refused.field or field, str(refused))


class FilePlaceSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The storage location's name.")
    root = serializers.CharField(help_text="Its directory (for you: {user} filled in).")
    writable = serializers.BooleanField(help_text="Whether you may upload into it.")
    description = serializers.CharField()
    exists = serializers.BooleanField(help_text="Whether the directory exists yet (an upload creates it).")


class FileEntrySerializer(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=["directory", "file", "link", "other"])
    size = serializers.IntegerField(allow_null=True)
    modified = serializers.IntegerField(help_text="Epoch milliseconds.")
    data = serializers.BooleanField(help_text="Whether a file source reads it (names starting with . or _ are not).")
    path = serializers.CharField(help_text="The absolute path a source node names.")


class FileListingSerializer(serializers.Serializer):
    location = serializers.CharField()
    directory = serializers.CharField(help_text="Relative to the location's root ('' for the root).")
    path = serializers.CharField(help_text="The directory's absolute path.")
    exists = serializers.BooleanField()
    entries = FileEntrySerializer(many=True)
    truncated = serializers.BooleanField()


class FilePreviewSerializer(serializers.Serializer):
    name = serializers.CharField()
    size = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["text", "parquet"])
    lines = serializers.ListField(child=serializers.CharField(), required=False)
    columns = serializers.ListField(child=serializers.DictField(), required=False)
    rows = serializers.ListField(child=serializers.DictField(), required=False)
    num_rows = serializers.IntegerField(required=False)
    truncated = serializers.BooleanField()
    path = serializers.CharField()


class UploadedFileSerializer(serializers.Serializer):
    location = serializers.CharField()
    directory = serializers.CharField()
    name = serializers.CharField(help_text="The file's name, as sanitised.")
    path = serializers.CharField(help_text="The absolute path a source node names.")
    size = serializers.IntegerField()


PATH_PARAMETER = OpenApiParameter("path", str, description="Relative to the location's root.")


class PlacesView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(tags=TAG, summary="The local directories granted to you, for browsing and uploads",
                   responses=responses({200: FilePlaceSerializer(many=True)}))
    def get(self, request):
        import os

        return Response([{"name": place.name, "root": place.real_root, "writable": place.writable,
                          "description": place.description, "exists": os.path.isdir(place.real_root)}
                         for place in places_of(request.user)])


class DirectoryView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(tags=TAG, summary="A directory of a location: its entries with sizes",
                   parameters=[PATH_PARAMETER], responses=responses({200: FileListingSerializer}, 404))
    def get(self, request, location):
        import os

        directory = request.query_params.get("path", "")
        try:
            place = place_of(request.user, location)
            parts_of(directory)
            if not directory.strip("/") and not os.path.isdir(place.real_root):
                found, truncated, exists = [], False, False
            else:
                (found, truncated), exists = entries(place, directory), True
        except PlaceRefused as refused:
            raise _refused(refused)
        base = absolute_path(place, directory)
        for entry in found:
            entry["path"] = os.path.join(base, entry["name"])
        return Response({"location": place.name, "directory": directory.strip("/"), "path": base, "exists": exists,
                         "entries": found, "truncated": truncated})


class FilePreviewView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(tags=TAG, summary="The first lines of a file (a Parquet file: its schema and first rows)",
                   parameters=[OpenApiParameter("path", str, required=True, description="The file, relative to "
                                                                                        "the location's root.")],
                   responses=responses({200: FilePreviewSerializer}, 404))
    def get(self, request, location):
        relative = request.query_params.get("path", "")
        try:
            place = place_of(request.user, location)
            return Response({**preview(place, relative), "path": absolute_path(place, relative)})
        except PlaceRefused as refused:
            raise _refused(refused)


class OctetStreamParser(BaseParser):
    """Documents the upload's body; the view reads the stream itself, chunk by chunk."""

    media_type = "application/octet-stream"

    def parse(self, stream, media_type=None, parser_context=None):
        return stream


class UploadView(APIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [OctetStreamParser]

    @extend_schema(tags=TAG, summary="Upload a file into a location you may write (the body is the file)",
                   description="The body is the file's bytes (`application/octet-stream`), at most "
                               "STUDIO_MAX_UPLOAD_BYTES (413 beyond). Missing directories are created. The name is "
                               "sanitised (letters, digits, spaces and ._=+@-; no leading . or _, which a file "
                               "source would skip); an existing file is replaced only with overwrite=true (409 "
                               "otherwise).",
                   parameters=[OpenApiParameter("location", str, required=True),
                               OpenApiParameter("directory", str, description="Relative to the location's root."),
                               OpenApiParameter("name", str, required=True),
                               OpenApiParameter("overwrite", bool)],
                   request={"application/octet-stream": OpenApiTypes.BINARY},
                   responses=responses({201: UploadedFileSerializer}, 404, 409))
    def post(self, request):
        query = request.query_params
        overwrite = query.get("overwrite", "false")
        if overwrite not in ("true", "false"):
            raise rule_violation("overwrite", "true or false")
        try:
            place = place_of(request.user, query.get("location", ""))
            directory = "/".join(parts_of(query.get("directory", "")))
            name = sanitised_name(query.get("name", ""))
            size = receive(request._request, place, directory, name, settings.UPLOAD_MAX_BYTES,
                           overwrite=overwrite == "true")
        except PlaceRefused as refused:
            raise _refused(refused, "directory")
        except UploadExists as exists:
            raise Conflict(str(exists))
        except UploadTooLarge as large:
            return Response({"detail": str(large)}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        except IsADirectoryError:
            raise Conflict(f"{name} is a directory in {directory or 'the location'}")
        relative = f"{directory}/{name}" if directory else name
        return Response({"location": place.name, "directory": directory, "name": name,
                         "path": absolute_path(place, relative), "size": size}, status=status.HTTP_201_CREATED)
