import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { PipelineMode } from '../api/types';
import { canRun, isDirty, mayDo, useEditorStore, type EditorState } from '../state/editor/editorStore';
import { Dialog } from '../ui/Dialog';
import { IntegerInput } from '../ui/IntegerInput';
import { classNames } from '../ui/classNames';
import { useEnvironmentChoice, valuesText } from '../state/editor/environmentChoice';
import { EnvironmentPicker } from './EnvironmentPicker';
import { accessNotice, PipelineLinks } from './PipelineAccess';
import { runPipeline, savePipeline } from './pipelineActions';
import { UpgradeDialog } from './UpgradeDialog';

const selectToolbar = (state: EditorState) => ({
  name: state.settings.name,
  mode: state.settings.mode,
  parallelism: state.settings.parallelism,
  intervalMs: state.settings.checkpointing?.interval_ms,
  updateSettings: state.updateSettings,
  setCheckpointInterval: state.setCheckpointInterval,
});

const selectStatus = (state: EditorState) => ({
  pipelineId: state.pipelineId,
  version: state.version,
  dirty: isDirty(state),
  runnable: canRun(state),
  saveState: state.saveState,
  saveMessage: state.saveMessage,
  validation: state.validation,
  pending: state.validatedRevision !== state.revision,
  problemCount: state.problems.all.length,
  validationMessage: state.validationMessage,
  mayEdit: mayDo(state, 'edit'),
  mayRun: mayDo(state, 'run'),
  owner: state.owner,
  role: state.role,
  roleTeam: state.roleTeam,
});

type ToolbarStatus = ReturnType<typeof selectStatus>;

function saveStatusText(status: ToolbarStatus): string {
  if (status.saveState === 'saving') return 'Saving…';
  if (status.saveState === 'failed') return `Save failed: ${status.saveMessage ?? 'unknown error'}`;
  if (status.pipelineId === null) return 'Draft, never saved';
  if (status.dirty) return `Edited since v${status.version}`;
  return `Saved · v${status.version}`;
}

function validationText(status: ToolbarStatus): { text: string; tone: string } {
  if (status.pending || status.validation === 'checking' || status.validation === 'idle') return { text: 'Checking…', tone: 'neutral' };
  if (status.validation === 'unavailable') return { text: 'Validation unavailable', tone: 'warning' };
  if (status.validation === 'valid') return { text: 'Valid', tone: 'success' };
  const count = status.problemCount;
  return { text: count === 1 ? '1 problem' : `${count} problems`, tone: 'danger' };
}

/** Run with unsaved edits: they are saved as a new version first, with the message asked for here. */
function SaveAndRunDialog({ initial, onRun, onClose }: { initial: string; onRun: (message: string) => void; onClose: () => void }) {
  const [text, setText] = useState(initial);
  return (
    <Dialog label="Save and run" testId="save-and-run-dialog" onClose={onClose}>
      <h2>Save and run</h2>
      <p className="muted">The pipeline has unsaved changes: they become a new version, and the run starts from it.</p>
      <label className="form-field">
        <span className="form-field__label">Version message</span>
        <input
          autoFocus
          className="input"
          data-testid="run-version-message"
          placeholder="what changed"
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') onRun(text);
          }}
        />
      </label>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="button button--primary" data-testid="save-and-run" onClick={() => onRun(text)}>
          Save and run
        </button>
      </div>
    </Dialog>
  );
}

/** The editor's header: pipeline settings, validation summary, import/export, Save (with a message) and Run. */
export function EditorToolbar() {
  const { name, mode, parallelism, intervalMs, updateSettings, setCheckpointInterval } = useEditorStore(useShallow(selectToolbar));
  const status = useEditorStore(useShallow(selectStatus));
  const environment = useEnvironmentChoice((state) => state.selected);
  const [starting, setStarting] = useState(false);
  const [message, setMessage] = useState('');
  const validation = validationText(status);
  const saving = status.saveState === 'saving';

  const [askingMessage, setAskingMessage] = useState(false);
  const [upgrading, setUpgrading] = useState(false);

  async function run(versionMessage = '') {
    setAskingMessage(false);
    setStarting(true);
    try {
      if (await runPipeline(versionMessage)) setMessage('');
    } finally {
      setStarting(false);
    }
  }

  /** Unsaved edits become a version first: ask for its message, as Save does. */
  function onRun() {
    if (status.pipelineId === null || status.dirty) setAskingMessage(true);
    else void run();
  }

  return (
    <div className="toolbar">
      <div className="toolbar-group toolbar-group--name">
        <input
          data-testid="pipeline-name"
          className="input pipeline-name"
          aria-label="Pipeline name"
          placeholder="pipeline name"
          value={name}
          onChange={(event) => updateSettings({ name: event.target.value })}
        />
      </div>
      <PipelineLinks />
      <label className="toolbar-field">
        <span>Mode</span>
        <select
          data-testid="pipeline-mode"
          className="input"
          title="batch: bounded input only; blocking exchanges, no checkpoints, and a running aggregate emits each key's final value once instead of every update"
          value={mode}
          onChange={(event) => updateSettings({ mode: event.target.value as PipelineMode })}
        >
          <option value="streaming">streaming</option>
          <option value="batch">batch</option>
        </select>
      </label>
      <label className="toolbar-field">
        <span>Parallelism</span>
        <IntegerInput
          data-testid="pipeline-parallelism"
          className="input--narrow"
          value={parallelism}
          min={1}
          onCommit={(value) => value !== undefined && updateSettings({ parallelism: value })}
        />
      </label>
      <label className="toolbar-field" title="How often the running pipeline takes a checkpoint">
        <span>Checkpoint</span>
        <IntegerInput
          data-testid="checkpoint-interval"
          className="input--medium"
          value={intervalMs}
          min={1}
          onCommit={(value) => value !== undefined && setCheckpointInterval(value)}
        />
        <span className="unit">ms</span>
      </label>

      <div className="toolbar-spacer" />
      <EnvironmentPicker />
      <div className="editor-status" role="status">
        <span data-testid="validation-status" className={`validation-summary tone-${validation.tone}`} title={status.validationMessage ?? undefined}>
          {validation.text}
        </span>
        <span data-testid="save-status" className={classNames('save-status', status.saveState === 'failed' && 'error-text')} title={saveStatusText(status)}>
          {saveStatusText(status)}
        </span>
      </div>
      <input
        data-testid="save-message"
        className="input save-message"
        aria-label="Version message"
        placeholder="version message"
        value={message}
        onChange={(event) => setMessage(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !saving) void savePipeline(message).then((saved) => saved && setMessage(''));
        }}
      />
      <button
        type="button"
        data-testid="save"
        className="button"
        disabled={saving || (status.pipelineId !== null && !status.dirty) || !status.mayEdit}
        title={status.mayEdit ? undefined : (accessNotice(status) ?? undefined)}
        onClick={() => void savePipeline(message).then((saved) => saved && setMessage(''))}
      >
        Save
      </button>
      <button
        type="button"
        data-testid="run"
        className="button button--primary"
        disabled={!status.runnable || saving || starting || !status.mayRun}
        title={!status.mayRun ? (accessNotice(status) ?? undefined) : status.runnable ? `Save if needed and start a run ${valuesText(environment)}` : 'Fix the problems first'}
        onClick={onRun}
      >
        {starting ? 'Starting…' : 'Run'}
      </button>
      <button
        type="button"
        data-testid="upgrade"
        className="button"
        disabled={status.pipelineId === null || status.dirty || !status.mayRun}
        title={status.dirty ? 'Save first: the saved version is what gets deployed' : 'Deploy a saved version onto the running run, keeping its state (or roll back)'}
        onClick={() => setUpgrading(true)}
      >
        Deploy…
      </button>
      {upgrading && status.pipelineId !== null && status.version !== null && (
        <UpgradeDialog pipelineId={status.pipelineId} latestVersion={status.version} environment={environment} onClose={() => setUpgrading(false)} />
      )}
      {askingMessage && <SaveAndRunDialog initial={message} onRun={(text) => void run(text)} onClose={() => setAskingMessage(false)} />}
    </div>
  );
}
