import { beforeEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../api/types';
import { COLLECT, DATAGEN, MAP, OPERATORS, REDUCE, sampleDefinition, savedPipelineOf } from '../../testing/fixtures';
import { useCatalogStore } from '../shared/catalogStore';
import { canRun, currentDefinition, isDirty, useEditorStore } from './editorStore';

const editor = () => useEditorStore.getState();

function savedPipeline(): Pipeline {
  return savedPipelineOf({ id: 3, version: 2 });
}

beforeEach(() => {
  useCatalogStore.getState().setOperators(OPERATORS);
  editor().newPipeline('test');
});

describe('editor store', () => {
  it('adds palette nodes with readable ids in free spots, selecting the new one', () => {
    const first = editor().addOperatorNode(DATAGEN);
    const second = editor().addOperatorNode(MAP);
    const third = editor().addOperatorNode(MAP);
    expect([first, second, third]).toEqual(['datagen-1', 'map-2', 'map-3']);
    const [datagen, map2, map3] = editor().nodes;
    expect(map2.position.x).toBe(map3.position.x);
    expect(map2.position.y).not.toBe(map3.position.y);
    expect(datagen.position.x).toBeLessThan(map2.position.x);
    expect(editor().nodes.filter((node) => node.selected).map((node) => node.id)).toEqual(['map-3']);
  });

  it('puts a dropped node where it was dropped', () => {
    editor().addOperatorNode(COLLECT, { x: 500, y: 321 });
    expect(editor().nodes[0].position).toEqual({ x: 500, y: 321 });
  });

  it('connects nodes with default edge settings and refuses bad connections', () => {
    editor().addOperatorNode(DATAGEN);
    editor().addOperatorNode(REDUCE);
    editor().addOperatorNode(COLLECT);
    editor().onConnect({ source: 'datagen-1', target: 'reduce-2', sourceHandle: null, targetHandle: null });
    editor().onConnect({ source: 'reduce-2', target: 'collect-3', sourceHandle: null, targetHandle: null });
    expect(currentDefinition(editor()).edges).toEqual([
      { id: 'e1', from: 'datagen-1', to: 'reduce-2', partitioning: 'hash', key: '', exchange: 'pipelined' },
      { id: 'e2', from: 'reduce-2', to: 'collect-3', partitioning: 'forward', exchange: 'pipelined' },
    ]);
    editor().onConnect({ source: 'collect-3', target: 'reduce-2', sourceHandle: null, targetHandle: null });
    expect(editor().edges).toHaveLength(2);
    expect(editor().notice).toMatch(/no output/);
  });

  it('updates params through React Flow replace changes and edge data through actions', () => {
    editor().addOperatorNode(MAP);
    editor().addOperatorNode(COLLECT);
    editor().onConnect({ source: 'map-1', target: 'collect-2', sourceHandle: null, targetHandle: null });
    const node = editor().nodes[0];
    editor().onNodesChange([{ type: 'replace', id: node.id, item: { ...node, data: { ...node.data, params: { expression: 'x * 2' } } } }]);
    editor().updateEdgeData('e1', { partitioning: 'hash', key: 'x' });
    const definition = currentDefinition(editor());
    expect(definition.nodes[0].params).toEqual({ expression: 'x * 2' });
    expect(definition.edges[0]).toMatchObject({ partitioning: 'hash', key: 'x' });
  });

  it('deletes nodes and edges through React Flow remove changes', () => {
    editor().addOperatorNode(DATAGEN);
    editor().addOperatorNode(COLLECT);
    editor().onConnect({ source: 'datagen-1', target: 'collect-2', sourceHandle: null, targetHandle: null });
    editor().onEdgesChange([{ type: 'remove', id: 'e1' }]);
    editor().onNodesChange([{ type: 'remove', id: 'datagen-1' }]);
    expect(editor().nodes.map((node) => node.id)).toEqual(['collect-2']);
    expect(editor().edges).toEqual([]);
  });

  it('counts validity-changing edits and moves apart; selection is neither', () => {
    editor().addOperatorNode(DATAGEN);
    const { revision, layoutRevision } = editor();
    editor().onNodesChange([{ type: 'select', id: 'datagen-1', selected: false }]);
    expect([editor().revision, editor().layoutRevision]).toEqual([revision, layoutRevision]);
    editor().onNodesChange([{ type: 'position', id: 'datagen-1', position: { x: 5, y: 5 }, dragging: true }]);
    expect([editor().revision, editor().layoutRevision]).toEqual([revision, layoutRevision + 1]);
    editor().updateSettings({ parallelism: 4 });
    editor().setCheckpointInterval(5000);
    expect(editor().revision).toBe(revision + 2);
    expect(currentDefinition(editor())).toMatchObject({ parallelism: 4, checkpointing: { interval_ms: 5000, mode: 'exactly_once' } });
  });

  it('loads a saved pipeline clean, and becomes dirty on edit or move', () => {
    editor().loadPipeline(savedPipeline());
    expect(currentDefinition(editor())).toEqual(sampleDefinition());
    expect(isDirty(editor())).toBe(false);
    editor().onNodesChange([{ type: 'position', id: 'map-2', position: { x: 1, y: 1 } }]);
    expect(isDirty(editor())).toBe(true);
    const { revision, layoutRevision } = editor();
    editor().saveSucceeded({ ...savedPipeline(), version: 3 }, revision, layoutRevision);
    expect(isDirty(editor())).toBe(false);
    expect(editor().version).toBe(3);
  });

  it('ignores validation results for an older revision and allows Run only when valid now', () => {
    editor().addOperatorNode(MAP);
    const checked = editor().revision;
    editor().validationStarted(checked);
    expect(editor().validation).toBe('checking');
    editor().validationFinished(checked, [{ node: 'map-1', edge: null, field: 'params.expression', message: 'required' }]);
    expect(editor().validation).toBe('invalid');
    expect(editor().problems.byNode['map-1']).toHaveLength(1);
    expect(canRun(editor())).toBe(false);

    editor().updateSettings({ name: 'renamed' });
    editor().validationFinished(checked, []);
    expect(editor().validation).toBe('invalid');

    editor().validationFinished(editor().revision, []);
    expect(editor().validation).toBe('valid');
    expect(editor().problems.all).toEqual([]);
    expect(canRun(editor())).toBe(true);
    editor().updateSettings({ name: 'again' });
    expect(canRun(editor())).toBe(false);
  });

  it('shows the errors of a refused save as problems', () => {
    editor().addOperatorNode(MAP);
    editor().saveFailed('1 problem', [{ node: 'map-1', edge: null, field: 'params.expression', message: 'required' }]);
    expect(editor().saveState).toBe('failed');
    expect(editor().validation).toBe('invalid');
    expect(editor().problems.byNode['map-1'][0].message).toBe('required');
  });

  it('selects exactly one element on request', () => {
    editor().addOperatorNode(DATAGEN);
    editor().addOperatorNode(COLLECT);
    editor().onConnect({ source: 'datagen-1', target: 'collect-2', sourceHandle: null, targetHandle: null });
    editor().select({ edge: 'e1' });
    expect(editor().nodes.some((node) => node.selected)).toBe(false);
    expect(editor().edges[0].selected).toBe(true);
    editor().select({ node: 'datagen-1' });
    expect(editor().edges[0].selected).toBe(false);
    expect(editor().nodes.find((node) => node.selected)?.id).toBe('datagen-1');
  });
});
