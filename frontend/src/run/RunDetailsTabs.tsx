import { useEffect, useRef, useState, type ReactNode } from 'react';
import { AlertRulesPanel } from '../alerts/AlertRulesPanel';
import type { PipelineDefinition } from '../api/types';
import { useRunStore } from '../state/run/runStore';
import { classNames } from '../ui/classNames';
import { CollectedPanel } from './CollectedPanel';
import { ExceptionsPanel } from './ExceptionsPanel';
import { NodeDrillDown } from './NodeDrillDown';
import { SchedulePanel } from './SchedulePanel';
import { TapPanel } from './TapPanel';

type Tab = 'records' | 'exceptions' | 'subtasks' | 'tap' | 'schedules' | 'alerts';

/**
 * The run page's lower panel, in tabs so that the graph above keeps its size: collected
 * records, the exceptions history (its count on the tab), the subtasks of the operator clicked
 * in the graph (the tab opens with the click), the live tap, the savepoint schedules and the
 * pipeline's alert rules. Every
 * tab stays mounted while another shows: an open tap keeps its records.
 */
export function RunDetailsTabs({ runId, definition }: { runId: number; definition: PipelineDefinition | null }) {
  const [tab, setTab] = useState<Tab>('records');
  const failures = useRunStore((state) => state.exceptions.length);
  const restarts = useRunStore((state) => state.restarts.length);
  const selectedNode = useRunStore((state) => state.selectedNode);
  const running = useRunStore((state) => state.status === 'RUNNING');
  const pipelineId = useRunStore((state) => state.run?.pipeline ?? null);
  const before = useRef<Tab>('records');
  useEffect(() => {
    // A click on an operator shows its subtasks; closing them goes back to where the user was.
    if (selectedNode !== null) {
      setTab((current) => {
        if (current !== 'subtasks') before.current = current;
        return 'subtasks';
      });
    } else {
      setTab((current) => (current === 'subtasks' ? before.current : current));
    }
  }, [selectedNode]);
  const tabs: Array<[Tab, ReactNode]> = [
    ['records', 'Collected records'],
    ['exceptions', `Exceptions (${failures})${restarts ? ` · ${restarts} restart${restarts === 1 ? '' : 's'}` : ''}`],
    ...(selectedNode !== null ? [['subtasks', <>Subtasks of <code>{selectedNode}</code></>] as [Tab, ReactNode]] : []),
    ['tap', 'Live tap'],
    ['schedules', 'Savepoint schedules'],
    ['alerts', 'Alert rules'],
  ];
  const shown = (name: Tab) => ({ hidden: tab !== name, className: 'run-details__tab', role: 'tabpanel' as const });
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
      <div {...shown('records')}>
        <CollectedPanel definition={definition} />
      </div>
      <div {...shown('exceptions')}>
        <ExceptionsPanel />
      </div>
      {selectedNode !== null && (
        <div {...shown('subtasks')}>
          <NodeDrillDown />
        </div>
      )}
      <div {...shown('tap')}>
        <TapPanel runId={runId} definition={definition} running={running} />
      </div>
      <div {...shown('schedules')}>
        <SchedulePanel runId={runId} pipelineId={pipelineId} />
      </div>
      <div {...shown('alerts')}>{pipelineId !== null && tab === 'alerts' && <AlertRulesPanel pipelineId={pipelineId} />}</div>
    </section>
  );
}
