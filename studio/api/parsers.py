"""Request bodies the API reads: JSON of bounded size and nesting, and text that is Unicode.

A body over ``settings.DATA_UPLOAD_MAX_MEMORY_SIZE`` is refused before it is read, with
413 (``studio.api.body_limit``). Nested JSON is refused past ``MAX_JSON_DEPTH`` levels
with 400: Python's parser gives up with RecursionError around a thousand levels, and
everything after it (schema checks, copies) would recurse over the same depth. A string
(or key) holding a lone surrogate (``"\\ud800"``: JSON's syntax allows the escape, but it
is no character) is refused with 400 naming where it is: no database stores it and no
answer could carry it back as UTF-8.
"""
from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_JSON_DEPTH = 64
"""Deepest nesting of objects and arrays in a request body (a pipeline definition needs about six)."""


def _walk(value, limit: int) -> tuple[int, str | None]:
    """How deep objects and arrays nest in ``value`` (counting no further than ``limit + 1``) and where
    its first lone surrogate is (None: nowhere); no recursion."""
    deepest, pending = 0, [(value, 1, "")]
    while pending:
        item, depth, where = pending.pop()
        if isinstance(item, str):
            if not item.isascii() and not _is_unicode(item):
                return deepest, where or "the body"
        elif isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if depth > limit:
                continue
            if isinstance(item, dict):
                for key in item:
                    if not key.isascii() and not _is_unicode(key):
                        return deepest, f"a key in {where or 'the body'}"
                children = [(child, depth + 1, f"{where}.{key}" if where else key) for key, child in item.items()]
            else:
                children = [(child, depth + 1, f"{where}[{index}]") for index, child in enumerate(item)]
            pending.extend(reversed(children))  # a stack: the first child is looked at first
    return deepest, None


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, answering 400 instead of 500 for JSON nested too deeply or holding lone surrogates."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels") from None
        depth, surrogate_at = _walk(data, MAX_JSON_DEPTH)
        if depth > MAX_JSON_DEPTH:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels")
        if surrogate_at is not None:
            raise ParseError(f"JSON parse error - {surrogate_at} holds a lone surrogate (an escape such as "
                             "\\ud800 without its pair), which is not text")
        return data
