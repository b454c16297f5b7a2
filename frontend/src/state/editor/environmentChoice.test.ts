// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest';
import type { Environment } from '../../api/environments';
import { parametersLine, rememberedEnvironment, STORAGE_PREFIX, useEnvironmentChoice, valuesText } from './environmentChoice';

function environment(id: number, name: string, parameters: Environment['parameters'] = {}): Environment {
  return { id, name, position: id, description: '', parameters, requires_approval: false, approval_role: 'operator', owner: 'ada', mine: true, created_at: '', updated_at: '' } as Environment;
}

const DEV = environment(1, 'dev', { factor: 2, count: 10 });
const PROD = environment(2, 'prod', { factor: 5 });

describe('the editor environment choice', () => {
  beforeEach(() => {
    window.localStorage.clear();
    useEnvironmentChoice.setState({ pipelineId: null, selected: null, choices: null, loadError: null, dropped: null });
  });

  it('is remembered per pipeline in the browser, none by default', () => {
    const choice = useEnvironmentChoice.getState();
    choice.open(7);
    expect(useEnvironmentChoice.getState().selected).toBeNull();
    choice.choose('dev');
    expect(window.localStorage.getItem(`${STORAGE_PREFIX}7`)).toBe('dev');

    choice.open(8); // another pipeline has its own
    expect(useEnvironmentChoice.getState().selected).toBeNull();
    useEnvironmentChoice.getState().choose('prod');
    useEnvironmentChoice.getState().open(7);
    expect(useEnvironmentChoice.getState().selected).toBe('dev');
    useEnvironmentChoice.getState().open(8);
    expect(useEnvironmentChoice.getState().selected).toBe('prod');

    useEnvironmentChoice.getState().choose(null); // none: forgotten, not stored as ''
    expect(rememberedEnvironment(8)).toBeNull();
    expect(window.localStorage.getItem(`${STORAGE_PREFIX}8`)).toBeNull();
  });

  it('carries a draft choice to the pipeline it is saved as, and keeps it when the draft is opened again', () => {
    const choice = useEnvironmentChoice.getState();
    choice.open(null);
    choice.choose('dev');
    expect(window.localStorage.length).toBe(0); // a draft has no key of its own
    useEnvironmentChoice.getState().open(null); // back to "/" with the same draft
    expect(useEnvironmentChoice.getState().selected).toBe('dev');

    useEnvironmentChoice.getState().saved(12);
    useEnvironmentChoice.getState().open(12); // the URL becomes /pipelines/12: nothing reloads
    expect(useEnvironmentChoice.getState()).toMatchObject({ pipelineId: 12, selected: 'dev' });
    expect(rememberedEnvironment(12)).toBe('dev');

    useEnvironmentChoice.getState().open(null); // a new pipeline starts with none
    expect(useEnvironmentChoice.getState().selected).toBeNull();
  });

  it('drops a remembered environment that is not among the usable ones, and says which', () => {
    window.localStorage.setItem(`${STORAGE_PREFIX}3`, 'staging');
    useEnvironmentChoice.getState().open(3);
    expect(useEnvironmentChoice.getState().selected).toBe('staging'); // until the list comes
    useEnvironmentChoice.getState().choicesLoaded([DEV, PROD]);
    expect(useEnvironmentChoice.getState()).toMatchObject({ selected: null, dropped: 'staging' });
    expect(rememberedEnvironment(3)).toBeNull();

    window.localStorage.setItem(`${STORAGE_PREFIX}4`, 'prod');
    useEnvironmentChoice.getState().open(4); // the list is known: checked at once
    expect(useEnvironmentChoice.getState()).toMatchObject({ selected: 'prod', dropped: null });
    window.localStorage.setItem(`${STORAGE_PREFIX}5`, 'gone');
    useEnvironmentChoice.getState().open(5);
    expect(useEnvironmentChoice.getState()).toMatchObject({ selected: null, dropped: 'gone' });
  });

  it('words whose values are used and what they are', () => {
    expect(valuesText('dev')).toBe("with environment dev's values");
    expect(valuesText(null)).toBe('with no environment: the definition as written');
    expect(parametersLine(DEV)).toBe('count = 10, factor = 2');
    expect(parametersLine(environment(3, 'empty'))).toBe('no parameters');
  });
});
