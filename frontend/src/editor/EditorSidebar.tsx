import { useEditorViewStore, type EditorViewState, type SidePanel } from '../state/editor/editorViewStore';
import { classNames } from '../ui/classNames';
import { HistoryPanel } from './HistoryPanel';
import { Inspector } from './Inspector';
import { PlanPanel } from './PlanPanel';
import { PreviewPanel } from './PreviewPanel';
import { RunsPanel } from './RunsPanel';
import { TestCasesPanel } from './TestCasesPanel';

const TABS: Array<{ panel: SidePanel; label: string }> = [
  { panel: 'inspector', label: 'Inspector' },
  { panel: 'history', label: 'History' },
  { panel: 'plan', label: 'Plan' },
  { panel: 'preview', label: 'Preview' },
  { panel: 'tests', label: 'Tests' },
  { panel: 'runs', label: 'Runs' },
];

const selectPanel = (state: EditorViewState) => state.panel;

/** The right column: the inspector, the version history, the plan, the preview. */
export function EditorSidebar() {
  const panel = useEditorViewStore(selectPanel);
  const setPanel = useEditorViewStore.getState().setPanel;
  return (
    <div className="sidebar">
      <div className="sidebar-tabs" role="tablist">
        {TABS.map((tab) => (
          <button
            key={tab.panel}
            type="button"
            role="tab"
            aria-selected={panel === tab.panel}
            data-testid={`tab-${tab.panel}`}
            className={classNames('sidebar-tab', panel === tab.panel && 'is-active')}
            onClick={() => setPanel(tab.panel)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {panel === 'inspector' && <Inspector />}
      {panel === 'history' && (
        <aside className="inspector" aria-label="History">
          <HistoryPanel />
        </aside>
      )}
      {panel === 'plan' && (
        <aside className="inspector" aria-label="Plan">
          <PlanPanel />
        </aside>
      )}
      {panel === 'runs' && (
        <aside className="inspector" aria-label="Runs">
          <RunsPanel />
        </aside>
      )}
      {panel === 'tests' && (
        <aside className="inspector" aria-label="Tests">
          <TestCasesPanel />
        </aside>
      )}
      {panel === 'preview' && (
        <aside className="inspector" aria-label="Preview">
          <PreviewPanel />
        </aside>
      )}
    </div>
  );
}
