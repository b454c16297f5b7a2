import { describe, expect, it } from 'vitest';
import { newPipelineSettings } from '../shared/definition';
import { canRedo, canUndo, COALESCE_MS, EMPTY_HISTORY, HISTORY_LIMIT, record, redo, undo, type Snapshot } from './history';

function snap(name: string): Snapshot {
  return { settings: newPipelineSettings(name), nodes: [], edges: [] };
}

describe('history', () => {
  it('undoes and redoes in order, the current state going onto the other stack', () => {
    let history = record(EMPTY_HISTORY, snap('a'), null, 0);
    history = record(history, snap('b'), null, 10);
    expect(canUndo(history)).toBe(true);
    expect(canRedo(history)).toBe(false);
    const first = undo(history, snap('c'))!;
    expect(first.snapshot.settings.name).toBe('b');
    const second = undo(first.history, first.snapshot)!;
    expect(second.snapshot.settings.name).toBe('a');
    expect(undo(second.history, second.snapshot)).toBeNull();
    const again = redo(second.history, second.snapshot)!;
    expect(again.snapshot.settings.name).toBe('b');
    expect(redo(again.history, again.snapshot)!.snapshot.settings.name).toBe('c');
  });

  it('coalesces a quick stream of edits with the same key into one step', () => {
    let history = record(EMPTY_HISTORY, snap('typed-0'), 'param:x', 0);
    history = record(history, snap('typed-1'), 'param:x', 300);
    history = record(history, snap('typed-2'), 'param:x', 600);
    expect(history.past).toHaveLength(1);
    expect(undo(history, snap('now'))!.snapshot.settings.name).toBe('typed-0');
  });

  it('starts a new step after a pause, for another key, or for an unkeyed edit', () => {
    let history = record(EMPTY_HISTORY, snap('a'), 'param:x', 0);
    history = record(history, snap('b'), 'param:x', COALESCE_MS + 1);
    history = record(history, snap('c'), 'param:y', COALESCE_MS + 2);
    history = record(history, snap('d'), null, COALESCE_MS + 3);
    history = record(history, snap('e'), null, COALESCE_MS + 4);
    expect(history.past.map((entry) => entry.snapshot.settings.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('drops the redo stack on a new edit, and never coalesces into an undone stream', () => {
    let history = record(EMPTY_HISTORY, snap('a'), 'k', 0);
    const back = undo(history, snap('b'))!;
    history = record(back.history, snap('a'), 'k', 10);
    expect(canRedo(history)).toBe(false);
    expect(history.past).toHaveLength(1);
  });

  it('forgets the oldest steps beyond the limit', () => {
    let history = EMPTY_HISTORY;
    for (let index = 0; index < HISTORY_LIMIT + 5; index += 1) history = record(history, snap(`s${index}`), null, index);
    expect(history.past).toHaveLength(HISTORY_LIMIT);
    expect(history.past[0].snapshot.settings.name).toBe('s5');
  });
});
