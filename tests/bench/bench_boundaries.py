"""What the checks at the boundaries cost: per file opened, per sink file and rename, per state file, per request.

Per operation (in microseconds; rounds of ``OPS`` operations of the two variants alternate, and
each variant's fastest of ``REPEAT`` rounds is reported: the least disturbed by the machine's load):

- ``open_checked_us`` / ``open_plain_us``: a source file opened through its grant check
  (``engine.runtime.grants.open_for_reading``: open, then the real path of the descriptor
  read back and compared with the grants) and with a plain ``open``;
- ``sink_file_us`` / ``sink_file_fsspec_us``: one transaction's file life in a file sink --
  create, write 1 KiB, close, rename to pending, rename into view -- through the sink's
  open directory (``SinkDirectory``: dir_fd calls plus the identity ``stat`` before the
  create and each rename) and through fsspec paths as before;
- ``digest_ms_per_mib``: the SHA-256 a subtask computes of each state file it writes and
  checks when it reads one;
- ``url_check_us``: ``Grants.allows_url`` of one lookup address against three prefixes.

Then whole jobs, interleaved (runs alternate, the machine's load moves both alike):
``source.file`` over 200 files into ``sink.file``, with grants and without, as the ratio of
their records per second (``job_ratio_with_grants``: 1.0 means no cost).

The last line is one JSON object with these keys and ``load_average``.
Run: ``make bench-boundaries`` or ``.venv/bin/python tests/bench/bench_boundaries.py``.
"""
from __future__ import annotations

import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.api import Grants, InProcess, run  # noqa: E402
from engine.checkpoint.signing import digest  # noqa: E402
from engine.runtime.grants import open_for_reading  # noqa: E402
from engine.runtime.operators.connectors.sink_directory import SinkDirectory  # noqa: E402
from tests.bench.smoke import SMOKE, sized  # noqa: E402

OPS = sized(2000, 20)
REPEAT = sized(5, 1)
FILES = sized(200, 4)
LINES_PER_FILE = sized(500, 20)


def per_op_us(*operations, ops: int = OPS) -> list[float]:
    """Microseconds per call of each operation: rounds of the operations alternate (load moves them alike),
    and each gets its fastest round (the least disturbed by the rest of the machine)."""
    best = [float("inf")] * len(operations)
    for _ in range(REPEAT):
        for position, operation in enumerate(operations):
            started = time.perf_counter()
            for index in range(ops):
                operation(index)
            best[position] = min(best[position], (time.perf_counter() - started) / ops * 1e6)
    return best


def file_costs(work: Path) -> dict:
    source = work / "in"
    source.mkdir()
    for index in range(10):
        (source / f"{index}.jsonl").write_text("{}\n" * 10)
    grants = Grants(read=(str(work),))
    names = [str(source / f"{index % 10}.jsonl") for index in range(OPS)]

    def checked(index):
        open_for_reading(names[index], grants).close()

    def plain(index):
        open(names[index], "rb").close()

    directory = SinkDirectory({"id": "bench"}, str(work / "out"), Grants(write=(str(work),)))
    directory.open()
    payload = b"x" * 1024
    names_used = itertools.count()  # every round writes new files

    def sink_file(_):
        n = next(names_used)
        with directory.create(f".f{n}.inprogress") as file:
            file.write(payload)
        directory.rename(f".f{n}.inprogress", f".f{n}.pending-1")
        directory.rename(f".f{n}.pending-1", f"f{n}")

    import fsspec

    fs, root = fsspec.core.url_to_fs(str(work / "out-fsspec"))
    fs.makedirs(root, exist_ok=True)

    def sink_file_fsspec(_):
        n = next(names_used)
        with fs.open(f"{root}/.f{n}.inprogress", "wb") as file:
            file.write(payload)
        fs.mv(f"{root}/.f{n}.inprogress", f"{root}/.f{n}.pending-1")
        fs.mv(f"{root}/.f{n}.pending-1", f"{root}/f{n}")

    figures = dict(zip(("open_checked_us", "open_plain_us"), per_op_us(checked, plain)))
    figures.update(zip(("sink_file_us", "sink_file_fsspec_us"), per_op_us(sink_file, sink_file_fsspec)))
    directory.close()
    return figures


def digest_ms_per_mib() -> float:
    data = os.urandom(16 << 20)
    started = time.perf_counter()
    digest(data)
    return (time.perf_counter() - started) * 1000 / 16


def url_check_us() -> float:
    grants = Grants(urls=("http://users.internal/profiles", "https://api.example.com/v1", "http://127.0.0.1:8080/"))
    return per_op_us(lambda index: grants.allows_url(f"http://users.internal/profiles/{index}"))[0]


def job_rates(work: Path) -> tuple[list[float], list[float]]:
    inputs = work / "inputs"
    inputs.mkdir()
    for index in range(FILES):
        (inputs / f"part-{index:04d}.jsonl").write_text(
            "".join(json.dumps({"file": index, "line": line}) + "\n" for line in range(LINES_PER_FILE)))
    records = FILES * LINES_PER_FILE
    with_grants, without = [], []
    for attempt in range(6):
        use_grants = attempt % 2 == 0
        output = work / f"out-{attempt}"
        definition = {"format": 1, "name": "bench", "parallelism": 1, "checkpointing": {"interval_ms": 200},
                      "nodes": [{"id": "in", "type": "source.file", "params": {"path": str(inputs),
                                                                                "split_bytes": 1 << 16}},
                                {"id": "out", "type": "sink.file", "params": {"path": str(output)}}],
                      "edges": [{"id": "e", "from": "in", "to": "out"}]}
        grants = Grants(read=(str(work),), write=(str(work),)) if use_grants else None
        started = time.perf_counter()
        result = run(definition, InProcess(), checkpoint_dir=str(work / f"chk-{attempt}"), grants=grants,
                     timeout=300)
        elapsed = time.perf_counter() - started
        assert result.status == "FINISHED", result.failure
        (with_grants if use_grants else without).append(records / elapsed)
    return with_grants, without


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-boundaries-") as directory:
        work = Path(directory)
        figures = file_costs(work)
        figures["digest_ms_per_mib"] = digest_ms_per_mib()
        figures["url_check_us"] = url_check_us()
        with_grants, without = job_rates(work)
    for name, value in figures.items():
        print(f"{name:24s} {value:10.2f}")
    print(f"job records/s with grants    {', '.join(f'{rate:,.0f}' for rate in with_grants)}")
    print(f"job records/s without grants {', '.join(f'{rate:,.0f}' for rate in without)}")
    figures["job_ratio_with_grants"] = statistics.median(with_grants) / statistics.median(without)
    figures["load_average"] = os.getloadavg()[0]
    print(json.dumps({key: round(value, 3) for key, value in figures.items()}))


if __name__ == "__main__":
    main()
