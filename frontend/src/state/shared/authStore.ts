/**
 * Who is logged in. `unknown` until GET /api/auth/me answered; `anonymous` when it said 401/403;
 * `unsupported` when the studio has no auth endpoints (every page works without a login then).
 */
import { create } from 'zustand';
import { api, ApiError } from '../../api/client';
import type { User } from '../../api/types';

export type AuthStatus = 'unknown' | 'authenticated' | 'anonymous' | 'unsupported';

export interface AuthState {
  status: AuthStatus;
  user: User | null;
  check: () => Promise<void>;
  loggedIn: (user: User) => void;
  loggedOut: () => void;
}

export const useAuthStore = create<AuthState>()((set) => ({
  status: 'unknown',
  user: null,
  check: async () => {
    try {
      set({ status: 'authenticated', user: await api.me() });
    } catch (error) {
      const status = error instanceof ApiError ? error.status : 0;
      if (status === 401 || status === 403) set({ status: 'anonymous', user: null });
      else set({ status: 'unsupported', user: null });
    }
  },
  loggedIn: (user) => set({ status: 'authenticated', user }),
  loggedOut: () => set({ status: 'anonymous', user: null }),
}));
