/** What DUT analysis answers about a design. Lines and columns are 1-based. */

export interface SourceRange {
  file: string;
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
}

export type PortDirection = 'input' | 'output' | 'inout' | 'ref';

export interface PortInfo {
  name: string;
  direction: PortDirection;
  /** Packed width in bits after resolving parameters; 1 for scalars. */
  width: number;
  signed: boolean;
  /** Declared data type as written (`logic`, `wire`, `reg`, a struct or enum type name). */
  type: string;
  /** Unresolved packed range text, e.g. `[W-1:0]`, when there is one. */
  rangeText?: string;
  range: SourceRange;
}

export interface ParamInfo {
  name: string;
  /** Default value as written. */
  default: string;
  /** Numeric value when it could be evaluated. */
  value?: number;
  /** `localparam` rather than an overridable parameter. */
  local: boolean;
}

export interface InstanceInfo {
  /** Module type instantiated. */
  module: string;
  /** Instance name. */
  name: string;
  range: SourceRange;
}

export interface ResetInfo {
  name: string;
  activeLow: boolean;
  async: boolean;
}

export interface FsmInfo {
  /** The state register. */
  variable: string;
  /** Enum members or constants it is assigned. */
  states: string[];
  range: SourceRange;
}

/** A place a coverage hole can be explained by: an always block, an if arm, a case item. */
export interface BranchSite {
  kind: 'always' | 'if' | 'else' | 'case_item' | 'case_default';
  /** Human text: `if (!rst_n)`, `case item 2'b11 of case ({push, pop})`. */
  label: string;
  /** Case subject or if condition text. */
  subject?: string;
  range: SourceRange;
}

export interface ModuleInfo {
  name: string;
  file: string;
  line: number;
  params: ParamInfo[];
  ports: PortInfo[];
  instances: InstanceInfo[];
  /** A 1-bit input used in posedge/negedge event controls. */
  clock: string | null;
  reset: ResetInfo | null;
  fsms: FsmInfo[];
  sites: BranchSite[];
  range: SourceRange;
}

export interface HdlSyntaxError {
  file: string;
  line: number;
  column: number;
  message: string;
}

export interface DesignAnalysis {
  modules: ModuleInfo[];
  /** The module no other instantiates, or the one asked for; null when ambiguous or none. */
  top: string | null;
  /** Every module no other instantiates. */
  topCandidates: string[];
  clock: string | null;
  reset: ResetInfo | null;
  errors: HdlSyntaxError[];
}

/** A source file handed to the engine: name as the user knows it, and its text. */
export interface SourceFile {
  name: string;
  content: string;
}
