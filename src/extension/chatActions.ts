/** What the chat panel's messages do: steer → `chorus/steer`, ask → `chorus/ask`, stop, retry, testbench, holes. */
import * as vscode from 'vscode';
import type { HostToWebview } from '../protocol';
import type { ChatActions } from './chatHost';
import { describeError } from './errors';
import type { RunLauncher } from './runLauncher';
import type { RunPublisher } from './runPublisher';
import type { RunRegistry } from './runRegistry';
import type { ChorusServer } from './server';
import type { CoverageStore } from './store';
import { withMarker } from './testbench';
import { restrictedMessage } from './trust';

export interface ChatActionDeps {
  server: ChorusServer;
  runs: Pick<RunRegistry, 'get' | 'current' | 'stop'>;
  launcher: Pick<RunLauncher, 'retry'>;
  publisher: Pick<RunPublisher, 'writeTestbench'>;
  store: CoverageStore;
  post(msg: HostToWebview): void;
  noteQuestion(askId: string, question: string): void;
}

export function chatActions(d: ChatActionDeps): ChatActions {
  return {
    steer: async (m) => {
      const run = m.runId ? d.runs.get(m.runId) : d.runs.current();
      if (!run?.running) {
        d.post({
          type: 'steerResult',
          steerId: m.steerId,
          accepted: false,
          message:
            'No run is going: start one with "CHORUS: Generate high-coverage stimulus", then steer its next round.',
        });
        return;
      }
      try {
        const answer = await d.server.steer({ runId: run.runId, text: m.text });
        if (!answer.accepted) {
          d.post({
            type: 'steerResult',
            steerId: m.steerId,
            accepted: false,
            runId: run.runId,
            message: 'The run has just ended, so the instruction was not used: start a new run to apply it.',
          });
          return;
        }
        d.post({ type: 'steerResult', steerId: m.steerId, accepted: true, runId: run.runId, round: run.round + 1 });
      } catch (err) {
        d.post({
          type: 'steerResult',
          steerId: m.steerId,
          accepted: false,
          runId: run.runId,
          message: describeError(err).message,
        });
      }
    },
    ask: async (m) => {
      if (!vscode.workspace.isTrusted) {
        d.post({ type: 'askChunk', askId: m.askId, text: '', done: true, error: restrictedMessage('ask the model') });
        return;
      }
      const run = m.runId ? d.runs.get(m.runId) : undefined;
      const active = vscode.window.activeTextEditor?.document.uri;
      const dut = run?.dut ?? d.store.latest()?.dut ?? active;
      if (!dut) {
        d.post({
          type: 'askChunk',
          askId: m.askId,
          text: '',
          done: true,
          error: 'Open a design file (or run Generate on one) so the model has a design to talk about.',
        });
        return;
      }
      d.noteQuestion(m.askId, m.question);
      try {
        await d.server.ask({ uri: dut.toString(), question: m.question, askId: m.askId });
      } catch (err) {
        d.post({ type: 'askChunk', askId: m.askId, text: '', done: true, error: describeError(err).message });
      }
    },
    stop: (m) => {
      d.runs.stop(m.runId);
    },
    retry: (m) => d.launcher.retry(m.runId),
    openTestbench: async (m) => {
      // The file CHORUS wrote when it holds this testbench; otherwise an unsaved editor (nothing is written).
      const run = d.runs.get(m.runId);
      const entry = run ? d.store.get(run.dut) : undefined;
      if (entry?.testbench) {
        const text = await Promise.resolve(vscode.workspace.fs.readFile(entry.testbench)).then(
          (b) => new TextDecoder().decode(b),
          () => undefined,
        );
        if (text !== undefined && text === withMarker(m.testbench, entry.top)) {
          await vscode.window.showTextDocument(entry.testbench, { viewColumn: vscode.ViewColumn.Beside });
          return;
        }
      }
      const doc = await vscode.workspace.openTextDocument({ language: 'systemverilog', content: m.testbench });
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
    },
    applyTestbench: async (m) => {
      const run = d.runs.get(m.runId);
      const entry = run ? d.store.get(run.dut) : d.store.latest();
      const dut = run?.dut ?? entry?.dut;
      const top = run?.top ?? entry?.top;
      if (!dut || !top) {
        d.post({
          type: 'notice',
          level: 'warning',
          text: 'That run is no longer known here: open the testbench and save it yourself.',
        });
        return;
      }
      await d.publisher.writeTestbench(dut, top, m.testbench);
    },
    copy: async (m) => {
      await vscode.env.clipboard.writeText(m.text);
    },
    revealHole: async (m) => {
      // `m.file` is the hole's absolute path.
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(m.file));
      const pos = new vscode.Position(Math.max(0, Math.min(m.line - 1, doc.lineCount - 1)), 0);
      await vscode.window.showTextDocument(doc, {
        selection: new vscode.Range(pos, pos),
        viewColumn: vscode.ViewColumn.One,
      });
    },
  };
}
