"""Projection pushdown: a JSON-lines file source decodes only the fields its job reads.

Decoding a JSON object builds every key and value of it; a job that filters on ``kind``,
takes event time from ``ts``, keys by ``user`` and sums ``amount`` reads four fields of
eight. :func:`projected_fields` answers, for a source's subtask chain, which fields the
operators that see the source's records read, or None when anything may need the whole
record. The source then decodes each line into a dict of just those fields
(``engine.runtime.io.line_blocks.projected_decoder``): the same dict as the whole record
restricted to them, so every expression that reads only those fields computes the same.

Where the records are the source's own -- the source's chain up to the first operator that
makes new records of them, and across a job edge -- every operator must be one that reads
fields by constant names and either passes the record on unchanged or makes new records of
it. Anything else gets whole records:

- passed on unchanged: ``transform.filter`` and ``transform.watermark``, only inside the
  source's chain (a tap on their output, opened while the job runs, is in the source's own
  subtask: the source decodes whole records while a tap of its chain is open);
- made into new records: ``transform.map``, ``aggregate.reduce`` and the windows
  (``window.tumbling``/``sliding``/``session``/``count``), in the chain or behind a job edge;
  a window with an edge from its ``late`` port passes late records on unchanged: whole records;
- joined: ``join.window`` and ``join.interval`` behind a job edge, which read of the edge's
  side what their ``output`` expression reads as ``left`` or ``right`` (the key is the edge's);
  the default ``[left, right]``, and a join with an edge from a ``late_*`` port, whole records.
  Behind filters, this needs the filters in the source's chain (fan-out chaining, as the window
  join of ``make bench-events`` has them);
- every other operator (sinks, Python nodes, lookups, deduplication, unions...), an
  expression that uses the record otherwise than by a constant field name (``x``,
  ``x.get("a")``, ``{**x}``), and an edge from a named port: whole records;
- a field name that is not ASCII: whole records (msgspec's decoder into a typed dict does
  not find such a key in the JSON text, written raw or escaped).

A record that is not a JSON object, or a line the fast decoder refuses, is decoded whole as
before and then cut to the fields (``decode_json_lines``).
"""
from __future__ import annotations

from engine.plan.job_graph import JobGraph, JobVertex
from engine.spec.catalog import expression_fields, operator_spec, params_with_defaults
from engine.spec.join_catalog import JOIN_NAMES, JOIN_TYPES
from engine.spec.expressions.fields import fields_read

PASSED_ON = frozenset({"transform.filter", "transform.watermark"})
MADE_NEW = frozenset({"transform.map", "aggregate.reduce", "window.tumbling", "window.sliding", "window.session",
                      "window.count"})
PROJECTED_SOURCES = {"source.file": lambda params: params.get("format", "jsonl") == "jsonl"}


def projected_fields(job_graph: JobGraph, vertex: JobVertex) -> frozenset[str] | None:
    """The fields of the head source's records that the job reads, or None: whole records."""
    head = vertex.operators[0]
    takes = PROJECTED_SOURCES.get(head.get("type"))
    if takes is None or not takes(head.get("params") or {}):
        return None
    fields: set[str] = set()
    leaving: dict[str, list] = {}
    for edge in job_graph.outputs_of(vertex.id):
        leaving.setdefault(edge.source_node, []).append(edge)
    ported = {edge.source_node for edge in job_graph.edges if edge.source_port is not None}
    passes_on = [True] * len(vertex.operators)  # whether the operator emits the source's records
    for position, node in enumerate(vertex.operators):  # parent before child, also in a fan-out chain
        feeder = vertex.chained_input(position)
        if feeder is not None:
            if not passes_on[feeder]:  # its input is records made new: what it reads is not the source's
                passes_on[position] = False
                continue
            read = _node_fields(node, ported)
            if read is None:
                return None
            fields |= read
            passes_on[position] = node["type"] in PASSED_ON
        if not passes_on[position]:
            continue
        for edge in leaving.get(node["id"], ()):  # the source's records cross a job edge
            if edge.source_port is not None:
                return None
            target = job_graph.vertex(edge.target).operators[0]
            if target["type"] in JOIN_TYPES:  # of the edge's side, what the ``output`` expression reads
                read = _join_side_fields(target, edge.side, ported)
            else:
                read = _node_fields(target, ported) if target["type"] in MADE_NEW else None
            if read is None:
                return None
            fields |= read
            if edge.key is not None:
                key = fields_read(edge.key)
                if key is None:
                    return None
                fields |= key
    if not all(name.isascii() for name in fields):
        return None
    return frozenset(fields)


def _join_side_fields(node: dict, side: str | None, ported: set[str]) -> frozenset[str] | None:
    """The fields a join's ``output`` reads of the records of ``side`` (``left``/``right``), or None:
    it needs them whole (the default ``[left, right]``; a late port passes them on unchanged)."""
    if side not in JOIN_NAMES or node["id"] in ported:
        return None
    params = params_with_defaults(operator_spec(node["type"]), node.get("params") or {})
    output = params.get("output")
    return fields_read(str(output), side) if output is not None else None


def _node_fields(node: dict, ported: set[str]) -> frozenset[str] | None:
    """The fields ``node`` reads of its input records, or None: it needs them whole."""
    if node.get("type") not in PASSED_ON | MADE_NEW or node["id"] in ported:
        return None
    spec = operator_spec(node["type"])
    params = params_with_defaults(spec, node.get("params") or {})
    fields: set[str] = set()
    for name in expression_fields(spec):
        if params.get(name) is None:
            continue
        read = fields_read(str(params[name]))
        if read is None:
            return None
        fields |= read
    return frozenset(fields)
