import { useEffect, useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useEditorStore, type EditorState } from '../state/editor/editorStore';
import { kafkaSourcesFeeding, keyOf, useInferredFields } from './inferredFields';

const selectGraph = (state: EditorState) => ({ nodes: state.nodes, edges: state.edges });

/** The expression paths offered to ``nodeId``'s expressions: the inferred fields of the Kafka topics feeding it. */
export function useExpressionFields(nodeId: string): string[] {
  const { nodes, edges } = useEditorStore(useShallow(selectGraph));
  const sources = useMemo(() => kafkaSourcesFeeding(nodeId, nodes, edges), [nodeId, nodes, edges]);
  const byKey = useInferredFields((state) => state.byKey);
  const ensure = useInferredFields((state) => state.ensure);
  useEffect(() => {
    for (const source of sources) ensure(source);
  }, [sources, ensure]);
  return useMemo(() => {
    const paths = new Set<string>();
    for (const source of sources) for (const field of byKey[keyOf(source)] ?? []) paths.add(field.path);
    return [...paths];
  }, [sources, byKey]);
}
