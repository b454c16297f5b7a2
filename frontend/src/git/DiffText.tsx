import { memo } from 'react';

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return 'diff-line is-file';
  if (line.startsWith('@@')) return 'diff-line is-hunk';
  if (line.startsWith('+')) return 'diff-line is-added';
  if (line.startsWith('-')) return 'diff-line is-removed';
  return 'diff-line';
}

/** A unified diff, a line per row, added and removed lines coloured. */
function DiffText({ text, testId }: { text: string; testId: string }) {
  return (
    <pre className="diff-text" data-testid={testId}>
      {text.split('\n').map((line, index) => (
        <div key={index} className={lineClass(line)}>
          {line || ' '}
        </div>
      ))}
    </pre>
  );
}

export default memo(DiffText);
