import { describe, expect, it } from 'vitest';
import { startingNotice, startupNote, startupReason } from './startup';

describe("what a starting run says it waits for", () => {
  it('says the first run after the studio started waits for Spark, and how long that takes', () => {
    expect(startingNotice('SCHEDULING', { driver: 'warm', spark: 'starting' })).toMatch(/^Waiting for Spark to start: .*after the studio starts.*about 10 s; later runs start in about a second/);
    expect(startingNotice('CREATED', null)).toBe("Starting the run's driver…");
    expect(startingNotice('SCHEDULING', { driver: 'warm', spark: 'ready' })).toBe('Starting the job on Spark…');
    expect(startingNotice('CREATED', { driver: 'cold', spark: 'starting' })).toMatch(/no warm driver was free/);
  });

  it('says nothing once the run runs, but keeps why it was slow to start', () => {
    expect(startingNotice('RUNNING', { driver: 'warm', spark: 'starting' })).toBeNull();
    expect(startingNotice(null, null)).toBeNull();
    expect(startupNote('RUNNING', { driver: 'warm', spark: 'starting' })).toBe('waited for Spark to start');
    expect(startupReason({ driver: 'warm', spark: 'starting' })).toBe('This run waited for Spark to start: its driver was still getting ready.');
    expect(startupNote('RUNNING', { driver: 'cold', spark: 'starting' })).toBe('started its own Spark session');
    expect(startupReason({ driver: 'cold', spark: 'starting' })).toMatch(/no warm driver was free/);
    expect(startupReason({ driver: 'warm', spark: 'ready' })).toBeNull();
    expect(startupNote('FINISHED', { driver: 'warm', spark: 'ready' })).toBeNull();
    expect(startupNote('SCHEDULING', { driver: 'warm', spark: 'starting' })).toBeNull();
  });

  it('says a run of the shared session waits for its application, or for slots other runs hold', () => {
    expect(startingNotice('SCHEDULING', { driver: 'session', spark: 'ready' })).toBe('Starting the job in the shared session…');
    expect(startingNotice('SCHEDULING', { driver: 'session', spark: 'starting' })).toMatch(/shared session's Spark application to start/);
    expect(startingNotice('SCHEDULING', { driver: 'session', spark: 'ready' }, { region: 'r0', slots: 2, capacity: 1 })).toBe(
      'Waiting for 2 slots of the shared session (1 free now): other runs hold them, or the executors it asked for are still starting. It starts as soon as they are there; runs wait in turn.');
    expect(startingNotice('RUNNING', { driver: 'session', spark: 'ready' }, { region: 'r0', slots: 2, capacity: 1 })).toBeNull();
    expect(startupNote('RUNNING', { driver: 'session', spark: 'starting' })).toBe("waited for the session's Spark");
    expect(startupReason({ driver: 'session', spark: 'starting' })).toBe("This run waited for the shared session's Spark application to start.");
  });
});
