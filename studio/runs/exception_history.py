"""A run's exceptions history (Flink's): every subtask failure and every restart, from the stored events.

The JobMaster reports a failed subtask as a ``task_failed`` event (``task`` "vertex#index",
``region``, ``attempt``, ``error``: the message naming the failing operator and subtask, then
``record: ...`` when an expression failed on a record (its JSON, cut short: it is the run's data,
shown to whoever may view the run, as its collected records are), then the traceback's last frames) and a
restart as a ``status`` RESTARTING event with its cause; both are stored like every event,
so the history needs no table of its own and survives the driver.
"""
from __future__ import annotations

import re
from typing import Any

from studio.models import Run, RunEvent

MAX_ENTRIES = 500
_FAILING_OPERATOR = re.compile(r"operator '([^']+)'")
RECORD_PREFIX = "record: "


def exceptions_of(run: Run) -> dict[str, Any]:
    """``{"root": the run's failure cause, "exceptions": newest first, "restarts": newest first}``."""
    events = (RunEvent.objects.filter(run=run, type__in=("task_failed", "status")).order_by("-seq")
              .values_list("seq", "ts", "type", "data"))
    exceptions, restarts = [], []
    for seq, ts, kind, data in events.iterator():
        data = data or {}
        if kind == "task_failed" and len(exceptions) < MAX_ENTRIES:
            exceptions.append(_exception(seq, ts, data))
        elif kind == "status" and data.get("status") == "RESTARTING" and len(restarts) < MAX_ENTRIES:
            restarts.append({"seq": seq, "ts": ts, "cause": _first_line(data.get("cause")),
                             "regions": data.get("regions") or [], "delay_ms": data.get("delay_ms")})
    return {"root": _first_line(run.failure_cause), "exceptions": exceptions, "restarts": restarts}


def _exception(seq: int, ts: int, data: dict) -> dict[str, Any]:
    task = data.get("task")
    vertex, subtask = None, None
    if isinstance(task, str) and "#" in task:
        vertex, _, index = task.rpartition("#")
        subtask = int(index) if index.isdigit() else None
    error = str(data.get("error") or "")
    message, _, traceback = error.partition("\n")
    record = None
    if traceback.startswith(RECORD_PREFIX):
        line, _, traceback = traceback.partition("\n")
        record = line.removeprefix(RECORD_PREFIX)
    operator = _FAILING_OPERATOR.search(message)
    return {"seq": seq, "ts": ts, "task": task, "vertex": vertex, "subtask": subtask,
            "operator": operator.group(1) if operator else None, "region": data.get("region"),
            "attempt": data.get("attempt"), "message": message, "record": record,
            "traceback": traceback.rstrip() or None}


def _first_line(text: str | None) -> str | None:
    return text.splitlines()[0] if text else None
