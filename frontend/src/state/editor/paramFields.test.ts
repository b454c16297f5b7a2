import { describe, expect, it } from 'vitest';
import { COLLECT, DATAGEN, MAP, PYTHON, REDIS_SOURCE, REDUCE, UNION } from '../../testing/fixtures';
import {
  canResetToDefault,
  displayParamValue,
  effectiveBoolean,
  emptyText,
  labelFor,
  paramField,
  paramFields,
  paramSummary,
  parseParamInput,
  withParam,
} from './paramFields';

function field(fields: ReturnType<typeof paramFields>, name: string) {
  const found = fields.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no field ${name}`);
  return found;
}

describe('paramFields (schema → form model)', () => {
  it('maps JSON Schema types to field kinds', () => {
    const datagen = paramFields(DATAGEN.params_schema);
    expect(datagen.map((f) => [f.name, f.kind])).toEqual([
      ['count', 'integer'],
      ['rate', 'number'],
      ['start', 'integer'],
      ['expression', 'expression'],
    ]);
    expect(field(paramFields(REDIS_SOURCE.params_schema), 'bounded').kind).toBe('boolean');
    expect(field(paramFields(REDIS_SOURCE.params_schema), 'stream').kind).toBe('string');
  });

  it('shows Python code as a code field whose text is kept exactly, indentation and blank lines included', () => {
    const code = field(paramFields(PYTHON.params_schema), 'code');
    expect(code.kind).toBe('code');
    const text = 'def process(records):\n    return records\n\n';
    expect(parseParamInput(code, text)).toEqual({ kind: 'value', value: text });
  });

  it('recognises nullable types', () => {
    const datagen = paramFields(DATAGEN.params_schema);
    expect(field(datagen, 'count').nullable).toBe(true);
    expect(field(datagen, 'rate').nullable).toBe(false);
    expect(paramField('mode', { type: ['string', 'null'], enum: ['a', 'b', null] }, false)).toMatchObject({
      kind: 'enum',
      nullable: true,
      options: ['a', 'b'],
    });
  });

  it('turns enums into options with the default as placeholder', () => {
    const fn = field(paramFields(REDUCE.params_schema), 'function');
    expect(fn.kind).toBe('enum');
    expect(fn.options).toEqual(['sum', 'count', 'min', 'max']);
    expect(fn.hasDefault).toBe(true);
    expect(fn.placeholder).toBe('sum');
  });

  it('keeps defaults, bounds and descriptions', () => {
    const count = field(paramFields(DATAGEN.params_schema), 'count');
    expect(count).toMatchObject({ hasDefault: true, defaultValue: null, emptyMeans: 'unbounded', minimum: 0 });
    expect(count.description).toMatch(/unbounded/);
    const maxRecords = field(paramFields(COLLECT.params_schema), 'max_records');
    expect(maxRecords).toMatchObject({ minimum: 1, maximum: 100000, placeholder: '100', label: 'Max records' });
    const expression = field(paramFields(MAP.params_schema), 'expression');
    expect(expression).toMatchObject({ hasDefault: false, placeholder: '', minLength: 1 });
  });

  it('marks required fields and lists them first', () => {
    const redis = paramFields(REDIS_SOURCE.params_schema);
    expect(redis.map((f) => [f.name, f.required])).toEqual([
      ['stream', true],
      ['bounded', false],
    ]);
    expect(field(paramFields(MAP.params_schema), 'expression').required).toBe(true);
  });

  it('has no fields for an operator without params', () => {
    expect(paramFields(UNION.params_schema)).toEqual([]);
    expect(paramFields(undefined)).toEqual([]);
  });

  it('labels snake_case names', () => {
    expect(labelFor('max_out_of_orderness_ms')).toBe('Max out of orderness ms');
  });
});

describe('parsing inputs', () => {
  const datagen = paramFields(DATAGEN.params_schema);
  const count = field(datagen, 'count');
  const rate = field(datagen, 'rate');
  const expression = field(datagen, 'expression');
  const fn = field(paramFields(REDUCE.params_schema), 'function');

  it('treats empty input as unset, so the server applies the default', () => {
    expect(parseParamInput(rate, '')).toEqual({ kind: 'unset' });
    expect(parseParamInput(rate, '  ')).toEqual({ kind: 'unset' });
    expect(parseParamInput(expression, '')).toEqual({ kind: 'unset' });
    expect(withParam({ count: 5, rate: 1 }, 'rate', { kind: 'unset' })).toEqual({ count: 5 });
  });

  it('treats empty input of a nullable param as null ("empty for an unbounded stream")', () => {
    expect(parseParamInput(count, '')).toEqual({ kind: 'value', value: null });
    expect(parseParamInput(count, ' ')).toEqual({ kind: 'value', value: null });
    expect(withParam({ rate: 1 }, 'count', parseParamInput(count, ''))).toEqual({ rate: 1, count: null });
  });

  it('parses numbers and keeps text that is not a number for the server to report', () => {
    expect(parseParamInput(count, ' 200 ')).toEqual({ kind: 'value', value: 200 });
    expect(parseParamInput(rate, '2.5')).toEqual({ kind: 'value', value: 2.5 });
    expect(parseParamInput(count, 'lots')).toEqual({ kind: 'value', value: 'lots' });
  });

  it('keeps expressions exactly as typed', () => {
    expect(parseParamInput(expression, ' x * 2 ')).toEqual({ kind: 'value', value: ' x * 2 ' });
  });

  it('maps enum text back to the option', () => {
    expect(parseParamInput(fn, 'max')).toEqual({ kind: 'value', value: 'max' });
    const numeric = paramField('n', { type: 'integer', enum: [1, 2, 4] }, false);
    expect(parseParamInput(numeric, '4')).toEqual({ kind: 'value', value: 4 });
  });

  it('sets null for a nullable field without touching other params', () => {
    const params = { rate: 10 };
    const next = withParam(params, 'count', { kind: 'value', value: null });
    expect(next).toEqual({ rate: 10, count: null });
    expect(params).toEqual({ rate: 10 });
  });

  it('shows values as text, unset ones as the placeholder, unset nullable ones as their default', () => {
    expect(displayParamValue(rate, undefined)).toBe('');
    expect(emptyText(rate)).toBe('0');
    expect(displayParamValue(rate, 12)).toBe('12');
    expect(displayParamValue(expression, 'x')).toBe('x');
    const timeout = paramField('timeout_ms', { type: ['integer', 'null'], default: 10000 }, false);
    expect(displayParamValue(timeout, undefined)).toBe('10000');
    expect(displayParamValue(timeout, null)).toBe('');
    expect(emptyText(timeout)).toBe('null');
  });

  it("leaves datagen's count empty, saying that empty means unbounded", () => {
    expect(displayParamValue(count, undefined)).toBe('');
    expect(displayParamValue(count, null)).toBe('');
    expect(emptyText(count)).toBe('unbounded');
  });

  it('offers a reset only for a value of its own that differs from the default', () => {
    expect(canResetToDefault(count, null)).toBe(false);
    expect(canResetToDefault(count, 5)).toBe(true);
    expect(canResetToDefault(count, undefined)).toBe(false);
    expect(canResetToDefault(expression, 'x')).toBe(false);
  });

  it('shows booleans from their default', () => {
    const bounded = field(paramFields(REDIS_SOURCE.params_schema), 'bounded');
    expect(effectiveBoolean(bounded, undefined)).toBe(false);
    expect(effectiveBoolean(bounded, true)).toBe(true);
    expect(effectiveBoolean({ ...bounded, defaultValue: true }, undefined)).toBe(true);
  });
});

describe('paramSummary', () => {
  it('shows the first params set and how many more there are', () => {
    expect(paramSummary({})).toBe('');
    expect(paramSummary({ count: 200 })).toBe('count=200');
    expect(paramSummary({ count: null, rate: 10, expression: 'x' })).toBe('count=null · rate=10 · +1');
  });
});
