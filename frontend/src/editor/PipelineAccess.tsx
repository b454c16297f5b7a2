import { useShallow } from 'zustand/react/shallow';
import { paths } from '../router';
import { mayDo, useEditorStore, type EditorState } from '../state/editor/editorStore';
import { Link } from '../ui/Link';

const selectAccess = (state: EditorState) => ({
  pipelineId: state.pipelineId,
  mayEdit: mayDo(state, 'edit'),
  mayRun: mayDo(state, 'run'),
  role: state.role,
  roleTeam: state.roleTeam,
  owner: state.owner,
});

type Access = ReturnType<typeof selectAccess>;

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

/** Why the user may not save or run this pipeline, in a sentence (null: they may do both). */
export function accessNotice({ mayEdit, mayRun, role, roleTeam, owner }: Omit<Access, 'pipelineId'>): string | null {
  if (mayEdit && mayRun) return null;
  const who = role && roleTeam ? `You are ${article(role)} ${role} in team ${roleTeam}` : `${owner ?? 'Its owner'} shared this pipeline with you`;
  const what = !mayEdit && !mayRun ? 'you may view it, but you may not save or run it' : !mayEdit ? 'you may run it, but you may not save changes' : 'you may save versions, but you may not run it';
  const whoMay = !mayEdit ? 'editors save versions' : 'operators and admins run it';
  const ask = roleTeam ? `ask an admin of team ${roleTeam} for another role` : `ask ${owner ?? 'its owner'} to share it for more`;
  return `${who}: ${what} (${whoMay}; ${ask}).`;
}

/** A saved pipeline's own pages beside the editor: who owns and shares it, its file, its Git binding. */
export function PipelineLinks() {
  const pipelineId = useEditorStore((state) => state.pipelineId);
  if (pipelineId === null) return null;
  return (
    <nav className="pipeline-links" aria-label="This pipeline's pages">
      <Link to={paths.pipelineAccess(pipelineId)} data-testid="editor-aside-access" title="Who owns it, teams it is shared with">
        Access
      </Link>
      <Link to={paths.pipelineFile(pipelineId)} data-testid="editor-aside-file" title="The pipeline as a YAML file, and its diff with Git">
        File
      </Link>
      <Link to={paths.pipelineGit(pipelineId)} data-testid="editor-aside-git" title="Keep it in a Git repository: commit, pull, resolve">
        Git
      </Link>
    </nav>
  );
}

/** Under the toolbar when the user may not save or run the pipeline: what they may do, and why. */
export function AccessNotice() {
  const access = useEditorStore(useShallow(selectAccess));
  const notice = access.pipelineId === null ? null : accessNotice(access);
  if (!notice) return null;
  return (
    <p className="editor-notice" role="note" data-testid="access-notice">
      {notice}
    </p>
  );
}
