"""The bounds of one expression and of one evaluation (see "The budget of one evaluation"
in :mod:`engine.spec.expressions`)."""
from __future__ import annotations

MAX_LENGTH = 2000
"""Longest expression source, in characters."""
MAX_BRACKET_DEPTH = 50
"""Deepest bracket nesting; checked before parsing, so the parser never recurses deeply."""
MAX_DEPTH = 100
"""Deepest syntax tree; checked before the tree is walked recursively."""
MAX_EXPONENT = 10_000
"""Largest constant integer exponent of ``**``."""
MAX_INT_BITS = 32_768
"""Largest integer ``*``, ``**`` and ``<<`` may make, in bits (about 10,000 digits). Dividing two
such numbers takes about a millisecond; CPython's quadratic division is why this is not larger."""
MAX_GROWTH = 100_000
"""Most items (characters, elements) the guarded operations of one evaluation may add together."""
MAX_COPIES = 1000
"""Most copies of the record one evaluation's result may hold (``[x, x]`` holds two)."""
MAX_WRITTEN = 1_000_000
"""Most items ``str()`` or an f-string may write out in one call (shared parts counted each time)."""
MAX_FORMAT_WIDTH = 1000
"""Largest total of the widths and precisions in an expression's f-string format specs."""
MAX_ROUND_DIGITS = 1000
"""Largest magnitude of round()'s ndigits (a big negative one computes a huge power)."""
MAX_STRIP_CHARS = 1000
"""Most different characters strip() may be given (stripping costs their number per character)."""
INLINE_FACTOR = 1000
"""Largest integer literal a product runs inline with (see "Results that would be too large")."""
INLINE_EXPONENT = 4
"""Largest constant exponent that runs inline."""
INLINE_SHIFT = 64
"""Largest constant shift that runs inline."""
FOLD_CPU_SECONDS = 0.05
"""CPU time spent at most on evaluating the constant parts of an expression when it is compiled."""
