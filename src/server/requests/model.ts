/** `chorus/ask` and `chorus/listModels`: a question to the model, and the models the user can pick. */
import type { CancellationToken } from 'vscode-languageserver/node';
import { ask as askModel, listModels as findModels } from '../../engine';
import {
  Notifications,
  type AskParams,
  type AskResult,
  type ListModelsParams,
  type ListModelsResult,
} from '../../protocol';
import { sendNotification } from '../rpc';
import { uriToPath } from '../uris';
import type { RequestContext } from './context';

export async function ask(ctx: RequestContext, p: AskParams, token: CancellationToken): Promise<AskResult> {
  const { models } = ctx.ready();
  const settings = await ctx.settings(p.uri);
  const controller = new AbortController();
  const sub = token.onCancellationRequested(() => controller.abort());
  try {
    const path = uriToPath(p.uri);
    const last = ctx.results.get(path);
    const request = { files: last?.files ?? [path], last: last?.result, question: p.question };
    const text = await askModel(request, models.provider(settings), controller.signal, (t) => {
      sendNotification(ctx.connection, Notifications.askChunk, { askId: p.askId, text: t, done: false });
    });
    sendNotification(ctx.connection, Notifications.askChunk, { askId: p.askId, text: '', done: true });
    return { text };
  } finally {
    sub.dispose();
  }
}

export async function listModels(ctx: RequestContext, p: ListModelsParams): Promise<ListModelsResult> {
  const { models } = ctx.ready();
  const settings = await ctx.settings(p.uri);
  return {
    models: await findModels({
      modelDirs: models.modelDirs,
      manifestPath: ctx.manifestPath,
      endpoint: settings.endpoint ? { baseUrl: settings.endpoint, model: settings.apiModel || undefined } : undefined,
    }),
  };
}
