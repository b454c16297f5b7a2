"""A Kafka cluster for the tests: librdkafka's mock cluster, in a process of its own.

No Kafka broker installs from the package registries, but librdkafka -- bundled in the
``confluent-kafka`` wheel -- carries a mock cluster that speaks the Kafka wire protocol on
loopback ports. It lives as long as the client handle that created it, so it runs here, in
a child process (``python tests/kafka_server.py``) that creates it through librdkafka's C
API (``rd_kafka_mock_cluster_new``, via ctypes), prints its bootstrap address and then
obeys one command per line on its standard input, answering ``ok ...`` or ``error ...``:

    topic <name> <partitions>     create a topic (the mock has no CreateTopics request)
    down <broker id>              a broker stops: connections closed, its port refuses
    up <broker id>                and comes back, with its partitions' data
    stop                          end (closing standard input does too)

Brokers are numbered 1..N. The process dies with the test process that started it.

What the mock models and what it does not (librdkafka 2.16, read in its source and
checked by ``tests/engine/connectors/test_kafka_mock.py``):

- modelled: produce and fetch (record batches v2, offsets, timestamps, headers), topic
  metadata, partition leaders spread over the brokers, consumer groups and their
  committed offsets, ListOffsets for the earliest and latest offsets, idempotent producers
  (per-partition sequence checks), transactional producers: InitProducerId,
  AddPartitionsToTxn, EndTxn writing COMMIT/ABORT control batches into the partitions;
  brokers going down and up (``down``/``up``) with their data kept;
- not modelled: replication and leader election (a partition whose leader is down is
  unavailable until it is up again), CreateTopics/DeleteTopics requests, compaction and
  retention, ListOffsets by timestamp (it answers -1, "no such record", for every
  timestamp), ListTransactions/DescribeTransactions, transaction timeouts (an open
  transaction stays open for ever), broker-side fencing (InitProducerId hands out a new
  producer id each time instead of bumping the epoch of the id's previous producer, so it
  neither fences that producer nor aborts its open transaction), and read_committed
  isolation: Fetch answers a last stable offset equal to the high watermark and no
  aborted transactions, so a ``read_committed`` consumer of the mock receives the records
  of open and aborted transactions too (only control records are hidden).

So the tests read a sink's output with ``tests/kafka_log.py``, which fetches the raw
record batches and applies read_committed the way a Kafka consumer does against a real
broker (a transactional producer's records count once its COMMIT marker follows them,
never after an ABORT marker) and reports transactions left open.
"""
from __future__ import annotations

import ctypes
import glob
import os
import signal
import subprocess
import sys
from pathlib import Path

START_TIMEOUT_S = 30
PR_SET_PDEATHSIG = 1


def librdkafka() -> ctypes.CDLL:
    """The librdkafka shared library bundled with confluent-kafka (the one its clients use)."""
    import confluent_kafka

    package = Path(confluent_kafka.__file__).resolve().parent
    found = sorted(glob.glob(str(package.parent / "confluent_kafka.libs" / "librdkafka*.so*")))
    if not found:
        raise RuntimeError(f"no librdkafka library next to {package}")
    lib = ctypes.CDLL(found[0])
    lib.rd_kafka_conf_new.restype = ctypes.c_void_p
    lib.rd_kafka_conf_set.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                      ctypes.c_size_t]
    lib.rd_kafka_new.restype = ctypes.c_void_p
    lib.rd_kafka_new.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.rd_kafka_mock_cluster_new.restype = ctypes.c_void_p
    lib.rd_kafka_mock_cluster_new.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.rd_kafka_mock_cluster_bootstraps.restype = ctypes.c_char_p
    lib.rd_kafka_mock_cluster_bootstraps.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_mock_topic_create.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
    for name in ("rd_kafka_mock_broker_set_down", "rd_kafka_mock_broker_set_up"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_int32]
    return lib


def serve(brokers: int) -> None:
    """The child process: create the cluster, print its address, obey commands until told to stop."""
    ctypes.CDLL("libc.so.6").prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    lib = librdkafka()
    conf = lib.rd_kafka_conf_new()
    error = ctypes.create_string_buffer(512)
    lib.rd_kafka_conf_set(conf, b"log_level", b"0", error, len(error))  # no "bootstrap.servers missing" noise
    handle = lib.rd_kafka_new(0, conf, error, len(error))
    if not handle:
        raise SystemExit(f"rd_kafka_new failed: {error.value.decode()}")
    cluster = lib.rd_kafka_mock_cluster_new(handle, brokers)
    print(lib.rd_kafka_mock_cluster_bootstraps(cluster).decode(), flush=True)
    for line in sys.stdin:
        command, *arguments = line.split() or [""]
        try:
            if command == "topic":
                code = lib.rd_kafka_mock_topic_create(cluster, arguments[0].encode(), int(arguments[1]), 1)
            elif command in ("down", "up"):
                code = getattr(lib, f"rd_kafka_mock_broker_set_{command}")(cluster, int(arguments[0]))
            elif command == "stop":
                break
            else:
                print(f"error unknown command {command!r}", flush=True)
                continue
        except (IndexError, ValueError) as bad:
            print(f"error {bad}", flush=True)
            continue
        print("ok" if code == 0 else f"error code {code}", flush=True)


class KafkaMockCluster:
    """The test side: start the cluster process, send it commands, stop it.

    Usage (the ``kafka_cluster`` fixture of ``tests/conftest.py`` shares one per session)::

        with KafkaMockCluster() as cluster:
            cluster.create_topic("events", partitions=4)
            producer = Producer({"bootstrap.servers": cluster.bootstrap})
    """

    def __init__(self, brokers: int = 3):
        self.brokers = brokers
        self.bootstrap = ""
        self.process: subprocess.Popen | None = None

    def start(self) -> "KafkaMockCluster":
        self.process = subprocess.Popen([sys.executable, __file__, str(self.brokers)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, start_new_session=True)
        self.bootstrap = self.process.stdout.readline().strip()
        if not self.bootstrap:
            self.stop()
            raise RuntimeError("the Kafka mock cluster did not start")
        return self

    def command(self, line: str) -> None:
        if self.process is None or self.process.poll() is not None:
            raise RuntimeError("the Kafka mock cluster is not running")
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        if answer != "ok":
            raise RuntimeError(f"mock cluster command {line!r}: {answer or 'no answer'}")

    def create_topic(self, name: str, partitions: int = 1) -> str:
        self.command(f"topic {name} {partitions}")
        return name

    def broker_down(self, broker: int) -> None:
        self.command(f"down {broker}")

    def broker_up(self, broker: int) -> None:
        self.command(f"up {broker}")

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            try:
                self.process.stdin.write("stop\n")
                self.process.stdin.close()
                self.process.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None

    def __enter__(self) -> "KafkaMockCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


if __name__ == "__main__":
    serve(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
