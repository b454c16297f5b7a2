/**
 * A tiny router over the History API. Routes are data (parseRoute is pure); navigate()
 * pushes or replaces a URL and tells the subscribed pages.
 */
import { useSyncExternalStore } from 'react';

export type Route =
  | { page: 'editor'; pipelineId: number | null }
  | { page: 'pipelines' }
  | { page: 'run'; runId: number }
  | { page: 'login' }
  | { page: 'tokens' }
  | { page: 'not-found'; path: string };

export function parseRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/') return { page: 'editor', pipelineId: null };
  if (path === '/pipelines') return { page: 'pipelines' };
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

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  window.dispatchEvent(new Event(NAVIGATED));
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATED, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(NAVIGATED, onChange);
  };
}

function currentPath(): string {
  return window.location.pathname;
}

export function usePathname(): string {
  return useSyncExternalStore(subscribe, currentPath);
}
