/** Save and Run: the editor's two calls that change things on the server. */
import { api, ApiError, withEnvironment } from '../api/client';
import type { Pipeline, Run } from '../api/types';
import { navigate, paths } from '../router';
import { currentDefinition, isDirty, useEditorStore } from '../state/editor/editorStore';
import { chosenEnvironment, useEnvironmentChoice } from '../state/editor/environmentChoice';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why a save failed, short enough for the header: the problems are counted (each shows on its node and in the list). */
function saveFailure(error: unknown): string {
  const problems = error instanceof ApiError ? error.problems.length : 0;
  if (problems > 0) return problems === 1 ? '1 problem' : `${problems} problems`;
  return messageOf(error);
}

/**
 * Save the pipeline: create it the first time (the URL then becomes /pipelines/<id>), a new
 * version after that. Returns the saved pipeline, or null when the server refused it; its
 * validation errors then show as problems.
 */
export async function savePipeline(message = ''): Promise<Pipeline | null> {
  const state = useEditorStore.getState();
  const { revision, layoutRevision, pipelineId } = state;
  const definition = currentDefinition(state);
  state.saveStarted();
  try {
    const body = message.trim() ? { name: definition.name, definition, message: message.trim() } : { name: definition.name, definition };
    const pipeline = pipelineId === null ? await api.createPipeline(body) : await api.updatePipeline(pipelineId, body);
    useEditorStore.getState().saveSucceeded(pipeline, revision, layoutRevision);
    useEnvironmentChoice.getState().saved(pipeline.id); // a draft's environment goes with it
    navigate(paths.pipeline(pipeline.id), { replace: true });
    return pipeline;
  } catch (error) {
    useEditorStore.getState().saveFailed(saveFailure(error), error instanceof ApiError ? error.problems : undefined);
    return null;
  }
}

/**
 * Save when needed (with `message` as the new version's), start a run in the pipeline's mode, in the
 * environment chosen in the editor (none: the definition as written), and open its page.
 */
export async function runPipeline(message = ''): Promise<Run | null> {
  let state = useEditorStore.getState();
  if (state.pipelineId === null || isDirty(state)) {
    if (!(await savePipeline(message))) return null;
    state = useEditorStore.getState();
  }
  if (state.pipelineId === null) return null;
  try {
    const run = await api.startRun(state.pipelineId, withEnvironment({ mode: state.settings.mode }, chosenEnvironment()));
    navigate(paths.run(run.id));
    return run;
  } catch (error) {
    useEditorStore.setState({ notice: `Could not start the run: ${messageOf(error)}` });
    return null;
  }
}
