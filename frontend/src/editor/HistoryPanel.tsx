import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { api } from '../api/client';
import type { PipelineDefinition, VersionSummary } from '../api/types';
import { diffDefinitions, diffGraph, isEmptyDiff } from '../state/editor/diff';
import { currentDefinition, isDirty, useEditorStore, type EditorState } from '../state/editor/editorStore';
import { useEditorViewStore } from '../state/editor/editorViewStore';
import { TestBadges, useTestBadges } from './TestBadges';

const DRAFT = 'draft';
const selectHistory = (state: EditorState) => ({ pipelineId: state.pipelineId, version: state.version, dirty: isDirty(state) });

type Load = { state: 'loading' } | { state: 'failed'; message: string } | { state: 'ready'; versions: VersionSummary[] };

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function formatWhen(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

async function definitionOf(pipelineId: number, which: string): Promise<PipelineDefinition> {
  if (which === DRAFT) return currentDefinition(useEditorStore.getState());
  return (await api.getVersion(pipelineId, Number(which))).definition;
}

const label = (which: string) => (which === DRAFT ? 'draft' : `v${which}`);

/** Saved versions of the pipeline: compare any two (or one with the draft) on the canvas, restore one. */
export function HistoryPanel() {
  const { pipelineId, version, dirty } = useEditorStore(useShallow(selectHistory));
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [from, setFrom] = useState<string>('');
  const [to, setTo] = useState<string>(DRAFT);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<number | null>(null);
  const badges = useTestBadges(pipelineId, version);

  useEffect(() => {
    if (pipelineId === null) return;
    let cancelled = false;
    setLoad({ state: 'loading' });
    api.listVersions(pipelineId).then(
      (versions) => {
        if (cancelled) return;
        setLoad({ state: 'ready', versions });
        const newest = versions[0]?.number;
        const previous = versions[1]?.number;
        setFrom((current) => current || String(previous ?? newest ?? ''));
        setTo((current) => current || DRAFT);
      },
      (error: unknown) => !cancelled && setLoad({ state: 'failed', message: messageOf(error) }),
    );
    return () => {
      cancelled = true;
    };
  }, [pipelineId, version]);

  if (pipelineId === null) {
    return (
      <div className="inspector-body">
        <p className="muted">Save the pipeline to start its version history. Each save is a new version with its message.</p>
      </div>
    );
  }

  async function showDiff() {
    if (pipelineId === null || !from || !to) return;
    setBusy(true);
    setNote(null);
    try {
      const [before, after] = await Promise.all([definitionOf(pipelineId, from), definitionOf(pipelineId, to)]);
      const diff = diffDefinitions(before, after);
      if (isEmptyDiff(diff)) setNote(`${label(from)} and ${label(to)} define the same pipeline.`);
      useEditorViewStore.getState().showDiff({ fromLabel: label(from), toLabel: label(to), diff, graph: diffGraph(before, after, diff) });
    } catch (error) {
      setNote(`Could not compare: ${messageOf(error)}`);
    } finally {
      setBusy(false);
    }
  }

  async function restore(number: number) {
    if (pipelineId === null) return;
    setBusy(true);
    setNote(null);
    try {
      const pipeline = await api.rollback(pipelineId, number, `Restore v${number}`);
      useEditorViewStore.getState().showDiff(null);
      useEditorStore.getState().loadPipeline(pipeline);
      setNote(`Restored v${number} as v${pipeline.version}.`);
    } catch (error) {
      setNote(`Could not restore v${number}: ${messageOf(error)}`);
    } finally {
      setBusy(false);
      setConfirming(null);
    }
  }

  const versions = load.state === 'ready' ? load.versions : [];
  return (
    <div className="inspector-body history-panel" data-testid="history-panel">
      <div className="compare-row">
        <select className="input" data-testid="diff-from" aria-label="Compare from" value={from} onChange={(event) => setFrom(event.target.value)}>
          {versions.map((entry) => (
            <option key={entry.number} value={String(entry.number)}>
              v{entry.number}
            </option>
          ))}
        </select>
        <span>→</span>
        <select className="input" data-testid="diff-to" aria-label="Compare to" value={to} onChange={(event) => setTo(event.target.value)}>
          <option value={DRAFT}>draft{dirty ? ' (unsaved)' : ''}</option>
          {versions.map((entry) => (
            <option key={entry.number} value={String(entry.number)}>
              v{entry.number}
            </option>
          ))}
        </select>
        <button type="button" className="button" data-testid="diff-show" disabled={busy || !from} onClick={() => void showDiff()}>
          Diff
        </button>
      </div>
      {note && (
        <p className="muted" role="status" data-testid="history-note">
          {note}
        </p>
      )}
      {load.state === 'loading' && <p className="muted">Loading versions…</p>}
      {load.state === 'failed' && <p className="error-text">Could not load versions: {load.message}</p>}
      <ol className="version-list">
        {versions.map((entry) => (
          <li key={entry.number} data-testid="version-row" data-version={entry.number} className={entry.number === version ? 'is-current' : undefined}>
            <div className="version-row__head">
              <strong>v{entry.number}</strong>
              {entry.number === version && <span className="count-pill">current</span>}
              <span className="muted version-row__when">{formatWhen(entry.created_at)}</span>
              <TestBadges badge={badges[entry.number]} />
            </div>
            <div className="version-row__message">{entry.message || <span className="muted">no message</span>}</div>
            {entry.created_by && <div className="muted version-row__by">by {entry.created_by}</div>}
            <div className="version-row__actions">
              <button type="button" className="link-button" onClick={() => { setFrom(String(entry.number)); setTo(DRAFT); }}>
                compare with draft
              </button>
              {entry.number !== version &&
                (confirming === entry.number ? (
                  <>
                    <button type="button" className="link-button danger" data-testid="restore-confirm" disabled={busy} onClick={() => void restore(entry.number)}>
                      restore as a new version{dirty ? ' (drops unsaved edits)' : ''}
                    </button>
                    <button type="button" className="link-button" onClick={() => setConfirming(null)}>
                      keep
                    </button>
                  </>
                ) : (
                  <button type="button" className="link-button" data-testid="restore-version" onClick={() => setConfirming(entry.number)}>
                    restore…
                  </button>
                ))}
            </div>
          </li>
        ))}
      </ol>
    </div>
  );
}
