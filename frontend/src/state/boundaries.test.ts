import { describe, expect, it } from 'vitest';

/**
 * The state modules in three rooms: `editor/` (the pipeline being drawn), `run/` (a run being
 * watched) and `shared/` (what both pages read: graph shapes, the definition ⇄ graph mapping, the
 * catalog, formatting). Shared imports neither room, and neither room imports the other.
 */
const sources = import.meta.glob<string>(['./**/*.ts', '!./**/*.test.ts'], { query: '?raw', import: 'default', eager: true });

function roomOf(path: string): string {
  return path.split('/')[1];
}

/** Each module's imports of another state room, as "editor/x.ts → run/y". */
function crossings(allowed: (from: string, to: string) => boolean): string[] {
  const found: string[] = [];
  for (const [path, text] of Object.entries(sources)) {
    const from = roomOf(path);
    for (const match of text.matchAll(/from\s+'(\.\.\/(editor|run|shared)\/[^']+)'/g)) {
      if (!allowed(from, match[2])) found.push(`${path.slice(2)} → ${match[1].slice(3)}`);
    }
  }
  return found;
}

describe('the state rooms', () => {
  it('holds every state module in editor/, run/ or shared/', () => {
    const rooms = new Set(Object.keys(sources).map(roomOf));
    expect(Object.keys(sources).length).toBeGreaterThan(30);
    expect([...rooms].sort()).toEqual(['editor', 'run', 'shared']);
  });

  it('keeps shared/ free of the editor and the run, and the editor and the run apart', () => {
    expect(crossings((from, to) => from === to || to === 'shared')).toEqual([]);
  });
});
