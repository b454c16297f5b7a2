"""Requests the studio itself sends to an address a user chose (alert webhooks): every hop checked as it is made.

A user's URL is a location like any other (``studio.location_policy``): the caller says which
addresses are granted (``granted``, asked for every hop, so a grant revoked since the URL
was saved counts). Then the host is resolved, every address it resolves to is checked, and
the connection goes to the address that was checked, not to the name again (a second
lookup could answer otherwise). Loopback, private, link-local, multicast and other
addresses that are not public are refused unless the operator granted that address itself
(its IP in the grant, or ``localhost`` for loopback) or listed its network in
``trusted_networks`` (``STUDIO_TRUSTED_NETWORKS``). A redirect (301, 302, 307, 308; the body
is sent again) is a new hop, checked the same way, up to ``MAX_REDIRECTS``.

Failures say what the studio decided, never what the network said: a refused hop
(:class:`HopRefused`) names the rule it broke, and it is decided before any connection is
made; every failure to reach an allowed receiver (refused, reset, timed out, unresolvable,
TLS) is the one :class:`Unreachable`, so that what the studio reports tells nothing about
the ports and hosts behind it.
"""
from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from typing import Callable, Iterable
from urllib.parse import urljoin, urlsplit

from studio.location_policy import Location, LocationRefused

MAX_REDIRECTS = 3
FOLLOWED = (301, 302, 307, 308)
DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_ANSWER_BYTES = 64 * 1024

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class HopRefused(Exception):
    """The studio will not send to this address; the message says why (and nothing the network said)."""


class Unreachable(Exception):
    """An allowed receiver could not be reached; deliberately without detail."""

    def __init__(self):
        super().__init__("could not reach the receiver")


def resolve_host(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to (the one place the studio asks DNS for a user's host)."""
    return [info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def post(url: str, body: bytes, headers: dict[str, str], granted: Callable[[str], Location], *, timeout: float,
         trusted_networks: Iterable[str] = ()) -> int:
    """POST ``body`` to ``url``, following allowed redirects; the receiver's final HTTP status.

    ``granted(url)`` returns the grant holding ``url`` or raises ``LocationRefused``. Raises
    :class:`HopRefused` or :class:`Unreachable`."""
    networks = [ipaddress.ip_network(network, strict=False) for network in trusted_networks]
    for _ in range(MAX_REDIRECTS + 1):
        try:
            location = granted(url)
        except LocationRefused as refused:
            raise HopRefused(str(refused)) from None
        parts = urlsplit(url)
        address = _checked_address(parts.hostname or "", parts.port or DEFAULT_PORTS[parts.scheme.lower()],
                                   location, networks)
        status, redirect = _post_once(parts, address, body, headers, timeout)
        if status not in FOLLOWED or not redirect:
            return status
        url = urljoin(url, redirect)
    raise HopRefused(f"more than {MAX_REDIRECTS} redirects; the last one, to {url}, was not followed")


def _checked_address(host: str, port: int, location: Location, networks: list) -> str:
    """The address to connect to: the first ``host`` resolves to, once every one of them is allowed."""
    try:
        addresses = [ipaddress.ip_address(address.split("%", 1)[0]) for address in resolve_host(host, port)]
    except (OSError, UnicodeError, ValueError):
        raise Unreachable() from None
    for address in addresses:
        if not _may_reach(address, location, networks):
            raise HopRefused(f"{host} resolves to {address}, which is not a public address; only an address the "
                             "operator granted itself may be reached")
    if not addresses:
        raise Unreachable()
    return str(addresses[0])


def _may_reach(address: IPAddress, location: Location, networks: list) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_global and not address.is_multicast:
        return True
    granted_host = (urlsplit(location.prefix).hostname or "").lower()
    if granted_host == "localhost" and address.is_loopback:
        return True
    try:
        if ipaddress.ip_address(granted_host) == address:
            return True
    except ValueError:
        pass
    return any(address in network for network in networks)


def _post_once(parts, address: str, body: bytes, headers: dict[str, str], timeout: float) -> tuple[int, str | None]:
    """One POST to ``address`` (the checked one) as ``parts.hostname`` (Host, TLS name); status and Location."""
    scheme = parts.scheme.lower()
    port = parts.port or DEFAULT_PORTS[scheme]
    if scheme == "https":
        connection = http.client.HTTPSConnection(parts.hostname, port, timeout=timeout,
                                                 context=ssl.create_default_context())
    else:
        connection = http.client.HTTPConnection(parts.hostname, port, timeout=timeout)
    # http.client connects through this attribute (TLS wraps the socket after): to the checked address
    connection._create_connection = lambda _address, *args: socket.create_connection((address, port), *args)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", target, body=body, headers=headers)
        response = connection.getresponse()
        response.read(MAX_ANSWER_BYTES)
        return response.status, response.getheader("Location")
    except (OSError, http.client.HTTPException, ValueError):
        raise Unreachable() from None
    finally:
        connection.close()
