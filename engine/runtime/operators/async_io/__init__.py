"""Async I/O: operators whose per-record work is an external call (seed 000 on the mailbox model).

The pieces
    :mod:`.operator`
        :class:`AsyncWaitOperator`, the base of every async operator (capacity, ordered or
        unordered emission, timeouts, retries, snapshot and replay of in-flight records),
        and :class:`AsyncFunctionOperator` around a plain ``async def`` function;
    :mod:`.queues`
        the ordered queue and the unordered queue with watermark segments;
    :mod:`.settings`
        the shared parameters and the retry strategies (none, fixed delay, exponential
        backoff; on errors and on a result predicate);
    :mod:`.event_loop`
        the one asyncio event loop thread per subtask that the calls run on.

The catalog's operators built on it: ``lookup.redis``
(:mod:`engine.runtime.operators.connectors.lookup_redis`) and ``lookup.http``
(:mod:`engine.runtime.operators.connectors.lookup_http`).

How it sits on the runtime
    Completions come back as mails (:meth:`MailboxExecutor.execute`); a full queue makes
    the operator run mails in place until one made room. The mailbox offers ``yield_``
    for that, but nothing that tells the yielding operator that the mail it ran stopped
    the subtask (a cancel). Until it does, :meth:`AsyncWaitOperator._yield_to_mailbox`
    takes the mail itself (``executor._mailbox.take``) and checks whether it was the
    processor's stop mail, so a canceled subtask does not keep waiting for calls.
"""
from engine.runtime.operators.async_io.operator import (AsyncCallFailed, AsyncCallTimeout, AsyncFunctionOperator,
                                                        AsyncWaitInterrupted, AsyncWaitOperator, async_function)
from engine.runtime.operators.async_io.settings import DEFAULTS, AsyncSettings, RetryStrategy

__all__ = ["AsyncCallFailed", "AsyncCallTimeout", "AsyncFunctionOperator", "AsyncSettings", "AsyncWaitInterrupted",
           "AsyncWaitOperator", "DEFAULTS", "RetryStrategy", "async_function"]
