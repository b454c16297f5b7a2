"""Benchmark: the state browser over a million keys (issue 37).

Run with ``make bench-state``. A job (threads; the engine's own) sums per key over an
unbounded sequence, keyed by the number modulo ``KEYS``, until its source passed ``KEYS``; a
savepoint is taken, signed as a run's are. Then, as the studio reads it:

- ``index_build_s``: the first read of the operator, which indexes its state once
  (``engine.snapshots.index``), in the studio's budgeted worker;
- ``page_ms``: a page of 50 keys at random offsets across the whole state, through the
  studio's budgeted worker (``studio.processes.budget.read_snapshot``: the process hop, the
  snapshot's metadata, the memory-mapped index) -- p50 / p99 / max of ``PAGES`` pages;
- ``engine_page_ms``: the same pages asked of the engine's ``SnapshotBrowser`` in this process;
- ``search_ms`` and ``expression_ms``: a text search and a key expression over every key;
- ``key_ms``: one key's full state.

Target: a page in under a second (``page_max_ms`` < 1000). The last line is one JSON object.
"""
from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_studio import percentile, setup_django  # noqa: E402
from tests.bench.smoke import SMOKE, sized  # noqa: E402

KEYS = sized(1_000_000, 3_000)
PAGES = sized(40, 3)
PAGE = 50


def write_savepoint(work: Path, signer) -> str:
    """A savepoint of a job holding ``KEYS`` keys of keyed state; its location.

    The keys are the numbers modulo ``KEYS``: the source runs on until the metrics say it passed ``KEYS``
    and the savepoint's barrier reaches it, as many numbers as the machine makes in that time (400 thousand
    at a load of 18, millions on an idle one), and the state must not grow with them: a smoke run's state
    grew past the state browser's memory budget on an idle machine."""
    from engine.api import InProcess, submit

    definition = {"format": 1, "name": "million-keys", "parallelism": 2, "max_parallelism": 128,
                  "checkpointing": {"interval_ms": 3_600_000}, "restart": {"strategy": "none"},
                  "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": None}},
                            {"id": "sum", "type": "aggregate.reduce", "params": {"function": "sum"}},
                            {"id": "out", "type": "sink.collect", "params": {"max_records": 1}}],
                  "edges": [{"id": "e1", "from": "gen", "to": "sum", "partitioning": "hash", "key": f"x % {KEYS}"},
                            {"id": "e2", "from": "sum", "to": "out", "partitioning": "forward"}]}
    events: list[dict] = []
    handle = submit(definition, InProcess(), checkpoint_dir=str(work / "checkpoints"), on_event=events.append,
                    signer=signer)
    try:
        deadline = time.monotonic() + 1800
        while True:
            metrics = [event for event in events if event.get("type") == "metrics"]
            tasks = metrics[-1].get("tasks") or {} if metrics else {}
            read = sum(task.get("records_out", 0) for name, task in tasks.items() if name.startswith("gen"))
            if read >= KEYS or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        return handle.trigger_savepoint(str(work / "savepoints")).result(timeout=600), definition
    finally:
        handle.cancel()
        handle.wait(120)


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-state-"))
    setup_django(str(work / "studio"))
    from django.conf import settings

    from engine.api import SnapshotBrowser, SnapshotSigner, load_checkpoint_metadata, normalise_definition
    from studio.processes.budget import pool, read_snapshot
    from studio.runs.snapshots import signing_key

    started = time.monotonic()
    location, definition = write_savepoint(work, SnapshotSigner(signing_key(), {"pipeline": 1, "run": 1}))
    metadata = load_checkpoint_metadata(location, signer=SnapshotSigner(signing_key()))
    definition = normalise_definition(definition)
    print(f"savepoint written in {time.monotonic() - started:.1f} s at {location}")
    cache = str(settings.STATE_BROWSER_CACHE)

    def ask(question: dict) -> tuple[dict, float]:
        begun = time.perf_counter()
        answer = read_snapshot(metadata, definition, question, cache_dir=cache)
        return answer, (time.perf_counter() - begun) * 1000

    pool("snapshots").run("read_snapshot", {"metadata": metadata, "definition": definition, "cache_dir": cache,
                                            "question": {"op": "sizes", "node": "gen"}}, 60)  # a warm worker
    first, build_ms = ask({"op": "keys", "node": "sum", "offset": 0, "limit": PAGE})
    keys = first["total"]
    print(f"{keys} keys; first read (indexes the operator's state): {build_ms / 1000:.2f} s")
    offsets = [random.Random(seed).randrange(0, max(1, keys - PAGE)) for seed in range(PAGES)]
    pages = []
    for offset in offsets:
        answer, took = ask({"op": "keys", "node": "sum", "offset": offset, "limit": PAGE})
        assert len(answer["rows"]) == PAGE and answer["total"] == keys
        pages.append(took)
    browser = SnapshotBrowser(metadata, definition, cache)
    engine_pages = []
    for offset in offsets:
        begun = time.perf_counter()
        browser.keys("sum", offset=offset, limit=PAGE)
        engine_pages.append((time.perf_counter() - begun) * 1000)
    _, search_ms = ask({"op": "keys", "node": "sum", "search": "99999", "limit": PAGE})
    _, expression_ms = ask({"op": "keys", "node": "sum", "expression": "key % 1000 == 7", "limit": PAGE})
    _, key_ms = ask({"op": "key", "node": "sum", "key": first["rows"][0]["key_json"]})
    load = os.getloadavg()[0]
    figures = {
        "keys": keys, "index_build_s": round(build_ms / 1000, 2),
        "page_p50_ms": round(statistics.median(pages), 1), "page_p99_ms": round(percentile(pages, 99), 1),
        "page_max_ms": round(max(pages), 1), "engine_page_p50_ms": round(statistics.median(engine_pages), 2),
        "search_ms": round(search_ms, 1), "expression_ms": round(expression_ms, 1), "key_ms": round(key_ms, 1),
        "load": round(load, 1), "smoke": SMOKE,
    }
    print(f"page of {PAGE} at random offsets, through the budgeted worker: p50 {figures['page_p50_ms']} ms, "
          f"p99 {figures['page_p99_ms']} ms, max {figures['page_max_ms']} ms (engine alone: p50 "
          f"{figures['engine_page_p50_ms']} ms)")
    print(f"search over every key {search_ms:.0f} ms, key expression {expression_ms:.0f} ms, one key {key_ms:.0f} ms; "
          f"load average {load:.1f}")
    pool("snapshots").close()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
