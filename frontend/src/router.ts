/**
 * A tiny router over the History API. Routes are data (parseRoute is pure); navigate()
 * pushes or replaces a URL and tells the subscribed pages.
 */
import { useSyncExternalStore } from 'react';

export type Route =
  | { page: 'editor'; pipelineId: number | null }
  | { page: 'pipelines' }
  | { page: 'jobs' }
  | { page: 'run'; runId: number }
  | { page: 'login' }
  | { page: 'tokens' }
  | { page: 'not-found'; path: string };

export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/') return { page: 'editor', pipelineId: null };
  if (path === '/pipelines') return { page: 'pipelines' };
  if (path === '/jobs') return { page: 'jobs' };
  const pipeline = path.match(/^\/pipelines\/(\d+)$/);
  if (pipeline) return { page: 'editor', pipelineId: Number(pipeline[1]) };
  const run = path.match(/^\/runs\/(\d+)$/);
  if (run) return { page: 'run', runId: Number(run[1]) };
  if (path === '/login') return { page: 'login' };
  if (path === '/tokens') return { page: 'tokens' };
  return { page: 'not-found', path };
}

export const paths = {
  newPipeline: () => '/',
  // With the slash: the studio serves the app for /pipelines/… and /runs/… paths.
  pipelines: () => '/pipelines/',
  jobs: () => '/jobs',
  pipeline: (id: number) => `/pipelines/${id}`,
  run: (id: number) => `/runs/${id}`,
  login: (next?: string) => (next && next !== '/login' ? `/login?next=${encodeURIComponent(next)}` : '/login'),
  tokens: () => '/tokens',
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

function here(): string {
  return window.location.pathname + window.location.search;
}

/** The path the app shows: where Back goes again when the user stays. */
let shownPath = typeof window === 'undefined' ? '/' : here();

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === here()) return;
  if (options.replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  shownPath = here();
  window.dispatchEvent(new Event(NAVIGATED));
}

/** Back and Forward: the browser has moved already, so a user who stays is put back where they were. */
function onPopState(): void {
  if (!mayLeave(here())) {
    window.history.pushState(null, '', shownPath);
    return;
  }
  shownPath = here();
  window.dispatchEvent(new Event(NAVIGATED));
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
