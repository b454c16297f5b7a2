import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { PipelineDefinition, Run } from '../api/types';

export interface RunDefinition {
  definition: PipelineDefinition | null;
  /** Set when the graph shown is not the version that runs. */
  note: string | null;
}

/**
 * The definition a run executes. The run carries it when the server includes it; otherwise
 * it comes from the pipeline, which is right as long as no newer version was saved.
 */
export function useRunDefinition(run: Run | null): RunDefinition {
  const [result, setResult] = useState<RunDefinition>({ definition: null, note: null });
  const pipelineId = run?.pipeline;
  const version = run?.version;
  const embedded = run?.definition;
  // A run's version never changes, so neither does its definition: refreshed copies of the
  // run must not rebuild the graph.
  const hasEmbedded = embedded !== undefined;
  useEffect(() => {
    if (embedded) {
      setResult({ definition: embedded, note: null });
      return;
    }
    if (pipelineId === undefined) return;
    let cancelled = false;
    api
      .getPipeline(pipelineId)
      .then((pipeline) => {
        if (cancelled) return;
        const note = pipeline.version === version ? null : `Showing the latest version v${pipeline.version}; this run uses v${version}.`;
        setResult({ definition: pipeline.definition, note });
      })
      .catch((error: unknown) => {
        if (!cancelled) setResult({ definition: null, note: `Could not load the pipeline graph: ${error instanceof Error ? error.message : String(error)}` });
      });
    return () => {
      cancelled = true;
    };
  }, [pipelineId, version, hasEmbedded]);
  return result;
}
