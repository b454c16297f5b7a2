// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Router = typeof import('./router');

/** The popstate listeners of the routers imported so far: each test's is removed after it. */
const listeners: EventListenerOrEventListenerObject[] = [];

/** The router fresh (its listener and its memory of the history), on `path` with one page before it. */
async function freshRouter(path: string): Promise<Router> {
  window.history.replaceState(null, '', '/pipelines/');
  window.history.pushState(null, '', path);
  vi.resetModules();
  const added = vi.spyOn(window, 'addEventListener');
  const router = await import('./router');
  for (const [type, listener] of added.mock.calls) if (type === 'popstate') listeners.push(listener);
  added.mockRestore();
  return router;
}

/** Back, then `moves` history moves in all: the Back itself and the router's own (1 when the user stays, 2 when the router goes on back). */
async function back(moves: 1 | 2): Promise<void> {
  let seen = 0;
  const done = new Promise<void>((resolve) => {
    const onPop = () => {
      seen += 1;
      if (seen === moves) {
        window.removeEventListener('popstate', onPop);
        setTimeout(resolve, 0); // after the router's own listener
      }
    };
    window.addEventListener('popstate', onPop);
  });
  window.history.back();
  await done;
}

const WARNING = 'This pipeline has unsaved changes. Leave and lose them?';
let asked: string[] = [];

function answer(stay: boolean) {
  vi.stubGlobal('confirm', (message: string) => {
    asked.push(`${message} @ ${window.location.pathname}`);
    return !stay;
  });
}

beforeEach(() => {
  asked = [];
});
afterEach(() => {
  vi.unstubAllGlobals();
  for (const listener of listeners.splice(0)) window.removeEventListener('popstate', listener);
});

describe('Back while the editor holds unsaved edits', () => {
  it('asks before the address changes, and staying keeps the page and asks again next time', async () => {
    const router = await freshRouter('/pipelines/3');
    router.setLeaveGuard(() => WARNING);
    router.holdBack();
    answer(true);
    await back(1);
    expect(asked).toEqual([`${WARNING} @ /pipelines/3`]);
    expect(window.location.pathname).toBe('/pipelines/3');
    await back(1);
    expect(asked).toHaveLength(2);
    expect(window.location.pathname).toBe('/pipelines/3');
  });

  it('goes where Back was going once the user says so', async () => {
    const router = await freshRouter('/pipelines/3');
    router.setLeaveGuard(() => WARNING);
    router.holdBack();
    answer(false);
    await back(2);
    expect(asked).toEqual([`${WARNING} @ /pipelines/3`]);
    expect(window.location.pathname).toBe('/pipelines/');
    expect(router.isLeaving()).toBe(false);
  });

  it('goes back without asking once the edits are saved, in one press', async () => {
    const router = await freshRouter('/pipelines/3');
    let unsaved = true;
    router.setLeaveGuard(() => (unsaved ? WARNING : null));
    router.holdBack();
    unsaved = false;
    answer(true);
    await back(2);
    expect(asked).toEqual([]);
    expect(window.location.pathname).toBe('/pipelines/');
  });

  it('returns from a new pipeline saved under its new address to the page before it, not to a blank draft', async () => {
    const router = await freshRouter('/');
    router.setLeaveGuard(() => WARNING);
    router.holdBack();
    router.navigate('/pipelines/9', { replace: true }); // the first save
    expect(window.location.pathname).toBe('/pipelines/9');
    answer(true);
    await back(1);
    expect(asked).toEqual([`${WARNING} @ /pipelines/9`]);
    expect(window.location.pathname).toBe('/pipelines/9');
    answer(false);
    await back(2);
    expect(window.location.pathname).toBe('/pipelines/');
  });

  it('lets a link replace the held copy, so that Back from the next page returns to the editor', async () => {
    const router = await freshRouter('/pipelines/3');
    router.holdBack();
    router.navigate('/runs/4');
    expect(window.location.pathname).toBe('/runs/4');
    answer(false);
    await back(1);
    expect(window.location.pathname).toBe('/pipelines/3');
    expect(asked).toEqual([]);
  });
});
