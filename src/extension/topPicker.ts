/** Which module of the DUT document to cover: the only top candidate, or the user's pick among several. */
import * as vscode from 'vscode';

export interface SymbolLike {
  name: string;
  kind: number;
  detail?: string;
  children?: SymbolLike[];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The top candidates of a document: the module the server's analysis marked `top`, else the modules no other
 * module in it instantiates (an instance is a child symbol whose detail names a module, or the text
 * `name #(` / `name inst (`). Pure.
 */
export function topCandidates(symbols: readonly SymbolLike[], text: string): string[] {
  const moduleSymbols = symbols.filter((s) => s.kind === vscode.SymbolKind.Module);
  // The server marks the top its analysis found (only when it is unambiguous).
  const marked = moduleSymbols.filter((s) => s.detail === 'top');
  if (marked.length === 1) return [marked[0].name];
  const modules = moduleSymbols.map((s) => s.name);
  const instantiated = new Set<string>();
  for (const s of symbols) for (const c of s.children ?? []) if (c.detail && modules.includes(c.detail)) instantiated.add(c.detail);
  const code = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/.*$/gm, '');
  for (const m of modules) {
    const use = new RegExp(`(^|[;\\s])${escapeRegExp(m)}\\s*(#\\s*\\(|[A-Za-z_][\\w$]*\\s*(\\[[^\\]]*\\]\\s*)?\\()`, 'm');
    // The declaration itself (`module m (`) also matches `m (`… only with `module` before it; strip those.
    const withoutDecl = code.replace(new RegExp(`\\b(module|macromodule)\\s+${escapeRegExp(m)}\\b`, 'g'), ' ');
    if (use.test(withoutDecl)) instantiated.add(m);
  }
  const tops = modules.filter((m) => !instantiated.has(m));
  return tops.length ? tops : modules;
}

/** Asks the server for the document's symbols and picks the top; undefined `top` lets the server decide. */
export async function pickTop(doc: vscode.TextDocument, remembered?: string): Promise<{ top?: string; cancelled: boolean }> {
  const symbols =
    (await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>('vscode.executeDocumentSymbolProvider', doc.uri)) ?? [];
  const tops = topCandidates(symbols, doc.getText());
  if (tops.length <= 1) return { top: tops[0], cancelled: false };
  const ordered = remembered && tops.includes(remembered) ? [remembered, ...tops.filter((t) => t !== remembered)] : tops;
  const pick = await vscode.window.showQuickPick(
    ordered.map((t) => ({ label: t, description: t === remembered ? 'last used' : undefined })),
    { title: 'CHORUS: which top module should the testbench drive?', placeHolder: 'Several modules are not instantiated by another' },
  );
  return pick ? { top: pick.label, cancelled: false } : { cancelled: true };
}
