/** What the `chorus/*` request handlers use of the server: its stores, its documents and its settings. */
import type { Connection, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ChorusSettings, DesignAnalysis, DesignSettings } from '../../protocol';
import type { ModelHost } from '../models';
import type { ResultStore } from '../results';
import type { RunManager } from '../runs';

export interface RequestContext {
  connection: Connection;
  documents: TextDocuments<TextDocument>;
  results: ResultStore;
  /** The model host and the run manager `initialize` made (a ChorusError before it). */
  ready(): { models: ModelHost; runs: RunManager };
  /** The document's analysis with its design's include folders and macros. */
  analysisOf(doc: TextDocument): Promise<DesignAnalysis>;
  /** The `chorus.*` settings for a document (the workspace's when `uri` is undefined). */
  settings(uri: string | undefined): Promise<ChorusSettings>;
  /** The design settings for a document. */
  designSettings(uri: string): Promise<DesignSettings>;
  /** The workspace folders now (absolute paths). */
  folders(): string[];
  /** The model manifest shipped with the server. */
  manifestPath: string;
}
