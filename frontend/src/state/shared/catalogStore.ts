/** The operator catalog from GET /api/operators, loaded once and shared by every page. */
import { create } from 'zustand';
import { api } from '../../api/client';
import type { Operator } from '../../api/types';

export type CatalogStatus = 'idle' | 'loading' | 'ready' | 'failed';

export interface CatalogState {
  status: CatalogStatus;
  operators: Operator[];
  byType: Record<string, Operator>;
  error: string | null;
  setOperators: (operators: Operator[]) => void;
  load: () => Promise<void>;
}

export function indexOperators(operators: Operator[]): Record<string, Operator> {
  return Object.fromEntries(operators.map((operator) => [operator.type, operator]));
}

export const useCatalogStore = create<CatalogState>()((set, get) => ({
  status: 'idle',
  operators: [],
  byType: {},
  error: null,
  setOperators: (operators) => set({ status: 'ready', operators, byType: indexOperators(operators), error: null }),
  load: async () => {
    if (get().status === 'loading' || get().status === 'ready') return;
    set({ status: 'loading', error: null });
    try {
      get().setOperators(await api.listOperators());
    } catch (error) {
      set({ status: 'failed', error: error instanceof Error ? error.message : String(error) });
    }
  },
}));

/** The catalog entry of an operator type, outside React. */
export function operatorOf(type: string): Operator | undefined {
  return useCatalogStore.getState().byType[type];
}
