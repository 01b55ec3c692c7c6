/**
 * The editor side of signoff: the last run's exclusions (proven and waived points) exported for the tool that signs
 * off (`chorus/exportWaivers`: the engine writes them through its output rule), and a run on top of the user's
 * regression (`generate --merge`). A file CHORUS did not write is replaced only after the user says so in a modal.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { takesRegression, type EngineName, type Logger, type WaiverExportFormat } from '../protocol';
import type { LaunchOptions } from './runLauncher';
import type { ChorusServer } from './server';
import { runEngine, type ChorusSettings } from './settings';
import type { CoverageStore } from './store';

export interface ExportFormatItem extends vscode.QuickPickItem {
  format: WaiverExportFormat;
  /** The file name's ending, with its dot. */
  suffix: string;
  filters: Record<string, string[]>;
}

/** The formats, as the CLI names them (`--vlt`, `--urg-el`, `--imc-tcl`, `--lcov`, `--cobertura`). */
export const EXPORT_FORMATS: readonly ExportFormatItem[] = [
  {
    format: 'vlt',
    label: 'Verilator configuration (.vlt)',
    description: '--vlt',
    detail: 'coverage_off on each line whose every point is proven unreachable or waived',
    suffix: '.vlt',
    filters: { 'Verilator configuration': ['vlt'] },
  },
  {
    format: 'urgEl',
    label: 'Synopsys URG exclusions (.el)',
    description: '--urg-el',
    detail: 'toggle exclusions for urg -elfile (line and branch exclusions need checksums only URG computes)',
    suffix: '.el',
    filters: { 'URG exclusion file': ['el'] },
  },
  {
    format: 'imcTcl',
    label: 'Cadence IMC exclusions (.tcl)',
    description: '--imc-tcl',
    detail: 'exclude -toggle commands for wholly excluded signals',
    suffix: '.tcl',
    filters: { 'IMC Tcl': ['tcl'] },
  },
  {
    format: 'lcov',
    label: 'lcov without waived points (.info)',
    description: '--lcov',
    detail: 'the run’s coverage with excluded points left out, for genhtml and Codecov',
    suffix: '.lcov.info',
    filters: { lcov: ['info'] },
  },
  {
    format: 'cobertura',
    label: 'Cobertura XML without waived points (.xml)',
    description: '--cobertura',
    detail: 'the run’s coverage with excluded points left out, for GitLab, Jenkins and Azure',
    suffix: '.cobertura.xml',
    filters: { 'Cobertura XML': ['xml'] },
  },
];

export const REPLACE = 'Replace';
const DUT_PATH = /^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)*$/;

export interface ExportDeps {
  server: Pick<ChorusServer, 'exportWaivers'>;
  store: Pick<CoverageStore, 'get'>;
  logger: Logger;
}

/** "CHORUS: Export waivers…": a format, a place to save, then the server writes it. */
export async function exportWaivers(deps: ExportDeps, dut: vscode.Uri | undefined): Promise<void> {
  const entry = dut ? deps.store.get(dut) : undefined;
  if (!dut || !entry?.result) {
    void vscode.window.showInformationMessage(
      'No run to export: run "CHORUS: Generate high-coverage stimulus" on the design first.',
    );
    return;
  }
  const pick = await vscode.window.showQuickPick(EXPORT_FORMATS, {
    title: `Export the exclusions of ${entry.top} (proven unreachable and waived points)`,
    placeHolder: 'Pick the format of the tool that signs off',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!pick) return;
  let dutPath: string | undefined;
  if (pick.format === 'urgEl' || pick.format === 'imcTcl') {
    dutPath = await vscode.window.showInputBox({
      title: 'The DUT’s instance path in your regression’s testbench (--dut-path)',
      value: 'tb.dut',
      validateInput: (v) => (DUT_PATH.test(v.trim()) ? undefined : 'A dotted instance path, such as tb.dut'),
    });
    if (dutPath === undefined) return;
    dutPath = dutPath.trim();
  }
  const root = vscode.workspace.getWorkspaceFolder(dut)?.uri ?? vscode.Uri.joinPath(dut, '..');
  const target = await vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.joinPath(root, 'signoff', `${entry.top}${pick.suffix}`),
    filters: pick.filters,
    title: `Export ${pick.label}`,
  });
  if (!target) return;
  const params = {
    uri: dut.toString(),
    format: pick.format,
    target: target.toString(),
    ...(dutPath ? { dutPath } : {}),
  };
  let answer = await deps.server.exportWaivers(params);
  if (answer.status === 'needsConsent') {
    const choice = await vscode.window.showWarningMessage(
      `${vscode.workspace.asRelativePath(target)} was not written by CHORUS. Replace it with the exclusions?`,
      { modal: true, detail: answer.message },
      REPLACE,
    );
    if (choice !== REPLACE) return;
    answer = await deps.server.exportWaivers({ ...params, force: true });
  }
  if (answer.status !== 'written') return;
  deps.logger.info(`Exported the exclusions of ${entry.top} (${pick.format}) to ${answer.file}.`);
  void vscode.window.showInformationMessage(
    `Exported ${answer.excluded} excluded point${answer.excluded === 1 ? '' : 's'} to ${vscode.workspace.asRelativePath(target)}.`,
  );
}

export const USE_MODEL_FREE_FOR_REGRESSION = 'Use the model-free search';

export interface RegressionDeps {
  launcher: { generate(opts: LaunchOptions): Promise<unknown> };
  settings(scope: vscode.Uri): ChorusSettings;
  /** The engine `auto` stands for, as the server last said; undefined before. */
  autoEngine(): EngineName | undefined;
}

/**
 * "CHORUS: Generate on top of my regression…": the user's coverage.dat files, then a run that starts from them
 * (the request's `regression`). Only the model-free engine runs on a regression: with `llm` or `hybrid` the user
 * is told so and may run the model-free search instead.
 */
export async function generateOnRegression(deps: RegressionDeps, dut: vscode.Uri | undefined): Promise<void> {
  const doc = dut ?? vscode.window.activeTextEditor?.document.uri;
  if (!doc) {
    void vscode.window.showWarningMessage(
      'Open a Verilog or SystemVerilog design file, then run "CHORUS: Generate on top of my regression…".',
    );
    return;
  }
  const settings = deps.settings(doc);
  const auto = deps.autoEngine();
  const engine = settings.engine === 'auto' && !auto ? undefined : runEngine(settings, auto ?? 'random');
  let override: EngineName | undefined;
  if (engine && !takesRegression(engine)) {
    const choice = await vscode.window.showWarningMessage(
      `Generating on top of a regression is only supported by the model-free engine for now, and this run's engine is ${engine} (chorus.engine).`,
      {
        modal: true,
        detail: `The ${engine} engine measures its own testbench alone. The model-free search starts from your regression's merge and targets only what it leaves.`,
      },
      USE_MODEL_FREE_FOR_REGRESSION,
    );
    if (choice !== USE_MODEL_FREE_FOR_REGRESSION) return;
    override = 'random';
  }
  const root = vscode.workspace.getWorkspaceFolder(doc)?.uri ?? vscode.Uri.joinPath(doc, '..');
  const files = await vscode.window.showOpenDialog({
    canSelectMany: true,
    canSelectFiles: true,
    canSelectFolders: false,
    defaultUri: root,
    filters: { 'Verilator coverage': ['dat'] },
    openLabel: 'Start from these',
    title: `Your regression's coverage.dat files for ${path.basename(doc.fsPath)}`,
  });
  if (!files?.length) return;
  await deps.launcher.generate({ dut: doc, regression: files, ...(override ? { engine: override } : {}) });
}
