/** `chorus/generate` and `chorus/steer`: a closure run, and a user's instruction to a run that is going. */
import type { CancellationToken } from 'vscode-languageserver/node';
import type { GenerateParams, GenerateResponse, SteerParams, SteerResult } from '../../protocol';
import type { RequestContext } from './context';

export async function generate(
  ctx: RequestContext,
  p: GenerateParams,
  token: CancellationToken,
): Promise<GenerateResponse> {
  const { connection } = ctx;
  const { runs } = ctx.ready();
  if (p.workDoneToken !== undefined) {
    return runs.generate(p, token, connection.window.attachWorkDoneProgress(p.workDoneToken));
  }
  // A progress the server creates has a Cancel button of its own; a client that refuses it gets none.
  const created = await connection.window.createWorkDoneProgress().catch(() => undefined);
  return created
    ? runs.generate(p, token, created, created.token)
    : runs.generate(p, token, connection.window.attachWorkDoneProgress(undefined));
}

export function steer(ctx: RequestContext, p: SteerParams): SteerResult {
  return { accepted: ctx.ready().runs.steer(p.runId, p.text) };
}
