"""State files loaded without running what they name: pickle restricted to data types.

A state file is read back on restore, and a restore may name a path in a location a user
can write to. An ordinary pickle there can name any callable (``os.system``) and have it
called while it loads. This loader resolves only the classes a snapshot legitimately
holds -- Python's data types, and the engine's own record, event and state types -- and
refuses any other name with :class:`UnsafeStateError` (Python's "Restricting Globals").
Writing stays plain pickle (protocol 5: records are arbitrary values, tuples included).

A record of another class (an object a ``transform.python`` made) cannot be restored;
the error names its class.
"""
from __future__ import annotations

import io
import pickle

_DATA_TYPES = {
    "builtins": {"set", "frozenset", "bytearray", "complex", "slice", "range", "list", "dict", "tuple", "int",
                 "float", "str", "bytes", "bool"},
    "collections": {"OrderedDict", "deque", "defaultdict", "Counter"},
    "datetime": {"date", "datetime", "time", "timedelta", "timezone"},
    "decimal": {"Decimal"},
    "uuid": {"UUID"},
}
"""Classes (never functions) whose construction from data runs no code of interest."""


class UnsafeStateError(pickle.UnpicklingError):
    """A state file names something that is not a data type: it was not written by the engine."""


_ENGINE_TYPES = {"engine.runtime.io.events": {"TimestampedBatch", "Watermark", "WatermarkStatus"}}
"""The engine's own types in channel state (``engine.runtime.io.events._CHANNEL_STATE_TYPES``)."""


class _DataUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if name in _DATA_TYPES.get(module, ()) or name in _ENGINE_TYPES.get(module, ()):
            return super().find_class(module, name)
        raise UnsafeStateError(f"the state names {module}.{name}, which is not a data type a snapshot holds: "
                               "the file was not written by the engine, or holds an object of another class")


def loads(data: bytes):
    """``pickle.loads`` for state files: only data types may be named."""
    return _DataUnpickler(io.BytesIO(data)).load()
