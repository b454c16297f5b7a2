/**
 * Alert rules as a person reads and writes them: what each kind watches, its threshold in the
 * unit a person thinks in (a percentage, not a ratio), one sentence per rule, and the form's
 * values turned into the request the server checks.
 */
import type { AlertRule, AlertRuleRequest, Delivery } from '../../api/operations';
import { readNumber } from './numberInput';

export type AlertKind = AlertRule['kind'];

interface KindInfo {
  /** What the rule watches, as the kind picker says it. */
  label: string;
  /** The threshold's field, when the kind has one: its label, unit and bounds in that unit (whole: a count). */
  threshold?: { label: string; unit: string; min: number; max: number; initial: string; whole?: boolean };
  /** Backpressure only: for how long. */
  sustained?: boolean;
  /** Which operator (backpressure) or checked node or edge (violation rate); empty for any. */
  target?: string;
  /** The threshold is a ratio the form shows as a percentage. */
  percent?: boolean;
}

export const ALERT_KINDS: Record<AlertKind, KindInfo> = {
  run_failed: { label: 'A run failed' },
  run_restarted: { label: 'A run restarted after a failure' },
  checkpoint_failures: {
    label: 'Checkpoints failed in a row',
    threshold: { label: 'How many in a row', unit: 'checkpoints', min: 1, max: 10_000, initial: '3', whole: true },
  },
  checkpoint_duration: {
    label: 'A checkpoint took too long',
    threshold: { label: 'Longer than', unit: 'ms', min: 0, max: 86_400_000, initial: '10000' },
  },
  backpressure: {
    label: 'An operator is backpressured',
    threshold: { label: 'Backpressured over', unit: '%', min: 0, max: 100, initial: '80' },
    sustained: true,
    target: 'any operator',
    percent: true,
  },
  violation_rate: {
    label: "An expectation's violation rate is too high",
    threshold: { label: 'Violations over', unit: '% of the records checked', min: 0, max: 100, initial: '5' },
    target: 'any checked node or edge',
    percent: true,
  },
};

export const KIND_ORDER: AlertKind[] = ['run_failed', 'run_restarted', 'checkpoint_failures', 'checkpoint_duration', 'backpressure', 'violation_rate'];

/** A rule in one sentence: "3 checkpoints failed in a row", "backpressured over 80% for 30 s (any vertex)". */
export function describeRule(rule: Pick<AlertRule, 'kind' | 'threshold' | 'duration_s' | 'vertex'>): string {
  const threshold = rule.threshold ?? null;
  switch (rule.kind) {
    case 'run_failed':
      return 'a run failed';
    case 'run_restarted':
      return 'a run restarted after a failure';
    case 'checkpoint_failures':
      return `${threshold ?? 1} checkpoint${threshold === 1 ? '' : 's'} failed in a row`;
    case 'checkpoint_duration':
      return `a checkpoint took longer than ${(threshold ?? 0).toLocaleString()} ms`;
    case 'backpressure': {
      const share = Math.round((threshold ?? 0.5) * 100);
      const duration = rule.duration_s ? ` for ${rule.duration_s} s` : '';
      return `${rule.vertex ? `vertex ${rule.vertex}` : 'any vertex'} backpressured over ${share}%${duration}`;
    }
    case 'violation_rate': {
      const share = Math.round((threshold ?? 0) * 1000) / 10;
      return `an expectation of ${rule.vertex ? `'${rule.vertex}'` : 'any node or edge'} violated by over ${share}% of its records`;
    }
    default:
      return String(rule.kind);
  }
}

/** What the rule form holds: text as typed, the threshold in the kind's own unit. */
export interface RuleForm {
  pipeline: number | null;
  name: string;
  kind: AlertKind;
  threshold: string;
  duration_s: string;
  vertex: string;
  webhook_url: string;
  enabled: boolean;
}

export function emptyForm(pipeline: number | null): RuleForm {
  return { pipeline, name: '', kind: 'run_failed', threshold: '', duration_s: '', vertex: '', webhook_url: '', enabled: true };
}

/** The form of an existing rule (its threshold back in the kind's unit). */
export function formOf(rule: AlertRule): RuleForm {
  const threshold = rule.threshold ?? null;
  const shown = threshold === null ? '' : ALERT_KINDS[rule.kind]?.percent ? String(Math.round(threshold * 1000) / 10) : String(threshold);
  return {
    pipeline: rule.pipeline,
    name: rule.name,
    kind: rule.kind,
    threshold: shown,
    duration_s: rule.duration_s == null ? '' : String(rule.duration_s),
    vertex: rule.vertex ?? '',
    webhook_url: rule.webhook_url ?? '',
    enabled: rule.enabled ?? true,
  };
}

/** A problem of the form, named by its field as the server names them. */
export interface FormProblem {
  field: string;
  message: string;
}

/** The request for the form, or the problems a person can fix before sending it. Its numbers are JSON
 * numbers read from the text as typed (decimal notation only), never the text itself. */
export function requestOf(form: RuleForm): { request: AlertRuleRequest | null; problems: FormProblem[] } {
  const problems: FormProblem[] = [];
  if (form.pipeline === null) problems.push({ field: 'pipeline', message: 'choose the pipeline whose runs the rule watches' });
  if (!form.name.trim()) problems.push({ field: 'name', message: 'give the rule a name' });
  const info = ALERT_KINDS[form.kind];
  let threshold: number | null = null;
  if (info.threshold) {
    const { value } = readNumber(form.threshold, { integer: info.threshold.whole });
    if (value === null) {
      const kind = info.threshold.whole ? 'a whole number of' : 'a number of';
      problems.push({ field: 'threshold', message: `${info.threshold.label.toLowerCase()}: ${kind} ${info.threshold.unit}` });
    } else if (value < info.threshold.min || value > info.threshold.max) {
      problems.push({ field: 'threshold', message: `between ${info.threshold.min} and ${info.threshold.max.toLocaleString()} ${info.threshold.unit}` });
    } else {
      threshold = info.percent ? value / 100 : value;
    }
  }
  let duration: number | null = null;
  if (info.sustained && form.duration_s.trim() !== '') {
    const { value } = readNumber(form.duration_s, { integer: true, min: 0, max: 86_400 });
    if (value === null) problems.push({ field: 'duration_s', message: 'whole seconds, 0 to 86400' });
    else duration = value;
  }
  if (problems.length) return { request: null, problems };
  return {
    request: {
      pipeline: form.pipeline as number,
      name: form.name.trim(),
      kind: form.kind,
      threshold,
      duration_s: info.sustained ? duration : null,
      vertex: info.target ? form.vertex.trim() : '',
      webhook_url: form.webhook_url.trim(),
      enabled: form.enabled,
    },
    problems,
  };
}

/** A delivery's attempts in words: "HTTP 200", "HTTP 500, then HTTP 200", "connection refused". */
export function describeAttempts(delivery: Pick<Delivery, 'attempts'>): string {
  if (!delivery.attempts.length) return 'not tried yet';
  return delivery.attempts.map((attempt) => (attempt.status_code != null ? `HTTP ${attempt.status_code}` : attempt.error ?? 'failed')).join(', then ');
}
