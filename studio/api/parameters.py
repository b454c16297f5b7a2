"""Query parameters as the API reads them: a bad one is a 400 that names it, never a 500."""
from __future__ import annotations

from studio.api.exceptions import BadRequest


def int_param(request, name: str, default: int | None = None, minimum: int = 0, maximum: int = 2**31, *,
              meaning: str | None = None) -> int | None:
    """The integer query parameter ``name`` within ``minimum``..``maximum``, or ``default`` when absent;
    ``meaning`` words the range in the error ("a version number")."""
    value = request.query_params.get(name)
    if value in (None, ""):
        return default
    try:
        number = int(value)
    except ValueError:
        raise BadRequest(f"{name} must be an integer, not {value!r}")
    if not minimum <= number <= maximum:
        raise BadRequest(f"{name} must be {meaning or f'between {minimum} and {maximum}'}")
    return number


def version_number(request, name: str) -> int | None:
    """A version number query parameter (``version``, ``from``, ``to``), or None when absent."""
    return int_param(request, name, meaning="a version number")


def bool_param(request, name: str) -> bool:
    """The boolean query parameter ``name``: ``true``/``1`` or ``false``/``0`` (absent: false)."""
    value = request.query_params.get(name)
    if value in (None, "", "false", "0"):
        return False
    if value in ("true", "1"):
        return True
    raise BadRequest(f"{name} must be true or false, not {value!r}")
