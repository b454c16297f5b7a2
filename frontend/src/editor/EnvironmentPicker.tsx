import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { environments } from '../api/environments';
import { useEditorStore } from '../state/editor/editorStore';
import { parametersLine, useEnvironmentChoice, type EnvironmentChoiceState } from '../state/editor/environmentChoice';

const selectPicker = (state: EnvironmentChoiceState) => ({
  selected: state.selected,
  choices: state.choices,
  loadError: state.loadError,
  dropped: state.dropped,
});

/** What the picker's tooltip says: whose values the editor uses now, and what they are. */
function pickerTitle({ selected, choices, loadError }: ReturnType<typeof selectPicker>): string {
  if (loadError) return `Your environments could not be listed: ${loadError}`;
  if (selected === null) {
    const none = 'No environment: validation, preview, tests and Run use the definition as written (a ${param:…} is left unfilled).';
    return choices !== null && choices.length === 0 ? `${none} You have no environment yet: make one on the Environments page.` : none;
  }
  const chosen = choices?.find((choice) => choice.name === selected);
  const approval = chosen?.requires_approval ? ` Run starts only a version promoted to ${selected} (it asks for approval).` : '';
  return `Validation, preview, tests, Run and Deploy use ${selected}'s values: ${parametersLine(chosen)}.${approval}`;
}

/** The environment the editor executes the pipeline in (toolbar): one of the user's, or none; remembered per pipeline. */
export function EnvironmentPicker() {
  const picker = useEnvironmentChoice(useShallow(selectPicker));
  const { selected, choices, dropped } = picker;
  const pipelineId = useEditorStore((state) => state.pipelineId);
  useEffect(() => {
    let cancelled = false;
    environments.usable(pipelineId).then(
      (list) => !cancelled && useEnvironmentChoice.getState().choicesLoaded(list),
      (error: unknown) => !cancelled && useEnvironmentChoice.getState().choicesFailed(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      cancelled = true;
    };
  }, [pipelineId]);
  // Said where the editor says what it did on its own (the problems' heading), not only in a tooltip.
  useEffect(() => {
    if (dropped === null) return;
    useEditorStore.setState({ notice: `Environment ${dropped} is not yours to use any more: the editor uses none.` });
    useEnvironmentChoice.setState({ dropped: null }); // said once
  }, [dropped]);

  const title = pickerTitle(picker);
  return (
    <label className="toolbar-field environment-picker">
      <span>Environment</span>
      <select
        data-testid="environment-picker"
        className="input"
        aria-label="Environment"
        title={title}
        value={selected ?? ''}
        data-environment={selected ?? ''}
        onChange={(event) => useEnvironmentChoice.getState().choose(event.target.value || null)}
      >
        <option value="">none</option>
        {/* a remembered choice shows before the list has come */}
        {choices === null && selected !== null && <option value={selected}>{selected}</option>}
        {(choices ?? []).map((choice) => (
          <option key={choice.id} value={choice.name}>
            {choice.name}
          </option>
        ))}
      </select>
    </label>
  );
}
