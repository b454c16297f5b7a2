"""Request bodies the API reads: JSON of bounded size and nesting, and text that is Unicode.

A body over ``settings.DATA_UPLOAD_MAX_MEMORY_SIZE`` is refused before it is read, with
413 (``studio.api.body_limit``). Nested JSON is refused past ``MAX_JSON_DEPTH`` levels
with 400: Python's parser gives up with RecursionError around a thousand levels, and
everything after it (schema checks, copies) would recurse over the same depth. A string
(or key) holding a lone surrogate (``"\\ud800"``: JSON's syntax allows the escape, but it
is no character) is refused with 400 naming where it is: no database stores it and no
answer could carry it back as UTF-8. So is a number that is not finite: the ``NaN`` and
``Infinity`` tokens Python's ``json.dumps`` writes (no JSON), and a number too large for a
float (``1e999``), which Python's parser would read as an infinity.
"""
from __future__ import annotations

import math

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_JSON_DEPTH = 64
"""Deepest nesting of objects and arrays in a request body (a pipeline definition needs about six)."""


LONE_SURROGATE = "holds a lone surrogate (an escape such as \\ud800 without its pair), which is not text"
NOT_FINITE = "is not a finite number (NaN, Infinity and numbers beyond a float's range are no JSON numbers)"


def _walk(value, limit: int) -> tuple[int, str | None, str | None]:
    """How deep objects and arrays nest in ``value`` (counting no further than ``limit + 1``), and where
    its first lone surrogate or number that is not finite is and which of the two (None: nowhere); no
    recursion."""
    deepest, pending = 0, [(value, 1, "")]
    while pending:
        item, depth, where = pending.pop()
        if isinstance(item, str):
            if not item.isascii() and not _is_unicode(item):
                return deepest, where or "the body", LONE_SURROGATE
        elif isinstance(item, float):
            if not math.isfinite(item):
                return deepest, where or "the body", NOT_FINITE
        elif isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if depth > limit:
                continue
            if isinstance(item, dict):
                for key in item:
                    if not key.isascii() and not _is_unicode(key):
                        return deepest, f"a key in {where or 'the body'}", LONE_SURROGATE
                children = [(child, depth + 1, f"{where}.{key}" if where else key) for key, child in item.items()]
            else:
                children = [(child, depth + 1, f"{where}[{index}]") for index, child in enumerate(item)]
            pending.extend(reversed(children))  # a stack: the first child is looked at first
    return deepest, None, None


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, answering 400 instead of 500 for JSON nested too deeply or holding lone surrogates,
    and naming where a number is not finite (DRF's refuses the NaN token without saying where, and takes
    ``1e999`` as an infinity)."""

    strict = False  # NaN and Infinity tokens parse, so that the walk below names where they are

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels") from None
        depth, where, problem = _walk(data, MAX_JSON_DEPTH)
        if depth > MAX_JSON_DEPTH:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels")
        if where is not None:
            raise ParseError(f"JSON parse error - {where} {problem}")
        return data
