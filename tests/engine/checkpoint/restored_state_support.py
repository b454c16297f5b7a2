"""What the restored-state tests share: a real snapshot, rewritten as a user who can write it would.

A snapshot in a location a user may write is input: its state files hold plain data (the
safe unpickler loads nothing else), and every path, offset, key and prefix in them is that
user's choice. :func:`savepoint_of` takes a real savepoint of a running job;
:func:`rewrite_state` changes one operator's state in it with plain dicts and strings;
:func:`listing` lists a directory tree (links not followed) so a test can say that nothing
outside a sink's own directory changed.
"""
from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Callable

from engine.api import describe_vertices, normalise_definition

SECRET = "bob-secret-91c2"


def places(root: Path) -> dict[str, Path]:
    """Alice's directory (inputs, sinks, savepoints) and Bob's (data and committed output), side by side."""
    alice, bob = root / "alice", root / "bob"
    (bob / "data").mkdir(parents=True)
    (bob / "data" / "secret.jsonl").write_text(json.dumps({"secret": SECRET}) + "\n")
    (bob / "out").mkdir()
    (bob / "out" / "part-0-1.jsonl").write_text(json.dumps({"committed": SECRET}) + "\n")
    (alice / "in").mkdir(parents=True)
    for index in range(3):
        (alice / "in" / f"part-{index}.jsonl").write_text(
            "".join(json.dumps({"file": index, "line": line}) + "\n" for line in range(200)))
    return {"root": root, "alice": alice, "bob": bob}


def savepoint_of(deployment, definition: dict, checkpoint_dir: Path, target: Path, **options) -> Path:
    """Run ``definition`` until a checkpoint completed, then stop it with a savepoint into ``target``."""
    import threading

    completed = threading.Event()

    def on_event(event: dict) -> None:
        if event["type"] == "checkpoint" and event.get("event") == "completed":
            completed.set()

    handle = deployment.submit(definition, checkpoint_dir=str(checkpoint_dir), on_event=on_event, **options)
    assert completed.wait(120), "no checkpoint completed"
    location = handle.stop_with_savepoint(False, str(target)).result(timeout=120)
    result = handle.wait(120)
    assert result.status == "FINISHED", result.failure
    return Path(location)


def rewrite_state(snapshot: Path, node_id: str, change: Callable[[dict], None]) -> int:
    """Apply ``change`` to ``node_id``'s operator state (``{name: [elements]}``) in every state file of
    ``snapshot`` that holds it, and drop the files' digests from the (unsigned) metadata, as whoever can
    write the snapshot can; the number of files changed."""
    changed = 0
    for state_file in sorted(snapshot.glob("*.state")):
        payload = pickle.loads(state_file.read_bytes())
        operator = (payload["operators"].get(node_id) or {}).get("operator")
        if operator is None:
            continue
        change(operator)
        state_file.write_bytes(pickle.dumps(payload))
        changed += 1
    rewrite_metadata(snapshot, lambda metadata: [(handle or {}).pop("sha256", None)
                                                 for handle in metadata["tasks"].values()])
    return changed


def rewrite_metadata(snapshot: Path, change: Callable[[dict], None]) -> None:
    metadata = json.loads((snapshot / "_metadata").read_text())
    change(metadata)
    (snapshot / "_metadata").write_text(json.dumps(metadata))


def listing(root: Path, *, without: tuple[Path, ...] = ()) -> dict[str, str]:
    """Every entry below ``root`` (links not followed) with its content or link target, except below ``without``."""
    entries = {}
    for path in sorted(root.rglob("*")):
        if any(path == skipped or skipped in path.parents for skipped in without):
            continue
        key = str(path.relative_to(root))
        if path.is_symlink():
            entries[key] = f"-> {path.readlink()}"
        elif path.is_file():
            entries[key] = path.read_bytes().hex()
        else:
            entries[key] = "dir"
    return entries


def sink_job(sink_type: str, output: Path, count: int = 400) -> dict:
    return {"format": 1, "name": "to-files", "parallelism": 1,
            "checkpointing": {"interval_ms": 100}, "restart": {"strategy": "none"},
            "nodes": [{"id": "gen", "type": "source.datagen", "params": {"count": count, "rate": 400}},
                      {"id": "files", "type": sink_type, "params": {"path": str(output)}}],
            "edges": [{"id": "e1", "from": "gen", "to": "files"}]}


def assert_refused(result, node_id: str, snapshot: Path) -> None:
    assert result.status == "FAILED", result.failure
    assert f"node '{node_id}'" in result.failure and str(snapshot) in result.failure, result.failure


def write_snapshot(directory: Path, definition: dict, operators: dict[str, dict], coordinators=None) -> Path:
    """A savepoint written by hand, in the engine's format: one subtask of the first vertex holding
    ``operators`` (node id -> operator state ``{name: [elements]}``)."""
    directory.mkdir(parents=True)
    vertices = describe_vertices(normalise_definition(definition))
    vertex = next(iter(vertices))
    payload = {"format": 1, "task": [vertex, 0], "channels": None,
               "operators": {node: {"keyed": None, "operator": state} for node, state in operators.items()}}
    (directory / f"{vertex}-0.state").write_bytes(pickle.dumps(payload))
    metadata = {"format": 1, "checkpoint_id": 5, "kind": "savepoint", "trigger_timestamp": 1, "completed_timestamp": 2,
                "vertices": {vid: {"parallelism": v["parallelism"], "max_parallelism": 128,
                                   "operators": v["operators"], "finished": []} for vid, v in vertices.items()},
                "tasks": {f"{vertex}#0": {"path": f"{vertex}-0.state", "size": 0, "key_group_range": [0, 127],
                                          "operators": {node: {"key_groups": None,
                                                               "operator_state": {n: len(e) if isinstance(e, list) else 1
                                                                                 for n, e in state.items()}}
                                                        for node, state in operators.items()}}}}
    if coordinators:
        metadata["coordinators"] = coordinators
    (directory / "_metadata").write_text(json.dumps(metadata))
    return directory


def file_source_job(path: Path, type_: str = "source.file") -> dict:
    return {"format": 1, "name": "read", "parallelism": 1, "checkpointing": {"interval_ms": 100},
            "restart": {"strategy": "none"},
            "nodes": [{"id": "in", "type": type_, "params": {"path": str(path)}},
                      {"id": "out", "type": "sink.collect", "params": {"max_records": 10000}}],
            "edges": [{"id": "e1", "from": "in", "to": "out"}]}
