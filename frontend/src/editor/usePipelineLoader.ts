import { useEffect, useState } from 'react';
import { api, ApiError } from '../api/client';
import { useEditorStore } from '../state/editor/editorStore';

export interface PipelineLoad {
  loading: boolean;
  error: string | null;
}

/** Why a pipeline did not open: a 404 is a pipeline that is gone or no longer one's to see (a team removed them). */
function loadError(error: unknown): string {
  if (error instanceof ApiError && error.status === 404) {
    return 'It does not exist, or you may not see it (any more): access comes from its owner, a share, or your role in the team that owns it.';
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Put the pipeline of the URL into the editor: a saved one by id, or a new one at "/".
 * The pipeline already in the editor is kept when it is the one asked for (just saved, or
 * back from its run), and so is an unsaved new pipeline when returning to "/".
 */
export function usePipelineLoader(pipelineId: number | null): PipelineLoad {
  const [load, setLoad] = useState<PipelineLoad>({ loading: false, error: null });
  useEffect(() => {
    const state = useEditorStore.getState();
    if (pipelineId === null) {
      if (state.pipelineId !== null) state.newPipeline();
      setLoad({ loading: false, error: null });
      return;
    }
    if (state.pipelineId === pipelineId) {
      setLoad({ loading: false, error: null });
      return;
    }
    let cancelled = false;
    setLoad({ loading: true, error: null });
    api
      .getPipeline(pipelineId)
      .then((pipeline) => {
        if (cancelled) return;
        useEditorStore.getState().loadPipeline(pipeline);
        setLoad({ loading: false, error: null });
      })
      .catch((error: unknown) => {
        if (!cancelled) setLoad({ loading: false, error: loadError(error) });
      });
    return () => {
      cancelled = true;
    };
  }, [pipelineId]);
  return load;
}
