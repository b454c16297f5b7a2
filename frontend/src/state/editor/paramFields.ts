/**
 * The form model of an operator's params: one field per JSON Schema property, and the rules
 * that turn what the user typed into a param value.
 *
 * Empty input means "no value". For most params that leaves the param out of `params`, so the
 * server applies the schema's default, shown as the placeholder. For a nullable param, no value
 * is null, and the empty input says what null means (datagen's `count`: "unbounded"); a
 * nullable param with another default shows it as text until the user changes it, and emptying
 * the input sets null.
 * Text that does not parse as the field's type is kept as typed: the server's validation
 * then reports it next to the field, so what is shown is always what would be saved.
 */
import type { JsonSchemaType, ParamSchema, ParamsSchema } from '../../api/types';

export type FieldKind = 'integer' | 'number' | 'string' | 'expression' | 'code' | 'boolean' | 'enum' | 'json';

export type EnumOption = string | number | boolean;

export interface ParamField {
  name: string;
  label: string;
  kind: FieldKind;
  required: boolean;
  nullable: boolean;
  options: EnumOption[];
  hasDefault: boolean;
  defaultValue: unknown;
  /** The default as text, or "" when there is none. */
  placeholder: string;
  /** What an empty nullable input means ("unbounded"), from the schema's `x-empty-means`. */
  emptyMeans?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  description?: string;
}

/** "max_out_of_orderness_ms" → "Max out of orderness ms". */
export function labelFor(name: string): string {
  const words = name.replace(/_/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function schemaTypes(schema: ParamSchema): JsonSchemaType[] {
  if (Array.isArray(schema.type)) return schema.type;
  return schema.type ? [schema.type] : [];
}

function kindOf(schema: ParamSchema, types: JsonSchemaType[]): FieldKind {
  if (schema.enum && schema.enum.some((option) => option !== null)) return 'enum';
  const main = types.find((type) => type !== 'null');
  switch (main) {
    case 'integer':
    case 'number':
    case 'boolean':
      return main;
    case 'string':
      if (schema.format === 'python') return 'code';
      return schema.format === 'expression' ? 'expression' : 'string';
    default:
      return 'json';
  }
}

export function formatValue(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return 'null';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export function paramField(name: string, schema: ParamSchema, required: boolean): ParamField {
  const types = schemaTypes(schema);
  const hasDefault = Object.prototype.hasOwnProperty.call(schema, 'default');
  const field: ParamField = {
    name,
    label: schema.title ?? labelFor(name),
    kind: kindOf(schema, types),
    required,
    nullable: types.includes('null') || (schema.enum ?? []).includes(null),
    options: (schema.enum ?? []).filter((option): option is EnumOption => option !== null),
    hasDefault,
    defaultValue: hasDefault ? schema.default : undefined,
    placeholder: hasDefault ? formatValue(schema.default) : '',
  };
  if (schema.minimum !== undefined) field.minimum = schema.minimum;
  if (schema.maximum !== undefined) field.maximum = schema.maximum;
  if (schema.minLength !== undefined) field.minLength = schema.minLength;
  if (schema.description !== undefined) field.description = schema.description;
  if (schema['x-empty-means'] !== undefined) field.emptyMeans = schema['x-empty-means'];
  return field;
}

/** The fields of a params schema, required ones first, each group in schema order. */
export function paramFields(schema: ParamsSchema | undefined): ParamField[] {
  if (!schema?.properties) return [];
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties).map(([name, property]) =>
    paramField(name, property, required.has(name)),
  );
  return [...fields.filter((field) => field.required), ...fields.filter((field) => !field.required)];
}

export type ParsedInput = { kind: 'unset' } | { kind: 'value'; value: unknown };

const UNSET: ParsedInput = { kind: 'unset' };

/** Turn the text of an input into a param value; "" means unset, or null for a nullable param. */
export function parseParamInput(field: ParamField, raw: string): ParsedInput {
  const text = field.kind === 'string' || field.kind === 'expression' || field.kind === 'code' ? raw : raw.trim();
  if (text === '') return field.nullable ? { kind: 'value', value: null } : UNSET;
  switch (field.kind) {
    case 'integer':
    case 'number': {
      const number = Number(text);
      return { kind: 'value', value: Number.isFinite(number) ? number : text };
    }
    case 'boolean':
      if (text === 'true' || text === 'false') return { kind: 'value', value: text === 'true' };
      return { kind: 'value', value: text };
    case 'enum': {
      const option = field.options.find((candidate) => String(candidate) === text);
      return { kind: 'value', value: option ?? text };
    }
    case 'json':
      try {
        return { kind: 'value', value: JSON.parse(text) };
      } catch {
        return { kind: 'value', value: text };
      }
    default:
      return { kind: 'value', value: text };
  }
}

/**
 * The text an input shows for a param value: null shows as empty; an unset param shows as
 * empty too (its default is the placeholder), except a nullable one, which shows its default.
 */
export function displayParamValue(field: ParamField, value: unknown): string {
  if (value === null) return '';
  if (value === undefined) return field.nullable && field.hasDefault && field.defaultValue !== null ? field.placeholder : '';
  return formatValue(value);
}

/** The placeholder of an empty input: the default, or what null means where empty means null. */
export function emptyText(field: ParamField): string {
  return field.nullable ? (field.emptyMeans ?? 'null') : field.placeholder;
}

/** Whether the param holds a value of its own that differs from what leaving it unset gives. */
export function canResetToDefault(field: ParamField, value: unknown): boolean {
  return field.hasDefault && value !== undefined && formatValue(value) !== formatValue(field.defaultValue);
}

/** params with one param set, set to null, or removed; never mutates the original. */
export function withParam(params: Record<string, unknown>, name: string, parsed: ParsedInput): Record<string, unknown> {
  const next = { ...params };
  if (parsed.kind === 'unset') delete next[name];
  else next[name] = parsed.value;
  return next;
}

/** The value a boolean field shows: the param, else the default, else false. */
export function effectiveBoolean(field: ParamField, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  return field.defaultValue === true;
}

/** A one-line summary of the params set on a node, for the node's face: "count=200 · rate=10". */
export function paramSummary(params: Record<string, unknown>, limit = 2): string {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined)
    .slice(0, limit)
    .map(([name, value]) => `${name}=${formatValue(value)}`);
  const hidden = Object.keys(params).length - parts.length;
  return hidden > 0 ? `${parts.join(' · ')} · +${hidden}` : parts.join(' · ');
}
