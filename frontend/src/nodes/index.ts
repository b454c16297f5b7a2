/**
 * Node types of the pipeline graphs and their React Flow registries. The registries are
 * module constants: React Flow re-creates every node when nodeTypes changes identity.
 */
import type { NodeTypes } from '@xyflow/react';
import DiffNode from './DiffNode';
import OperatorNode from './OperatorNode';
import RunVertexNode from './RunVertexNode';

export type { OperatorNode as OperatorNodeType, VertexNode, OperatorNodeData } from '../state/shared/graph';
export { isOperatorNode, isVertexNode } from '../state/shared/graph';

/** The editor canvas. */
export const editorNodeTypes = { operator: OperatorNode } satisfies NodeTypes;

/** A run's read-only graph. */
export const runNodeTypes = { vertex: RunVertexNode } satisfies NodeTypes;

/** A version diff. */
export const diffNodeTypes = { diff: DiffNode } satisfies NodeTypes;
