import { python } from '@codemirror/lang-python';
import { EditorView, basicSetup } from 'codemirror';
import { memo, useEffect, useRef } from 'react';

interface CodeParamProps {
  inputId: string;
  testId: string;
  value: string;
  describedBy: string;
  invalid: boolean;
  onChange: (text: string) => void;
}

/**
 * A Python code parameter (`"format": "python"`, transform.python's `code`) in a CodeMirror
 * editor with Python highlighting. CodeMirror owns its document: React hands it the value once
 * and again only when it changes from outside (undo, another node selected), so typing never
 * resets the cursor.
 */
function CodeParam({ inputId, testId, value, describedBy, invalid, onChange }: CodeParamProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    if (!host.current) return undefined;
    const editor = new EditorView({
      doc: value,
      parent: host.current,
      extensions: [
        basicSetup,
        python(),
        EditorView.contentAttributes.of({ id: inputId, 'aria-describedby': describedBy, 'data-testid': testId }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) changed.current(update.state.doc.toString());
        }),
      ],
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // created once per mounted field; later values arrive through the effect below
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div ref={host} className={invalid ? 'code-param nodrag nokey is-invalid' : 'code-param nodrag nokey'} />;
}

export default memo(CodeParam);
