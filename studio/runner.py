"""``python -m studio.runner``: the run's driver under its former name (``studio.runs.driver``), kept
for drivers started by hand and scripts written before the move."""
import runpy

if __name__ == "__main__":
    runpy.run_module("studio.runs.driver", run_name="__main__", alter_sys=True)
