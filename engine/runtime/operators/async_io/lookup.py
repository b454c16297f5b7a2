"""What the ``lookup.*`` operators share: the enriched output record and ``retry_if``.

Output: a dict record ``x`` leaves as ``{**x, field: value}``; any other record as
``[x, value]``. ``value`` is what the lookup found (None when nothing was found) or, after
a timeout or error with the policy ``default``, the ``default_value``.

``retry_if`` is an expression over ``x`` = the record the lookup would emit (so the
editor validates it like every other expression): ``x["profile"] is None`` retries
misses, ``x[1] is None`` the same for non-dict records.
"""
from __future__ import annotations

from typing import Any

from engine.runtime.operators.async_io.operator import AsyncWaitOperator
from engine.runtime.operators.base import compile_expression_function

DEFAULT_FIELD = "value"


def enrich(x: Any, field: str, value: Any) -> Any:
    """The record ``x`` with the looked-up ``value``: ``{**x, field: value}`` or ``[x, value]``.

    >>> enrich({"user": 7}, "profile", "gold"), enrich(7, "profile", "gold")
    ({'user': 7, 'profile': 'gold'}, [7, 'gold'])
    """
    if isinstance(x, dict):
        return {**x, field: value}
    return [x, value]


class LookupOperator(AsyncWaitOperator):
    """An async operator that enriches each record with one looked-up value."""

    def __init__(self, node, context):
        params = node.get("params") or {}
        self.field = params.get("field") or DEFAULT_FIELD
        retry_if = params.get("retry_if")
        self._retry_if = compile_expression_function(retry_if) if retry_if else None
        super().__init__(node, context)

    def retry_predicate(self):
        condition = self._retry_if
        if condition is None:
            return None
        field = self.field

        def retry_if(x, value):
            return bool(condition(enrich(x, field, value)))

        return retry_if

    def result_record(self, x, value):
        if type(x) is dict:
            return {**x, self.field: value}
        return enrich(x, self.field, value)
