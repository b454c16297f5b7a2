import { beforeEach, describe, expect, it } from 'vitest';
import { COLLECT, DATAGEN, MAP, OPERATORS, REDUCE, sampleDefinition, savedPipelineOf } from '../../testing/fixtures';
import { useCatalogStore } from '../shared/catalogStore';
import { currentDefinition, nodeChangesHistoryKey, useEditorStore } from './editorStore';
import { canRedo, canUndo, COALESCE_MS } from './history';
import { withParam } from './paramFields';

const editor = () => useEditorStore.getState();
const definition = () => currentDefinition(editor());
const connect = (source: string, target: string) =>
  editor().onConnect({ source, target, sourceHandle: null, targetHandle: null });

beforeEach(() => {
  useCatalogStore.getState().setOperators(OPERATORS);
  editor().newPipeline('undo');
});

describe('undo/redo in the editor', () => {
  it('takes back and replays every kind of edit, one step each', () => {
    const states = [definition()];
    const step = (edit: () => void) => {
      edit();
      states.push(definition());
    };
    step(() => editor().addOperatorNode(DATAGEN));
    step(() => editor().addOperatorNode(MAP));
    step(() => editor().addOperatorNode(REDUCE));
    step(() => editor().addOperatorNode(COLLECT));
    step(() => connect('datagen-1', 'map-2'));
    step(() => connect('map-2', 'reduce-3'));
    step(() => connect('reduce-3', 'collect-4'));
    step(() => editor().updateEdgeData('e2', { key: 'x % 10' }));
    step(() => editor().updateEdgeData('e1', { partitioning: 'rebalance' }));
    step(() => editor().updateNodeData('map-2', (data) => ({ ...data, params: withParam(data.params, 'expression', { kind: 'value', value: 'x + 1' }) }), 'param:map-2:expression'));
    step(() => editor().updateNodeData('map-2', (data) => ({ ...data, parallelism: 3 }), 'parallelism:map-2'));
    step(() => editor().updateSettings({ name: 'renamed' }));
    step(() => editor().setCheckpointInterval(250));
    step(() => editor().onNodesChange([{ type: 'position', id: 'collect-4', position: { x: 999, y: 5 }, dragging: true }]));
    step(() => editor().autoLayout());
    step(() => {
      editor().select({ node: 'map-2' });
      editor().duplicate();
    });
    step(() => {
      editor().select({ node: 'reduce-3' });
      editor().deleteSelection();
    });
    step(() => {
      editor().select({ edge: 'e1' });
      editor().deleteSelection();
    });
    step(() => editor().replaceDefinition(sampleDefinition()));

    const strip = (d: ReturnType<typeof definition>) => JSON.stringify(d);
    for (let index = states.length - 1; index > 0; index -= 1) {
      expect(strip(definition())).toBe(strip(states[index]));
      editor().undo();
    }
    expect(strip(definition())).toBe(strip(states[0]));
    expect(canUndo(editor().history)).toBe(false);
    for (let index = 1; index < states.length; index += 1) {
      editor().redo();
      expect(strip(definition())).toBe(strip(states[index]));
    }
    expect(canRedo(editor().history)).toBe(false);
  });

  it('counts undo and redo as edits, so the change is validated again', () => {
    editor().addOperatorNode(MAP);
    const revision = editor().revision;
    editor().undo();
    expect(editor().revision).toBe(revision + 1);
    editor().redo();
    expect(editor().revision).toBe(revision + 2);
  });

  it('changes nothing, not even the revision, when there is nothing to undo or redo', () => {
    const before = editor();
    editor().undo();
    editor().redo();
    expect(editor()).toBe(before);
  });

  it('makes one step of a quick run of typing into one field', () => {
    editor().addOperatorNode(MAP);
    for (const text of ['x', 'x ', 'x *', 'x * 2']) {
      editor().updateNodeData('map-1', (data) => ({ ...data, params: { expression: text } }), 'param:map-1:expression');
    }
    expect(editor().nodes[0].data.params.expression).toBe('x * 2');
    editor().undo();
    expect(editor().nodes[0].data.params).toEqual({});
    editor().undo();
    expect(editor().nodes).toHaveLength(0);
  });

  it('records a drag once, at its start, and not its end', () => {
    editor().addOperatorNode(MAP);
    const start = editor().nodes[0].position;
    editor().onNodesChange([{ type: 'position', id: 'map-1', position: { x: 10, y: 10 }, dragging: true }]);
    editor().onNodesChange([{ type: 'position', id: 'map-1', position: { x: 20, y: 20 }, dragging: true }]);
    editor().onNodesChange([{ type: 'position', id: 'map-1', position: { x: 20, y: 20 }, dragging: false }]);
    expect(editor().history.past).toHaveLength(2);
    editor().undo();
    expect(editor().nodes[0].position).toEqual(start);
  });

  it('tells edits from other node changes', () => {
    const nodes = [{ id: 'a', type: 'operator' as const, position: { x: 0, y: 0 }, data: { type: 'x', params: {} } }];
    expect(nodeChangesHistoryKey([{ type: 'select', id: 'a', selected: true }], nodes)).toBeUndefined();
    expect(nodeChangesHistoryKey([{ type: 'dimensions', id: 'a', dimensions: { width: 1, height: 1 } }], nodes)).toBeUndefined();
    expect(nodeChangesHistoryKey([{ type: 'remove', id: 'a' }], nodes)).toBeNull();
    expect(nodeChangesHistoryKey([{ type: 'position', id: 'a', position: { x: 1, y: 1 }, dragging: false }], nodes)).toBe('nudge');
    const dragging = [{ ...nodes[0], dragging: true }];
    expect(nodeChangesHistoryKey([{ type: 'position', id: 'a', position: { x: 1, y: 1 }, dragging: true }], dragging)).toBeUndefined();
  });

  it('deletes the selected nodes with their edges as one step', () => {
    editor().replaceDefinition(sampleDefinition());
    editor().select({ node: 'map-2' });
    editor().deleteSelection();
    expect(definition().nodes.map((node) => node.id)).toEqual(['datagen-1', 'reduce-3', 'collect-4']);
    expect(definition().edges.map((edge) => edge.id)).toEqual(['e3']);
    editor().undo();
    expect(definition().edges.map((edge) => edge.id)).toEqual(['e1', 'e2', 'e3']);
  });

  it('pastes each time a step further, and copy selects the pasted nodes', () => {
    editor().replaceDefinition(sampleDefinition());
    editor().select({ node: 'map-2' });
    expect(editor().copy()).toBe(true);
    editor().paste();
    editor().paste();
    const ids = editor().nodes.map((node) => node.id);
    expect(ids.slice(-2)).toEqual(['map-5', 'map-6']);
    const [first, second] = editor().nodes.slice(-2);
    expect(second.position.x - first.position.x).toBe(40);
    expect(editor().nodes.filter((node) => node.selected).map((node) => node.id)).toEqual(['map-6']);
  });

  it('starts with an empty history for every loaded pipeline', () => {
    editor().addOperatorNode(MAP);
    editor().newPipeline();
    expect(canUndo(editor().history)).toBe(false);
  });

  it('keeps unrelated edits apart even when quick', () => {
    editor().addOperatorNode(MAP);
    editor().updateSettings({ name: 'a' });
    editor().updateSettings({ parallelism: 2 });
    editor().undo();
    expect(editor().settings.name).toBe('a');
    expect(COALESCE_MS).toBeGreaterThan(0);
  });
});

describe('permissions of a loaded pipeline', () => {
  it('allows everything on a new pipeline and only what the server granted on a loaded one', async () => {
    const { mayDo } = await import('./editorStore');
    expect(mayDo(editor(), 'run')).toBe(true);
    editor().loadPipeline(savedPipelineOf({ id: 1, name: 'shared', version: 1, permissions: ['view', 'run'], owner: 'bob' }));
    expect(mayDo(editor(), 'run')).toBe(true);
    expect(mayDo(editor(), 'edit')).toBe(false);
    editor().loadPipeline(savedPipelineOf({ id: 2, name: 'mine', version: 1, permissions: ['own'] }));
    expect(mayDo(editor(), 'edit')).toBe(true);
  });
});
