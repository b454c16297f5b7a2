import { describe, expect, it } from 'vitest';
import type { PipelineDefinition, PlanSummary } from '../../api/types';
import { sampleDefinition } from '../../testing/fixtures';
import { ARROW_CLEARANCE, BOX_HEIGHT, RUN_LAYOUT, boxWidth, chainCells, edgeLabelPlace, outputHandle, runGraph } from './runGraph';

type Vertices = Pick<PlanSummary, 'job_vertices'>;

/** The sample pipeline's plan: datagen and map chained, the keyed reduce behind a hash edge, then the collect sink. */
const PLAN: Vertices = {
  job_vertices: [
    { id: 'v0', name: 'datagen-1 -> map-2', operators: ['datagen-1', 'map-2'], parallelism: 2 },
    { id: 'v1', name: 'reduce-3', operators: ['reduce-3'], parallelism: 2 },
    { id: 'v2', name: 'collect-4', operators: ['collect-4'], parallelism: 2 },
  ],
};

/** `rows` rows of a source, `length - 2` maps and a sink, forward edges all along: each row one chain. */
function rows(count: number, length: number): { definition: PipelineDefinition; plan: Vertices } {
  const definition = { ...sampleDefinition(), nodes: [], edges: [] } as PipelineDefinition;
  const plan: Vertices = { job_vertices: [] };
  for (let row = 0; row < count; row += 1) {
    const ids = Array.from({ length }, (_, column) => `n${row * length + column}`);
    ids.forEach((id, column) => {
      const type = column === 0 ? 'source.datagen' : column === length - 1 ? 'sink.collect' : 'transform.map';
      definition.nodes.push({ id, type, params: {} });
      if (column > 0) definition.edges.push({ id: `e-${id}`, from: ids[column - 1], to: id, partitioning: 'forward', exchange: 'pipelined' });
    });
    plan.job_vertices.push({ id: `v${row}`, name: ids.join(' -> '), operators: ids, parallelism: 1 });
  }
  return { definition, plan };
}

describe('the run graph', () => {
  it('draws a box per job vertex with its operators in chain order', () => {
    const { nodes } = runGraph(sampleDefinition(), PLAN);
    expect(nodes.map((node) => [node.id, node.data.operators.map((operator) => operator.id), node.data.parallelism])).toEqual([
      ['v0', ['datagen-1', 'map-2'], 2],
      ['v1', ['reduce-3'], 2],
      ['v2', ['collect-4'], 2],
    ]);
    expect(nodes[0].data.operators[0]).toEqual({ id: 'datagen-1', type: 'source.datagen', cell: { column: 0, row: 0, columns: 1, rows: 1 }, last: false });
    expect(nodes[0].data.operators[1]).toMatchObject({ id: 'map-2', feeder: 'datagen-1', cell: { column: 1, row: 0 }, last: true });
    expect(nodes[0].data.grid).toEqual({ columns: 2, rows: 1 });
  });

  it('lays a chain that fans out as a tree: a column per step from the head, a row per branch', () => {
    // a -> b -> [c -> d, e], and a -> f: the plan's chain_inputs, operators parent first
    const { cells, grid } = chainCells([-1, 0, 1, 2, 1, 0]);
    expect(grid).toEqual({ columns: 4, rows: 3 });
    expect(cells).toEqual([
      { column: 0, row: 0, columns: 1, rows: 3, last: false }, // a: spans the three branches
      { column: 1, row: 0, columns: 1, rows: 2, last: false }, // b: the two below it
      { column: 2, row: 0, columns: 1, rows: 1, last: false }, // c
      { column: 3, row: 0, columns: 1, rows: 1, last: true }, // d
      { column: 2, row: 1, columns: 2, rows: 1, last: true }, // e: reaches the right edge, where its records leave
      { column: 1, row: 2, columns: 3, rows: 1, last: true }, // f
    ]);
  });

  it("names each chained operator's feeder from the plan, and lets edges leave the operator that sends them", () => {
    const definition = sampleDefinition();
    definition.nodes.push({ id: 'audit', type: 'sink.collect', params: {} });
    definition.edges.push({ id: 'e9', from: 'datagen-1', to: 'audit', partitioning: 'forward', exchange: 'pipelined' });
    const plan: Vertices = { job_vertices: [{ ...PLAN.job_vertices[0], operators: ['datagen-1', 'map-2', 'audit'], chain_inputs: [-1, 0, 0] }, ...PLAN.job_vertices.slice(1)] };
    const { nodes, edges } = runGraph(definition, plan);
    expect(nodes[0].data.operators.map((operator) => [operator.id, operator.feeder])).toEqual([['datagen-1', undefined], ['map-2', 'datagen-1'], ['audit', 'datagen-1']]);
    expect(nodes[0].data.grid).toEqual({ columns: 2, rows: 2 });
    expect(edges.find((edge) => edge.id === 'e2')?.sourceHandle).toBe(outputHandle('map-2'));
    // a plan written before chains fanned out has no chain_inputs: each operator fed by the one before
    const old = runGraph(definition, { job_vertices: [{ ...plan.job_vertices[0], chain_inputs: undefined }] });
    expect(old.nodes[0].data.operators.map((operator) => operator.feeder)).toEqual([undefined, 'datagen-1', 'map-2']);
  });

  it("draws an arrow only where records leave a vertex, with the edge's partitioning", () => {
    const { edges } = runGraph(sampleDefinition(), PLAN);
    expect(edges.map((edge) => [edge.id, edge.source, edge.target, edge.data?.partitioning])).toEqual([
      ['e2', 'v0', 'v1', 'hash'],
      ['e3', 'v1', 'v2', 'forward'],
    ]);
  });

  it('gives every operator a box of its own before the run is planned', () => {
    const { nodes, edges } = runGraph(sampleDefinition(), null);
    expect(nodes.map((node) => node.id)).toEqual(['datagen-1', 'map-2', 'reduce-3', 'collect-4']);
    expect(nodes.map((node) => node.data.parallelism)).toEqual([1, 2, 2, 2]);
    expect(edges).toHaveLength(3);
  });

  it('lays boxes out left to right along the data', () => {
    const { nodes } = runGraph(sampleDefinition(), PLAN);
    const xs = nodes.map((node) => node.position.x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(nodes[1].position.x).toBeGreaterThanOrEqual(nodes[0].position.x + boxWidth(2));
  });

  it('stacks independent chains of ten, so that thirty operators fit a laptop screen at a readable zoom', () => {
    const { definition, plan } = rows(3, 10);
    const { nodes, edges } = runGraph(definition, plan);
    expect(edges).toEqual([]);
    const right = Math.max(...nodes.map((node) => node.position.x + boxWidth(node.data.grid.columns)));
    const bottom = Math.max(...nodes.map((node) => node.position.y + BOX_HEIGHT));
    expect(new Set(nodes.map((node) => node.position.x)).size).toBe(1);
    // the run page's graph at 1280×720 is about 1230 × 270 pixels free: 12 px text stays at least 11 px
    expect(Math.min(1230 / right, 270 / bottom)).toBeGreaterThanOrEqual(11 / 12);
  });

  it('keeps an operator the plan does not name in a box of its own', () => {
    const definition = sampleDefinition();
    const { nodes } = runGraph(definition, { job_vertices: [PLAN.job_vertices[0]] });
    expect(nodes.map((node) => node.id)).toEqual(['v0', 'reduce-3', 'collect-4']);
  });

  it('lays boxes out with the heights they were measured at, so that a tall one does not cover its neighbour', () => {
    const { definition } = rows(1, 2);
    definition.nodes.push({ id: 'files', type: 'sink.file', params: {} });
    definition.edges.push({ id: 'e-files', from: 'n0', to: 'files', partitioning: 'rebalance', exchange: 'pipelined' });
    const plan: Vertices = { job_vertices: ['n0', 'n1', 'files'].map((id) => ({ id, name: id, operators: [id], parallelism: 1 })) };
    const gap = (heights: Record<string, number>) => {
      const at = new Map(runGraph(definition, plan, heights).nodes.map((node) => [node.id, node.position.y]));
      const [upper, lower] = ['n1', 'files'].sort((a, b) => at.get(a)! - at.get(b)!);
      return at.get(lower)! - at.get(upper)! - Math.max(BOX_HEIGHT, heights[upper] ?? 0);
    };
    expect(gap({})).toBeGreaterThanOrEqual(0);
    expect(gap({ n1: 170, files: 170 })).toBeGreaterThanOrEqual(0);  // the two sinks stacked, each grown to 170 px
  });
});

describe("an edge's label", () => {
  it('stays clear of the arrowhead between boxes the layout puts a rank apart', () => {
    // two edges into a join from boxes one rank to the left, at the join's two input heights
    for (const [sourceY, targetY] of [[40, 30], [160, 60], [30, 30]]) {
      const place = edgeLabelPlace(0, sourceY, RUN_LAYOUT.rank, targetY);
      expect(place.x + place.maxWidth / 2).toBeLessThanOrEqual(RUN_LAYOUT.rank - ARROW_CLEARANCE);
      expect(place.x - place.maxWidth / 2).toBeGreaterThanOrEqual(0);
      expect(place.maxWidth).toBeGreaterThanOrEqual(80);  // "hash(x)", "rebalance" whole; longer ones cut
      expect(Math.min(sourceY, targetY)).toBeLessThanOrEqual(place.y);
      expect(place.y).toBeLessThanOrEqual(Math.max(sourceY, targetY));
    }
  });

  it('sits on the middle of a long edge and grows no wider than its limit', () => {
    const place = edgeLabelPlace(0, 0, 1000, 0);
    expect(place.maxWidth).toBe(180);
    expect(Math.abs(place.x - 500)).toBeLessThan(10);
    expect(place.y).toBe(0);
  });

  it('keeps a readable width on a short or backward edge', () => {
    expect(edgeLabelPlace(200, 0, 100, 50)).toEqual({ x: 150, y: 25, maxWidth: 48 });
  });
});
