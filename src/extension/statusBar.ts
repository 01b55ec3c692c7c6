/** The status bar item: model state and the last coverage; a click opens the chat panel or the model picker. */
import * as vscode from 'vscode';
import type { CoverageSummary, ModelStatus } from '../protocol';
import { summaryText } from './format';

export interface StatusInput {
  /** The last `chorus/modelStatus`; undefined before the server sent one. */
  model?: ModelStatus;
  /** A model or endpoint is set in the settings, or the server found one (it would run `auto` with a model). */
  configured: boolean;
  /** The configured model's name, for before the server reports one. */
  configuredName?: string | undefined;
  /** The engine needs no model (`random`), so "no model" is not a problem. */
  modelFree: boolean;
  last?: { top: string; coverage: CoverageSummary };
}

export interface StatusView {
  text: string;
  tooltip: string;
  command: 'chorus.openChat' | 'chorus.selectModel';
  error: boolean;
}

function shortName(model: string): string {
  return model.replace(/^.*[\\/]/, '');
}

/** What the item shows; pure so every state is tested. */
export function statusView(input: StatusInput): StatusView {
  const m = input.model;
  const name = m?.model ?? input.configuredName;
  let text: string;
  let tip: string;
  let error = false;
  // The server says `not_configured` until a model is opened; with a model available that means "loads on first run".
  const reported = m?.state === 'not_configured' && input.configured ? undefined : m?.state;
  const state = reported ?? (input.configured ? undefined : 'not_configured');
  switch (state) {
    case 'not_configured':
      text = input.modelFree ? '$(beaker) CHORUS' : '$(circle-slash) CHORUS: no model';
      tip = input.modelFree
        ? 'No model configured: CHORUS uses the model-free search. Click to pick a model.'
        : 'No model configured. Click to pick a GGUF or an OpenAI-compatible endpoint.';
      break;
    case 'loading':
      text = `$(sync~spin) CHORUS: loading${m?.percent !== undefined ? ` ${Math.round(m.percent)}%` : '…'}`;
      tip = `Loading ${name ? shortName(name) : 'the model'}`;
      break;
    case 'ready':
      text = '$(check) CHORUS: ready';
      tip = `${name ? shortName(name) : 'Model'} is loaded${m?.backend ? ` (${m.backend})` : ''}.`;
      break;
    case 'generating':
      text = `$(loading~spin) CHORUS: ${m?.tokensPerSecond !== undefined ? `${m.tokensPerSecond.toFixed(1)} tok/s` : 'generating'}`;
      tip = `${name ? shortName(name) : 'The model'} is generating${m?.backend ? ` on ${m.backend}` : ''}.`;
      break;
    case 'error':
      text = '$(error) CHORUS: model error';
      tip = m?.message ?? 'The model failed to load. See the CHORUS log.';
      error = true;
      break;
    default:
      // Configured, not loaded yet: the server loads it on the first run.
      text = '$(beaker) CHORUS';
      tip = `${name ? shortName(name) : 'The model'} loads on the first run.`;
  }
  if (input.last) {
    // The bar has little room: line and branch there, every kind in the tooltip.
    const short = summaryText(input.last.coverage, ['line', 'branch']);
    if (short) text += ` · ${short}`;
    const full = summaryText(input.last.coverage);
    if (full) tip += `\nLast run on ${input.last.top}: ${full}.`;
  }
  const pick = state === 'not_configured' && !input.modelFree;
  tip += pick ? '' : '\nClick to open the CHORUS chat panel.';
  return { text, tooltip: tip, command: pick ? 'chorus.selectModel' : 'chorus.openChat', error };
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('chorus.status', vscode.StatusBarAlignment.Left, 50);
  private input: StatusInput;

  constructor(initial: StatusInput) {
    this.item.name = 'CHORUS';
    this.input = initial;
    this.render();
    this.item.show();
  }

  update(patch: Partial<StatusInput>): void {
    this.input = { ...this.input, ...patch };
    this.render();
  }

  get view(): StatusView {
    return statusView(this.input);
  }

  private render(): void {
    const v = statusView(this.input);
    this.item.text = v.text;
    this.item.tooltip = v.tooltip;
    this.item.command = v.command;
    this.item.backgroundColor = v.error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
