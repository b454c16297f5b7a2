"""``python -m studio.launcher``: ``make up``'s supervisor under its former name
(``studio.processes.supervisor``), kept for deployments and scripts that start the studio so."""
import runpy

from studio.processes.supervisor import main  # noqa: F401  (``studio-server`` scripts installed as studio.launcher:main)

if __name__ == "__main__":
    runpy.run_module("studio.processes.supervisor", run_name="__main__", alter_sys=True)
