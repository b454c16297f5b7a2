"""A PostgreSQL server started by the tests themselves, from the system's binaries.

Tests never use a server that happens to run on the machine (CI machines are fresh):
``scripts/ensure_postgres.sh`` (run by ``make test``) installs the binaries, and this
module runs ``initdb`` into a temporary directory and starts ``postgres`` on a free
loopback port with password authentication, ready for the connectors: logical decoding
(``wal_level=logical``, replication slots) and two-phase commit
(``max_prepared_transactions``). Durability is off (``fsync``): it is a test server.

PostgreSQL refuses to run as root; as root the server runs as the ``postgres`` system user
(created by the Debian package).

Usage (the ``postgres_server`` fixture of ``tests/conftest.py`` shares one per session)::

    with PostgresServer() as server:
        dsn = server.create_database("mytest")
"""
from __future__ import annotations

import ctypes
import glob
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

START_TIMEOUT_S = 60
PR_SET_PDEATHSIG = 1

DEFAULT_SETTINGS = {
    "wal_level": "logical",
    "max_prepared_transactions": 64,
    "max_replication_slots": 32,
    "max_wal_senders": 16,
    "max_connections": 200,
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "shared_buffers": "64MB",
}


def postgres_bin_dir() -> str:
    """Where ``initdb`` and ``postgres`` are: ``POSTGRES_BIN_DIR``, else the newest installed major."""
    configured = os.environ.get("POSTGRES_BIN_DIR")
    if configured and os.access(os.path.join(configured, "initdb"), os.X_OK):
        return configured
    installed = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[-3]))
    if installed:
        return os.path.dirname(installed[-1])
    found = shutil.which("initdb")
    if found:
        return os.path.dirname(os.path.realpath(found))
    raise RuntimeError("PostgreSQL's server binaries are missing: run scripts/ensure_postgres.sh "
                       "(make test does) or set POSTGRES_BIN_DIR")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """One throw-away PostgreSQL cluster: ``start``, ``dsn``, ``create_database``, ``stop``."""

    def __init__(self, **settings):
        self.settings = {**DEFAULT_SETTINGS, **settings}
        self.user = "postgres"
        self.password = secrets.token_hex(12)
        self.host = "127.0.0.1"
        self.port = 0
        self.directory: Path | None = None
        self.process: subprocess.Popen | None = None

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> "PostgresServer":
        bin_dir = postgres_bin_dir()
        self.directory = Path(tempfile.mkdtemp(prefix="test-postgres-"))
        data = self.directory / "data"
        password_file = self.directory / "password"
        password_file.write_text(self.password)
        self._hand_over(self.directory)
        self._run([os.path.join(bin_dir, "initdb"), "-D", str(data), "-U", self.user, "--auth=scram-sha-256",
                   f"--pwfile={password_file}", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
        password_file.unlink()
        self.port = free_port()
        options = [f"-c{name}={value}" for name, value in self.settings.items()]
        self.process = subprocess.Popen(
            [os.path.join(bin_dir, "postgres"), "-D", str(data), "-h", self.host, "-p", str(self.port),
             "-k", str(self.directory), *options],
            stdout=subprocess.DEVNULL, stderr=open(self.directory / "server.log", "ab"),
            preexec_fn=self._demote, start_new_session=True)
        self._wait_until_ready()
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown: roll back, disconnect, stop
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None

    def __enter__(self) -> "PostgresServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- use ---------------------------------------------------------------------------------
    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}:{self.password}@{self.host}:{self.port}/{database}"

    def create_database(self, prefix: str = "test") -> str:
        """A new, empty database; returns its connection URL."""
        import psycopg

        name = f"{prefix}_{secrets.token_hex(4)}"
        with psycopg.connect(self.dsn(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def log(self) -> str:
        path = self.directory / "server.log" if self.directory else None
        return path.read_text(errors="replace") if path and path.exists() else ""

    # -- helpers -----------------------------------------------------------------------------
    @staticmethod
    def _system_user():
        """The user the server runs as: ourselves, or ``postgres`` when we are root."""
        return pwd.getpwnam("postgres") if os.geteuid() == 0 else None

    def _hand_over(self, directory: Path) -> None:
        account = self._system_user()
        if account is not None:
            os.chown(directory, account.pw_uid, account.pw_gid)
            for entry in directory.iterdir():
                os.chown(entry, account.pw_uid, account.pw_gid)

    def _demote(self) -> None:
        """In the child before exec: become the server's user, then die with the test process
        (a test process killed by a timeout must not leave a server behind). The parent-death
        signal is set after the user change, which would clear it."""
        account = self._system_user()
        if account is not None:
            os.setgid(account.pw_gid)
            os.setuid(account.pw_uid)
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGINT)

    def _run(self, command: list[str]) -> None:
        finished = subprocess.run(command, capture_output=True, text=True, preexec_fn=self._demote)
        if finished.returncode != 0:
            raise RuntimeError(f"{command[0]} failed: {finished.stderr or finished.stdout}")

    def _wait_until_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                psycopg.connect(self.dsn(), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    log = self.log()
                    self.stop()
                    raise RuntimeError(f"the test PostgreSQL server did not start:\n{log[-2000:]}")
                time.sleep(0.1)
