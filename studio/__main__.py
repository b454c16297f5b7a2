"""``python -m studio``: see ``studio.cli``."""
import sys

from studio.cli import main

if __name__ == "__main__":
    sys.exit(main())
