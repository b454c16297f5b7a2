/**
 * A tiny router over the History API. Routes are data (parseRoute is pure); navigate()
 * pushes or replaces a URL and tells the subscribed pages.
 */
import { useSyncExternalStore } from 'react';

export type Route =
  | { page: 'editor'; pipelineId: number | null }
  | { page: 'pipelines' }
  | { page: 'jobs' }
  | { page: 'alerts' }
  | { page: 'run'; runId: number }
  | { page: 'state'; runId: number; checkpointId: number }
  | { page: 'shadow'; runId: number; shadowId: number }
  | { page: 'login' }
  | { page: 'tokens' }
  | { page: 'connections' }
  | { page: 'environments' }
  | { page: 'files' }
  | { page: 'teams'; teamId: number | null }
  | { page: 'pipeline-access'; pipelineId: number }
  | { page: 'pipeline-file'; pipelineId: number }
  | { page: 'pipeline-git'; pipelineId: number }
  | { page: 'not-found'; path: string };

export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/') return { page: 'editor', pipelineId: null };
  if (path === '/pipelines') return { page: 'pipelines' };
  if (path === '/jobs') return { page: 'jobs' };
  if (path === '/alerts') return { page: 'alerts' };
  const pipeline = path.match(/^\/pipelines\/(\d+)$/);
  if (pipeline) return { page: 'editor', pipelineId: Number(pipeline[1]) };
  const aside = path.match(/^\/pipelines\/(\d+)\/(access|file|git)$/);
  if (aside) return { page: `pipeline-${aside[2]}` as 'pipeline-access' | 'pipeline-file' | 'pipeline-git', pipelineId: Number(aside[1]) };
  if (path === '/teams') return { page: 'teams', teamId: null };
  const team = path.match(/^\/teams\/(\d+)$/);
  if (team) return { page: 'teams', teamId: Number(team[1]) };
  const run = path.match(/^\/runs\/(\d+)$/);
  if (run) return { page: 'run', runId: Number(run[1]) };
  const state = path.match(/^\/runs\/(\d+)\/checkpoints\/(\d+)\/state$/);
  if (state) return { page: 'state', runId: Number(state[1]), checkpointId: Number(state[2]) };
  const shadow = path.match(/^\/runs\/(\d+)\/shadows\/(\d+)$/);
  if (shadow) return { page: 'shadow', runId: Number(shadow[1]), shadowId: Number(shadow[2]) };
  if (path === '/login') return { page: 'login' };
  if (path === '/tokens') return { page: 'tokens' };
  if (path === '/connections') return { page: 'connections' };
  if (path === '/environments') return { page: 'environments' };
  if (path === '/files') return { page: 'files' };
  return { page: 'not-found', path };
}

export const paths = {
  newPipeline: () => '/',
  // With the slash: the studio serves the app for /pipelines/… and /runs/… paths.
  pipelines: () => '/pipelines/',
  jobs: () => '/jobs',
  alerts: () => '/alerts',
  pipeline: (id: number) => `/pipelines/${id}`,
  run: (id: number) => `/runs/${id}`,
  state: (runId: number, checkpointId: number) => `/runs/${runId}/checkpoints/${checkpointId}/state`,
  shadow: (runId: number, shadowId: number) => `/runs/${runId}/shadows/${shadowId}`,
  login: (next?: string) => (next && next !== '/login' ? `/login?next=${encodeURIComponent(next)}` : '/login'),
  tokens: () => '/tokens',
  connections: () => '/connections',
  environments: () => '/environments',
  files: () => '/files',
  teams: () => '/teams',
  team: (id: number) => `/teams/${id}`,
  pipelineAccess: (id: number) => `/pipelines/${id}/access`,
  pipelineFile: (id: number) => `/pipelines/${id}/file`,
  pipelineGit: (id: number) => `/pipelines/${id}/git`,
};

/** Where to go after logging in: only a path of this app, never another site ("//evil", "https:…"). */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || next.startsWith('/login')) return '/';
  return next;
}

const NAVIGATED = 'studio:navigated';

/** Says why leaving for `to` needs the user's word (unsaved edits), or null when it does not. */
export type LeaveGuard = (to: string) => string | null;
let leaveGuard: LeaveGuard | null = null;

/** Install the page's guard; the returned function removes it (if it is still the one installed). */
export function setLeaveGuard(guard: LeaveGuard): () => void {
  leaveGuard = guard;
  return () => {
    if (leaveGuard === guard) leaveGuard = null;
  };
}

/** Whether the user may leave for `to`: nothing is guarded, or they confirmed. */
export function mayLeave(to: string): boolean {
  const warning = leaveGuard?.(to);
  return !warning || window.confirm(warning);
}

/** Where Back goes is unknown to the page: any other page. */
export const SOMEWHERE_ELSE = 'about:blank';

function here(): string {
  return window.location.pathname + window.location.search;
}

/** The path the app shows: where Back goes again when the user stays. */
let shownPath = typeof window === 'undefined' ? '/' : here();

/** The mark on the copy of the current history entry that holds Back (see holdBack). */
const HELD = 'studio:held';

function isHeld(state: unknown): boolean {
  return typeof state === 'object' && state !== null && (state as Record<string, unknown>)[HELD] === true;
}

/** Whether the top history entry is the held copy of this page. */
let holding = typeof window !== 'undefined' && isHeld(window.history.state);
/** The user confirmed Back: the next pop is where they were going. */
let leaving = false;

/**
 * Hold Back on this page: a copy of the current entry goes on top of the history, so that Back
 * first lands on the same address, where the page asks before anything changes (the address
 * included) and, if the user stays, holds again. The editor calls it on its first unsaved edit.
 */
export function holdBack(): void {
  if (holding || typeof window === 'undefined') return;
  window.history.pushState({ [HELD]: true }, '', here());
  holding = true;
}

/** Whether the user has just confirmed leaving with Back (the page unloads without asking again). */
export function isLeaving(): boolean {
  return leaving;
}

function arrive(): void {
  shownPath = here();
  window.dispatchEvent(new Event(NAVIGATED));
}

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === here()) return;
  if (holding && options.replace) {
    // The page renames itself (a new pipeline saved): the held copy takes the new address, and
    // the entry beneath gets it too when Back reaches it (see onPopState).
    window.history.replaceState({ [HELD]: true }, '', path);
  } else if (holding) {
    // A held copy makes way for the next page: Back from there returns to this page's own entry.
    window.history.replaceState(null, '', path);
    holding = false;
  } else if (options.replace) {
    window.history.replaceState(null, '', path);
  } else {
    window.history.pushState(null, '', path);
  }
  arrive();
}

/**
 * Back and Forward. Off the held copy, the address has not changed (it is put back if an older
 * entry beneath had another): ask, then hold again or go on back. Anywhere else the browser has
 * moved already, so a user who stays is put back where they were.
 */
function onPopState(event: PopStateEvent): void {
  if (leaving) {
    leaving = false;
    arrive();
    return;
  }
  if (holding && !isHeld(event.state)) {
    holding = false;
    if (here() !== shownPath) window.history.replaceState(null, '', shownPath);
    if (!mayLeave(SOMEWHERE_ELSE)) {
      holdBack();
      return;
    }
    leaving = true;
    window.history.back();
    return;
  }
  if (isHeld(event.state) && here() === shownPath) {
    holding = true; // Forward onto this page's held copy: nothing moved
    return;
  }
  if (!mayLeave(here())) {
    window.history.pushState(null, '', shownPath);
    return;
  }
  arrive();
}

if (typeof window !== 'undefined') window.addEventListener('popstate', onPopState);

function subscribe(onChange: () => void): () => void {
  window.addEventListener(NAVIGATED, onChange);
  return () => window.removeEventListener(NAVIGATED, onChange);
}

function currentPath(): string {
  return window.location.pathname;
}

export function usePathname(): string {
  return useSyncExternalStore(subscribe, currentPath);
}
