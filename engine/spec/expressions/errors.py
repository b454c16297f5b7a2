"""What a rejected expression, and an evaluation stopped by its budget, raise."""
from __future__ import annotations


class ExpressionError(ValueError):
    """A rejected expression: ``message`` names the problem, ``position`` is where it is.

    ``position`` is the 0-based character offset in the source (the column, for the usual
    one-line expression), or None when the problem has no single place.
    """

    def __init__(self, message: str, position: int | None = None):
        super().__init__(message)
        self.message = message
        self.position = position

    def __reduce__(self):
        return type(self), (self.message, self.position)


class ResultTooLarge(OverflowError):
    """An evaluation was stopped because its result would have been too large."""
