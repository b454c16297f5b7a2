import { useReactFlow } from '@xyflow/react';
import { useMemo, useState, type DragEvent } from 'react';
import type { Operator } from '../api/types';
import { useCatalogStore, type CatalogState } from '../state/shared/catalogStore';
import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import { paletteGroups } from '../state/editor/palette';
import { MIN_READABLE_ZOOM } from '../state/shared/viewport';

/** The drag-and-drop payload type of a palette item: the operator type. */
export const PALETTE_DRAG_TYPE = 'application/x-pipeline-operator';

const selectCatalog = (state: CatalogState) => state;
const selectAddOperatorNode = (state: EditorState) => state.addOperatorNode;
/** After adding a node: into view, but not below the readable zoom (a large graph scrolls instead). */
const FIT_AFTER_ADD = { padding: 0.2, maxZoom: 1, minZoom: MIN_READABLE_ZOOM };

function PaletteItem({ operator, onAdd }: { operator: Operator; onAdd: (operator: Operator) => void }) {
  function onDragStart(event: DragEvent) {
    event.dataTransfer.setData(PALETTE_DRAG_TYPE, operator.type);
    event.dataTransfer.effectAllowed = 'copy';
  }
  return (
    <li>
      <button
        type="button"
        draggable
        data-testid={`palette-${operator.type}`}
        className={`palette-item category-${operator.category}`}
        onDragStart={onDragStart}
        onClick={() => onAdd(operator)}
        title={`${operator.description}\n\nClick to add, or drag onto the canvas.`}
      >
        <span className="palette-item__title">{operator.title}</span>
        <span className="palette-item__type">{operator.type}</span>
      </button>
    </li>
  );
}

/** The operator catalog, grouped and searchable; click an item to add it, or drag it. */
export function Palette() {
  const { operators, status, error, load } = useCatalogStore(selectCatalog);
  const addOperatorNode = useEditorStore(selectAddOperatorNode);
  const { fitView } = useReactFlow();
  const [query, setQuery] = useState('');
  const groups = useMemo(() => paletteGroups(operators, query), [operators, query]);

  function addAndShow(operator: Operator) {
    addOperatorNode(operator);
    // Keep the whole graph, the new node included, in view.
    void fitView(FIT_AFTER_ADD);
  }

  return (
    <aside className="palette" aria-label="Operators">
      <div className="panel-heading">Operators</div>
      <input
        type="search"
        className="palette-search"
        placeholder="Search operators"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        aria-label="Search operators"
      />
      {status === 'loading' && <p className="muted palette-note">Loading the catalog…</p>}
      {status === 'failed' && (
        <p className="error-text palette-note">
          Could not load operators: {error}{' '}
          <button type="button" className="link-button" onClick={() => void load()}>
            Retry
          </button>
        </p>
      )}
      {status === 'ready' && groups.length === 0 && <p className="muted palette-note">No operator matches “{query}”.</p>}
      <div className="palette-groups">
        {groups.map((group) => (
          <section key={group.category} className="palette-group">
            <h3 className={`palette-group__title category-${group.category}`}>{group.category}</h3>
            <ul>
              {group.operators.map((operator) => (
                <PaletteItem key={operator.type} operator={operator} onAdd={addAndShow} />
              ))}
            </ul>
          </section>
        ))}
      </div>
    </aside>
  );
}
