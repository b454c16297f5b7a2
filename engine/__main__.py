"""Command line of the engine: ``python -m engine plan|run pipeline.json``."""
from __future__ import annotations

import sys

COMMANDS = {"plan": "engine.cli.plan", "run": "engine.cli.run"}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m engine {{{','.join(COMMANDS)}}} ...", file=sys.stderr)
        return 2
    from importlib import import_module

    return import_module(COMMANDS[argv[0]]).main(argv[1:])


def console() -> int:
    """The installed ``engine`` command (``pip install .``): ``engine plan|run pipeline.json``."""
    return main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
