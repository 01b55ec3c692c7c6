/**
 * Descriptors of JSON-RPC messages: a method name tied to its params, result and error-data types, so the server
 * and its clients cannot pair them differently. Plain data, no JSON-RPC library: the webview bundle imports
 * src/protocol too. The params schema is typed with ajv's `JSONSchemaType` (a type-only import), so tsc checks
 * that the schema the server validates with describes exactly the params type.
 */
import type { JSONSchemaType } from 'ajv';

export interface RequestDescriptor<P, R, E> {
  readonly kind: 'request';
  readonly method: string;
  /** What the server accepts; it answers InvalidParams (-32602) naming the field otherwise. */
  readonly params: JSONSchemaType<P>;
  /**
   * True when handling it builds, simulates or opens a model: the server refuses it in an untrusted workspace.
   * Declared with the message, so a new request cannot be added without saying.
   */
  readonly needsTrust: boolean;
  /** Type carriers only, never set: they tie the params, result and error data to the method. */
  readonly __params?: P;
  readonly __result?: R;
  readonly __error?: E;
}

/** The params a request descriptor declares. */
export type ParamsOf<D> = D extends RequestDescriptor<infer P, infer _R, infer _E> ? P : never;
/** The result a request descriptor declares. */
export type ResultOf<D> = D extends RequestDescriptor<infer _P, infer R, infer _E> ? R : never;

export interface NotificationDescriptor<P> {
  readonly kind: 'notification';
  readonly method: string;
  /** Type carrier only, never set. */
  readonly __params?: P;
}

export function request<P, R, E>(
  method: string,
  params: JSONSchemaType<P>,
  access: { needsTrust: boolean },
): RequestDescriptor<P, R, E> {
  return { kind: 'request', method, params, needsTrust: access.needsTrust };
}

export function notification<P>(method: string): NotificationDescriptor<P> {
  return { kind: 'notification', method };
}

/** A notification a client sends the server: the server checks its params against the schema, as a request's. */
export interface ClientNotificationDescriptor<P> extends NotificationDescriptor<P> {
  readonly params: JSONSchemaType<P>;
}

export function clientNotification<P>(method: string, params: JSONSchemaType<P>): ClientNotificationDescriptor<P> {
  return { kind: 'notification', method, params };
}
