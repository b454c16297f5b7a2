// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canRun, useEditorStore } from '../state/editor/editorStore';
import type { OperatorNode } from '../state/shared/graph';
import { ProblemsPanel } from './ProblemsPanel';

const NODES: OperatorNode[] = [
  { id: 'lines', type: 'operator', position: { x: 0, y: 0 }, data: { type: 'source.file', params: { path: 'in/*.csv' } } },
  { id: 'out', type: 'operator', position: { x: 200, y: 0 }, data: { type: 'sink.collect', params: {} } },
];
const NO_FILE = { node: 'lines', edge: null, field: 'params.path', message: 'no file matches in/*.csv (yet)' };

describe('ProblemsPanel: warnings', () => {
  beforeEach(() => {
    useEditorStore.getState().newPipeline();
    useEditorStore.setState({ nodes: NODES, edges: [] });
  });
  afterEach(cleanup);

  it('lists a warning beside the problems, selects its node on click, and leaves Run allowed', () => {
    const editor = useEditorStore.getState();
    editor.validationFinished(editor.revision, [], true, [NO_FILE]);
    render(<ProblemsPanel />);
    const warning = screen.getByTestId('warning');
    expect(warning.textContent).toContain('no file matches in/*.csv (yet)');
    expect(warning.textContent).toContain('lines');
    expect(screen.getByText(/the run may fail for the warnings above/)).toBeTruthy();
    fireEvent.click(warning.querySelector('button') as HTMLButtonElement);
    expect(useEditorStore.getState().nodes.find((node) => node.id === 'lines')?.selected).toBe(true);
    expect(canRun(useEditorStore.getState())).toBe(true);
  });

  it('drops the warning when the next validation has none', () => {
    const editor = useEditorStore.getState();
    editor.validationFinished(editor.revision, [], true, [NO_FILE]);
    editor.validationFinished(editor.revision, [], true);
    render(<ProblemsPanel />);
    expect(screen.queryByTestId('warning')).toBeNull();
    expect(screen.getByText('No problems.')).toBeTruthy();
  });
});
