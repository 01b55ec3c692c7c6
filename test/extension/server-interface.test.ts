/**
 * The extension's `ChorusServer` is mapped over `Requests`: a client without a method for a declared request does
 * not compile (`ServerConnection implements ChorusServer`, so the connection itself cannot drift either).
 */
import './stub/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Requests } from '../../src/protocol';
import type { ChorusServer } from '../../src/extension/server';
import { fakeServer } from './runFixtures';

test('the test fake answers every declared request', () => {
  const server: ChorusServer = fakeServer(() => undefined);
  for (const name of Object.keys(Requests)) assert.equal(typeof Reflect.get(server, name), 'function', name);
});

test('a client without a declared request does not compile', () => {
  const { filelistsFor: _method, ...withoutOne } = fakeServer(() => undefined);
  // @ts-expect-error `filelistsFor` has no method
  const incomplete: ChorusServer = withoutOne;
  assert.equal(typeof incomplete.generate, 'function');
});
