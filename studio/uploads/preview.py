"""A look into a file of a granted location: the first lines of text, or a Parquet file's schema and first rows."""
from __future__ import annotations

import os
import stat

from studio.uploads.places import Place, PlaceRefused, opened_directory, parts_of

TEXT_BYTES = 64 * 1024
TEXT_LINES = 50
PARQUET_ROWS = 20
PARQUET_ROWS_UP_TO_BYTES = 64 << 20
"""Rows of larger Parquet files are not read here: only their schema and counts."""


def preview(place: Place, relative: str) -> dict:
    """``{"name", "size", "kind": "text" | "parquet", "lines" | ("columns", "rows", "num_rows"), "truncated"}``."""
    parts = parts_of(relative)
    if not parts:
        raise PlaceRefused("name a file to preview")
    with opened_directory(place, "/".join(parts[:-1])) as directory_fd:
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory_fd)
        except FileNotFoundError:
            raise PlaceRefused(f"no file {relative} in location {place.name!r}", status=404)
        except OSError as error:
            raise PlaceRefused(f"{relative} is a link or cannot be opened ({error.strerror})")
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise PlaceRefused(f"{relative} is not a file")
        result = {"name": parts[-1], "size": info.st_size}
        if parts[-1].lower().endswith(".parquet"):
            return {**result, **_parquet(file, info.st_size)}
        data = file.read(TEXT_BYTES + 1)
    text = data[:TEXT_BYTES].decode("utf-8", "replace")
    lines = text.splitlines()
    truncated = len(data) > TEXT_BYTES or len(lines) > TEXT_LINES
    if len(data) > TEXT_BYTES and lines:
        lines = lines[:-1]  # the last one was cut
    return {**result, "kind": "text", "lines": lines[:TEXT_LINES], "truncated": truncated}


def _parquet(file, size: int) -> dict:
    import pyarrow.parquet as parquet

    try:
        reader = parquet.ParquetFile(file)
        columns = [{"name": field.name, "type": str(field.type)} for field in reader.schema_arrow]
        rows = []
        if size <= PARQUET_ROWS_UP_TO_BYTES and reader.metadata.num_rows:
            batch = next(reader.iter_batches(batch_size=PARQUET_ROWS), None)
            rows = batch.to_pylist() if batch is not None else []
    except Exception as error:  # noqa: BLE001 - a file that is not Parquet is the answer
        raise PlaceRefused(f"not a readable Parquet file: {error}")
    return {"kind": "parquet", "columns": columns, "rows": _jsonable(rows), "num_rows": reader.metadata.num_rows,
            "truncated": reader.metadata.num_rows > len(rows)}


def _jsonable(rows: list[dict]) -> list[dict]:
    import json

    return json.loads(json.dumps(rows, default=str))
