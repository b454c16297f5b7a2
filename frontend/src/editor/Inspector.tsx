import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import { EdgePanel } from './EdgePanel';
import { NodeParamsPanel } from './NodeParamsPanel';

/** "node:<id>", "edge:<id>" for a single selected element, "" otherwise. */
const selectSingleSelection = (state: EditorState): string => {
  const nodes = state.nodes.filter((node) => node.selected);
  const edges = state.edges.filter((edge) => edge.selected);
  if (nodes.length === 1 && edges.length === 0) return `node:${nodes[0].id}`;
  if (edges.length === 1 && nodes.length === 0) return `edge:${edges[0].id}`;
  return nodes.length + edges.length > 1 ? 'many' : '';
};

function Hint({ many }: { many: boolean }) {
  return (
    <div className="inspector-body inspector-hint">
      {many ? (
        <p>Several elements are selected. Select one to edit it; Delete removes them all.</p>
      ) : (
        <>
          <p>Select a node to edit its parameters, or an edge to choose how records are exchanged.</p>
          <p className="muted">
            Add operators from the palette by clicking or dragging them. Connect an output (right) to an input (left).
            Delete or Backspace removes the selection.
          </p>
        </>
      )}
    </div>
  );
}

/** The right panel: edits whatever single element is selected. */
export function Inspector() {
  const selection = useEditorStore(selectSingleSelection);
  const [kind, ...rest] = selection.split(':');
  const id = rest.join(':');
  return (
    <aside className="inspector" aria-label="Inspector">
      <div className="panel-heading">{kind === 'edge' ? 'Edge' : kind === 'node' ? 'Node' : 'Inspector'}</div>
      {kind === 'node' && <NodeParamsPanel key={id} nodeId={id} />}
      {kind === 'edge' && <EdgePanel key={id} edgeId={id} />}
      {kind !== 'node' && kind !== 'edge' && <Hint many={selection === 'many'} />}
    </aside>
  );
}
