import { useState, type ReactNode } from 'react';
import { api, ApiError } from '../api/client';
import type { AlertRule } from '../api/operations';
import type { PipelineSummary } from '../api/types';
import { ALERT_KINDS, KIND_ORDER, emptyForm, formOf, requestOf, type AlertKind, type FormProblem, type RuleForm } from '../state/shared/alertRules';
import { Dialog } from '../ui/Dialog';

/** The server's refusal at the fields it names: its rule problems (`errors`) and its field errors (`fields`). */
export function problemsOf(failure: unknown): FormProblem[] {
  if (failure instanceof ApiError && (failure.problems.length || failure.fields.length)) {
    return [...failure.problems.map((problem) => ({ field: problem.field ?? '', message: problem.message })), ...failure.fields];
  }
  return [{ field: '', message: failure instanceof Error ? failure.message : String(failure) }];
}

/**
 * A new rule, or changes to one: what it watches (the threshold in the kind's own unit), whom it
 * tells (the bell always, a webhook if given), and whether it is on. The server checks it again
 * and its answer is shown at the field it names.
 */
export function AlertRuleDialog(props: {
  rule: AlertRule | null;
  pipelineId: number | null;
  pipelines: PipelineSummary[];
  onSaved: (rule: AlertRule) => void;
  onClose: () => void;
}) {
  const { rule, pipelineId, pipelines, onSaved, onClose } = props;
  const [form, setForm] = useState<RuleForm>(() => (rule ? formOf(rule) : emptyForm(pipelineId)));
  const [problems, setProblems] = useState<FormProblem[]>([]);
  const [busy, setBusy] = useState(false);
  const info = ALERT_KINDS[form.kind];
  const set = (change: Partial<RuleForm>) => setForm((current) => ({ ...current, ...change }));
  const problemAt = (field: string) => problems.find((problem) => problem.field === field)?.message;
  const elsewhere = problems.filter((problem) => !['pipeline', 'name', 'threshold', 'duration_s', 'vertex', 'webhook_url'].includes(problem.field));

  function chooseKind(kind: AlertKind) {
    set({ kind, threshold: ALERT_KINDS[kind].threshold?.initial ?? '', duration_s: ALERT_KINDS[kind].sustained ? '30' : '' });
  }

  async function save() {
    const { request, problems: found } = requestOf(form);
    setProblems(found);
    if (!request) return;
    setBusy(true);
    try {
      onSaved(rule ? await api.updateAlertRule(rule.id, request) : await api.createAlertRule(request));
    } catch (failure) {
      setProblems(problemsOf(failure));
      setBusy(false);
    }
  }

  const field = (name: string, label: string, control: ReactNode, help?: string) => (
    <label className="form-field">
      <span className="form-field__label">{label}</span>
      {control}
      {help && <span className="form-field__help">{help}</span>}
      {problemAt(name) && (
        <span className="error-text" data-testid={`alert-rule-problem-${name}`}>
          {problemAt(name)}
        </span>
      )}
    </label>
  );

  return (
    <Dialog label={rule ? `Edit alert rule ${rule.name}` : 'New alert rule'} testId="alert-rule-dialog" onClose={onClose}>
      <h2>{rule ? `Edit alert rule “${rule.name}”` : 'New alert rule'}</h2>
      <p className="muted">
        The rule watches every run of its pipeline. When its condition starts to hold, you (and the pipeline's owner) get a notification under
        Alerts in the top bar, and its webhook, if it has one, gets the same as JSON.
      </p>
      {pipelineId === null &&
        field(
          'pipeline',
          'Pipeline',
          <select className="input" data-testid="alert-rule-pipeline" value={form.pipeline ?? ''} disabled={rule !== null}
            onChange={(event) => set({ pipeline: event.target.value ? Number(event.target.value) : null })}>
            <option value="">Choose a pipeline…</option>
            {pipelines.map((pipeline) => (
              <option key={pipeline.id} value={pipeline.id}>
                {pipeline.name}
              </option>
            ))}
          </select>,
        )}
      {field('name', 'Name', <input className="input" data-testid="alert-rule-name" value={form.name} placeholder="e.g. page me when it fails"
        onChange={(event) => set({ name: event.target.value })} />)}
      {field(
        'kind',
        'Fires when',
        <select className="input" data-testid="alert-rule-kind" value={form.kind} onChange={(event) => chooseKind(event.target.value as AlertKind)}>
          {KIND_ORDER.map((kind) => (
            <option key={kind} value={kind}>
              {ALERT_KINDS[kind].label}
            </option>
          ))}
        </select>,
      )}
      {info.threshold &&
        field(
          'threshold',
          `${info.threshold.label} (${info.threshold.unit})`,
          <input className="input is-number" data-testid="alert-rule-threshold" inputMode="decimal" value={form.threshold}
            onChange={(event) => set({ threshold: event.target.value })} />,
        )}
      {info.sustained &&
        field(
          'duration_s',
          'For at least (seconds)',
          <input className="input is-number" data-testid="alert-rule-duration" inputMode="numeric" value={form.duration_s} placeholder="0"
            onChange={(event) => set({ duration_s: event.target.value })} />,
          'Every metrics sample in that time must be over the threshold; 0 fires on the first one.',
        )}
      {info.target &&
        field(
          'vertex',
          info.sustained ? 'Operator' : 'Node or edge',
          <input className="input" data-testid="alert-rule-vertex" value={form.vertex} placeholder={info.target}
            onChange={(event) => set({ vertex: event.target.value })} />,
          info.sustained
            ? 'The id of the first operator of a chain, as the run graph shows it; empty watches every one.'
            : 'The id of a node or edge with expectations; empty watches every one. Counted once 50 records were checked.',
        )}
      {field(
        'webhook_url',
        'Webhook (optional)',
        <input className="input" data-testid="alert-rule-webhook" value={form.webhook_url} placeholder="https://…"
          onChange={(event) => set({ webhook_url: event.target.value })} />,
        'Each firing is POSTed there as JSON, retried with backoff; the deliveries are listed under the rule.',
      )}
      <label className="checkbox-label">
        <input type="checkbox" data-testid="alert-rule-enabled" checked={form.enabled} onChange={(event) => set({ enabled: event.target.checked })} />
        On: evaluate it on every run
      </label>
      {elsewhere.map((problem) => (
        <p key={problem.field + problem.message} className="error-text" data-testid="alert-rule-error">
          {problem.field ? `${problem.field}: ` : ''}
          {problem.message}
        </p>
      ))}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
        <button type="button" className="button button--primary" data-testid="alert-rule-save" disabled={busy} onClick={() => void save()}>
          {busy ? 'Saving…' : rule ? 'Save changes' : 'Create rule'}
        </button>
      </div>
    </Dialog>
  );
}
