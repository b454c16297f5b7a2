/** The run page's state (see runState.ts for the transitions) plus the live connection. */
import { create } from 'zustand';
import type { ConnectionState } from '../../api/runSocket';
import { INITIAL_RUN_STATE, type RunState } from './runState';

export interface RunStoreState extends RunState {
  runId: number | null;
  connection: ConnectionState;
  loadError: string | null;
  /** The server no longer lets this user see the run (removed from its team, a share taken away): the page shows
   * nothing of it any more. */
  accessLost: boolean;
  /** The checkpoint whose details are open (null: the newest). */
  selectedCheckpoint: number | null;
  /** The node whose subtasks the drill-down shows (null: closed). */
  selectedNode: string | null;
  /** The rescale this page started: once its new run runs, the page follows the job there. */
  followedRescale: number | null;
  reset: (runId: number) => void;
  selectCheckpoint: (id: number | null) => void;
  selectNode: (id: string | null) => void;
  /** Open the drill-down of node `id`, or close it when it is open. */
  toggleNode: (id: string) => void;
  /** Apply a pure transition of runState.ts. */
  update: (transition: (state: RunState) => RunState) => void;
  setConnection: (connection: ConnectionState) => void;
  setLoadError: (message: string | null) => void;
  /** Forget everything shown of the run: the user may no longer see it. */
  loseAccess: () => void;
  followRescale: (id: number) => void;
}

export const useRunStore = create<RunStoreState>()((set) => ({
  ...INITIAL_RUN_STATE,
  runId: null,
  connection: 'connecting',
  loadError: null,
  accessLost: false,
  selectedCheckpoint: null,
  selectedNode: null,
  followedRescale: null,
  reset: (runId) => set({ ...INITIAL_RUN_STATE, runId, connection: 'connecting', loadError: null, accessLost: false, selectedCheckpoint: null, selectedNode: null, followedRescale: null }),
  selectCheckpoint: (selectedCheckpoint) => set({ selectedCheckpoint }),
  selectNode: (selectedNode) => set({ selectedNode }),
  toggleNode: (id) => set((state) => ({ selectedNode: state.selectedNode === id ? null : id })),
  update: (transition) => set((state) => transition(state)),
  setConnection: (connection) => set({ connection }),
  setLoadError: (loadError) => set({ loadError }),
  loseAccess: () => set((state) => ({ ...INITIAL_RUN_STATE, runId: state.runId, connection: 'closed', accessLost: true, selectedCheckpoint: null, selectedNode: null, followedRescale: null })),
  followRescale: (followedRescale) => set({ followedRescale }),
}));
