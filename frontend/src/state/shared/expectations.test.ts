import { describe, expect, it } from 'vitest';
import { definitionToGraph, graphToDefinition } from './definition';
import { newExpectation, nodeQuarantinePorts, quarantinePorts, violatedTotal, violationRate } from './expectations';
import { edgeLabel } from './graph';
import { runGraph } from '../run/runGraph';
import type { PipelineDefinition } from '../../api/types';

const definition: PipelineDefinition = {
  format: 1,
  name: 'p',
  mode: 'streaming',
  parallelism: 1,
  max_parallelism: 128,
  checkpointing: { interval_ms: 1000, mode: 'exactly_once' },
  nodes: [
    { id: 'gen', type: 'source.datagen', params: {} },
    {
      id: 'm',
      type: 'transform.map',
      params: { expression: 'x' },
      expectations: [
        { name: 'small', rule: 'x < 10', action: 'quarantine', port: 'big' },
        { name: 'even', rule: 'x % 2 == 0', action: 'warn' },
      ],
    },
    { id: 'out', type: 'sink.collect', params: {} },
    { id: 'bad', type: 'sink.collect', params: {} },
  ],
  edges: [
    { id: 'e1', from: 'gen', to: 'm', partitioning: 'forward', exchange: 'pipelined' },
    { id: 'e2', from: 'm', to: 'out', partitioning: 'forward', exchange: 'pipelined' },
    { id: 'e3', from: 'm', from_port: 'big', to: 'bad', partitioning: 'forward', exchange: 'pipelined' },
  ],
};

describe('expectations', () => {
  it('survive the editor: definition to graph and back', () => {
    const graph = definitionToGraph(definition);
    const back = graphToDefinition(graph.settings as never, graph.nodes, graph.edges);
    expect(back.nodes[1].expectations).toEqual(definition.nodes[1].expectations);
    expect(back.nodes[0].expectations).toBeUndefined();
  });

  it('give a node the ports its quarantine rules name, on the run graph too', () => {
    expect(quarantinePorts(definition.nodes[1].expectations)).toEqual(['big']);
    const plan = { job_vertices: [{ id: 'gen', operators: ['gen', 'm', 'm::expect'], parallelism: 1 }] };
    const graph = runGraph(definition, plan as never);
    const operators = graph.nodes.find((node) => node.id === 'gen')?.data.operators;
    expect(operators?.map((operator) => operator.id)).toEqual(['gen', 'm']);
    expect(operators?.[1].quarantinePorts).toEqual(['big']);
  });

  it('on an edge survive the editor, label the edge, and give its source node their quarantine ports', () => {
    const checked = { name: 'small', rule: 'x["n"] < 10', action: 'quarantine' as const, port: 'too_big' };
    const withEdgeRules = { ...definition, edges: definition.edges.map((edge) => (edge.id === 'e2' ? { ...edge, expectations: [checked] } : edge)) };
    const graph = definitionToGraph(withEdgeRules);
    const e2 = graph.edges.find((edge) => edge.id === 'e2');
    expect(e2?.data?.expectations).toEqual([checked]);
    expect(edgeLabel(e2!.data!)).toBe('forward · ✓ 1 rule');
    const back = graphToDefinition(graph.settings as never, graph.nodes, graph.edges);
    expect(back.edges.find((edge) => edge.id === 'e2')?.expectations).toEqual([checked]);
    expect(back.edges.find((edge) => edge.id === 'e1')?.expectations).toBeUndefined();
    expect(nodeQuarantinePorts('m', withEdgeRules.nodes[1].expectations, withEdgeRules.edges)).toEqual(['big', 'too_big']);
    expect(nodeQuarantinePorts('gen', undefined, withEdgeRules.edges)).toEqual([]);
  });

  it('name a new rule apart from the others and show rates', () => {
    expect(newExpectation([{ name: 'rule_2', rule: 'True' }]).name).toBe('rule_3');
    expect(violatedTotal({ records: 10, dropped: 0, quarantined: 2, rules: { a: { action: 'warn', violated: 3 }, b: { action: 'quarantine', violated: 2 } } })).toBe(5);
    expect(violationRate(3, 200)).toBe('1.5%');
    expect(violationRate(0, 0)).toBe('–');
  });
});
