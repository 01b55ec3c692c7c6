/** The command table: command id → one small function (the shape of rust-analyzer's editors/code). */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isExcluded, isProven, provenText, readLensArgs, waiverText, type Hole } from '../protocol';
import type { Services } from './services';
import { summaryText } from './format';
import { selectModel } from './modelPicker';
import { isHdlDocument } from './languages';
import { exportWaivers, generateOnRegression } from './signoff';
import { atomicWrite, testbenchUri } from './testbench';
import { ensureTrusted } from './trust';

/** Every command the extension contributes (package.json lists the same ids, checked by a test). */
export const COMMAND_IDS = [
  'chorus.generate',
  'chorus.generateOnRegression',
  'chorus.stop',
  'chorus.showCoverage',
  'chorus.toggleGutter',
  'chorus.selectModel',
  'chorus.openTestbench',
  'chorus.exportLcov',
  'chorus.exportWaivers',
  'chorus.openChat',
  'chorus.showLog',
  'chorus.restartServer',
] as const;

export type CommandId = (typeof COMMAND_IDS)[number];

type Command = (...args: unknown[]) => unknown;

/**
 * A URI argument as menus and the server's code lenses pass it: a `Uri`, its string form, a path, or an object
 * `{ uri, top? }` (the lens arguments).
 */
export function asUri(arg: unknown): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (typeof arg === 'string' && arg)
    return /^[a-z][\w+.-]*:/i.test(arg) && !/^[a-z]:[\\/]/i.test(arg) ? vscode.Uri.parse(arg) : vscode.Uri.file(arg);
  const lens = readLensArgs(arg);
  return lens ? asUri(lens.uri) : undefined;
}

/** The top module named by a command argument: a string, or the `top` of a lens argument object. */
export function asTop(uriArg: unknown, topArg: unknown): string | undefined {
  if (typeof topArg === 'string' && topArg) return topArg;
  return readLensArgs(uriArg)?.top;
}

/** The DUT a command is about: its argument, the active editor's design file, or the last one run. */
function targetDut(s: Services, arg?: unknown): vscode.Uri | undefined {
  const given = asUri(arg);
  if (given) return given;
  const doc = vscode.window.activeTextEditor?.document;
  if (doc && isHdlDocument(doc)) return s.store.forFile(doc.uri.fsPath)?.entry.dut ?? doc.uri;
  return s.store.latest()?.dut;
}

async function reveal(file: string, line: number): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const pos = new vscode.Position(Math.max(0, Math.min(line - 1, doc.lineCount - 1)), 0);
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), preserveFocus: false });
}

async function showCoverage(s: Services, arg?: unknown): Promise<void> {
  const dut = targetDut(s, arg);
  if (!dut) {
    void vscode.window.showInformationMessage('Open a design file to see its CHORUS coverage.');
    return;
  }
  let entry = s.store.get(dut);
  if (!entry) {
    const answer = await s.server.coverage({ uri: dut.toString() }).catch((err: unknown) => {
      s.logger.warn(`chorus/coverage failed: ${String(err)}`);
      return undefined;
    });
    if (answer?.result) {
      const r = answer.result;
      entry = s.store.update(dut, { top: r.top, coverage: r.coverage, holes: r.holes, lines: answer.lines, result: r });
    }
  }
  if (!entry) {
    void vscode.window.showInformationMessage(
      `No coverage yet for ${path.basename(dut.fsPath)}: run "CHORUS: Generate high-coverage stimulus" first.`,
    );
    return;
  }
  if (!s.gutter.isVisible) await s.gutter.setVisible(true);
  // Proven-unreachable and waived points are listed after the holes, marked as such: they are not holes to chase.
  const isOpen = (h: Hole) => !isProven(h) && !isExcluded(h);
  const isWaivedOnly = (h: Hole) => !isProven(h) && isExcluded(h);
  const holes: Hole[] = [
    ...entry.holes.filter(isOpen),
    ...entry.holes.filter(isProven),
    ...entry.holes.filter(isWaivedOnly),
  ];
  type HoleItem = vscode.QuickPickItem & { file: string; line: number };
  // A hole carries its file's absolute path; the label shows it relative to the workspace.
  const items: HoleItem[] = holes.map((h) => ({
    label: `${isProven(h) ? '$(pass)' : isWaivedOnly(h) ? '$(check)' : '$(circle-large-outline)'} ${vscode.workspace.asRelativePath(h.file)}:${h.line}`,
    description: `${h.kind}: ${h.detail}${isProven(h) ? ` (${provenText(h)})` : isWaivedOnly(h) ? ` (${waiverText(h)})` : ''}`,
    ...(h.source !== undefined ? { detail: h.source } : {}),
    file: h.file,
    line: h.line,
  }));
  const open = holes.filter(isOpen).length;
  const proven = holes.filter(isProven).length;
  const waived = holes.length - open - proven;
  const title = `CHORUS: ${entry.top} — ${entry.coverage ? summaryText(entry.coverage) : 'no totals'} — ${open} hole${open === 1 ? '' : 's'}${proven ? `, ${proven} proven unreachable` : ''}${waived ? `, ${waived} waived` : ''}`;
  if (!items.length) {
    void vscode.window.showInformationMessage(`${title}: nothing left to cover.`);
    return;
  }
  const pick = await vscode.window.showQuickPick(items, {
    title,
    placeHolder: 'Pick a hole to reveal it',
    matchOnDescription: true,
  });
  if (pick) await reveal(pick.file, pick.line);
}

async function openTestbench(s: Services, arg?: unknown): Promise<void> {
  const dut = targetDut(s, arg);
  const entry = dut ? s.store.get(dut) : s.store.latest();
  const candidates = [
    entry?.testbench,
    entry?.result?.testbenchPath ? vscode.Uri.file(entry.result.testbenchPath) : undefined,
    dut && entry ? testbenchUri(dut, s.settings(dut).testbenchFolder, entry.top) : undefined,
  ];
  for (const uri of candidates) {
    if (!uri) continue;
    const exists = await Promise.resolve(vscode.workspace.fs.stat(uri)).then(
      () => true,
      () => false,
    );
    if (exists) {
      await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.Beside });
      return;
    }
  }
  if (entry?.result?.testbench) {
    const doc = await vscode.workspace.openTextDocument({ language: 'systemverilog', content: entry.result.testbench });
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside });
    return;
  }
  void vscode.window.showInformationMessage(
    'No generated testbench yet: run "CHORUS: Generate high-coverage stimulus" on a design first.',
  );
}

async function exportLcov(s: Services, arg?: unknown): Promise<void> {
  const dut = targetDut(s, arg);
  if (!dut) {
    void vscode.window.showInformationMessage('Open a design file that CHORUS has run on to export its coverage.');
    return;
  }
  const { lcov } = await s.server.exportLcov({ uri: dut.toString() });
  if (!lcov.trim()) {
    void vscode.window.showInformationMessage(
      `No coverage to export for ${path.basename(dut.fsPath)}: run Generate first.`,
    );
    return;
  }
  const root = vscode.workspace.getWorkspaceFolder(dut)?.uri ?? vscode.Uri.joinPath(dut, '..');
  const top = s.store.get(dut)?.top ?? path.basename(dut.fsPath).replace(/\.[^.]+$/, '');
  // The save dialog asks before replacing an existing file.
  const target = await vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.joinPath(root, 'coverage', `${top}.lcov.info`),
    filters: { lcov: ['info'] },
    title: 'Export CHORUS coverage as lcov',
  });
  if (!target) return;
  await atomicWrite(vscode.workspace.fs, target, new TextEncoder().encode(lcov));
  s.logger.info(`Exported lcov of ${top} to ${target.fsPath}.`);
  void vscode.window.showInformationMessage(`Exported ${vscode.workspace.asRelativePath(target)}.`);
}

export function commandTable(s: Services): Record<CommandId, Command> {
  return {
    'chorus.generate': (uri?: unknown, top?: unknown) => s.launcher.generate({ dut: asUri(uri), top: asTop(uri, top) }),
    'chorus.generateOnRegression': (uri?: unknown) => {
      if (ensureTrusted('generate stimulus')) return generateOnRegression(s, targetDut(s, uri));
    },
    'chorus.stop': () => {
      if (!s.runs.stop()) void vscode.window.showInformationMessage('No CHORUS run is going.');
    },
    'chorus.showCoverage': (uri?: unknown) => showCoverage(s, uri),
    'chorus.toggleGutter': () => s.gutter.toggle(),
    'chorus.selectModel': () => selectModel(s.server, s.log),
    'chorus.openTestbench': (uri?: unknown) => openTestbench(s, uri),
    'chorus.exportLcov': (uri?: unknown) => {
      if (ensureTrusted('export coverage')) return exportLcov(s, uri);
    },
    'chorus.exportWaivers': (uri?: unknown) => {
      if (ensureTrusted('export waivers')) return exportWaivers(s, targetDut(s, uri));
    },
    'chorus.openChat': () => s.chat.openPanel(),
    'chorus.showLog': () => s.log.show(),
    'chorus.restartServer': () => s.server.restart(),
  };
}

/** Registers every command, reporting a failure once with "Show log" instead of an unhandled rejection. */
export function registerCommands(s: Services): vscode.Disposable[] {
  return Object.entries(commandTable(s)).map(([id, run]) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await run(...args);
      } catch (err) {
        s.errors.report(err, `${id} failed`);
        return undefined;
      }
    }),
  );
}
