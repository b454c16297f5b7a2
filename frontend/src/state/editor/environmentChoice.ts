/**
 * The environment the editor executes its pipeline in: whose parameters fill the definition's
 * `${param:…}` (and with them the user's `${secret:…}`) in validation, a preview, a test run, Run and
 * Deploy. None means the definition as written. Not part of the definition, so not undoable and not
 * saved with it: remembered per saved pipeline in this browser (localStorage), and a draft's choice
 * goes with it when it is first saved.
 *
 * The choices are the environments the user may use (`GET /api/environments?usable=true`). A
 * remembered environment that is not among them any more (deleted, no longer the user's) is dropped
 * when they arrive, and `dropped` says which, so the editor can say so instead of failing later.
 */
import { create } from 'zustand';
import type { Environment } from '../../api/environments';

export const STORAGE_PREFIX = 'studio.editor.environment.';

function storageKey(pipelineId: number): string {
  return `${STORAGE_PREFIX}${pipelineId}`;
}

/** The environment remembered for a saved pipeline (null: none, or storage unavailable). */
export function rememberedEnvironment(pipelineId: number | null): string | null {
  if (pipelineId === null) return null;
  try {
    return window.localStorage.getItem(storageKey(pipelineId)) || null;
  } catch {
    return null; // storage refused (private mode, a policy): nothing is remembered
  }
}

function remember(pipelineId: number | null, name: string | null): void {
  if (pipelineId === null) return;
  try {
    if (name) window.localStorage.setItem(storageKey(pipelineId), name);
    else window.localStorage.removeItem(storageKey(pipelineId));
  } catch {
    // not remembered; the choice still holds for this page
  }
}

export interface EnvironmentChoiceState {
  /** The pipeline the choice is for (null: the unsaved draft). */
  pipelineId: number | null;
  /** The chosen environment's name; null: none, the definition as written. */
  selected: string | null;
  /** The environments the user may use, null until they came. */
  choices: Environment[] | null;
  /** Why the choices could not be listed. */
  loadError: string | null;
  /** A remembered environment that is no longer among the choices (it was dropped). */
  dropped: string | null;

  /** The editor shows `pipelineId` (null: a new draft): its remembered choice. */
  open: (pipelineId: number | null) => void;
  choose: (name: string | null) => void;
  choicesLoaded: (choices: Environment[]) => void;
  choicesFailed: (message: string) => void;
  /** The draft was saved as `pipelineId`: its choice is remembered for it. */
  saved: (pipelineId: number) => void;
}

/** `selected` when it is among `choices` (or they are not known yet); else none, and which was dropped. */
function checked(selected: string | null, choices: Environment[] | null): { selected: string | null; dropped: string | null } {
  if (selected === null || choices === null || choices.some((choice) => choice.name === selected)) return { selected, dropped: null };
  return { selected: null, dropped: selected };
}

export const useEnvironmentChoice = create<EnvironmentChoiceState>()((set, get) => ({
  pipelineId: null,
  selected: null,
  choices: null,
  loadError: null,
  dropped: null,

  open: (pipelineId) => {
    const state = get();
    if (pipelineId === state.pipelineId) return; // the same pipeline (just saved, or the draft come back to)
    const found = checked(rememberedEnvironment(pipelineId), state.choices);
    if (found.dropped !== null) remember(pipelineId, null);
    set({ pipelineId, ...found });
  },

  choose: (name) => {
    remember(get().pipelineId, name);
    set({ selected: name, dropped: null });
  },

  choicesLoaded: (choices) => {
    const { selected, pipelineId } = get();
    const found = checked(selected, choices);
    if (found.dropped !== null) remember(pipelineId, null);
    set({ choices, loadError: null, ...found });
  },

  choicesFailed: (loadError) => set({ loadError }),

  saved: (pipelineId) => {
    const state = get();
    if (state.pipelineId === pipelineId) return;
    remember(pipelineId, state.selected);
    set({ pipelineId });
  },
}));

/** The environment requests name now (null: none). */
export function chosenEnvironment(): string | null {
  return useEnvironmentChoice.getState().selected;
}

/** A chosen environment's parameters in one line, for a tooltip: "count = 10, factor = 2". */
export function parametersLine(environment: Pick<Environment, 'parameters'> | undefined): string {
  const entries = Object.entries(environment?.parameters ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return 'no parameters';
  return entries.map(([name, value]) => `${name} = ${typeof value === 'string' ? value : JSON.stringify(value)}`).join(', ');
}

/** Whose values something runs (or ran) with, in words: "with environment dev's values". */
export function valuesText(environment: string | null | undefined): string {
  return environment ? `with environment ${environment}'s values` : 'with no environment: the definition as written';
}
