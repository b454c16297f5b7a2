"""Property: a restore from a snapshot whose state was rewritten at random touches nothing outside the sink.

The snapshot is what the engine writes for ``source.file -> sink.file`` (a split being read
at an offset, the enumerator's unassigned splits, the sink's transaction prefix and a
pending transaction whose file is on disk). Hypothesis rewrites its state as a user who
can write the snapshot could: any path, offset, transaction id, prefix or checkpoint id
replaced by another value (another user's file, a path climbing out, a negative or huge
number, text, a wrong type), keys dropped or added. Whatever it wrote, the restored job
either fails naming the snapshot, or runs; either way every file outside the sink's own
directory is as it was (listed before and after) and no record of another user's file is
read.
"""
from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.engine.checkpoint.restored_state_support import SECRET, listing, places
from tests.engine.checkpoint.restored_state_support import file_source_job, write_snapshot
from tests.engine.deployers import InProcessDeployment

PREFIX = "f0123456789ab"
TOKEN = "0badcafe"


def job(where: dict) -> dict:
    definition = file_source_job(where["alice"] / "in")
    definition["nodes"][1] = {"id": "files", "type": "sink.file", "params": {"path": str(where["alice"] / "out")}}
    definition["edges"][0]["to"] = "files"
    return definition


def base_state(where: dict) -> tuple[dict, dict]:
    """The operator states and enumerator state of a snapshot taken while part-0 was read, part-2 unassigned."""
    out = where["alice"] / "out"
    out.mkdir()
    final = out / f"part-files-{PREFIX}-0-{TOKEN}-1.jsonl"
    pending = out / f".{final.name}.pending-5"
    pending.write_text(json.dumps({"file": 0, "line": 0}) + "\n")
    part_0 = where["alice"] / "in" / "part-0.jsonl"
    first_line = len(part_0.read_bytes().splitlines(keepends=True)[0])
    operators = {
        "in": {"splits": [{"path": str(part_0), "start": 0, "end": None, "offset": first_line, "header": None},
                          {"path": str(where["alice"] / "in" / "part-1.jsonl"), "start": 0, "end": 400,
                           "offset": 0, "header": None}]},
        "files": {"transaction_prefix": [PREFIX],
                  "pending": [{"pending": str(pending), "final": str(final), "records": 1, "checkpoint_id": 5}]},
    }
    coordinators = {"in": {"files": [[str(where["alice"] / "in" / "part-2.jsonl"), [0, 1000, 1000, 4000]]]}}
    return operators, coordinators


def replacements(where: dict, root: Path):
    """Values a hostile rewrite puts where a path, a prefix, an id or an offset was."""
    alice, bob = where["alice"], where["bob"]
    paths = [str(bob / "data" / "secret.jsonl"), str(bob / "out" / "part-0-1.jsonl"), str(root / "outside.jsonl"),
             str(alice / "out" / ".." / ".." / "bob" / "out" / "part-0-1.jsonl"), str(alice / "in"),
             str(alice / "in" / "part-0.jsonl"), str(alice / "out"), str(alice / "out" / f".x-{PREFIX}.pending-5"),
             "/", "", ".", "..", "../../bob/data/secret.jsonl", "file://" + str(bob / "data" / "secret.jsonl"),
             str(alice / "in" / "*.jsonl"), "memory://x", "a\x00b", str(root)]
    prefixes = ["f" + "0" * 12, "../..", "f/..", "", PREFIX + "/x", "p0123456789ab", "f" * 200]
    return st.one_of(
        st.sampled_from(paths), st.sampled_from(prefixes), st.text(max_size=12),
        st.integers(-2 ** 70, 2 ** 70), st.integers(-3, 5000), st.none(), st.booleans(), st.floats(allow_nan=True),
        st.just([]), st.just({}), st.lists(st.sampled_from(paths), max_size=3))


def rewrite(draw, value, values, depth: int = 0):
    """``value`` with some of its parts replaced, dropped or added, as drawn: the deeper a part (a split's
    path, a transaction's file), the likelier it is rewritten; whole lists and states only seldom."""
    if isinstance(value, dict):
        result = {}
        replace = ["replace"] if depth >= 2 else []
        for key, item in value.items():
            action = draw(st.sampled_from(["keep", "rewrite", "rewrite", *replace, *replace, "drop"]
                                          if depth >= 2 else ["keep", "rewrite", "rewrite", "rewrite", "drop"]))
            if action == "drop" and depth < 2 and draw(st.booleans()):
                action = "keep"
            if action == "drop":
                continue
            result[key] = (item if action == "keep" else draw(values) if action == "replace"
                           else rewrite(draw, item, values, depth + 1))
        if draw(st.integers(0, 3 if depth >= 2 else 20)) == 0:
            result[draw(st.sampled_from(["path", "pending", "final", "files", "offset", "extra"]))] = draw(values)
        return result
    if isinstance(value, list):
        items = [rewrite(draw, item, values, depth + 1) if draw(st.booleans()) else item for item in value]
        if draw(st.integers(0, 3)) == 0:
            items.append(draw(values))
        return items
    return draw(values) if draw(st.integers(0, 2)) else value


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_rewritten_snapshot_fails_naming_it_or_touches_nothing_outside_the_sink(data):
    with tempfile.TemporaryDirectory(prefix="restore-property-") as directory:
        root = Path(directory)
        where = places(root)
        operators, coordinators = base_state(where)
        values = replacements(where, root)
        operators = {node: rewrite(data.draw, copy.deepcopy(state), values) for node, state in operators.items()}
        if data.draw(st.booleans()):
            coordinators = rewrite(data.draw, copy.deepcopy(coordinators), values)
        definition = job(where)
        snapshot = write_snapshot(where["alice"] / "sp", definition, operators, coordinators=coordinators)
        before = listing(root, without=(where["alice"] / "out", root / "chk"))
        result = InProcessDeployment().run(definition, checkpoint_dir=str(root / "chk"), restore=str(snapshot),
                                           timeout=60)
        assert result.status in ("FINISHED", "FAILED"), result.failure
        event(result.status if result.status == "FINISHED" else result.failure.split(" is refused")[-1][:40])
        if result.status == "FAILED":
            assert str(snapshot) in result.failure, result.failure
        assert listing(root, without=(where["alice"] / "out", root / "chk")) == before
        assert SECRET not in json.dumps(result.collected, default=str) + (result.failure or "")
