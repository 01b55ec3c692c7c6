/** Analysis of open documents, from the editor's text (unsaved edits included); cached per content by src/hdl. */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { analyzeSources } from '../engine';
import type { DesignAnalysis } from '../protocol';
import { uriToPath } from './uris';

export function analyzeDocument(doc: TextDocument): DesignAnalysis {
  return analyzeSources([{ name: uriToPath(doc.uri), content: doc.getText() }]);
}

export function isHdlDocument(uri: string): boolean {
  return /\.(sv|svh|v|vh)$/i.test(uriToPath(uri));
}
