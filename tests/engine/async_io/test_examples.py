"""The docstring examples of the async I/O modules run (the suite does not collect doctests)."""
from __future__ import annotations

import doctest

import pytest

from engine.runtime.operators.async_io import lookup, settings


@pytest.mark.parametrize("module", [lookup, settings], ids=lambda module: module.__name__)
def test_docstring_examples(module):
    results = doctest.testmod(module)
    assert results.attempted > 0 and results.failed == 0
