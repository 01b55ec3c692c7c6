/** "Select model…": the server's list (manifest entries, GGUFs found), an OpenAI-compatible endpoint, or a file. */
import * as vscode from 'vscode';
import type { ModelChoice } from '../protocol';
import type { ChorusServer } from './server';

export type ModelPickAction =
  | { kind: 'model'; uri: string; present: boolean; pull?: string | undefined }
  | { kind: 'endpoint' }
  | { kind: 'browse' }
  | { kind: 'none' };

export interface ModelPickItem {
  label: string;
  description?: string;
  detail?: string;
  action: ModelPickAction;
}

function size(bytes: number | undefined): string | undefined {
  return bytes ? `${(bytes / 1e9).toFixed(1)} GB` : undefined;
}

/** The quick pick's entries, the current choice marked. Pure. */
export function modelPickItems(
  models: readonly ModelChoice[],
  current: { model: string; endpoint: string },
): ModelPickItem[] {
  const items: ModelPickItem[] = models.map((m) => {
    const facts = [
      m.source === 'found' ? 'found on disk' : m.source,
      size(m.sizeBytes),
      m.present ? undefined : 'not downloaded',
    ];
    const isCurrent = !current.endpoint && (current.model === m.uri || current.model === m.id);
    return {
      label: `${isCurrent ? '$(check) ' : ''}${m.label}`,
      description: facts.filter(Boolean).join(' · '),
      detail: [m.description, m.path ?? m.uri].filter(Boolean).join(' — '),
      action: { kind: 'model', uri: m.uri, present: m.present, pull: m.downloadable ? m.id : undefined },
    };
  });
  items.push(
    {
      label: `${current.endpoint ? '$(check) ' : ''}$(globe) Use an OpenAI-compatible endpoint…`,
      description: current.endpoint || 'vLLM, SGLang, llama.cpp server, Ollama',
      action: { kind: 'endpoint' },
    },
    { label: '$(folder-opened) Browse for a GGUF…', action: { kind: 'browse' } },
    { label: '$(beaker) No model (model-free search only)', action: { kind: 'none' } },
  );
  return items;
}

/** A base URL an OpenAI-compatible client can use; returns the problem, or undefined when fine. Pure. */
export function validateEndpoint(value: string): string | undefined {
  try {
    const u = new URL(value.trim());
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      return 'Use an http:// or https:// URL, e.g. http://localhost:8000/v1';
    return undefined;
  } catch {
    return 'Enter a base URL, e.g. http://localhost:8000/v1';
  }
}

async function setModel(model: string, endpoint: string, apiModel?: string): Promise<void> {
  // User settings: a model path or endpoint belongs to the machine, not to the repository.
  const cfg = vscode.workspace.getConfiguration('chorus');
  const target = vscode.ConfigurationTarget.Global;
  await cfg.update('model', model || undefined, target);
  await cfg.update('endpoint', endpoint || undefined, target);
  if (apiModel !== undefined) await cfg.update('apiModel', apiModel || undefined, target);
}

/** Runs the picker; returns what was chosen (undefined when dismissed). */
export async function selectModel(server: ChorusServer, log: vscode.LogOutputChannel): Promise<string | undefined> {
  const cfg = vscode.workspace.getConfiguration('chorus');
  const current = { model: cfg.get<string>('model') ?? '', endpoint: cfg.get<string>('endpoint') ?? '' };
  let models: ModelChoice[] = [];
  try {
    models = (await server.listModels({})).models;
  } catch (err) {
    log.warn(`Could not list models from the language server: ${String(err)}`);
  }
  const pick = await vscode.window.showQuickPick(modelPickItems(models, current), {
    title: 'CHORUS: select the model that writes stimulus',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!pick) return undefined;
  switch (pick.action.kind) {
    case 'model':
      await setModel(pick.action.uri, '');
      if (!pick.action.present) {
        const how = pick.action.pull
          ? `download it with \`chorus model pull ${pick.action.pull}\``
          : `put its GGUF at ${pick.action.uri}`;
        void vscode.window.showInformationMessage(`${pick.label} is not on disk yet: ${how}.`);
      }
      return pick.action.uri;
    case 'endpoint': {
      const url = await vscode.window.showInputBox({
        title: 'OpenAI-compatible endpoint',
        prompt: 'Base URL of the chat completions API (the key is read from CHORUS_API_KEY)',
        value: current.endpoint || 'http://localhost:8000/v1',
        validateInput: validateEndpoint,
        ignoreFocusOut: true,
      });
      if (!url) return undefined;
      const apiModel = await vscode.window.showInputBox({
        title: 'Model name on the endpoint',
        prompt: 'As the server knows it (leave empty for its default model)',
        value: cfg.get<string>('apiModel') ?? '',
        ignoreFocusOut: true,
      });
      if (apiModel === undefined) return undefined;
      await setModel('', url.trim(), apiModel.trim());
      return url.trim();
    }
    case 'browse': {
      const files = await vscode.window.showOpenDialog({
        canSelectMany: false,
        filters: { 'GGUF model': ['gguf'] },
        title: 'Select a GGUF model',
        openLabel: 'Use this model',
      });
      if (!files?.[0]) return undefined;
      await setModel(files[0].fsPath, '');
      return files[0].fsPath;
    }
    case 'none':
      await setModel('', '');
      return '';
  }
}
