/**
 * The operations side of the API (savepoint schedules, alerts, live taps), typed from the
 * generated schema (schema.gen.ts, `make api-types`): these types follow the server by
 * construction instead of by hand.
 */
import type { components } from './schema.gen';

type Schemas = components['schemas'];
export type Schedule = Schemas['Schedule'];
export type ScheduleRequest = Schemas['ScheduleRequest'];
export type AlertRule = Schemas['AlertRule'];
export type AlertRuleRequest = Schemas['AlertRuleRequest'];
export type Notification = Schemas['Notification'];
export type Delivery = Schemas['Delivery'];
export type Tap = Schemas['Tap'];
export type TapRequest = Schemas['TapRequest'];

/** What ws/notifications/ sends. */
export type NotificationMessage =
  | { type: 'unread'; unread: number }
  | { type: 'notification'; notification: Notification; unread: number };

/** What a tap's socket sends: records are [JSON text, cut short] pairs. */
export type TapMessage =
  | { type: 'opened'; tap: string; edge: string }
  | { type: 'records'; task: string; records: Array<[string, boolean]>; dropped: number; ts: number };

/** The WebSocket URL of a server path, on the page's origin. */
export function socketUrl(path: string, origin: Pick<Location, 'protocol' | 'host'> = window.location): string {
  return `${origin.protocol === 'https:' ? 'wss' : 'ws'}://${origin.host}${path}`;
}

export type SuiteRun = Schemas['SuiteRun'];
export type SuiteRunListItem = Schemas['SuiteRunList'];
export type Proof = Schemas['Proof'];
export type TestBadge = Schemas['Badge'];
