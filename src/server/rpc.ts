/**
 * The server end of the typed `chorus/*` messages: handlers registered by descriptor, their params validated with
 * the descriptor's JSON schema (InvalidParams naming the field otherwise), notifications sent by descriptor.
 */
import Ajv, { type ErrorObject, type JSONSchemaType } from 'ajv';
import { ErrorCodes, ResponseError, type CancellationToken, type Connection } from 'vscode-languageserver/node';
import {
  ChorusError,
  type ChorusErrorData,
  type ClientNotificationDescriptor,
  type Logger,
  type NotificationDescriptor,
  type RequestDescriptor,
  type RequestName,
  type RequestTable,
  type RequestTypes,
  Requests,
} from '../protocol';

// Union types (`workDoneToken`: string or integer) are meant, not a slip.
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });

/** JSON null means "absent": members set to null are dropped, so optional members hold their declared type. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

/** One ajv error as a sentence naming the member: `"uri" is required`, `"targets/line" must be <= 100`. */
function describeSchemaError(e: ErrorObject): { field: string; text: string } {
  if (e.keyword === 'required') {
    const field = `${e.instancePath}/${String(e.params.missingProperty)}`;
    return { field, text: `"${field.slice(1)}" is required` };
  }
  if (e.keyword === 'additionalProperties') {
    const field = `${e.instancePath}/${String(e.params.additionalProperty)}`;
    return { field, text: `"${field.slice(1)}" is not a known member` };
  }
  const field = e.instancePath || '/';
  return {
    field,
    text: `${e.instancePath ? `"${e.instancePath.slice(1)}"` : 'the params'} ${e.message ?? 'is not valid'}`,
  };
}

function describeSchemaErrors(errors: readonly ErrorObject[]): { field: string; text: string } {
  const described = errors.map(describeSchemaError);
  return { field: described[0]?.field ?? '/', text: [...new Set(described.map((d) => d.text))].join('; ') };
}

/** The InvalidParams (-32602) answer for schema errors: every bad member named, the first as `data.field`. */
export function invalidParams(method: string, errors: readonly ErrorObject[]): ResponseError<ChorusErrorData> {
  const { field, text } = describeSchemaErrors(errors);
  return new ResponseError(ErrorCodes.InvalidParams, `Invalid params for ${method}: ${text}.`, {
    kind: 'bad_input',
    field,
  });
}

/** A checker for a value declared with a schema (absent = `{}`): the value typed, or a ChorusError naming every bad member. */
export function checker<T>(schema: JSONSchemaType<T>, what: string): (raw: unknown) => T {
  const validate = ajv.compile(schema);
  return (raw) => {
    const value = withoutNulls(raw ?? {});
    if (validate(value)) return value;
    throw new ChorusError('bad_input', `Invalid ${what}: ${describeSchemaErrors(validate.errors ?? []).text}.`);
  };
}

export type ToResponseError = (err: unknown) => ResponseError<ChorusErrorData>;

/** What a request must pass before its handler runs: workspace trust (src/server/trust.ts). */
export interface RequestGate {
  /** Throws (a ChorusError) when the request may not run now. */
  admit(descriptor: { method: string; needsTrust: boolean }): void;
}

/**
 * Registers `handler` for a request: params are validated first (InvalidParams naming the field otherwise), then the
 * gate admits it or answers its error, and a failure inside the handler becomes an error response; the server keeps
 * running.
 */
export function handleRequest<P, R>(
  connection: Connection,
  descriptor: RequestDescriptor<P, R, ChorusErrorData>,
  toResponseError: ToResponseError,
  gate: RequestGate,
  handler: (params: P, token: CancellationToken) => Promise<R> | R,
): void {
  const validate = ajv.compile(descriptor.params);
  connection.onRequest(
    descriptor.method,
    async (raw: unknown, token: CancellationToken): Promise<R | ResponseError<ChorusErrorData>> => {
      const params = withoutNulls(raw ?? {});
      if (!validate(params)) return invalidParams(descriptor.method, validate.errors ?? []);
      try {
        gate.admit(descriptor);
        return await handler(params, token);
      } catch (err) {
        return toResponseError(err);
      }
    },
  );
}

/** The server's answer to one request: its declared params in, its declared result out. */
export type RequestHandler<K extends RequestName> = (
  params: RequestTypes[K]['params'],
  token: CancellationToken,
) => Promise<RequestTypes[K]['result']> | RequestTypes[K]['result'];

/** One handler for every request in {@link Requests}: a request declared without one is a type error. */
export type RequestHandlers = { readonly [K in RequestName]: RequestHandler<K> };

/** Registers every request's handler from the table, each through {@link handleRequest} (params, then the gate). */
export function handleRequests(
  connection: Connection,
  handlers: RequestHandlers,
  toResponseError: ToResponseError,
  gate: RequestGate,
): void {
  const table: RequestTable = Requests;
  const register = <K extends RequestName>(name: K) =>
    handleRequest(connection, table[name], toResponseError, gate, handlers[name]);
  for (const name of Object.keys(table) as RequestName[]) register(name);
}

/** Registers `handler` for a notification the client sends; params that do not fit its schema are logged and dropped. */
export function handleNotification<P>(
  connection: Connection,
  descriptor: ClientNotificationDescriptor<P>,
  logger: Logger,
  handler: (params: P) => void,
): void {
  const validate = ajv.compile(descriptor.params);
  connection.onNotification(descriptor.method, (raw: unknown) => {
    const params = withoutNulls(raw ?? {});
    if (validate(params)) handler(params);
    else logger.warn(`Ignored ${descriptor.method}: ${describeSchemaErrors(validate.errors ?? []).text}.`);
  });
}

/** What sending a notification needs of a connection (the LSP connection; tests pass a recorder). */
export interface NotificationSender {
  sendNotification(method: string, params: unknown): Promise<void>;
}

/** Sends a notification; a closed connection is not the sender's failure. */
export function sendNotification<P>(
  connection: NotificationSender,
  descriptor: NotificationDescriptor<P>,
  params: P,
): void {
  void connection.sendNotification(descriptor.method, params).catch(() => undefined);
}
