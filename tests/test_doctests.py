"""The examples in docstrings hold: every module of the engine and the studio that has one
(a ``>>>`` line) runs its examples here, so ``make test`` runs them and a new one is found
without being listed."""
from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def modules_with_examples() -> list[str]:
    paths = sorted(path for package in ("engine", "studio") for path in (ROOT / package).rglob("*.py")
                   if ">>> " in path.read_text(encoding="utf-8"))
    return [".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__") for path in paths]


MODULES = modules_with_examples()


def test_the_engine_has_examples_to_run():
    assert any(name.startswith("engine.spec.expressions") for name in MODULES), MODULES


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_a_modules_docstrings_hold(name, capsys):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has a '>>> ' line that is no example doctest runs"
    assert result.failed == 0, capsys.readouterr().out
