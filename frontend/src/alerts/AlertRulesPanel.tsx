import { useCallback, useEffect, useState } from 'react';
import { api, rowsOf } from '../api/client';
import type { AlertRule, Delivery } from '../api/operations';
import type { PipelineSummary } from '../api/types';
import { paths } from '../router';
import { describeAttempts, describeRule } from '../state/shared/alertRules';
import { Link } from '../ui/Link';
import { StatusBadge } from '../ui/StatusBadge';
import { AlertRuleDialog } from './AlertRuleDialog';

function messageOf(failure: unknown): string {
  return failure instanceof Error ? failure.message : String(failure);
}

const DELIVERY_TONE = { PENDING: 'active', DELIVERED: 'success', FAILED: 'danger' } as const;
const DELIVERY_POLL_MS = 2000;

/** A rule's webhook deliveries, newest first, with every attempt; followed while one is pending. */
function Deliveries({ rule, generation }: { rule: AlertRule; generation: number }) {
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () =>
      api.alertRuleDeliveries(rule.id).then(
        (list) => {
          if (stopped) return;
          setDeliveries(list);
          setError(null);
          if (list.some((delivery) => delivery.status === 'PENDING')) timer = setTimeout(load, DELIVERY_POLL_MS);
        },
        (failure: unknown) => !stopped && setError(messageOf(failure)),
      );
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [rule.id, generation]);
  if (error) return <p className="error-text">Could not load the deliveries: {error}</p>;
  if (deliveries === null) return <p className="muted">Loading deliveries…</p>;
  if (!rule.webhook_url && deliveries.length === 0) return <p className="muted" data-testid="alert-deliveries">This rule has no webhook: its firings are notifications only.</p>;
  if (deliveries.length === 0) return <p className="muted" data-testid="alert-deliveries">No delivery yet: the webhook is called when the rule fires (or on Test).</p>;
  return (
    <table className="data-table alert-deliveries" data-testid="alert-deliveries">
      <thead>
        <tr>
          <th>When</th>
          <th>Status</th>
          <th>Attempts</th>
          <th>To</th>
          <th>What</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((delivery) => (
          <tr key={delivery.id} data-testid="alert-delivery" data-status={delivery.status}>
            <td>{new Date(delivery.created_at).toLocaleString()}</td>
            <td>
              <StatusBadge tone={DELIVERY_TONE[delivery.status ?? 'PENDING']}>{delivery.status ?? 'PENDING'}</StatusBadge>
            </td>
            <td>{describeAttempts(delivery)}</td>
            <td className="alert-deliveries__url">{delivery.url}</td>
            <td>{String((delivery.payload as { message?: unknown } | null)?.message ?? '')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Alert rules, of one pipeline (the run page's tab) or of every pipeline the user may see (the
 * Alert rules page): each in one sentence, switched on and off in place, changed in a dialog,
 * fired once as a test, and its webhook's deliveries listed under it.
 */
export function AlertRulesPanel({ pipelineId }: { pipelineId: number | null }) {
  const [rules, setRules] = useState<AlertRule[] | null>(null);
  const [pipelines, setPipelines] = useState<PipelineSummary[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<AlertRule | 'new' | null>(null);
  const [shown, setShown] = useState<number | null>(null);
  const [tested, setTested] = useState<Record<number, string>>({});
  const [generation, setGeneration] = useState(0);

  const reload = useCallback(async () => {
    try {
      setRules(await api.listAlertRules(pipelineId ?? undefined));
      setError(null);
    } catch (failure) {
      setError(messageOf(failure));
    }
  }, [pipelineId]);
  useEffect(() => {
    void reload();
  }, [reload]);
  useEffect(() => {
    if (pipelineId !== null) return;
    api.listPipelines().then((answer) => setPipelines(rowsOf<PipelineSummary>(answer)), () => undefined);
  }, [pipelineId]);
  const pipelineName = (id: number) => pipelines.find((pipeline) => pipeline.id === id)?.name ?? `pipeline ${id}`;

  async function toggle(rule: AlertRule) {
    const enabled = !rule.enabled;
    // shown at once, as a checkbox does; put back if the server refuses
    setRules((list) => list?.map((other) => (other.id === rule.id ? { ...other, enabled } : other)) ?? list);
    try {
      await api.updateAlertRule(rule.id, { enabled });
    } catch (failure) {
      setError(messageOf(failure));
    }
    await reload();
  }
  async function test(rule: AlertRule) {
    try {
      const notifications = await api.testAlertRule(rule.id);
      const told = `${notifications.length} notification${notifications.length === 1 ? '' : 's'} sent (see Alerts in the top bar)`;
      setTested((all) => ({ ...all, [rule.id]: rule.webhook_url ? `${told}; webhook delivery queued below` : told }));
      if (rule.webhook_url) setShown(rule.id);
      setGeneration((value) => value + 1);
    } catch (failure) {
      setTested((all) => ({ ...all, [rule.id]: `Test failed: ${messageOf(failure)}` }));
    }
  }
  async function remove(rule: AlertRule) {
    if (!window.confirm(`Delete the alert rule “${rule.name}” and its deliveries?`)) return;
    try {
      await api.deleteAlertRule(rule.id);
      await reload();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  return (
    <section className="alert-rules" aria-label="Alert rules" data-testid="alert-rules">
      <div className="alert-rules__heading">
        <p className="muted">
          {pipelineId === null ? 'Rules watch every run of their pipeline' : 'Rules of this pipeline watch all its runs'}; when one fires you get a
          notification under Alerts in the top bar, and its webhook a POST.
        </p>
        <button type="button" className="button button--primary" data-testid="alert-rule-new" onClick={() => setEditing('new')}>
          New rule
        </button>
      </div>
      {error && <p className="error-text" data-testid="alert-rules-error">{error}</p>}
      {rules === null && !error && <p className="muted">Loading…</p>}
      {rules !== null && rules.length === 0 && (
        <p className="muted" data-testid="alert-rules-empty">
          No alert rule yet. Create one to hear when a run fails, restarts, or its checkpoints fail or slow down.
        </p>
      )}
      {rules !== null && rules.length > 0 && (
        <table className="data-table alert-rules__table">
          <thead>
            <tr>
              <th>On</th>
              <th>Name</th>
              {pipelineId === null && <th>Pipeline</th>}
              <th>Fires when</th>
              <th>Webhook</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) => (
              <RuleRow key={rule.id} rule={rule} pipeline={pipelineId === null ? pipelineName(rule.pipeline) : null} tested={tested[rule.id]}
                deliveriesShown={shown === rule.id} generation={generation}
                onToggle={() => void toggle(rule)} onEdit={() => setEditing(rule)} onTest={() => void test(rule)}
                onDeliveries={() => setShown(shown === rule.id ? null : rule.id)} onDelete={() => void remove(rule)} />
            ))}
          </tbody>
        </table>
      )}
      {editing !== null && (
        <AlertRuleDialog rule={editing === 'new' ? null : editing} pipelineId={pipelineId} pipelines={pipelines} onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void reload();
          }} />
      )}
    </section>
  );
}

function RuleRow(props: {
  rule: AlertRule;
  pipeline: string | null;
  tested: string | undefined;
  deliveriesShown: boolean;
  generation: number;
  onToggle: () => void;
  onEdit: () => void;
  onTest: () => void;
  onDeliveries: () => void;
  onDelete: () => void;
}) {
  const { rule, pipeline, tested, deliveriesShown, generation } = props;
  const columns = pipeline === null ? 5 : 6;
  return (
    <>
      <tr data-testid="alert-rule" data-rule={rule.id} className={rule.enabled ? undefined : 'is-off'}>
        <td>
          <input type="checkbox" data-testid="alert-rule-toggle" aria-label={`${rule.name}: on`} checked={rule.enabled ?? true} onChange={props.onToggle} />
        </td>
        <td className="alert-rules__name">{rule.name}</td>
        {pipeline !== null && (
          <td>
            <Link to={paths.pipeline(rule.pipeline)}>{pipeline}</Link>
          </td>
        )}
        <td data-testid="alert-rule-condition">{describeRule(rule)}</td>
        <td className="alert-rules__webhook">{rule.webhook_url || <span className="muted">none</span>}</td>
        <td className="alert-rules__actions">
          <button type="button" className="link-button" data-testid="alert-rule-edit" onClick={props.onEdit}>
            edit
          </button>
          <button type="button" className="link-button" data-testid="alert-rule-test" onClick={props.onTest}>
            test
          </button>
          <button type="button" className="link-button" data-testid="alert-rule-deliveries" aria-expanded={deliveriesShown} onClick={props.onDeliveries}>
            deliveries
          </button>
          <button type="button" className="link-button" data-testid="alert-rule-delete" onClick={props.onDelete}>
            delete
          </button>
        </td>
      </tr>
      {tested && (
        <tr className="alert-rules__note">
          <td colSpan={columns} data-testid="alert-rule-tested" className={tested.startsWith('Test failed') ? 'error-text' : undefined}>
            {tested}
          </td>
        </tr>
      )}
      {deliveriesShown && (
        <tr className="alert-rules__deliveries">
          <td colSpan={columns}>
            <Deliveries rule={rule} generation={generation} />
          </td>
        </tr>
      )}
    </>
  );
}
