"""The operators of the catalog (``engine.spec.catalog``), built by ``type``.

``create_operator(node, context)`` is the one place that maps a definition node to its
runtime class; every class follows the contract of :mod:`engine.runtime.operators.base`.
Modules are imported on first use, so a pipeline without Redis never imports ``redis``.
"""
from __future__ import annotations

import importlib

from engine.runtime.operators.base import OperatorContext, StreamOperator

OPERATOR_FACTORIES: dict[str, str] = {
    "source.datagen": "engine.runtime.operators.connectors.datagen:DatagenSource",
    "source.file": "engine.runtime.operators.connectors.file_source:FileSource",
    "source.redis_stream": "engine.runtime.operators.connectors.redis_exactly_once:redis_stream_source",
    "source.hybrid": "engine.runtime.operators.connectors.hybrid_source:HybridSource",
    "transform.map": "engine.runtime.operators.transform:MapOperator",
    "transform.filter": "engine.runtime.operators.transform:FilterOperator",
    "transform.flat_map": "engine.runtime.operators.transform:FlatMapOperator",
    "transform.union": "engine.runtime.operators.transform:UnionOperator",
    "transform.watermark": "engine.runtime.operators.watermark:WatermarkAssignerOperator",
    "aggregate.reduce": "engine.runtime.operators.aggregate:KeyedAggregateOperator",
    "window.tumbling": "engine.runtime.operators.windows.window:tumbling_window",
    "window.sliding": "engine.runtime.operators.windows.window:sliding_window",
    "window.session": "engine.runtime.operators.windows.session_window:SessionWindowOperator",
    "window.count": "engine.runtime.operators.windows.count_window:CountWindowOperator",
    "transform.deduplicate": "engine.runtime.operators.deduplicate:DeduplicateOperator",
    "sink.collect": "engine.runtime.operators.connectors.collect_sink:CollectSink",
    "sink.file": "engine.runtime.operators.connectors.file_sink:TwoPhaseCommitFileSink",
    "sink.redis_stream": "engine.runtime.operators.connectors.redis_exactly_once:redis_stream_sink",
    "sink.postgres": "engine.runtime.operators.connectors.postgres_sink:PostgresSink",
    "source.parquet": "engine.runtime.operators.connectors.parquet:ParquetSource",
    "source.postgres_cdc": "engine.runtime.operators.connectors.postgres_cdc:PostgresCdcSource",
    "sink.parquet": "engine.runtime.operators.connectors.parquet:ParquetSink",
    "lookup.redis": "engine.runtime.operators.connectors.lookup_redis:RedisLookupOperator",
    "lookup.http": "engine.runtime.operators.connectors.lookup_http:HttpLookupOperator",
    "join.interval": "engine.runtime.operators.joins.interval_join:IntervalJoinOperator",
    "join.window": "engine.runtime.operators.joins.window_join:WindowJoinOperator",
    "transform.python": "engine.runtime.operators.python_transform:PythonTransformOperator",
    "source.kafka": "engine.runtime.operators.connectors.kafka.source:KafkaSource",
    "sink.kafka": "engine.runtime.operators.connectors.kafka.sink:kafka_sink",
    "quality.expectations": "engine.runtime.operators.expectations:ExpectationsOperator",
}
"""Operator type -> ``module:factory``; a factory is called as ``factory(node, context)``."""

PLUGIN_FACTORIES: dict[str, str] = {}
"""Operator types registered at run time (``register_factory``), not part of the catalog: a test's
deliberately broken sink, say. A job using one carries it to its slots (``operator_plugins`` in the
slot configuration), so a Spark executor builds it too, if it can import the module."""


def register_factory(type_: str, target: str) -> None:
    """Build operators of ``type_`` with ``target`` (``"module:factory"``) from now on, in this process."""
    if type_ in OPERATOR_FACTORIES and type_ not in PLUGIN_FACTORIES:
        raise ValueError(f"operator type '{type_}' is the catalog's own")
    if ":" not in target:
        raise ValueError(f"an operator factory is named 'module:factory', not {target!r}")
    OPERATOR_FACTORIES[type_] = PLUGIN_FACTORIES[type_] = target


def register_plugins(plugins: dict[str, str] | None) -> None:
    """Register the plugin factories a slot's configuration carries (``plugins_used``)."""
    for type_, target in (plugins or {}).items():
        if OPERATOR_FACTORIES.get(type_) != target:
            register_factory(type_, target)


def plugins_used(definition: dict) -> dict[str, str]:
    """The plugin factories of the operator types ``definition`` uses."""
    return {node["type"]: PLUGIN_FACTORIES[node["type"]] for node in definition.get("nodes", ())
            if node.get("type") in PLUGIN_FACTORIES}


def create_operator(node: dict, context: OperatorContext) -> StreamOperator:
    """Build the runtime operator of a definition node (answered by a test's mock when the
    slot configuration has one for it: ``engine.runtime.operators.mocks``)."""
    mock = (context.config.get("mocks") or {}).get(node["id"])
    if mock is not None:
        from engine.runtime.operators.mocks import mocked_operator

        return mocked_operator(node, context, mock, _factory(node))
    return _factory(node)(node, context)


def awaits_final_checkpoint(node: dict) -> bool:
    """Whether ``node``'s operator, at the end of its input, waits for a checkpoint covering its
    last data (two-phase-commit sinks): before it is built, for the checkpoint coordinator.
    A factory answers for the node with ``awaits_final_checkpoint(node)`` (classes inherit
    :meth:`StreamOperator.awaits_final_checkpoint`)."""
    check = getattr(_factory(node), "awaits_final_checkpoint", None)
    return bool(check(node)) if check is not None else False


def coordinator_factory(node: dict):
    """The factory of ``node``'s operator coordinator in the JobMaster (``engine.cluster.operator_coordinators``),
    or None: a factory names one with a ``coordinator`` attribute (file sources: their split enumerator)."""
    return getattr(_factory(node), "coordinator", None)


def _factory(node: dict):
    target = OPERATOR_FACTORIES.get(node["type"])
    if target is None:
        raise ValueError(f"node '{node['id']}' has unknown operator type '{node['type']}'")
    module_name, factory_name = target.split(":")
    return getattr(importlib.import_module(module_name), factory_name)


__all__ = ["OPERATOR_FACTORIES", "OperatorContext", "PLUGIN_FACTORIES", "StreamOperator", "awaits_final_checkpoint",
           "coordinator_factory", "create_operator", "plugins_used", "register_factory", "register_plugins"]
