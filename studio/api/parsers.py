"""Request bodies the API reads: JSON of bounded size and nesting.

A body over ``settings.DATA_UPLOAD_MAX_MEMORY_SIZE`` is refused before it is read, with
413 (``studio.api.body_limit``). Nested JSON is refused past ``MAX_JSON_DEPTH`` levels
with 400: Python's parser gives up with RecursionError around a thousand levels, and
everything after it (schema checks, copies) would recurse over the same depth.
"""
from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_JSON_DEPTH = 64
"""Deepest nesting of objects and arrays in a request body (a pipeline definition needs about six)."""


def json_depth(value, limit: int) -> int:
    """How deep objects and arrays nest in ``value``, counting no further than ``limit + 1``; no recursion."""
    deepest, pending = 0, [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if depth <= limit:
                pending.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, answering 400 instead of 500 for JSON nested too deeply."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels") from None
        if json_depth(data, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels")
        return data
