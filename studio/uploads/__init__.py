"""Data in from the browser: the local directories granted to a user, browsed (names, sizes, a preview),
and files uploaded into them (size-limited, streamed to disk, directories created on demand)."""
