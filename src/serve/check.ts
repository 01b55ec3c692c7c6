/** Request bodies checked against the wire's JSON schemas (src/protocol/serve.ts) before anything runs. */
import Ajv, { type ErrorObject, type JSONSchemaType } from 'ajv';
import { ChorusError } from '../protocol';

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });

/** The first bad member as a JSON pointer and every problem in one sentence. */
export class SchemaError extends ChorusError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super('bad_input', message);
  }
}

function describe(e: ErrorObject): string {
  if (e.keyword === 'required') return `"${e.instancePath}/${String(e.params.missingProperty)}" is required`;
  if (e.keyword === 'additionalProperties')
    return `"${e.instancePath}/${String(e.params.additionalProperty)}" is not a known member`;
  if (e.keyword === 'propertyNames' || e.params.propertyName !== undefined)
    return `a name in "${e.instancePath || '/'}" is not a plain relative file name (${String(e.params.propertyName ?? '')})`;
  return `"${e.instancePath || '/'}" ${e.message ?? 'is not valid'}`;
}

/** A checker for one request type: the body typed, or a SchemaError naming its members. */
export function bodyChecker<T>(schema: JSONSchemaType<T>, what: string): (raw: unknown) => T {
  const validate = ajv.compile(schema);
  return (raw) => {
    if (validate(raw)) return raw;
    const errors = validate.errors ?? [];
    const text = [...new Set(errors.map(describe))].join('; ');
    throw new SchemaError(errors[0]?.instancePath || '/', `Invalid ${what}: ${text}.`);
  };
}
