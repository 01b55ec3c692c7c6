/**
 * A small hand-written stand-in for the `vscode` module: the classes the adapters construct, and window /
 * workspace / commands / tests functions that record what the extension asked for. `stub` holds the records
 * and the answers a test wants dialogs to give. Loaded for the id 'vscode' by ./register.ts.
 */
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import * as nodePath from 'node:path';
import { pathToFileURL } from 'node:url';

type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly fn: () => void = () => {}) {}
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.add(listener);
    return new Disposable(() => this.listeners.delete(listener));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', '', nodePath.resolve(p));
  }
  static parse(s: string): Uri {
    if (s.startsWith('file:')) return new Uri('file', '', decodeURIComponent(new URL(s).pathname));
    const m = /^([a-z][\w+.-]*):(\/\/([^/]*))?(.*)$/i.exec(s);
    if (!m) throw new Error(`bad uri ${s}`);
    return new Uri(m[1], m[3] ?? '', m[4]);
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, base.authority, nodePath.posix.join(base.path, ...parts));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return this.scheme === 'file'
      ? pathToFileURL(this.path).href
      : `${this.scheme}:${this.authority ? `//${this.authority}` : ''}${this.path}`;
  }
}

export class RelativePattern {
  constructor(
    readonly base: unknown,
    readonly pattern: string,
  ) {}
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    if (typeof a === 'number' && typeof b === 'number') {
      this.start = new Position(a, b);
      this.end = new Position(c ?? a, d ?? b);
    } else {
      this.start = a as Position;
      this.end = b as Position;
    }
  }
}

export class MarkdownString {
  constructor(public value = '') {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class TestCoverageCount {
  constructor(
    public covered: number,
    public total: number,
  ) {}
}

export class BranchCoverage {
  constructor(
    public executed: number | boolean,
    public location?: Position | Range,
    public label?: string,
  ) {}
}

export class StatementCoverage {
  constructor(
    public executed: number | boolean,
    public location: Position | Range,
    public branches: BranchCoverage[] = [],
  ) {}
}

/** Same counting as VS Code's extHostTypes `FileCoverage.fromDetails`. */
export class FileCoverage {
  detailedCoverage?: StatementCoverage[];
  constructor(
    readonly uri: Uri,
    public statementCoverage: TestCoverageCount,
    public branchCoverage?: TestCoverageCount,
  ) {}
  static fromDetails(uri: Uri, details: StatementCoverage[]): FileCoverage {
    const statements = new TestCoverageCount(0, 0);
    const branches = new TestCoverageCount(0, 0);
    for (const d of details) {
      statements.total += 1;
      statements.covered += d.executed ? 1 : 0;
      for (const b of d.branches) {
        branches.total += 1;
        branches.covered += b.executed ? 1 : 0;
      }
    }
    const fc = new FileCoverage(uri, statements, branches.total > 0 ? branches : undefined);
    fc.detailedCoverage = details;
    return fc;
  }
}

export class TestMessage {
  constructor(readonly message: string) {}
}

export class TestRunRequest {
  constructor(
    readonly include?: TestItem[],
    readonly exclude?: TestItem[],
    readonly profile?: unknown,
  ) {}
}

export class FileSystemError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.emitter.event,
  };
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}
export enum OverviewRulerLane {
  Left = 1,
  Center = 2,
  Right = 4,
  Full = 7,
}
export enum DecorationRangeBehavior {
  OpenOpen = 0,
  ClosedClosed = 1,
}
export enum TestRunProfileKind {
  Run = 1,
  Debug = 2,
  Coverage = 3,
}
export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}
export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}
export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
}
export enum SymbolKind {
  File = 0,
  Module = 1,
  Namespace = 2,
  Variable = 12,
  Object = 18,
}

// ---------------------------------------------------------------------------------------------------------------
// Recording fakes

export interface TestItem {
  id: string;
  label: string;
  uri?: Uri | undefined;
}

export interface RecordedRun {
  name?: string | undefined;
  request: TestRunRequest;
  coverage: FileCoverage[];
  started: TestItem[];
  passed: TestItem[];
  failed: { item: TestItem; message: TestMessage }[];
  errored: { item: TestItem; message: TestMessage }[];
  skipped: TestItem[];
  /** `appendOutput` text, in order. */
  output: string[];
  ended: boolean;
}

export interface FakeDocument {
  uri: Uri;
  languageId: string;
  isDirty: boolean;
  lineCount: number;
  lineAt(i: number): { text: string; range: Range };
  getText(): string;
  save(): Promise<boolean>;
}

export interface FakeEditor {
  document: FakeDocument;
  decorations: Map<unknown, { range: Range; hoverMessage?: MarkdownString }[]>;
  setDecorations(type: unknown, options: { range: Range; hoverMessage?: MarkdownString }[]): void;
}

type Answer = string | undefined;

export const stub = {
  trusted: true,
  config: {} as Record<string, unknown>,
  workspaceFolder: undefined as Uri | undefined,
  symbols: [] as unknown[],
  messages: [] as { level: 'error' | 'warning' | 'info'; text: string; items: string[]; modal: boolean }[],
  /** Answers dialogs: return the button to press (undefined dismisses); may return a promise. */
  answer: (_level: string, _text: string, _items: string[]): Answer | Promise<Answer> => undefined,
  quickPick: (items: { label: string }[]): unknown => items[0],
  /** What the save, open and input dialogs answer (undefined: dismissed), and what they were asked. */
  saveDialog: (_options: unknown): Uri | undefined => undefined,
  openDialog: (_options: unknown): Uri[] | undefined => undefined,
  inputBox: (_options: unknown): string | undefined => undefined,
  dialogs: [] as { kind: 'save' | 'open' | 'input'; options: unknown }[],
  progress: [] as {
    title?: string | undefined;
    reports: { message?: string; increment?: number }[];
    cancel: () => void;
    done: boolean;
  }[],
  shown: [] as { uri: string; viewColumn?: number | undefined }[],
  context: {} as Record<string, unknown>,
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  executed: [] as { id: string; args: unknown[] }[],
  testRuns: [] as RecordedRun[],
  statusItems: [] as {
    text: string;
    tooltip?: string;
    command?: string;
    backgroundColor?: ThemeColor;
    visible: boolean;
  }[],
  webviews: [] as FakeWebview[],
  activeTextEditor: undefined as FakeEditor | undefined,
  visibleTextEditors: [] as FakeEditor[],
  visibleEditorsChanged: new EventEmitter<FakeEditor[]>(),
  activeEditorChanged: new EventEmitter<FakeEditor | undefined>(),
  /** What `workspace.findFiles` answers, and the patterns it was asked for. */
  files: [] as Uri[],
  findFilesCalls: [] as { include: unknown; exclude: unknown; max: unknown }[],
  clipboard: '',
  reset(): void {
    this.trusted = true;
    this.config = {};
    this.workspaceFolder = undefined;
    this.symbols = [];
    this.messages = [];
    this.answer = () => undefined;
    this.quickPick = (items) => items[0];
    this.saveDialog = () => undefined;
    this.openDialog = () => undefined;
    this.inputBox = () => undefined;
    this.dialogs = [];
    this.progress = [];
    this.shown = [];
    this.context = {};
    this.commands.clear();
    this.executed = [];
    this.testRuns = [];
    this.statusItems = [];
    this.webviews = [];
    this.activeTextEditor = undefined;
    this.visibleTextEditors = [];
    this.files = [];
    this.findFilesCalls = [];
    this.clipboard = '';
  },
};

function lines(text: string): string[] {
  return text.split(/\r?\n/);
}

export function makeDocument(uri: Uri, text: string, languageId = 'systemverilog'): FakeDocument {
  const ls = lines(text);
  return {
    uri,
    languageId,
    isDirty: false,
    lineCount: ls.length,
    lineAt: (i: number) => ({ text: ls[i], range: new Range(i, 0, i, ls[i].length) }),
    getText: () => text,
    save: async () => true,
  };
}

export function makeEditor(doc: FakeDocument): FakeEditor {
  const decorations = new Map<unknown, { range: Range; hoverMessage?: MarkdownString }[]>();
  return { document: doc, decorations, setDecorations: (type, options) => decorations.set(type, options) };
}

export interface FakeWebview {
  html: string;
  options: unknown;
  cspSource: string;
  posted: unknown[];
  receive: EventEmitter<unknown>;
  onDidReceiveMessage: (l: Listener<unknown>) => Disposable;
  postMessage(m: unknown): Promise<boolean>;
  asWebviewUri(u: Uri): Uri;
}

export function makeWebview(): FakeWebview {
  const receive = new EventEmitter<unknown>();
  const w: FakeWebview = {
    html: '',
    options: {},
    cspSource: 'vscode-webview://stub',
    posted: [],
    receive,
    onDidReceiveMessage: receive.event,
    postMessage: async (m) => {
      w.posted.push(m);
      return true;
    },
    asWebviewUri: (u) => Uri.parse(`vscode-webview://stub${u.path}`),
  };
  stub.webviews.push(w);
  return w;
}

async function ask(level: 'error' | 'warning' | 'info', text: string, rest: unknown[]): Promise<Answer> {
  const modal = typeof rest[0] === 'object' && rest[0] !== null && (rest[0] as { modal?: boolean }).modal === true;
  const items = rest.filter((r): r is string => typeof r === 'string');
  stub.messages.push({ level, text, items, modal });
  return stub.answer(level, text, items);
}

const configurationChanged = new EventEmitter<unknown>();
const saved = new EventEmitter<unknown>();
export const documentChanged = new EventEmitter<{ document: FakeDocument; contentChanges: unknown[] }>();
const trustGranted = new EventEmitter<void>();

export const window = {
  get activeTextEditor() {
    return stub.activeTextEditor;
  },
  get visibleTextEditors() {
    return stub.visibleTextEditors;
  },
  onDidChangeVisibleTextEditors: stub.visibleEditorsChanged.event,
  onDidChangeActiveTextEditor: stub.activeEditorChanged.event,
  createOutputChannel: () => ({ info() {}, warn() {}, error() {}, debug() {}, trace() {}, show() {}, dispose() {} }),
  createStatusBarItem: () => {
    const item = {
      text: '',
      visible: false,
      name: '',
      show() {
        item.visible = true;
      },
      hide() {},
      dispose() {},
    } as {
      text: string;
      visible: boolean;
      name: string;
      tooltip?: string;
      command?: string;
      backgroundColor?: ThemeColor;
      show(): void;
      hide(): void;
      dispose(): void;
    };
    stub.statusItems.push(item);
    return item;
  },
  createTextEditorDecorationType: (options: unknown) => ({ key: `deco${Math.random()}`, options, dispose() {} }),
  showErrorMessage: (text: string, ...rest: unknown[]) => ask('error', text, rest),
  showWarningMessage: (text: string, ...rest: unknown[]) => ask('warning', text, rest),
  showInformationMessage: (text: string, ...rest: unknown[]) => ask('info', text, rest),
  showQuickPick: async (items: { label: string }[]) => stub.quickPick(await items),
  showInputBox: async (options: unknown) => {
    stub.dialogs.push({ kind: 'input', options });
    return stub.inputBox(options);
  },
  showOpenDialog: async (options: unknown) => {
    stub.dialogs.push({ kind: 'open', options });
    return stub.openDialog(options);
  },
  showSaveDialog: async (options: unknown) => {
    stub.dialogs.push({ kind: 'save', options });
    return stub.saveDialog(options);
  },
  withProgress: async <R>(
    opts: { title?: string },
    task: (
      p: { report(v: { message?: string; increment?: number }): void },
      t: CancellationTokenSource['token'],
    ) => Promise<R>,
  ) => {
    const cts = new CancellationTokenSource();
    const rec = {
      title: opts.title,
      reports: [] as { message?: string; increment?: number }[],
      cancel: () => cts.cancel(),
      done: false,
    };
    stub.progress.push(rec);
    try {
      return await task({ report: (v) => rec.reports.push(v) }, cts.token);
    } finally {
      rec.done = true;
    }
  },
  showTextDocument: async (target: Uri | FakeDocument, opts?: { viewColumn?: number }) => {
    const uri = target instanceof Uri ? target : target.uri;
    stub.shown.push({ uri: uri.toString(), viewColumn: opts?.viewColumn });
    return makeEditor(target instanceof Uri ? await workspace.openTextDocument(target) : target);
  },
  registerWebviewViewProvider: () => new Disposable(),
  registerWebviewPanelSerializer: () => new Disposable(),
  createWebviewPanel: () => {
    const disposed = new EventEmitter<void>();
    return {
      webview: makeWebview(),
      onDidDispose: disposed.event,
      reveal() {},
      dispose: () => disposed.fire(),
      iconPath: undefined,
    };
  },
};

export const workspace = {
  get isTrusted() {
    return stub.trusted;
  },
  get workspaceFolders() {
    return stub.workspaceFolder ? [{ uri: stub.workspaceFolder, name: 'ws', index: 0 }] : undefined;
  },
  getConfiguration: (section?: string) => ({
    get: <T>(key: string): T | undefined => stub.config[section ? `${section}.${key}` : key] as T | undefined,
    update: async (key: string, value: unknown) => {
      stub.config[section ? `${section}.${key}` : key] = value;
    },
  }),
  getWorkspaceFolder: (uri: Uri) =>
    stub.workspaceFolder && uri.path.startsWith(stub.workspaceFolder.path + '/')
      ? { uri: stub.workspaceFolder, name: 'ws', index: 0 }
      : undefined,
  asRelativePath: (u: Uri | string) => {
    const p = typeof u === 'string' ? u : u.path;
    return stub.workspaceFolder && p.startsWith(stub.workspaceFolder.path + '/')
      ? p.slice(stub.workspaceFolder.path.length + 1)
      : p;
  },
  openTextDocument: async (arg: Uri | { language?: string; content?: string }) => {
    if (arg instanceof Uri) return makeDocument(arg, readFileSync(arg.fsPath, 'utf8'));
    return makeDocument(
      Uri.parse(`untitled:Untitled-${Math.random().toString(36).slice(2)}`),
      arg.content ?? '',
      arg.language,
    );
  },
  createFileSystemWatcher: () => ({ dispose() {} }),
  findFiles: async (include: unknown, exclude?: unknown, max?: unknown) => {
    stub.findFilesCalls.push({ include, exclude, max });
    return stub.files;
  },
  onDidChangeConfiguration: configurationChanged.event,
  onDidSaveTextDocument: saved.event,
  onDidChangeTextDocument: documentChanged.event,
  onDidGrantWorkspaceTrust: trustGranted.event,
  fs: {
    readFile: async (u: Uri) => {
      try {
        return new Uint8Array(await readFile(u.fsPath));
      } catch (err) {
        if ((err as { code?: string }).code === 'ENOENT')
          throw new FileSystemError(`not found: ${u.fsPath}`, 'FileNotFound');
        throw err;
      }
    },
    writeFile: async (u: Uri, content: Uint8Array) => writeFile(u.fsPath, content),
    rename: async (a: Uri, b: Uri) => rename(a.fsPath, b.fsPath),
    delete: async (u: Uri) => rm(u.fsPath, { force: true }),
    createDirectory: async (u: Uri) => {
      await mkdir(u.fsPath, { recursive: true });
    },
    stat: async (u: Uri) => stat(u.fsPath),
  },
};

export const commands = {
  registerCommand: (id: string, fn: (...args: unknown[]) => unknown) => {
    stub.commands.set(id, fn);
    return new Disposable(() => stub.commands.delete(id));
  },
  executeCommand: async (id: string, ...args: unknown[]) => {
    stub.executed.push({ id, args });
    if (id === 'setContext') stub.context[String(args[0])] = args[1];
    if (id === 'vscode.executeDocumentSymbolProvider') return stub.symbols;
    return stub.commands.get(id)?.(...args);
  },
};

export const env = {
  clipboard: {
    writeText: async (t: string) => {
      stub.clipboard = t;
    },
  },
};

export const tests = {
  createTestController: (id: string, label: string) => {
    const items = new Map<string, TestItem>();
    const controller = {
      id,
      label,
      items: {
        get: (k: string) => items.get(k),
        add: (i: TestItem) => items.set(i.id, i),
        forEach: (f: (i: TestItem) => void) => items.forEach((i) => f(i)),
        get size() {
          return items.size;
        },
      },
      profiles: [] as {
        label: string;
        kind: TestRunProfileKind;
        run: unknown;
        loadDetailedCoverage?: unknown;
        dispose(): void;
      }[],
      createRunProfile(label: string, kind: TestRunProfileKind, run: unknown) {
        const p = { label, kind, run, loadDetailedCoverage: undefined, dispose() {} };
        controller.profiles.push(p);
        return p;
      },
      createTestItem: (itemId: string, itemLabel: string, uri?: Uri): TestItem => ({
        id: itemId,
        label: itemLabel,
        uri,
      }),
      createTestRun: (request: TestRunRequest, name?: string) => {
        const rec: RecordedRun = {
          name,
          request,
          coverage: [],
          started: [],
          passed: [],
          failed: [],
          errored: [],
          skipped: [],
          output: [],
          ended: false,
        };
        stub.testRuns.push(rec);
        return {
          name,
          addCoverage: (c: FileCoverage) => rec.coverage.push(c),
          started: (i: TestItem) => rec.started.push(i),
          passed: (i: TestItem) => rec.passed.push(i),
          failed: (item: TestItem, message: TestMessage) => rec.failed.push({ item, message }),
          errored: (item: TestItem, message: TestMessage) => rec.errored.push({ item, message }),
          skipped: (i: TestItem) => rec.skipped.push(i),
          appendOutput: (text: string) => rec.output.push(text),
          end: () => {
            rec.ended = true;
          },
        };
      },
      dispose() {},
    };
    return controller;
  },
};
