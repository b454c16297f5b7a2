import '../styles/dataIn.css';
import '../styles/environments.css';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { APPROVAL_ROLES, environments, type ApprovalRole, type Environment } from '../api/environments';
import EnvironmentCard from './EnvironmentCard';
import { readNumber } from '../state/shared/numberInput';
import { messageOf } from './messages';
import { OwnerSelect } from './OwnerSelect';
import PromotionsSection from './PromotionsSection';
import SecretsSection from './SecretsSection';

/** A new environment: its name, its place in the promotion order, and who approves promotions into it: a user
 * holding a team role (or a stronger one) on the promoted pipeline, never the user who asked. */
function EnvironmentForm({ next, onSaved }: { next: number; onSaved: () => void }) {
  const [name, setName] = useState('');
  const [position, setPosition] = useState<string>('');
  const [approval, setApproval] = useState(false);
  const [approvalRole, setApprovalRole] = useState<ApprovalRole>('operator');
  const [team, setTeam] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function save(event: FormEvent) {
    event.preventDefault();
    setError(null);
    const order = position.trim() === '' ? { value: next, problem: null } : readNumber(position, { integer: true, min: 0, max: 2 ** 31 - 1 });
    if (order.value === null) {
      setError(`Order: ${order.problem}`);
      return;
    }
    try {
      await environments.create({ name: name.trim(), position: order.value, requires_approval: approval, approval_role: approvalRole, team });
      setName('');
      setPosition('');
      setApproval(false);
      setApprovalRole('operator');
      onSaved();
    } catch (failure) {
      setError(messageOf(failure));
    }
  }

  return (
    <form className="connection-form" data-testid="environment-form" onSubmit={(event) => void save(event)}>
      <h2>New environment</h2>
      <div className="connection-form__row">
        <label className="form-field">
          <span className="form-field__label">Name</span>
          <input className="input" data-testid="environment-name" value={name} placeholder="prod" onChange={(event) => setName(event.target.value)} />
        </label>
        <label className="form-field">
          <span className="form-field__label">Order</span>
          <input className="input" type="number" min={0} data-testid="environment-position" value={position} placeholder={String(next)} onChange={(event) => setPosition(event.target.value)} />
        </label>
        <OwnerSelect value={team} onChange={setTeam} testId="environment-owner" what="environment" />
        <label className="form-field form-field--inline">
          <input type="checkbox" data-testid="environment-requires-approval" checked={approval} onChange={(event) => setApproval(event.target.checked)} />
          <span>promotions need an approval</span>
        </label>
        <label className="form-field" title="Who decides a promotion into it: a member holding this role (or a stronger one) on the pipeline, through its team or a team it is shared with; never the user who asked">
          <span className="form-field__label">Approved by (team role on the pipeline)</span>
          <select className="input" data-testid="environment-approval-role" value={approvalRole} disabled={!approval} onChange={(event) => setApprovalRole(event.target.value as ApprovalRole)}>
            {APPROVAL_ROLES.map((role) => (
              <option key={role} value={role}>
                {role} or stronger
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="connection-form__actions">
        <button type="submit" className="button button--primary" data-testid="environment-save" disabled={!name.trim()}>
          Create environment
        </button>
      </div>
      {error && <p className="error-text" data-testid="environment-error">{error}</p>}
    </form>
  );
}

/** Environments (their parameters, what runs in them), promotions from one to the next, and secrets. */
export function EnvironmentsPage() {
  const [list, setList] = useState<Environment[]>([]);
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(() => {
    environments.list().then(setList, (failure: unknown) => setError(messageOf(failure)));
  }, []);
  useEffect(refresh, [refresh]);
  const next = list.filter((environment) => environment.mine).reduce((top, environment) => Math.max(top, (environment.position ?? 0) + 1), 0);

  return (
    <main className="list-page environments-page" data-testid="environments-page">
      <div className="list-page__heading">
        <h1>Environments</h1>
      </div>
      <p className="muted">
        A definition names <code>{'${param:name}'}</code> where environments differ; a run started in an environment takes its values. A version moves
        from one environment to the next by promotion; where an environment asks for it, a second user approves. A team&apos;s environments are
        used with the team&apos;s pipelines by its editors and up, and changed by its admins.
      </p>
      {error && <p className="error-text">{error}</p>}
      <div className="environment-cards">
        {list.map((environment) => (
          <EnvironmentCard key={environment.id} environment={environment} onChanged={refresh} />
        ))}
      </div>
      <EnvironmentForm next={next} onSaved={refresh} />
      <PromotionsSection environmentList={list} onChanged={refresh} />
      <SecretsSection />
    </main>
  );
}
