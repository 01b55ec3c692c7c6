/** Which module of the DUT document to cover: the only top candidate, or the user's pick among several. */
import * as vscode from 'vscode';
import type { TopsParams, TopsResult } from '../protocol';

/** The part of the server the picker uses: `chorus/tops`. */
export interface TopsSource {
  tops(params: TopsParams): Promise<TopsResult>;
}

/**
 * The choices in the order offered: the remembered top first when it is still a candidate. Pure.
 */
export function orderTops(tops: readonly string[], remembered?: string): string[] {
  return remembered && tops.includes(remembered) ? [remembered, ...tops.filter((t) => t !== remembered)] : [...tops];
}

/** Asks the server for the document's top candidates and picks one; undefined `top` lets the server decide. */
export async function pickTop(
  server: TopsSource,
  doc: Pick<vscode.TextDocument, 'uri'>,
  remembered?: string,
): Promise<{ top?: string | undefined; cancelled: boolean }> {
  const { tops } = await server.tops({ uri: doc.uri.toString() });
  if (tops.length <= 1) return { top: tops[0], cancelled: false };
  const pick = await vscode.window.showQuickPick(
    orderTops(tops, remembered).map((t) => ({ label: t, ...(t === remembered ? { description: 'last used' } : {}) })),
    {
      title: 'CHORUS: which top module should the testbench drive?',
      placeHolder: 'Several modules are not instantiated by another',
    },
  );
  return pick ? { top: pick.label, cancelled: false } : { cancelled: true };
}
