"""Mocks: a test's answers instead of what a node would fetch from outside the pipeline.

A job's slot configuration may carry ``"mocks": {node id: mock}`` (the format is
``engine.spec.test_cases``'s). ``create_operator`` then builds the node through
:func:`mocked_operator`:

- a lookup (an async I/O operator) keeps everything of its own -- its request from the
  record, its capacity and ordered or unordered output, its retries, timeout and error
  policies, how it enriches the record -- and only its call is answered by the mock, on
  the subtask's event loop as the real call would be (``delay_ms`` waits there first;
  ``error`` fails the call as a refused connection would);
- a Python function (``transform.python``) is replaced as a whole: each record becomes
  the records its answer lists. The function's code does not run.

An answer is looked up by the request's JSON text; with none, ``expression`` (over ``x``,
the record, and ``request``) gives it; with neither, the call fails with
:class:`MockMissing`, naming the node and the request, so the test says what it lacked.
"""
from __future__ import annotations

import asyncio
import json
from typing import Any

from engine.runtime.operators.async_io.operator import AsyncWaitOperator
from engine.runtime.operators.base import StreamOperator, compile_expression_function


class MockMissing(LookupError):
    """No answer of the mock matches the request."""


class MockedError(RuntimeError):
    """An answer that is an error: the call fails with it."""


def request_key(value: Any) -> str:
    """The JSON text requests are matched by (keys sorted; tuples as lists).

    >>> request_key({"b": 1, "a": (2, 3)}) == request_key({"a": [2, 3], "b": 1})
    True
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


class MockAnswers:
    """A node's mock: answers by request, then the expression."""

    def __init__(self, node_id: str, mock: dict):
        self.node_id = node_id
        self.answers = {request_key(entry["request"]): entry for entry in mock.get("answers") or ()}
        expression = mock.get("expression")
        self.expression = compile_expression_function(expression, ("x", "request")) if expression else None

    def entry_for(self, x: Any, request: Any) -> dict:
        """``{"answer"}``, ``{"error"}``, maybe with ``delay_ms``; MockMissing when nothing answers."""
        entry = self.answers.get(request_key(request))
        if entry is not None:
            return entry
        if self.expression is not None:
            return {"answer": self.expression(x, request)}
        raise MockMissing(f"node '{self.node_id}': no mock answer for the request {request_key(request)[:300]}")


class MockedCalls:
    """Mixed in before an async operator's class: its calls are answered by the mock."""

    mock: MockAnswers

    def request(self, x):
        return x, super().request(x)

    async def open_async(self):
        pass

    async def close_async(self):
        pass

    async def invoke(self, request):
        x, real = request
        entry = self.mock.entry_for(x, visible_request(real))
        if entry.get("delay_ms"):
            await asyncio.sleep(entry["delay_ms"] / 1000)
        if "error" in entry:
            raise MockedError(f"node '{self.mock.node_id}': {entry['error']} (mocked)")
        return entry.get("answer")


def visible_request(request: Any) -> Any:
    """The request as a test names it: an HTTP GET's URL, a POST's ``{"url", "body"}``, a key as it is."""
    if isinstance(request, tuple) and len(request) == 2 and isinstance(request[0], str):
        url, body = request
        return url if body is None else {"url": url, "body": body}
    return request


class MockedRecords(StreamOperator):
    """A Python function replaced by its mock: each record becomes the records of its answer."""

    def __init__(self, node, context, mock: MockAnswers):
        super().__init__(node, context)
        self.mock = mock

    def process_batch(self, batch):
        emitted = []
        for x in batch:
            entry = self.mock.entry_for(x, x)
            if "error" in entry:
                raise MockedError(f"node '{self.mock.node_id}': {entry['error']} (mocked)")
            records = entry.get("answer")
            if not isinstance(records, list):
                raise TypeError(f"node '{self.mock.node_id}': a Python function's mock answers with a list of "
                                f"records, not {type(records).__name__}")
            emitted.extend(records)
        self.emit(emitted)


_MOCKED_CLASSES: dict[type, type] = {}


def mocked_operator(node: dict, context, mock: dict, factory) -> StreamOperator:
    """Build ``node`` with ``mock`` answering for what it fetches (``factory`` builds the real one)."""
    answers = MockAnswers(node["id"], mock)
    if isinstance(factory, type) and issubclass(factory, AsyncWaitOperator):
        mocked = _MOCKED_CLASSES.get(factory)
        if mocked is None:
            mocked = _MOCKED_CLASSES[factory] = type(f"Mocked{factory.__name__}", (MockedCalls, factory), {})
        operator = mocked(node, context)
        operator.mock = answers
        return operator
    if node["type"] == "transform.python":
        return MockedRecords(node, context, answers)
    raise ValueError(f"node '{node['id']}' ({node['type']}) cannot be mocked: it reaches nothing outside")
