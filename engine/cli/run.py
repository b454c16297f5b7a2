"""``python -m engine run pipeline.json``: run a pipeline on Spark from the command line.

Prints every event as one JSON line on stdout and exits 0 when the job finished, 1 when
it failed or was cancelled, 2 when the definition is invalid. Ctrl-C cancels the job.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import tempfile

from engine.api import Spark, ValidationError, latest_checkpoint, normalise_definition, submit


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        with open(args.definition) as file:
            definition = normalise_definition(json.load(file))
    except (OSError, json.JSONDecodeError) as error:
        print(f"cannot read {args.definition}: {error}", file=sys.stderr)
        return 2
    except ValidationError as error:
        for problem in error.errors:
            print(f"invalid: {problem}", file=sys.stderr)
        return 2
    checkpoint_dir = args.checkpoint_dir or tempfile.mkdtemp(prefix="checkpoints-")
    restore = args.restore
    if restore == "latest":
        latest = latest_checkpoint(checkpoint_dir)
        if latest is None:
            print(f"no completed checkpoint in {checkpoint_dir} to restore from", file=sys.stderr)
            return 2
        restore = latest["location"]
    handle = submit(definition, Spark(master=args.master, advertised_host=args.advertised_host),
                    checkpoint_dir=checkpoint_dir, restore=restore,
                    on_event=lambda event: print(json.dumps(event, default=str), flush=True))
    signal.signal(signal.SIGINT, lambda *_: handle.cancel())
    signal.signal(signal.SIGTERM, lambda *_: handle.cancel())
    return 0 if handle.wait().status == "FINISHED" else 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m engine run", description=__doc__.splitlines()[0])
    parser.add_argument("definition", help="the pipeline definition (JSON file)")
    parser.add_argument("--master", help="Spark master URL; local[N] sized to the job when omitted")
    parser.add_argument("--checkpoint-dir", help="checkpoint storage URL (shared by every node on a cluster)")
    parser.add_argument("--restore", help="restore from this checkpoint or savepoint directory, or 'latest': "
                                          "the newest completed checkpoint in --checkpoint-dir")
    parser.add_argument("--advertised-host", default=None,
                        help="the address at which the executors reach this driver's control channel "
                             "(default: ENGINE_CONTROL_ADVERTISED_HOST, else SPARK_DRIVER_HOST, else 127.0.0.1)")
    return parser
