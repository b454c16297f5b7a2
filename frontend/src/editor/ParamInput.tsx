import { lazy, Suspense, useId } from 'react';
import {
  canResetToDefault,
  displayParamValue,
  effectiveBoolean,
  emptyText,
  parseParamInput,
  type ParamField,
  type ParsedInput,
} from '../state/editor/paramFields';
import { classNames } from '../ui/classNames';
import { FieldMessages } from './FieldMessages';
import { ExpressionEditor } from '../ui/ExpressionEditor';
import { ExpressionWithCompletions } from '../dataIn/ExpressionWithCompletions';
import { useDraftText } from '../ui/useDraftText';

interface ParamInputProps {
  field: ParamField;
  value: unknown;
  messages: string[] | undefined;
  onChange: (parsed: ParsedInput) => void;
  /** Field paths offered while an expression is typed (a Kafka topic's inferred fields). */
  suggestions?: string[];
}

type ControlProps = Omit<ParamInputProps, 'messages'> & { inputId: string; describedBy: string; invalid: boolean };

const UNSET: ParsedInput = { kind: 'unset' };

/** CodeMirror is loaded only when a code parameter is shown: most pipelines never need it. */
const CodeParam = lazy(() => import('./CodeParam'));

function valueOf(parsed: ParsedInput): unknown {
  return parsed.kind === 'unset' ? undefined : parsed.value;
}

function TextParam({ field, value, onChange, inputId, describedBy, invalid, suggestions }: ControlProps) {
  const [text, setText] = useDraftText(
    value,
    (current) => displayParamValue(field, current),
    (raw) => {
      const parsed = valueOf(parseParamInput(field, raw));
      // An unset nullable param shows its default: that text stands for "unset".
      return value === undefined && raw === displayParamValue(field, undefined) ? undefined : parsed;
    },
  );
  const numeric = field.kind === 'integer' || field.kind === 'number';
  const edit = (raw: string) => {
    setText(raw);
    onChange(parseParamInput(field, raw));
  };
  if (field.kind === 'expression' && suggestions && suggestions.length > 0) {
    return (
      <ExpressionWithCompletions
        suggestions={suggestions}
        id={inputId}
        data-testid={`param-${field.name}`}
        placeholder={emptyText(field)}
        value={text}
        invalid={invalid}
        aria-describedby={describedBy}
        onChange={edit}
      />
    );
  }
  if (field.kind === 'expression') {
    return (
      <ExpressionEditor
        id={inputId}
        data-testid={`param-${field.name}`}
        placeholder={emptyText(field)}
        value={text}
        invalid={invalid}
        aria-describedby={describedBy}
        onChange={edit}
      />
    );
  }
  return (
    <input
      id={inputId}
      type="text"
      data-testid={`param-${field.name}`}
      className={classNames('input', invalid && 'is-invalid')}
      inputMode={field.kind === 'integer' ? 'numeric' : numeric ? 'decimal' : undefined}
      autoComplete="off"
      placeholder={emptyText(field)}
      value={text}
      aria-invalid={invalid || undefined}
      aria-describedby={describedBy}
      onChange={(event) => edit(event.target.value)}
    />
  );
}

function EnumParam({ field, value, onChange, inputId, describedBy, invalid }: ControlProps) {
  const emptyLabel = field.nullable ? 'null' : field.hasDefault ? `default (${field.placeholder})` : field.required ? 'choose…' : 'not set';
  const selected = value === undefined ? displayParamValue(field, undefined) : value === null ? '' : String(value);
  const known = field.options.some((option) => String(option) === selected);
  return (
    <select
      id={inputId}
      data-testid={`param-${field.name}`}
      className={classNames('input', invalid && 'is-invalid')}
      value={selected}
      aria-invalid={invalid || undefined}
      aria-describedby={describedBy}
      onChange={(event) => onChange(parseParamInput(field, event.target.value))}
    >
      <option value="">{emptyLabel}</option>
      {!known && selected !== '' && <option value={selected}>{selected}</option>}
      {field.options.map((option) => (
        <option key={String(option)} value={String(option)}>
          {String(option)}
        </option>
      ))}
    </select>
  );
}

function FieldLabel({ field, htmlFor }: { field: ParamField; htmlFor?: string }) {
  const content = (
    <>
      {field.label}
      {field.required && (
        <span className="required-mark" aria-label="required">
          *
        </span>
      )}
    </>
  );
  return htmlFor ? (
    <label htmlFor={htmlFor} className="form-field__label">
      {content}
    </label>
  ) : (
    <span>{content}</span>
  );
}

/** One param of a node: the right control for its schema, its default, its errors. */
export function ParamInput({ field, value, messages, onChange, suggestions }: ParamInputProps) {
  const id = useId();
  const invalid = !!messages && messages.length > 0;
  const describedBy = `${id}-help`;
  const controlProps = { field, value, onChange, inputId: id, describedBy, invalid, suggestions };
  const resettable = canResetToDefault(field, value);
  return (
    <div className={classNames('form-field', invalid && 'has-error')}>
      {field.kind === 'boolean' ? (
        <label className="checkbox-label">
          <input
            type="checkbox"
            data-testid={`param-${field.name}`}
            checked={effectiveBoolean(field, value)}
            aria-describedby={describedBy}
            onChange={(event) => onChange({ kind: 'value', value: event.target.checked })}
          />
          <FieldLabel field={field} />
        </label>
      ) : (
        <>
          <div className="form-field__label-row">
            <FieldLabel field={field} htmlFor={id} />
            <span className="form-field__kind">
              {field.kind}
              {field.nullable && ' | null'}
            </span>
          </div>
          {field.kind === 'enum' ? (
            <EnumParam {...controlProps} />
          ) : field.kind === 'code' ? (
            <Suspense fallback={<div className="code-param">loading the code editor…</div>}>
              <CodeParam
                inputId={id}
                testId={`param-${field.name}`}
                value={typeof value === 'string' ? value : displayParamValue(field, value)}
                describedBy={describedBy}
                invalid={invalid}
                onChange={(text) => onChange(parseParamInput(field, text))}
              />
            </Suspense>
          ) : (
            <TextParam {...controlProps} />
          )}
        </>
      )}
      <div id={describedBy}>
        {field.description && <p className="form-field__help">{field.description}</p>}
        {resettable && (
          <button type="button" className="link-button reset-default" onClick={() => onChange(UNSET)}>
            Reset to default ({field.placeholder})
          </button>
        )}
        <FieldMessages messages={messages} />
      </div>
    </div>
  );
}
