"""Where a pipeline may read and write: the locations granted to a user, and the check of a definition against them.

Every connector parameter that names a location carries ``"x-location"`` in the operator
catalog (``path``, ``url``, ``redis``, ``postgres``, ``kafka``). A :class:`Policy` lists what one user
may reach (the administrator's grants, ``studio.locations`` builds it) plus the pipeline's
own *workspace*, where relative paths resolve. :func:`check_definition` resolves every
location parameter of a definition against it and reports each one that escapes as a
problem naming the node and the field, like every other validation problem.

The rules, NiFi's restricted components and Nussknacker's categories being the models:

- a path is resolved (relative: in the workspace; ``file://``: as the local path) and its
  ``realpath`` -- symlinks followed at the moment of the check -- must lie inside a granted
  location's ``realpath``; ``..`` is refused outright, as are ``~``, NUL and fsspec's
  chained URLs (``a::b``); other schemes (``s3://``...) only below a granted URL prefix;
- an HTTP address must start with a literal ``scheme://host[:port]/`` (a constant or the
  literal head of an f-string), so that no record can choose the host;
- a Redis or PostgreSQL URL is reduced to the host, port and database it really connects
  to (libpq's query parameters included) and must match a grant;
- a Kafka bootstrap list (``host:port,host:port``) must name only brokers of one granted
  cluster (``kafka://host:port,host:port``): a client learns the other brokers from those it
  starts with, so a list mixing in another host could reach another cluster;
- sinks need a grant that allows writing (a parameter marked ``"x-read-only"``, such as a
  schema file a sink reads, needs only a grant to read);
- a Redis, PostgreSQL or Kafka parameter may name a connection profile instead of an address
  (``connection:<name>``, or ``connection:<owner>/<name>`` for one shared by its owner): the
  policy holds the profiles its user may use now (``Policy.connections``), the reference is
  replaced by the profile's address and that address is checked as if written in the node.

Django-free on purpose: the budgeted worker processes (``studio.processes.budgeted_worker``) that
validate and preview untrusted definitions run it with the policy they are handed as JSON.
"""
from __future__ import annotations

import ast
import copy
import os
import posixpath
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

PATH, URL, REDIS, POSTGRES, KAFKA = "path", "url", "redis", "postgres", "kafka"
KINDS = (PATH, URL, REDIS, POSTGRES, KAFKA)
LOCAL_SCHEMES = ("file", "local")
HTTP_SCHEMES = ("http", "https")
REDIS_SCHEMES = ("redis", "rediss")
POSTGRES_SCHEMES = ("postgresql", "postgres")
DEFAULT_PORTS = {"http": 80, "https": 443, "redis": 6379, "rediss": 6379, "postgresql": 5432, "postgres": 5432,
                 "kafka": 9092}
MAX_KAFKA_BROKERS = 50
CONNECTION_PREFIX = "connection:"
"""How a location parameter names a connection profile instead of an address."""
CONNECTION_KINDS = (REDIS, POSTGRES, KAFKA)
POSTGRES_KEYS = frozenset({"host", "port", "dbname", "user", "password", "sslmode", "connect_timeout",
                           "application_name"})
"""libpq connection keys a definition may use; others (``service``, ``hostaddr``, ``passfile``, ``sslkey``
...) can point libpq at another server or at the studio's files."""


class LocationRefused(ValueError):
    """A location the policy does not allow; the message says why and what would be allowed."""


@dataclass(frozen=True)
class Location:
    """One granted location: ``prefix`` is a directory (or URL prefix) for ``path``, an origin with an
    optional path for ``url``, ``redis://host:port[/db]``, ``postgresql://host:port[/database]`` or
    ``kafka://host:port[,host:port...]`` (the brokers of one cluster)."""

    name: str
    kind: str
    prefix: str
    write: bool = True
    shared: bool = False


@dataclass(frozen=True)
class Policy:
    """What one user may reach; ``workspace`` is the pipeline's directory for relative paths."""

    locations: tuple[Location, ...] = ()
    workspace: str | None = None
    default_redis: str = ""
    connections: dict[str, dict[str, Any]] = field(default_factory=dict, compare=False, hash=False)
    """The connection profiles the user may use, by the names a parameter may give them
    (``orders``, ``bob/orders``): ``{"kind", "address"}``, the address with its secret; ``{"kind": None}``
    for a bare name several profiles shared with the user carry."""

    def to_json(self) -> dict[str, Any]:
        return {"locations": [asdict(location) for location in self.locations], "workspace": self.workspace,
                "default_redis": self.default_redis, "connections": self.connections}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Policy":
        return cls(tuple(Location(**location) for location in data.get("locations", ())), data.get("workspace"),
                   data.get("default_redis", ""), dict(data.get("connections") or {}))

    def of_kind(self, kind: str) -> list[Location]:
        return [location for location in self.locations if location.kind == kind]

    def connection(self, reference: str, kind: str) -> tuple[str, str]:
        """``(address, profile name)`` of the profile a ``connection:<name>`` parameter of ``kind`` names,
        or LocationRefused."""
        name = reference[len(CONNECTION_PREFIX):].strip()
        profile = self.connections.get(name)
        if profile is None:
            raise LocationRefused(f"no connection profile {name!r} of yours or shared with you")
        if profile.get("kind") is None:
            raise LocationRefused(f"several connection profiles shared with you are named {name!r}: name one as "
                                  f"connection:<owner>/{name}")
        if profile["kind"] != kind:
            raise LocationRefused(f"connection profile {name!r} is a {profile['kind']} connection, this parameter "
                                  f"takes a {kind} one")
        return profile["address"], name


@dataclass
class Use:
    """A location parameter of a node, resolved: ``value`` is what the connector will be given."""

    node: str
    field: str
    kind: str
    value: str
    location: str
    sink: bool
    shared: bool = False
    local: bool = field(default=False)
    address: str = ""
    """Redis, PostgreSQL and Kafka: the server and database (or cluster) reached, without credentials
    (``redis://host:port/db``, ``postgresql://host:port/database``, ``kafka://<granted brokers>``):
    what a sink claim names."""
    profile: str = ""
    """The connection profile the parameter named (``value`` is then the profile's address)."""


def location_fields(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """The ``(parameter, kind)`` pairs of an operator's catalog entry that name a location."""
    properties = spec["params_schema"]["properties"]
    return [(name, schema["x-location"]) for name, schema in properties.items() if "x-location" in schema]


def writes_location(spec: dict[str, Any], name: str) -> bool:
    """Whether parameter ``name`` of an operator names a place it writes: a sink's, unless marked
    ``"x-read-only"`` (a schema file a sink only reads)."""
    return bool(spec["sink"]) and not spec["params_schema"]["properties"][name].get("x-read-only")


def check_definition(definition: Any, policy: Policy) -> tuple[list[dict[str, Any]], list[Use]]:
    """Every location parameter of ``definition`` resolved against ``policy``: the problems (as
    ``engine.spec`` reports problems) and the resolved uses."""
    from engine.api import operator_spec

    problems: list[dict[str, Any]] = []
    uses: list[Use] = []
    nodes = definition.get("nodes") if isinstance(definition, dict) else None
    for node in nodes if isinstance(nodes, list) else ():
        if not isinstance(node, dict) or not isinstance(node.get("type"), str):
            continue
        spec = operator_spec(node["type"])
        params = node.get("params") if isinstance(node.get("params"), dict) else {}
        for name, kind in location_fields(spec) if spec else ():
            value = params.get(name)
            if value is None or (value == "" and kind != REDIS):
                continue
            if not isinstance(value, str):
                continue  # a wrong type is the schema's problem, reported by engine.spec
            try:
                uses.append(resolve(kind, value, policy, node_id=str(node.get("id")), field_=name,
                                    sink=writes_location(spec, name)))
            except LocationRefused as refused:
                problems.append({"node": node.get("id"), "edge": None, "field": f"params.{name}",
                                 "message": str(refused)})
    return problems, uses


def resolved_definition(definition: dict[str, Any], uses: list[Use]) -> dict[str, Any]:
    """``definition`` with every local path replaced by its resolved real path, and every connection
    profile by its address (what was checked is what the connector opens)."""
    result = copy.deepcopy(definition)
    by_node = {node.get("id"): node for node in result.get("nodes", [])}
    for use in uses:
        if (use.kind == PATH and use.local) or use.profile:
            by_node[use.node].setdefault("params", {})[use.field] = use.value
    return result


def test_input_files(definition: dict[str, Any], cases: list[dict], policy: Policy
                     ) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The input files of ``cases`` (test cases of ``definition``) resolved as a file source's path is
    (relative: in the pipeline's workspace) and checked against ``policy``: ``{name as written: real
    path}`` and the problems, located at the test's field (``tests.<i>.inputs.<node>.file``)."""
    position = {case.get("name"): index for index, case in enumerate(definition.get("tests") or [])}
    files: dict[str, str] = {}
    problems: list[dict[str, Any]] = []
    for case in cases:
        for node_id, given in (case.get("inputs") or {}).items():
            name = given.get("file") if isinstance(given, dict) else None
            if not isinstance(name, str):
                continue
            field = f"tests.{position.get(case.get('name'), 0)}.inputs.{node_id}.file"
            try:
                resolved, _, local = resolve_path(name, policy)
                if not local:
                    raise LocationRefused(f"{name!r}: a test's input file must be a local file")
            except LocationRefused as refused:
                problems.append({"node": node_id, "edge": None, "field": field,
                                 "message": f"test '{case.get('name')}': {refused}"})
                continue
            files[name] = resolved
    return files, problems


def engine_grants(policy: Policy):
    """The grants a job of this policy's user gets (``engine.api.Grants``): its connectors check every file
    they open, every directory they write and every address they reach against them when they use it. Local
    directories as real paths (the workspace too, readable and writable), HTTP addresses as granted."""
    from engine.api import Grants

    local = [location for location in policy.of_kind(PATH) if "://" not in location.prefix]
    read = [os.path.realpath(location.prefix) for location in local]
    write = [os.path.realpath(location.prefix) for location in local if location.write]
    if policy.workspace:
        read.append(os.path.realpath(policy.workspace))
        write.append(os.path.realpath(policy.workspace))
    return Grants(read=tuple(read), write=tuple(write), urls=tuple(location.prefix for location in policy.of_kind(URL)))


def resolve(kind: str, value: str, policy: Policy, *, node_id: str = "", field_: str = "",
            sink: bool = False) -> Use:
    """Resolve one location parameter, or raise :class:`LocationRefused`."""
    profile = ""
    if kind in CONNECTION_KINDS and value.strip().startswith(CONNECTION_PREFIX):
        value, profile = policy.connection(value.strip(), kind)
        try:
            return _resolve_address(kind, value, policy, node_id, field_, sink, profile)
        except LocationRefused as refused:
            raise LocationRefused(f"connection profile {profile!r}: {refused}") from None
    return _resolve_address(kind, value, policy, node_id, field_, sink, profile)


def _resolve_address(kind: str, value: str, policy: Policy, node_id: str, field_: str, sink: bool,
                     profile: str) -> Use:
    local, address = False, ""
    if kind == PATH:
        resolved, location, local = resolve_path(value, policy, write=sink)
    elif kind == URL:
        resolved, location = resolve_http_expression(value, policy)
    elif kind == REDIS:
        resolved, location, address = resolve_redis(value or policy.default_redis, policy)
    elif kind == POSTGRES:
        resolved, location, address = resolve_postgres(value, policy)
    elif kind == KAFKA:
        resolved, location, address = resolve_kafka(value, policy)
    else:
        raise LocationRefused(f"unknown location kind {kind!r}: the studio cannot check it, so it refuses it")
    if sink and not location.write:
        raise LocationRefused(f"location {location.name!r} is granted to you for reading only")
    return Use(node_id, field_, kind, resolved, location.name, sink, shared=location.shared, local=local,
               address=address, profile=profile)


# --- paths -----------------------------------------------------------------------------------


def resolve_path(value: str, policy: Policy, *, write: bool = False) -> tuple[str, Location, bool]:
    """``(resolved path or URL, the location holding it, whether it is local)`` for a path parameter."""
    text = value.strip()
    _refuse_path_tricks(text)
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if scheme and scheme not in LOCAL_SCHEMES:
        return (*_resolve_remote_path(text, scheme, policy, write), False)
    path = text.split("://", 1)[1] if scheme else text
    if not path.startswith("/"):
        if scheme:
            raise LocationRefused(f"{text!r}: a {scheme}:// location must be an absolute path")
        if not policy.workspace:
            raise LocationRefused(f"{text!r}: a relative path needs the pipeline's workspace, which this check "
                                  "does not have")
        path = posixpath.join(policy.workspace, path)
    real = os.path.realpath(path)
    candidates = [Location("workspace", PATH, policy.workspace)] if policy.workspace else []
    candidates += [location for location in policy.of_kind(PATH) if "://" not in location.prefix]
    for location in candidates:
        if _inside(real, os.path.realpath(location.prefix)):
            _check_write(location, write, text)
            return real, location, True
    granted = ", ".join(location.prefix for location in candidates) or "none"
    escaped = f" (it resolves to {real})" if real != posixpath.normpath(path) else ""
    raise LocationRefused(f"{text!r} is outside the locations granted to you{escaped}; granted: {granted}")


def _refuse_path_tricks(text: str) -> None:
    if not text:
        raise LocationRefused("the location is empty")
    if "\x00" in text:
        raise LocationRefused("the location contains a NUL character")
    if "::" in text:
        raise LocationRefused(f"{text!r}: chained filesystems (a::b) are not allowed")
    if "\\" in text:
        raise LocationRefused(f"{text!r}: backslashes are not allowed in a location")
    body = text.split("://", 1)[-1]
    if ".." in body.split("/"):
        raise LocationRefused(f"{text!r}: '..' is not allowed in a location")
    if body.startswith("~"):
        raise LocationRefused(f"{text!r}: '~' is not allowed in a location; name the directory")


def _resolve_remote_path(text: str, scheme: str, policy: Policy, write: bool) -> tuple[str, Location]:
    normal = f"{scheme}://{posixpath.normpath(text.split('://', 1)[1])}"
    for location in policy.of_kind(PATH):
        prefix = location.prefix.rstrip("/")
        if "://" in prefix and (normal == prefix or normal.startswith(prefix + "/")):
            _check_write(location, write, text)
            return normal, location
    raise LocationRefused(f"{text!r}: {scheme}:// locations are allowed only below a granted URL prefix, "
                          "and none matches")


def _inside(path: str, root: str) -> bool:
    root = root.rstrip("/") or "/"
    return path == root or path.startswith(root if root == "/" else root + "/")


def _check_write(location: Location, write: bool, text: str) -> None:
    if write and not location.write:
        raise LocationRefused(f"{text!r}: location {location.name!r} is granted to you for reading only")


# --- HTTP addresses ----------------------------------------------------------------------------


def resolve_http_expression(expression: str, policy: Policy) -> tuple[str, Location]:
    """The literal head of an HTTP address expression, checked: ``scheme://host[:port]/`` must be fixed by
    the expression itself, never by a record."""
    head, complete = literal_head(expression)
    if head is None:
        raise LocationRefused("the address must be a string or an f-string that starts with a literal "
                              "scheme://host/, so the studio can check the host; for example "
                              "f\"http://users.internal/profiles/{x['user']}\"")
    parts = _split_origin(head, complete)
    return check_url(parts, head, policy)


def resolve_url(url: str, policy: Policy) -> tuple[str, Location]:
    """A whole http(s) URL the studio itself will request (a webhook's), checked as an address expression's
    literal head is, its query aside; a path segment that decodes to ``.`` or ``..`` is refused too."""
    text = url.strip()
    base = text.partition("#")[0].partition("?")[0]
    if any(unquote(segment) in (".", "..") for segment in base.split("://", 1)[-1].split("/")[1:]):
        raise LocationRefused(f"{text!r}: '.' and '..' are not allowed in an address, however they are spelled")
    return text, check_url(_split_origin(base, True), text, policy)[1]


def literal_head(expression: str) -> tuple[str | None, bool]:
    """The literal text an expression's value starts with, and whether that is the whole value."""
    try:
        tree = ast.parse(expression.strip(), "<expression>", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None, False
    complete = True
    while isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.Add):
        tree, complete = tree.left, False
    if isinstance(tree, ast.Constant) and isinstance(tree.value, str):
        return tree.value, complete
    if isinstance(tree, ast.JoinedStr):
        head = []
        for part in tree.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                return "".join(head), False
            head.append(part.value)
        return "".join(head), complete
    return None, False


def _split_origin(head: str, complete: bool) -> tuple[str, str, int, str]:
    scheme, _, rest = head.partition("://")
    scheme = scheme.lower()
    if scheme not in HTTP_SCHEMES or not _:
        raise LocationRefused(f"{head!r}: the address must start with http:// or https://")
    if "/" not in rest and not complete:
        raise LocationRefused(f"{head!r}: the host must be followed by a literal '/' before the first "
                              "{placeholder}, so that no record can change the host")
    authority, slash, path = rest.partition("/")
    if any(character in authority for character in "@\\?#%{} ") or not authority:
        raise LocationRefused(f"{head!r}: the host part must be a plain host[:port] (no user info, "
                              "no escapes)")
    if ".." in path.split("/"):
        raise LocationRefused(f"{head!r}: '..' is not allowed in an address")
    host, port = _host_port(authority, scheme, head)
    return scheme, host, port, "/" + path


def _host_port(authority: str, scheme: str, text: str) -> tuple[str, int]:
    try:
        parts = urlsplit(f"{scheme}://{authority}")
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        raise LocationRefused(f"{text!r}: the port is not a number")
    if not parts.hostname:
        raise LocationRefused(f"{text!r}: the address has no host")
    return parts.hostname.lower(), port


def check_url(parts: tuple[str, str, int, str], text: str, policy: Policy) -> tuple[str, Location]:
    """The address ``parts`` name, when it lies below a granted one: the engine's rule, which its lookups apply
    again to every address they reach (``engine.api.Grants.allows_url``)."""
    from engine.api import Grants

    scheme, host, port, path = parts
    address = f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}{path}"
    for location in policy.of_kind(URL):
        if Grants(urls=(location.prefix,)).allows_url(address):
            return address, location
    raise LocationRefused(f"{text!r}: {address} is not below an address granted to you")


# --- Redis and PostgreSQL ---------------------------------------------------------------------


def resolve_redis(url: str, policy: Policy) -> tuple[str, Location, str]:
    """``url``, the redis grant holding it, and the server and database it connects to."""
    if not url:
        raise LocationRefused("no Redis URL, and the studio's own Redis is not granted to you")
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in REDIS_SCHEMES:
        raise LocationRefused(f"{_redact(url)!r}: a Redis URL starts with redis:// or rediss://")
    query = parse_qs(parts.query, keep_blank_values=True)
    if set(query) - {"db"}:
        raise LocationRefused(f"{_redact(url)!r}: only the query parameter db is allowed in a Redis URL")
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
        db = int(query["db"][0]) if "db" in query else int(parts.path.strip("/") or 0)
    except ValueError:
        raise LocationRefused(f"{_redact(url)!r}: the port and the database must be numbers")
    if not parts.hostname:
        raise LocationRefused(f"{_redact(url)!r}: the Redis URL has no host")
    host = parts.hostname.lower()
    for location in policy.of_kind(REDIS):
        granted = urlsplit(location.prefix)
        granted_db = granted.path.strip("/")
        if ((granted.hostname or "").lower() == host and (granted.port or 6379) == port
                and (not granted_db or granted_db == str(db))):
            return url, location, f"{scheme}://{host}:{port}/{db}"
    raise LocationRefused(f"{_redact(url)!r}: Redis at {host}:{port} database {db} is not granted to you")


def resolve_postgres(dsn: str, policy: Policy) -> tuple[str, Location, str]:
    """``dsn``, the postgres grant holding it, and the server and database it connects to (as libpq
    reads it)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        options = conninfo_to_dict(dsn)
    except Exception:
        raise LocationRefused("the PostgreSQL URL cannot be parsed")
    extra = sorted(set(options) - POSTGRES_KEYS)
    if extra:
        raise LocationRefused(f"PostgreSQL connection option(s) {', '.join(extra)} are not allowed; "
                              f"allowed: {', '.join(sorted(POSTGRES_KEYS))}")
    host, port, dbname = str(options.get("host") or ""), str(options.get("port") or 5432), options.get("dbname")
    if not host or "," in host or "," in port:
        raise LocationRefused("the PostgreSQL URL must name exactly one host")
    if not port.isdigit():
        raise LocationRefused("the PostgreSQL port must be a number")
    dbname = str(dbname or options.get("user") or "")
    for location in policy.of_kind(POSTGRES):
        granted = urlsplit(location.prefix)
        granted_db = granted.path.strip("/")
        if ((granted.hostname or "").lower() == host.lower() and (granted.port or 5432) == int(port)
                and (not granted_db or granted_db == dbname)):
            return dsn, location, f"postgresql://{host.lower()}:{port}/{dbname}"
    raise LocationRefused(f"PostgreSQL at {host}:{port} database {dbname!r} is not granted to you")


def kafka_brokers(text: str) -> list[tuple[str, int]]:
    """The ``(host, port)`` brokers of a bootstrap list ``host:port,host:port``, or LocationRefused."""
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or not all(items):
        raise LocationRefused(f"{text!r}: a Kafka address is a list host:port,host:port with no empty entry")
    if len(items) > MAX_KAFKA_BROKERS:
        raise LocationRefused(f"a Kafka address lists at most {MAX_KAFKA_BROKERS} brokers")
    brokers = []
    for item in items:
        if any(character in item for character in "/@\\?#%{} \t") or "://" in item:
            raise LocationRefused(f"{item!r}: a Kafka broker is a plain host:port (no scheme, user or path)")
        host, _, port = item.rpartition(":")
        host = host.strip("[]").lower()
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise LocationRefused(f"{item!r}: a Kafka broker is host:port, with a port number")
        brokers.append((host, int(port)))
    return brokers


def resolve_kafka(bootstrap: str, policy: Policy) -> tuple[str, Location, str]:
    """``bootstrap``, the kafka grant holding all of its brokers, and the cluster it reaches (the grant's
    brokers, sorted: one name for one cluster however a pipeline lists it)."""
    brokers = set(kafka_brokers(bootstrap))
    for location in policy.of_kind(KAFKA):
        text = location.prefix.split("://", 1)[1] if "://" in location.prefix else location.prefix
        try:
            granted = set(kafka_brokers(text.rstrip("/")))
        except LocationRefused:
            continue
        if brokers <= granted:
            cluster = ",".join(f"{host}:{port}" for host, port in sorted(granted))
            return bootstrap, location, f"kafka://{cluster}"
    listed = ", ".join(f"{host}:{port}" for host, port in sorted(brokers))
    raise LocationRefused(f"Kafka brokers {listed} are not all in one cluster granted to you")


def _redact(url: str) -> str:
    """``url`` without its password, for messages."""
    parts = urlsplit(url)
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@", 1)
    return url
