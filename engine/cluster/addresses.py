"""Where the engine's processes listen and where the others reach them: network settings.

On one machine every default works (the driver and its slots share 127.0.0.1). On a
cluster the driver, the Spark workers and the studio are different hosts, each behind its
own interface, perhaps a NAT or a firewall; then a process must bind one address (an
interface of its own host, or ``0.0.0.0``) and advertise another (the name or address the
other hosts route to), and the ports a firewall lets through must be fixed ranges rather
than whatever the kernel picks. Every such choice is an environment variable of the host
that opens the port (README "Ports to open" lists them with their defaults):

=================================  ==========  ======================================================
variable                           read on     meaning (default)
=================================  ==========  ======================================================
``ENGINE_CONTROL_BIND_HOST``       driver      interface of the control channel (``0.0.0.0``)
``ENGINE_CONTROL_ADVERTISED_HOST`` driver      address the slots connect to (``SPARK_DRIVER_HOST``,
                                               else ``127.0.0.1``)
``ENGINE_CONTROL_PORTS``           driver      port or range ``41000-41099`` (``0``: any free port)
``ENGINE_DATA_BIND_HOST``          Spark       interface of a slot's data channels (``0.0.0.0``)
                                   worker
``ENGINE_DATA_ADVERTISED_HOST``    Spark       address the other slots connect to (the executor's
                                   worker      address as Spark knows it)
``ENGINE_DATA_PORTS``              Spark       port range of the slots' data channels (any free port)
                                   worker
=================================  ==========  ======================================================

A range is needed wherever several listeners share a host: each driver of the studio opens
one control port, each slot of a worker host one data port; a listener takes the first
free port of its range and fails, naming the variable and the range, when none is left.
The Spark driver's own ports are Spark's settings, exposed the same way by
``spark_driver_conf``.
"""
from __future__ import annotations

import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass

from engine.runtime.io.port_range import ANY_PORT, AddressSettingError, bind_listener

DEFAULT_BIND_HOST = "0.0.0.0"
DEFAULT_ADVERTISED_HOST = "127.0.0.1"


@dataclass(frozen=True)
class Endpoint:
    """Where one kind of listener binds (``bind_host``, ``ports``) and what it advertises.

    ``advertised_host`` None: the caller knows better (a slot asks Spark for its executor's address).
    """

    bind_host: str
    advertised_host: str | None
    ports: range
    ports_variable: str
    """The setting ``ports`` came from, for error messages."""

    def listen(self, backlog: int = 128) -> socket.socket:
        """A listening socket on ``bind_host`` at the first free port of ``ports``."""
        return bind_listener(self.bind_host, self.ports, backlog=backlog, setting=self.ports_variable)


def parse_ports(text: str | None, variable: str) -> range:
    """``""``/``"0"``: any free port; ``"41000"``: that port; ``"41000-41099"``: that inclusive range."""
    text = (text or "").strip()
    if text in ("", "0"):
        return ANY_PORT
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", text)
    if match is None:
        raise AddressSettingError(f"{variable}={text!r}: expected a port (41000) or an inclusive range "
                                  f"(41000-41099)")
    first = int(match.group(1))
    last = int(match.group(2) or first)
    if not 1 <= first <= last <= 65535:
        raise AddressSettingError(f"{variable}={text!r}: ports must be 1-65535 and the range ascending")
    return range(first, last + 1)


def _host(environ: Mapping[str, str], variable: str, default: str | None) -> str | None:
    value = environ.get(variable, "").strip()
    if not value:
        return default
    if any(character.isspace() for character in value) or "/" in value:
        raise AddressSettingError(f"{variable}={value!r}: expected a host name or an IP address")
    return value


def control_endpoint(environ: Mapping[str, str] | None = None) -> Endpoint:
    """The driver's control channel (slots register, acknowledge, report there)."""
    environ = os.environ if environ is None else environ
    advertised = _host(environ, "ENGINE_CONTROL_ADVERTISED_HOST",
                       _host(environ, "SPARK_DRIVER_HOST", DEFAULT_ADVERTISED_HOST))
    return Endpoint(bind_host=_host(environ, "ENGINE_CONTROL_BIND_HOST", DEFAULT_BIND_HOST),
                    advertised_host=advertised,
                    ports=parse_ports(environ.get("ENGINE_CONTROL_PORTS"), "ENGINE_CONTROL_PORTS"),
                    ports_variable="ENGINE_CONTROL_PORTS")


def data_endpoint(environ: Mapping[str, str] | None = None) -> Endpoint:
    """A slot's data channels (records and barriers to the region's other slots), read on the
    Spark worker host the slot runs on: each worker host sets its own."""
    environ = os.environ if environ is None else environ
    return Endpoint(bind_host=_host(environ, "ENGINE_DATA_BIND_HOST", DEFAULT_BIND_HOST),
                    advertised_host=_host(environ, "ENGINE_DATA_ADVERTISED_HOST", None),
                    ports=parse_ports(environ.get("ENGINE_DATA_PORTS"), "ENGINE_DATA_PORTS"),
                    ports_variable="ENGINE_DATA_PORTS")


def spark_driver_conf(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Spark's driver addresses and ports from the environment (executors connect to them).

    ``SPARK_DRIVER_BIND_ADDRESS`` and ``SPARK_DRIVER_HOST`` (default 127.0.0.1),
    ``SPARK_DRIVER_PORT`` and ``SPARK_BLOCK_MANAGER_PORT`` (default: any; Spark tries the
    next ports up to ``spark.port.maxRetries`` when one is taken).
    """
    environ = os.environ if environ is None else environ
    conf = {"spark.driver.bindAddress": _host(environ, "SPARK_DRIVER_BIND_ADDRESS", DEFAULT_ADVERTISED_HOST),
            "spark.driver.host": _host(environ, "SPARK_DRIVER_HOST", DEFAULT_ADVERTISED_HOST)}
    for variable, key in (("SPARK_DRIVER_PORT", "spark.driver.port"),
                          ("SPARK_BLOCK_MANAGER_PORT", "spark.blockManager.port")):
        ports = parse_ports(environ.get(variable), variable)
        if ports != ANY_PORT:
            if len(ports) != 1:
                raise AddressSettingError(f"{variable}={environ[variable]!r}: Spark takes one port (it tries the "
                                          f"next ones itself)")
            conf[key] = str(ports[0])
    return conf
