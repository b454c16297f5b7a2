"""The few Kafka requests librdkafka cannot make for us, on the Kafka wire protocol.

Why: a two-phase-commit sink must finish, after a crash, the transactions its dead
producers left behind -- commit the one a restored checkpoint covers, abort the others.
Kafka lets any client do that with an ``EndTxn`` request naming the transactional id, the
producer id and the producer epoch (Flink's Kafka sink does the same by resuming the
transaction in a producer it sets up by reflection). librdkafka has no call that ends a
transaction it did not begin, so this module sends ``FindCoordinator`` (which broker
coordinates a transactional id) and ``EndTxn`` itself. Tests use :class:`Connection` for
``Fetch`` as well.

Framing (the protocol's "classic" encoding, which every version used here has): a request
is ``int32 size, int16 api_key, int16 api_version, int32 correlation_id, string
client_id, body``; a response ``int32 size, int32 correlation_id, body``. Strings are an
``int16`` length and UTF-8 bytes. Versions: ``FindCoordinator`` v1 and ``EndTxn`` v1,
answered by Kafka 0.11 to 4.x, Redpanda and librdkafka's mock cluster alike; an
``ApiVersions`` request first checks the broker takes them.

Plain TCP only (``security.protocol`` PLAINTEXT): a cluster behind TLS or SASL needs those
added here before such a sink can finish transactions after a crash.
"""
from __future__ import annotations

import socket
import struct
import time
from dataclasses import dataclass

API_FETCH = 1
API_FIND_COORDINATOR = 10
API_API_VERSIONS = 18
API_END_TXN = 26
COORDINATOR_TRANSACTION = 1

NONE = 0
COORDINATOR_LOAD_IN_PROGRESS = 14
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
INVALID_PRODUCER_EPOCH = 47
INVALID_TXN_STATE = 48
INVALID_PRODUCER_ID_MAPPING = 49
CONCURRENT_TRANSACTIONS = 51
TRANSACTIONAL_ID_NOT_FOUND = 105
PRODUCER_FENCED = 90
RETRIABLE = {COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, CONCURRENT_TRANSACTIONS}
ERROR_NAMES = {
    COORDINATOR_LOAD_IN_PROGRESS: "COORDINATOR_LOAD_IN_PROGRESS", COORDINATOR_NOT_AVAILABLE: "COORDINATOR_NOT_AVAILABLE",
    NOT_COORDINATOR: "NOT_COORDINATOR", INVALID_PRODUCER_EPOCH: "INVALID_PRODUCER_EPOCH",
    INVALID_TXN_STATE: "INVALID_TXN_STATE", INVALID_PRODUCER_ID_MAPPING: "INVALID_PRODUCER_ID_MAPPING",
    CONCURRENT_TRANSACTIONS: "CONCURRENT_TRANSACTIONS", PRODUCER_FENCED: "PRODUCER_FENCED",
    TRANSACTIONAL_ID_NOT_FOUND: "TRANSACTIONAL_ID_NOT_FOUND",
}
CLIENT_ID = b"pipeline-studio"


class KafkaProtocolError(RuntimeError):
    """A broker answered a request with an error code (``code``), or could not be reached (``code`` None)."""

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.code = code


def error_name(code: int) -> str:
    return ERROR_NAMES.get(code, f"error {code}")


def string(text: str | None) -> bytes:
    if text is None:
        return struct.pack(">h", -1)
    data = text.encode()
    return struct.pack(">h", len(data)) + data


class Reader:
    """Reads the fields of a response body in order."""

    def __init__(self, data: bytes, position: int = 0):
        self.data = data
        self.position = position

    def take(self, fmt: str):
        values = struct.unpack_from(fmt, self.data, self.position)
        self.position += struct.calcsize(fmt)
        return values[0] if len(values) == 1 else values

    def string(self) -> str | None:
        length = self.take(">h")
        if length < 0:
            return None
        text = self.data[self.position:self.position + length].decode()
        self.position += length
        return text

    def bytes(self) -> bytes | None:
        length = self.take(">i")
        if length < 0:
            return None
        data = self.data[self.position:self.position + length]
        self.position += length
        return data


class Connection:
    """One TCP connection to one broker; requests are answered in order."""

    def __init__(self, host: str, port: int, timeout_s: float):
        self.address = f"{host}:{port}"
        try:
            self._socket = socket.create_connection((host, port), timeout=timeout_s)
        except OSError as error:
            raise KafkaProtocolError(f"cannot reach the Kafka broker {self.address}: {error}") from None
        self._correlation = 0

    def request(self, api_key: int, version: int, body: bytes) -> Reader:
        self._correlation += 1
        header = struct.pack(">hhi", api_key, version, self._correlation) + string(CLIENT_ID.decode())
        message = header + body
        try:
            self._socket.sendall(struct.pack(">i", len(message)) + message)
            size = struct.unpack(">i", self._receive(4))[0]
            answer = self._receive(size)
        except OSError as error:
            raise KafkaProtocolError(f"the Kafka broker {self.address} did not answer: {error}") from None
        reader = Reader(answer)
        if reader.take(">i") != self._correlation:
            raise KafkaProtocolError(f"the Kafka broker {self.address} answered another request")
        return reader

    def _receive(self, size: int) -> bytes:
        chunks, missing = [], size
        while missing:
            chunk = self._socket.recv(min(missing, 1 << 20))
            if not chunk:
                raise OSError("connection closed")
            chunks.append(chunk)
            missing -= len(chunk)
        return b"".join(chunks)

    def api_versions(self) -> dict[int, tuple[int, int]]:
        """``{api_key: (min version, max version)}`` the broker takes."""
        reader = self.request(API_API_VERSIONS, 0, b"")
        code = reader.take(">h")
        if code:
            raise KafkaProtocolError(f"ApiVersions failed at {self.address}: {error_name(code)}", code)
        return {key: (low, high) for key, low, high in (reader.take(">hhh") for _ in range(reader.take(">i")))}

    def require(self, api_key: int, version: int, name: str) -> None:
        low, high = self.api_versions().get(api_key, (1, 0))
        if not low <= version <= high:
            raise KafkaProtocolError(f"the Kafka broker {self.address} does not take {name} v{version} "
                                     f"(it takes v{low}..v{high})")

    def close(self) -> None:
        self._socket.close()


def bootstrap_addresses(bootstrap: str) -> list[tuple[str, int]]:
    """``host:port`` pairs of a ``bootstrap.servers`` list (``PLAINTEXT://`` prefixes allowed)."""
    addresses = []
    for item in bootstrap.split(","):
        item = item.strip().rsplit("://", 1)[-1]
        host, _, port = item.rpartition(":")
        if host and port.isdigit():
            addresses.append((host.strip("[]"), int(port)))
    return addresses


def connect_any(bootstrap: str, timeout_s: float) -> Connection:
    """A connection to the first reachable broker of ``bootstrap``."""
    failures = []
    for host, port in bootstrap_addresses(bootstrap):
        try:
            return Connection(host, port, timeout_s)
        except KafkaProtocolError as error:
            failures.append(str(error))
    raise KafkaProtocolError("; ".join(failures) or f"no broker address in {bootstrap!r}")


@dataclass(frozen=True)
class ProducerIdentity:
    """What a transaction is known by: its transactional id, producer id and epoch."""

    transactional_id: str
    producer_id: int
    epoch: int


def end_transaction(bootstrap: str, identity: ProducerIdentity, commit: bool, *, timeout_s: float = 60.0) -> int:
    """Commit or abort ``identity``'s transaction at its coordinator; returns the final error code
    (``NONE``, or what the coordinator refused with -- the caller decides what a refusal means).

    Retries while the coordinator moves or is busy (``RETRIABLE``) until ``timeout_s`` passed."""
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    while True:
        try:
            code = _end_transaction_once(bootstrap, identity, commit, max(1.0, deadline - time.monotonic()))
        except KafkaProtocolError as error:
            if time.monotonic() > deadline:
                raise
            code, unreachable = None, error
        if code is not None and code not in RETRIABLE:
            return code
        if time.monotonic() > deadline:
            if code is None:
                raise unreachable
            raise KafkaProtocolError(f"EndTxn for {identity.transactional_id}: {error_name(code)} until the "
                                     f"timeout", code)
        time.sleep(delay)
        delay = min(delay * 2, 1.0)


def _end_transaction_once(bootstrap: str, identity: ProducerIdentity, commit: bool, timeout_s: float) -> int:
    connection = connect_any(bootstrap, timeout_s)
    try:
        connection.require(API_FIND_COORDINATOR, 1, "FindCoordinator")
        reader = connection.request(API_FIND_COORDINATOR, 1,
                                    string(identity.transactional_id) + struct.pack(">b", COORDINATOR_TRANSACTION))
        reader.take(">i")  # throttle time
        code = reader.take(">h")
        reader.string()  # error message
        if code:
            return code
        reader.take(">i")  # node id
        host, port = reader.string(), reader.take(">i")
    finally:
        connection.close()
    coordinator = Connection(host, port, timeout_s)
    try:
        coordinator.require(API_END_TXN, 1, "EndTxn")
        body = (string(identity.transactional_id) + struct.pack(">qhb", identity.producer_id, identity.epoch,
                                                                1 if commit else 0))
        reader = coordinator.request(API_END_TXN, 1, body)
        reader.take(">i")  # throttle time
        return reader.take(">h")
    finally:
        coordinator.close()
