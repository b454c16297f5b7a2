/**
 * What a run says while it starts: its driver reports (a "startup" event) whether it was a warm
 * driver, started before the click, and whether its Spark session was up yet. The first run after
 * the studio starts waits for Spark (about 10 s); later ones take a warm driver and start in about
 * a second. A person waiting should know which of the two they are in.
 */
import type { RunStatus, StartupEventData } from '../../api/types';

/** What a region of the run waits for in the shared session (its "region" "waiting" event). */
export interface SlotWait {
  region: string;
  slots: number;
  capacity: number;
}

const STARTING: ReadonlySet<RunStatus> = new Set(['CREATED', 'SCHEDULING']);

/** The line the run page shows while the run starts, or null once it runs (or ended). */
export function startingNotice(status: RunStatus | null, startup: StartupEventData | null, slotWait: SlotWait | null = null): string | null {
  if (status === null || !STARTING.has(status)) return null;
  if (slotWait !== null) {
    return `Waiting for ${slotWait.slots} slot${slotWait.slots === 1 ? '' : 's'} of the shared session (${slotWait.capacity} free now): other runs hold them, or the executors it asked for are still starting. It starts as soon as they are there; runs wait in turn.`;
  }
  if (startup === null) return "Starting the run's driver…";
  if (startup.driver === 'session') {
    return startup.spark === 'ready' ? 'Starting the job in the shared session…' : "Waiting for the shared session's Spark application to start (about 10 s, once after the studio starts).";
  }
  if (startup.spark === 'ready') return 'Starting the job on Spark…';
  if (startup.driver === 'warm') {
    return 'Waiting for Spark to start: the driver taking this run is still getting ready, as after the studio starts or just after another run took the ready one. This takes about 10 s; later runs start in about a second.';
  }
  return 'Starting a Spark session for this run, as no warm driver was free (about 10 s): runs started while another one starts take longer.';
}

/**
 * After the start: that it took longer than a second, short enough for the header's line beside the start time
 * (the whole line was cut there at 1280 px), or null when it did not wait for Spark. `startupReason` says why.
 */
export function startupNote(status: RunStatus | null, startup: StartupEventData | null): string | null {
  if (status === null || STARTING.has(status) || startup?.spark !== 'starting') return null;
  if (startup.driver === 'session') return "waited for the session's Spark";
  return startup.driver === 'warm' ? 'waited for Spark to start' : 'started its own Spark session';
}

/** Why a run that waited for Spark waited: the note's title. */
export function startupReason(startup: StartupEventData | null): string | null {
  if (startup?.spark !== 'starting') return null;
  if (startup.driver === 'session') return "This run waited for the shared session's Spark application to start.";
  return startup.driver === 'warm'
    ? 'This run waited for Spark to start: its driver was still getting ready.'
    : 'This run started its own Spark session: no warm driver was free.';
}
