/**
 * The server's request handlers are one table over `Requests`: a request declared without a handler does not
 * compile, and the table registers every request and nothing else (the wire itself is exercised in
 * test/protocol/requests.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Requests } from '../../src/protocol';
import { requestHandlers, type RequestContext } from '../../src/server/requests';
import type { RequestHandlers } from '../../src/server/rpc';

// The handlers are closures over the context: building the table calls none of them.
const handlers = requestHandlers(Object.create(null) as RequestContext);

test('the server has one handler per declared request, and nothing else', () => {
  assert.deepEqual(Object.keys(handlers).sort(), Object.keys(Requests).sort());
});

test('a handler table without a declared request does not compile', () => {
  const { filelistsFor: _handler, ...withoutOne } = handlers;
  // @ts-expect-error `filelistsFor` has no handler
  const incomplete: RequestHandlers = withoutOne;
  assert.equal(Object.keys(incomplete).length, Object.keys(Requests).length - 1);
});
