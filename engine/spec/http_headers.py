"""Request headers a definition may give an HTTP lookup: any, except those that decide where it goes.

The address of a lookup is checked against the locations granted to its user (its literal
``scheme://host[:port]/`` when the definition is validated, and every address it reaches,
redirects included, when it runs: ``engine.runtime.grants``). A ``Host`` header would send
the request to another virtual host behind a granted address (HTTP/2's ``:authority`` is
the same), so no header may set it; nor may a name or value hold a line break or a NUL,
which would split one header into several. Validation reports the node and
``params.headers``; the operator refuses the same headers when it is built.
"""
from __future__ import annotations

REFUSED_NAMES = frozenset({"host", ":authority"})


def header_problem(name, value) -> str | None:
    """Why the header ``name: value`` may not be set, or None."""
    if not isinstance(name, str) or not isinstance(value, str):
        return "a header's name and value are strings"
    if name.strip().lower() in REFUSED_NAMES:
        return f"the {name.strip()!r} header cannot be set: the address decides which host is asked"
    if any(character in name + value for character in "\r\n\0") or not name.strip() or ":" in name:
        return f"the header {name!r} has a line break, a NUL or a colon in its name or value"
    return None
