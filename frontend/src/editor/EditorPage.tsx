import { ReactFlowProvider } from '@xyflow/react';
import { EditorToolbar } from './EditorToolbar';
import { Inspector } from './Inspector';
import { Palette } from './Palette';
import { PipelineCanvas } from './PipelineCanvas';
import { ProblemsPanel } from './ProblemsPanel';
import { useLiveValidation } from './useLiveValidation';
import { usePipelineLoader } from './usePipelineLoader';

/** The pipeline editor: "/" for a new pipeline, "/pipelines/<id>" for a saved one. */
export function EditorPage({ pipelineId }: { pipelineId: number | null }) {
  const load = usePipelineLoader(pipelineId);
  useLiveValidation(!load.loading && !load.error);

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
        <div className="editor-body">
          <Palette />
          <div className="editor-center">
            {load.loading ? <div className="canvas canvas--loading">Loading pipeline…</div> : <PipelineCanvas />}
            <ProblemsPanel />
          </div>
          <Inspector />
        </div>
      </main>
    </ReactFlowProvider>
  );
}
