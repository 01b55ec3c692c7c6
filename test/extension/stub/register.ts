/**
 * Import first in every extension test: makes `require('vscode')` load the stub next to this file, so the
 * extension's adapters run under Node's test runner without VS Code.
 */
import Module from 'node:module';
import * as path from 'node:path';

const stubFile = path.join(__dirname, 'vscode.ts');
type Resolve = (request: string, ...rest: unknown[]) => string;
const mod = Module as unknown as { _resolveFilename: Resolve };
const original = mod._resolveFilename;
mod._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  return request === 'vscode' ? stubFile : original.call(this, request, ...rest);
};
