// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useEditorStore } from '../state/editor/editorStore';
import type { OperatorNode, PipelineEdge } from '../state/shared/graph';
import { Inspector } from './Inspector';

const NODES: OperatorNode[] = [
  { id: 'gen', type: 'operator', position: { x: 0, y: 0 }, data: { type: 'source.datagen', params: {} } },
  { id: 'out', type: 'operator', position: { x: 200, y: 0 }, data: { type: 'sink.collect', params: {} } },
];
const EDGE: PipelineEdge = { id: 'e1', source: 'gen', target: 'out', type: 'pipeline', data: { partitioning: 'forward', exchange: 'pipelined' } };

function select(nodes: string[], edges: string[]) {
  useEditorStore.setState({
    nodes: NODES.map((node) => ({ ...node, selected: nodes.includes(node.id) })),
    edges: [{ ...EDGE, selected: edges.includes(EDGE.id) }],
  });
}

describe('Inspector (node inspector)', () => {
  beforeEach(() => useEditorStore.getState().newPipeline());
  afterEach(cleanup);

  it('explains what to do when nothing is selected', () => {
    select([], []);
    render(<Inspector />);
    expect(screen.getByText('Inspector')).toBeTruthy();
    expect(screen.getByText(/Select a node to edit its parameters/)).toBeTruthy();
  });

  it('asks for one element when several are selected', () => {
    select(['gen', 'out'], []);
    render(<Inspector />);
    expect(screen.getByText(/Several elements are selected/)).toBeTruthy();
  });

  it('edits the selected node', () => {
    select(['gen'], []);
    render(<Inspector />);
    expect(screen.getByText('Node')).toBeTruthy();
  });

  it('edits the selected edge: partitioning and exchange, with a key for hash', () => {
    select([], ['e1']);
    render(<Inspector />);
    expect(screen.getByText('Edge')).toBeTruthy();
    const partitioning = screen.getByTestId('edge-partitioning') as HTMLSelectElement;
    expect(partitioning.value).toBe('forward');
    fireEvent.change(partitioning, { target: { value: 'hash' } });
    expect(useEditorStore.getState().edges[0].data?.partitioning).toBe('hash');
    expect(screen.getByTestId('edge-key')).toBeTruthy();
  });
});
