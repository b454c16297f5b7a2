import { ApiError } from '../api/client';

/** An error in one line, with each problem the studio located (node, field) after it. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError && error.problems.length > 0) {
    const located = error.problems.map((problem) =>
      [problem.node && `node ${problem.node}`, problem.field, problem.message].filter(Boolean).join(': '),
    );
    return `${error.message} — ${located.join('; ')}`;
  }
  return error instanceof Error ? error.message : String(error);
}
