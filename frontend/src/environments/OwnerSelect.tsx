import { useEffect, useState } from 'react';
import { teams, type Team } from '../api/teams';

/** The teams you are an admin of: where you may keep an environment or a secret for the whole team. */
export function useAdminTeams(): Team[] {
  const [found, setFound] = useState<Team[]>([]);
  useEffect(() => {
    let cancelled = false;
    teams.list().then(
      (listed) => !cancelled && setFound(listed.filter((team) => team.role === 'admin')),
      () => !cancelled && setFound([]),
    );
    return () => {
      cancelled = true;
    };
  }, []);
  return found;
}

/**
 * Who is to own what is made: you (null) or one of the teams you are an admin of. A team's environment or secret is
 * used in the team's pipelines by its editors and up, and changed only by its admins; the choice is made once.
 */
export function OwnerSelect({ value, onChange, testId, what }: { value: number | null; onChange: (team: number | null) => void; testId: string; what: string }) {
  const adminOf = useAdminTeams();
  if (adminOf.length === 0) return null;
  return (
    <label className="form-field" title={`A team's ${what} is used in the team's pipelines by its editors, operators and admins, and changed only by its admins`}>
      <span className="form-field__label">Owner</span>
      <select className="input" data-testid={testId} value={value ?? ''} onChange={(event) => onChange(event.target.value === '' ? null : Number(event.target.value))}>
        <option value="">you</option>
        {adminOf.map((team) => (
          <option key={team.id} value={team.id}>
            team {team.name}
          </option>
        ))}
      </select>
    </label>
  );
}
