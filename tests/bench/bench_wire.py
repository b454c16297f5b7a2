"""Record buffers between slot processes: pickle against msgpack, through a real pair of TCP networks.

Two ``TcpNetwork``s in this process (the ones a slot process opens on Spark), one channel between
them; a producer pushes ``BUFFERS`` buffers of 1,024 records against credit, a consumer thread
takes them from its input gate. The figure is this process's CPU time per record over the whole
transfer: both ends, packing and unpacking, the frames and the socket. The records are the
``make bench-events`` job's own, as its JSON source decodes them: ``events`` (the 8-field
events, a plain list: what the window join's records are) and ``projected`` (the 4 fields the
session job reads, a ``TimestampedBatch`` with two inline watermarks: what crosses a hash edge
behind a watermark). "pickle" is the channel with its msgpack encoder switched off, as every
buffer went before ``engine.runtime.io.wire``.

The variants run interleaved (``ROUNDS`` rounds, the order swapped every round) because this
machine's load moves CPU time by tens of percent; the last line holds, per shape, each variant's
median CPU ns per record, the median of the per-round ratios ``msgpack_over_pickle_<shape>``
(below 1: msgpack is cheaper) and the load.

Run: ``make bench-wire`` or ``.venv/bin/python tests/bench/bench_wire.py [--smoke]``.
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.plan.channels import ChannelId
from engine.runtime.io.events import EndOfPartition, TimestampedBatch, Watermark
from engine.runtime.io.input_gate import InputGate
from engine.runtime.io.line_blocks import Projection, decode_json_lines
from tests.bench import bench_events
from tests.bench.smoke import sized
from tests.support import connected_networks

RECORDS = 1024
BUFFERS = sized(300, 5)
ROUNDS = sized(9, 1)
CAPACITY = 32


def event_lines() -> bytes:
    with tempfile.TemporaryDirectory() as work:
        path = bench_events.generate(Path(work), RECORDS * bench_events.FILES)[0]
        lines = path.read_bytes().split(b"\n")[:RECORDS]
    return b"\n".join(lines) + b"\n"


def shapes(block: bytes) -> dict:
    projection = Projection(["ts", "user", "kind", "amount"])

    def projected():
        records = decode_json_lines(block, projection)
        return TimestampedBatch(records, [record["ts"] for record in records],
                                [(RECORDS // 2, Watermark(1)), (RECORDS, Watermark(2))])

    return {"events": lambda: decode_json_lines(block), "projected": projected}


def transfer(make, msgpack: bool) -> float:
    """CPU ns per record to carry ``BUFFERS`` buffers from one network to the other."""
    buffers = [make() for _ in range(BUFFERS)]
    with connected_networks(capacity=CAPACITY) as networks:
        channel_id = ChannelId("e", ("a", 0), ("b", 0))
        output = networks[0].output_channel(channel_id)
        if not msgpack:
            output.encoder.encode = lambda buffer: None  # every buffer pickled, as before
        gate = InputGate([networks[1].input_channel(channel_id)])
        received = [0]

        def consume():
            while True:
                polled = gate.poll_next()
                if polled is None:
                    time.sleep(0.0002)
                    continue
                if type(polled[1]) is EndOfPartition:
                    return
                received[0] += len(polled[1])

        consumer = threading.Thread(target=consume)
        started = time.process_time()
        consumer.start()
        for buffer in buffers:
            while not output.is_writable():
                time.sleep(0.0002)
            output.push(buffer)
        output.push(EndOfPartition())
        consumer.join(120)
        cpu = time.process_time() - started
        if received[0] != BUFFERS * RECORDS:
            raise SystemExit(f"{received[0]} records arrived of {BUFFERS * RECORDS}")
        packed = output.encoder.packed
    if msgpack and packed != BUFFERS:
        raise SystemExit(f"only {packed} of {BUFFERS} buffers went as msgpack")
    return cpu / (BUFFERS * RECORDS) * 1e9


def main() -> None:
    made = shapes(event_lines())
    runs: dict = {}
    for number in range(ROUNDS):
        for shape, make in made.items():
            for variant in (("pickle", "msgpack") if number % 2 == 0 else ("msgpack", "pickle")):
                runs.setdefault((shape, variant), []).append(transfer(make, variant == "msgpack"))
        print(f"round {number + 1}/{ROUNDS} done, load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    summary: dict = {}
    for shape in made:
        pickled, packed = runs[(shape, "pickle")], runs[(shape, "msgpack")]
        ratios = sorted(new / old for old, new in zip(pickled, packed, strict=True))
        summary[f"cpu_ns_per_record_pickle_{shape}"] = round(statistics.median(pickled))
        summary[f"cpu_ns_per_record_msgpack_{shape}"] = round(statistics.median(packed))
        summary[f"msgpack_over_pickle_{shape}"] = round(statistics.median(ratios), 2)
        print(f"{shape:<10} pickle {statistics.median(pickled):6,.0f} ns/record, msgpack {statistics.median(packed):6,.0f}"
              f" (medians of {ROUNDS}); msgpack / pickle per round: median {statistics.median(ratios):.2f}, "
              f"range {ratios[0]:.2f}-{ratios[-1]:.2f}")
    summary.update({"buffers": BUFFERS, "records_per_buffer": RECORDS, "rounds": ROUNDS,
                    "load_average_1m": round(os.getloadavg()[0], 2)})
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
