"""Hosts made of network namespaces: each its own network stack and address on one bridge.

A :class:`Network` creates a bridge and, per host, a namespace with a veth pair (``eth0``
inside, the other end on the bridge) and an address of a private /24 no route of this
machine uses. Processes started on a host (``Host.start``) live in its namespace: they
bind its address, and its loopback is its own, so an address advertised wrongly (127.0.0.1,
a name) is unreachable from the other hosts, as between real machines. The file system is
shared (one mount namespace), as NFS or an object store would share the checkpoint and
shuffle directory. ``Host.kill_all`` is a host lost (every process in its namespace
SIGKILLed); ``Host.link(False)`` a partition (its cable pulled: packets dropped, no reset).

Everything is created with the names and addresses of this network only and removed by
``close``; only root can do it (CI runs as root).

The Spark services run ``docker-compose.yml``'s commands (``compose_command``), with the
compose service names replaced by the hosts' addresses, so the harness is the compose
file's deployment run for real (``tests/deploy/test_compose.py`` checks the mapping).
"""
from __future__ import annotations

import ctypes
import ipaddress
import os
import secrets
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CLONE_NEWNET = 0x40000000


def ip(*args: str, check: bool = True, env: dict | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], check=check, capture_output=True, text=True, timeout=timeout, env=env)


def free_subnet() -> ipaddress.IPv4Network:
    """A 10.x.y.0/24 that no address or route of this machine is in."""
    used = ip("-4", "route", "show", "table", "all").stdout + ip("-4", "addr").stdout
    for _ in range(200):
        subnet = ipaddress.IPv4Network(f"10.{secrets.randbelow(200) + 40}.{secrets.randbelow(250) + 1}.0/24")
        if f"10.{subnet.network_address.packed[1]}.{subnet.network_address.packed[2]}." not in used:
            return subnet
    raise RuntimeError("no free 10.x.y.0/24 for the test network")


class Host:
    """One namespace: ``name``, ``address``; processes started on it are its own."""

    def __init__(self, network: "Network", name: str, index: int):
        self.name = name
        self.namespace = f"{network.prefix}-{name}"
        self.address = str(network.subnet.network_address + index)
        self.veth = f"{network.prefix}{index}"  # the bridge's end (names are at most 15 characters)
        self.processes: list[subprocess.Popen] = []
        ip("netns", "add", self.namespace)
        ip("link", "add", self.veth, "type", "veth", "peer", "name", f"{self.veth}n")
        ip("link", "set", f"{self.veth}n", "netns", self.namespace)
        self.run("ip", "link", "set", f"{self.veth}n", "name", "eth0")
        self.run("ip", "addr", "add", f"{self.address}/{network.subnet.prefixlen}", "dev", "eth0")
        self.run("ip", "link", "set", "eth0", "up")
        self.run("ip", "link", "set", "lo", "up")
        ip("link", "set", self.veth, "master", network.bridge)
        ip("link", "set", self.veth, "up")

    def run(self, *argv: str, check: bool = True, env: dict | None = None) -> subprocess.CompletedProcess:
        return ip("netns", "exec", self.namespace, *argv, check=check, env=env, timeout=120)

    def start(self, argv: list[str], env: dict, log: Path, stdout: Path | None = None) -> subprocess.Popen:
        """Start ``argv`` in this host's namespace (``ip netns exec`` execs it: same pid)."""
        process = subprocess.Popen(["ip", "netns", "exec", self.namespace, *argv], cwd=ROOT, env=env,
                                   stdout=open(stdout or log, "ab"),
                                   stderr=open(log, "ab") if stdout else subprocess.STDOUT)
        self.processes.append(process)
        return process

    def pids(self) -> list[int]:
        return [int(pid) for pid in ip("netns", "pids", self.namespace, check=False).stdout.split()]

    def kill_all(self) -> int:
        """SIGKILL every process in the namespace (the host is lost); return how many."""
        pids = self.pids()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for process in self.processes:
            if process.pid in pids:
                process.wait(30)
        return len(pids)

    def link(self, up: bool) -> None:
        """Plug or pull this host's cable (its bridge port): no packet passes while down."""
        ip("link", "set", self.veth, "up" if up else "down")

    def enter(self) -> None:
        """Move the calling process into this host's network namespace (a ``preexec_fn``:
        for processes started otherwise than by ``start``, such as the PostgreSQL server)."""
        descriptor = os.open(f"/run/netns/{self.namespace}", os.O_RDONLY)
        try:
            if ctypes.CDLL(None, use_errno=True).setns(descriptor, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), f"setns into {self.namespace}")
        finally:
            os.close(descriptor)

    def connections_to(self, other: "Host") -> list[str]:
        """Established TCP connections of this host with ``other``'s address (``ss``)."""
        listing = self.run("ss", "-Htn", "state", "established", check=False).stdout
        return [line for line in listing.splitlines() if f"{other.address}:" in line]


class Network:
    """A bridge and hosts on it; ``close`` removes all of it, and ends its processes."""

    def __init__(self):
        self.prefix = f"mh{secrets.token_hex(2)}"
        self.subnet = free_subnet()
        self.bridge = f"{self.prefix}br"
        self.hosts: dict[str, Host] = {}
        self.operator_address = str(self.subnet.network_address + 1)
        """The tests' own address on the network (the bridge's, in this machine's namespace):
        they reach the studio's HTTP API and the database there, as an operator would."""
        ip("link", "add", self.bridge, "type", "bridge")
        ip("addr", "add", f"{self.operator_address}/{self.subnet.prefixlen}", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")

    def add(self, name: str) -> Host:
        host = self.hosts[name] = Host(self, name, len(self.hosts) + 2)
        return host

    def close(self) -> None:
        for host in self.hosts.values():
            host.kill_all()
            ip("netns", "del", host.namespace, check=False)
            ip("link", "del", host.veth, check=False)  # gone with its peer already, normally
        ip("link", "del", self.bridge, check=False)


def compose_services() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def compose_command(service: str, addresses: dict[str, str]) -> list[str]:
    """``service``'s command from docker-compose.yml, its programs from this venv, and the
    compose host names it names replaced by ``addresses`` (compose service → address)."""
    command = compose_services()[service]["command"]
    argv = command if isinstance(command, list) else shlex.split(command)
    bin_dir = Path(sys.executable).parent
    resolved = []
    for arg in argv:
        for name, address in addresses.items():
            arg = arg.replace(f"//{name}:", f"//{address}:") if "//" in arg else (address if arg == name else arg)
        resolved.append(arg)
    if resolved[0] in ("python", "spark-class"):
        resolved[0] = str(bin_dir / resolved[0])
    return resolved


def compose_environment(service: str, addresses: dict[str, str]) -> dict[str, str]:
    """``service``'s engine settings from docker-compose.yml, host names replaced."""
    environment = compose_services()[service].get("environment", {})
    return {key: addresses.get(str(value), str(value)) for key, value in environment.items()
            if key.startswith(("ENGINE_", "SPARK_DRIVER", "SPARK_BLOCK")) and key != "ENGINE_CPU_LOCK_DIR"}
