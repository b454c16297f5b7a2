import { Panel, useReactFlow } from '@xyflow/react';
import { useRef, type ChangeEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { currentDefinition, useEditorStore, type EditorState } from '../state/editor/editorStore';
import { useEditorViewStore, type EditorViewState } from '../state/editor/editorViewStore';
import { canRedo, canUndo } from '../state/editor/history';
import { exportFileName, exportText, parseImportedDefinition } from '../state/editor/importExport';
import { classNames } from '../ui/classNames';

const selectEditing = (state: EditorState) => ({
  canUndo: canUndo(state.history),
  canRedo: canRedo(state.history),
  hasSelection: state.nodes.some((node) => node.selected) || state.edges.some((edge) => edge.selected),
  hasNodeSelection: state.nodes.some((node) => node.selected),
  canPaste: state.clipboard !== null,
  empty: state.nodes.length === 0,
});

const selectPlan = (state: EditorViewState) => ({ planEnabled: state.planEnabled, planStatus: state.planStatus });
const FIT = { padding: 0.2, maxZoom: 1, duration: 200 };
const mod = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl+';

function exportDefinition() {
  const state = useEditorStore.getState();
  const definition = currentDefinition(state);
  const url = URL.createObjectURL(new Blob([exportText(definition)], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = exportFileName(definition.name, state.version);
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function importDefinition(event: ChangeEvent<HTMLInputElement>) {
  const file = event.target.files?.[0];
  event.target.value = '';
  if (!file) return;
  const result = parseImportedDefinition(await file.text());
  if (!result.ok) {
    useEditorStore.setState({ notice: `Could not import ${file.name}: ${result.message}` });
    return;
  }
  useEditorStore.getState().replaceDefinition(result.definition);
  useEditorStore.setState({ notice: `Imported ${file.name}; Undo takes it back, Save keeps it.` });
}

function ToolButton({ testId, label, shortcut, disabled, pressed, onClick, children }: {
  testId: string;
  label: string;
  shortcut?: string;
  disabled?: boolean;
  pressed?: boolean;
  onClick: () => void;
  children: string;
}) {
  return (
    <button
      type="button"
      data-testid={testId}
      className={classNames('tool-button', pressed && 'is-pressed')}
      title={shortcut ? `${label} (${shortcut})` : label}
      aria-label={label}
      aria-pressed={pressed}
      disabled={disabled}
      onClick={onClick}
    >
      {children}
    </button>
  );
}

/** Editing commands over the canvas: undo/redo, clipboard, delete, layout, fit, plan overlay, import and export. */
export function CanvasToolbar() {
  const editing = useEditorStore(useShallow(selectEditing));
  const { planEnabled, planStatus } = useEditorViewStore(useShallow(selectPlan));
  const { fitView } = useReactFlow();
  const store = useEditorStore.getState;
  const fileInput = useRef<HTMLInputElement>(null);

  return (
    <Panel position="top-left" className="canvas-toolbar" aria-label="Canvas tools">
      <ToolButton testId="undo" label="Undo" shortcut={`${mod}Z`} disabled={!editing.canUndo} onClick={() => store().undo()}>
        ↶ Undo
      </ToolButton>
      <ToolButton testId="redo" label="Redo" shortcut={`${mod}Shift+Z`} disabled={!editing.canRedo} onClick={() => store().redo()}>
        ↷ Redo
      </ToolButton>
      <span className="tool-separator" />
      <ToolButton testId="copy" label="Copy" shortcut={`${mod}C`} disabled={!editing.hasNodeSelection} onClick={() => store().copy()}>
        Copy
      </ToolButton>
      <ToolButton testId="paste" label="Paste" shortcut={`${mod}V`} disabled={!editing.canPaste} onClick={() => store().paste()}>
        Paste
      </ToolButton>
      <ToolButton testId="duplicate" label="Duplicate" shortcut={`${mod}D`} disabled={!editing.hasNodeSelection} onClick={() => store().duplicate()}>
        Duplicate
      </ToolButton>
      <ToolButton testId="delete-selection" label="Delete the selection" shortcut="Delete" disabled={!editing.hasSelection} onClick={() => store().deleteSelection()}>
        Delete
      </ToolButton>
      <span className="tool-separator" />
      <ToolButton
        testId="auto-layout"
        label="Arrange the graph left to right"
        disabled={editing.empty}
        onClick={() => {
          store().autoLayout();
          requestAnimationFrame(() => void fitView(FIT));
        }}
      >
        Auto-layout
      </ToolButton>
      <ToolButton testId="fit-view" label="Fit the graph into view" onClick={() => void fitView(FIT)}>
        Fit
      </ToolButton>
      <ToolButton
        testId="plan-toggle"
        label="Colour nodes by pipelined region and show the schedule"
        pressed={planEnabled}
        onClick={() => {
          const view = useEditorViewStore.getState();
          view.setPlanEnabled(!planEnabled);
          if (!planEnabled) view.setPanel('plan');
        }}
      >
        {planEnabled && planStatus === 'loading' ? 'Plan…' : 'Plan'}
      </ToolButton>
      <span className="tool-separator" />
      <ToolButton testId="import" label="Load a definition from a JSON file into the editor" onClick={() => fileInput.current?.click()}>
        Import
      </ToolButton>
      <input ref={fileInput} type="file" accept="application/json,.json" data-testid="import-file" hidden onChange={(event) => void importDefinition(event)} />
      <ToolButton testId="export" label="Download the definition as JSON" onClick={exportDefinition}>
        Export
      </ToolButton>
    </Panel>
  );
}
