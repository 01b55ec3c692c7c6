/**
 * The inline coverage gutter: icons and overview-ruler marks for covered, uncovered and partly covered lines, a
 * grey struck mark (not the red hole mark) for lines whose only missed points are proven unreachable, and a blue
 * ticked mark for lines whose missed points are waived by the waiver file (its hover says who, why, the category
 * and the proof).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { lineMarks, type FileCoverageData, type LineMark, type LineState } from './coverageModel';
import type { CoverageStore } from './store';

const STATES: readonly LineState[] = ['covered', 'uncovered', 'partial', 'proven', 'waived'];
const VISIBLE_KEY = 'chorus.gutterVisible';

export type DecorationPlan = Record<LineState, LineMark[]>;

/** Splits a file's marks by decoration type; lines past the end of the document are dropped. Pure. */
export function decorationPlan(data: Pick<FileCoverageData, 'lines' | 'holes'>, lineCount: number): DecorationPlan {
  const plan: DecorationPlan = { covered: [], uncovered: [], partial: [], proven: [], waived: [] };
  for (const m of lineMarks(data)) if (m.line >= 1 && m.line <= lineCount) plan[m.state].push(m);
  return plan;
}

function decorationType(context: vscode.ExtensionContext, state: LineState): vscode.TextEditorDecorationType {
  const color = {
    covered: 'chorus.coveredForeground',
    uncovered: 'chorus.uncoveredForeground',
    partial: 'chorus.partialForeground',
    proven: 'chorus.provenForeground',
    waived: 'chorus.waivedForeground',
  }[state];
  return vscode.window.createTextEditorDecorationType({
    gutterIconPath: context.asAbsolutePath(`media/${state}.svg`),
    gutterIconSize: 'contain',
    overviewRulerColor: new vscode.ThemeColor(color),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
    isWholeLine: true,
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
}

export class CoverageGutter implements vscode.Disposable {
  private readonly types: Record<LineState, vscode.TextEditorDecorationType>;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Files edited since their coverage was measured. */
  private readonly stale = new Set<string>();
  private visible: boolean;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly store: CoverageStore,
  ) {
    this.types = {
      covered: decorationType(context, 'covered'),
      uncovered: decorationType(context, 'uncovered'),
      partial: decorationType(context, 'partial'),
      proven: decorationType(context, 'proven'),
      waived: decorationType(context, 'waived'),
    };
    this.visible = context.workspaceState.get<boolean>(VISIBLE_KEY) ?? true;
    void vscode.commands.executeCommand('setContext', VISIBLE_KEY, this.visible);
    this.subscriptions.push(
      store.onDidChange((entry) => {
        for (const file of entry.files.keys()) this.stale.delete(file);
        this.refresh();
      }),
      vscode.window.onDidChangeVisibleTextEditors(() => this.refresh()),
      // An edit makes the line numbers of the last run wrong: hide that file's marks until the next run.
      vscode.workspace.onDidChangeTextDocument((e) => {
        const file = path.normalize(e.document.uri.fsPath);
        if (e.contentChanges.length && this.store.forFile(file) && !this.stale.has(file)) {
          this.stale.add(file);
          this.refresh();
        }
      }),
    );
  }

  get isVisible(): boolean {
    return this.visible;
  }

  async setVisible(visible: boolean): Promise<void> {
    this.visible = visible;
    await this.context.workspaceState.update(VISIBLE_KEY, visible);
    await vscode.commands.executeCommand('setContext', VISIBLE_KEY, visible);
    this.refresh();
  }

  toggle(): Promise<void> {
    return this.setVisible(!this.visible);
  }

  refresh(): void {
    for (const editor of vscode.window.visibleTextEditors) this.paint(editor);
  }

  private paint(editor: vscode.TextEditor): void {
    const file = path.normalize(editor.document.uri.fsPath);
    const show = this.visible && editor.document.uri.scheme === 'file' && !this.stale.has(file);
    const found = show ? this.store.forFile(file) : undefined;
    const plan = found ? decorationPlan(found.data, editor.document.lineCount) : undefined;
    for (const state of STATES) {
      const options = (plan?.[state] ?? []).map((m) => ({
        range: editor.document.lineAt(m.line - 1).range,
        hoverMessage: new vscode.MarkdownString(m.hover),
      }));
      editor.setDecorations(this.types[state], options);
    }
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    for (const state of STATES) this.types[state].dispose();
  }
}
