import { ReactFlowProvider } from '@xyflow/react';
import { useEffect } from 'react';
import { useEditorViewStore } from '../state/editor/editorViewStore';
import { useEnvironmentChoice } from '../state/editor/environmentChoice';
import { useTestRunStore } from '../state/editor/testRunStore';
import { EditorSidebar } from './EditorSidebar';
import { EditorToolbar } from './EditorToolbar';
import { AccessNotice } from './PipelineAccess';
import { Palette } from './Palette';
import { PipelineCanvas } from './PipelineCanvas';
import { ProblemsPanel } from './ProblemsPanel';
import { useEditorShortcuts } from './useEditorShortcuts';
import { useLiveValidation } from './useLiveValidation';
import { usePipelineLoader } from './usePipelineLoader';
import { usePlanOverlay } from './usePlanOverlay';
import { useUnsavedChangesPrompt } from './useUnsavedChangesPrompt';

/** The pipeline editor: "/" for a new pipeline, "/pipelines/<id>" for a saved one. */
export function EditorPage({ pipelineId }: { pipelineId: number | null }) {
  const load = usePipelineLoader(pipelineId);
  useLiveValidation(!load.loading && !load.error);
  usePlanOverlay();
  useEditorShortcuts();
  useUnsavedChangesPrompt();
  // Another pipeline: its diff, plan and preview are not this one's.
  useEffect(() => {
    const view = useEditorViewStore.getState();
    view.showDiff(null);
    useTestRunStore.getState().reset();
    useEnvironmentChoice.getState().open(pipelineId); // the environment remembered for it
  }, [pipelineId]);

  if (load.error) {
    return (
      <main className="page-message">
        <h1>Could not open pipeline {pipelineId}</h1>
        <p className="error-text">{load.error}</p>
      </main>
    );
  }
  return (
    <ReactFlowProvider>
      <main className="editor">
        <EditorToolbar />
        <AccessNotice />
        <div className="editor-body">
          <Palette />
          <div className="editor-center">
            {load.loading ? <div className="canvas canvas--loading">Loading pipeline…</div> : <PipelineCanvas />}
            <ProblemsPanel />
          </div>
          <EditorSidebar />
        </div>
      </main>
    </ReactFlowProvider>
  );
}
