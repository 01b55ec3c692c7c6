/**
 * Analysis of open documents, from the editor's text (unsaved edits included); cached per content by src/hdl.
 * A document that uses macros is read as Verilator's preprocessor expands it with the design's include folders
 * and macros (the design settings, a filelist), one expansion per version and flags.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { analyzeDocumentText, analyzeSources } from '../engine';
import type { DesignAnalysis } from '../protocol';
import { uriToPath } from './uris';

/** What the preprocessor needs of a design. */
export interface DocumentDesign {
  includeDirs?: string[] | undefined;
  defines?: Record<string, string | undefined> | undefined;
  /** The `chorus.verilatorPath` setting; `verilator` on PATH when absent. */
  verilatorPath?: string | undefined;
}

export function isHdlDocument(uri: string): boolean {
  return /\.(sv|svh|v|vh)$/i.test(uriToPath(uri));
}

/** Documents' analyses, the last one per document kept while its version and the design flags stay the same. */
export class DocumentAnalyses {
  private readonly last = new Map<string, { key: string; analysis: Promise<DesignAnalysis> }>();

  analyze(doc: TextDocument, design: DocumentDesign = {}): Promise<DesignAnalysis> {
    // Defines as entries: a name defined alone has the value undefined, which JSON would drop from an object.
    const defines = Object.entries(design.defines ?? {}).map(([name, value]) => [name, value ?? null]);
    const key = JSON.stringify([doc.version, design.includeDirs ?? [], defines, design.verilatorPath ?? '']);
    const cached = this.last.get(doc.uri);
    if (cached?.key === key) return cached.analysis;
    // The document object changes in place with edits: its text now is this version's.
    const file = uriToPath(doc.uri);
    const text = doc.getText();
    // One preprocessor run per document at a time; a version superseded while it waited is read as written.
    const previous = cached?.analysis.catch(() => undefined) ?? Promise.resolve();
    const analysis = previous.then(() =>
      this.last.get(doc.uri)?.key !== key
        ? analyzeSources([{ name: file, content: text }], { defines: design.defines })
        : analyzeDocumentText(file, text, {
            design: { includeDirs: design.includeDirs, defines: design.defines },
            verilatorPath: design.verilatorPath,
          }),
    );
    this.last.set(doc.uri, { key, analysis });
    return analysis;
  }

  forget(uri: string): void {
    this.last.delete(uri);
  }
}
