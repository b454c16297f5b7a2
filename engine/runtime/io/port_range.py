"""Listening on a port range: the floor under ``engine.cluster.addresses``.

Firewalls open ranges, not "whatever the kernel picks"; several listeners of one kind share
a host (slots of a worker, drivers of a studio), so each takes the first free port of its
range.
"""
from __future__ import annotations

import errno
import socket

ANY_PORT = range(0, 1)
"""The kernel picks a free port (the default everywhere: fine on one machine)."""


class AddressSettingError(ValueError):
    """A network setting that cannot be used; the message names the variable and its value."""


def bind_listener(host: str, ports: range = ANY_PORT, *, backlog: int = 128,
                  setting: str = "the port range") -> socket.socket:
    """Listen on ``host`` at the first port of ``ports`` no other socket holds."""
    last_error: OSError | None = None
    for port in ports:
        try:
            return socket.create_server((host, port), backlog=backlog)
        except OSError as error:
            if ports == ANY_PORT or error.errno != errno.EADDRINUSE:  # not this host's address, say
                raise AddressSettingError(f"cannot listen on {host}:{port} ({setting}): {error}") from error
            last_error = error
    raise AddressSettingError(f"{setting}: no free port in {ports.start}-{ports.stop - 1} on {host} "
                              f"({last_error})")
