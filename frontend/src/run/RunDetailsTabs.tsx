import { useState } from 'react';
import type { PipelineDefinition } from '../api/types';
import { useRunStore } from '../state/run/runStore';
import { classNames } from '../ui/classNames';
import { CollectedPanel } from './CollectedPanel';
import { ExceptionsPanel } from './ExceptionsPanel';

type Tab = 'records' | 'exceptions';

/** The run page's lower panel: collected records, and the exceptions history (its count on the tab). */
export function RunDetailsTabs({ definition }: { definition: PipelineDefinition | null }) {
  const [tab, setTab] = useState<Tab>('records');
  const failures = useRunStore((state) => state.exceptions.length);
  const restarts = useRunStore((state) => state.restarts.length);
  const tabs: Array<[Tab, string]> = [
    ['records', 'Collected records'],
    ['exceptions', `Exceptions (${failures})${restarts ? ` · ${restarts} restart${restarts === 1 ? '' : 's'}` : ''}`],
  ];
  return (
    <section className="panel collected-panel" aria-label="Run details">
      <div className="panel-tabs panel-tabs--heading" role="tablist">
        {tabs.map(([name, label]) => (
          <button
            key={name}
            type="button"
            role="tab"
            aria-selected={tab === name}
            data-testid={`run-tab-${name}`}
            className={classNames('sidebar-tab', tab === name && 'is-active', name === 'exceptions' && failures > 0 && 'has-failures')}
            onClick={() => setTab(name)}
          >
            {label}
          </button>
        ))}
      </div>
      {tab === 'records' ? <CollectedPanel definition={definition} /> : <ExceptionsPanel />}
    </section>
  );
}
