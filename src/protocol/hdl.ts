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
  /** Packed width in bits after resolving parameters; 1 for scalars; 0 when it could not be resolved. */
  width: number;
  signed: boolean;
  /** Declared data type as written (`logic`, `wire`, `reg`, a struct or enum type name). */
  type: string;
  /** Unresolved packed range text, e.g. `[W-1:0]`, when there is one. */
  rangeText?: string;
  /** Unpacked dimensions as written (`[4]`, `[0:3]`) for array ports; `width` is then one element's. */
  unpacked?: string;
  /**
   * The unpacked dimensions' bounds after resolving parameters, outermost first (`[2]` is 0..1, `[0:3]` 0..3);
   * absent when the port has none or a bound could not be resolved.
   */
  dimensions?: UnpackedDimension[];
  /** Members of the port's enum type, when it has one. */
  enumMembers?: string[];
  range: SourceRange;
}

export interface UnpackedDimension {
  left: number;
  right: number;
}

export interface ParamInfo {
  name: string;
  /** Default value as written. */
  default: string;
  /** Numeric value when it could be evaluated. */
  value?: number;
  /** `localparam` rather than an overridable parameter. */
  local: boolean;
  /** Line of its declaration in the module's file, when known. */
  line?: number;
}

export interface InstanceInfo {
  /** Module type instantiated. */
  module: string;
  /** Instance name. */
  name: string;
  /** Port connections as written: `port` is null for ordered connections, `*` for `.*`. */
  connections?: { port: string | null; expr: string }[];
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
  /**
   * What holds the site besides its module: a generate for/if/case (an always block elaborated once per iteration
   * or chosen arm), a function or a task (code that runs where it is called).
   */
  within?: 'generate' | 'function' | 'task';
}

export interface ModuleInfo {
  name: string;
  file: string;
  line: number;
  params: ParamInfo[];
  ports: PortInfo[];
  instances: InstanceInfo[];
  /** A 1-bit input used in posedge/negedge event controls: the primary clock when there are several. */
  clock: string | null;
  reset: ResetInfo | null;
  /**
   * Every clock input, `clock` first: further 1-bit inputs named like a clock that event controls use (or that
   * feed an instance's clock). Absent from analyses made before it was added.
   */
  clocks?: string[];
  /** The reset input of each clock domain found, `reset` first. */
  resets?: ResetInfo[];
  fsms: FsmInfo[];
  sites: BranchSite[];
  range: SourceRange;
  /** Every case statement with its items' values, for unreachable-default checks. */
  cases?: CaseInfo[];
  /** Constants the RTL compares against (case items, `==`/`<` operands): a stimulus value dictionary. */
  literals?: LiteralInfo[];
}

/** One item of a case statement. */
export interface CaseItemInfo {
  /** Item expressions as written (`2'b10`, `IDLE`). */
  labels: string[];
  /** Each label's value when it is constant: decimal text, with its don't-care bits (`?`, x, z) as a mask. */
  values: ({ value: string; wildcardMask?: string } | null)[];
  line: number;
}

export interface CaseInfo {
  keyword: 'case' | 'casez' | 'casex';
  inside: boolean;
  subject: string;
  subjectWidth?: number;
  /** Members of the subject's enum type, when it has one. */
  enumMembers?: string[];
  items: CaseItemInfo[];
  /** Line of the `default` item, when there is one. */
  defaultLine?: number;
  /**
   * Every value the subject can hold, when analysis can list them (a state register only ever assigned
   * constants, directly or through a next-state variable); decimal text. Only worked out for cases with a default.
   */
  subjectValues?: string[];
  range: SourceRange;
}

/** A constant found in the RTL. Values are decimal text so the type stays JSON-safe; `literalsOf` gives bigints. */
export interface LiteralInfo {
  value: string;
  /** Don't-care bits of a casez/casex item, decimal text. */
  wildcardMask?: string;
  /** Width of the expression it relates to (or of the literal itself) when known. */
  width?: number;
  /** The expression compared against: a case subject or the other side of `==`, `<`, …. */
  subject?: string;
  /** The identifiers of a concatenation subject (`{push, pop}`) with their widths, most significant first. */
  subjectParts?: { name: string; width: number }[];
  kind: 'case_item' | 'comparison';
  file: string;
  line: number;
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
  /** The top's clocks and domain resets (ModuleInfo.clocks, .resets). */
  clocks?: string[];
  resets?: ResetInfo[];
  /**
   * Every module a testbench could drive, ranked: `topCandidates` first, then the modules they instantiate
   * (a core inside its wrappers), nearest the tops first.
   */
  topChoices?: string[];
  errors: HdlSyntaxError[];
}

/** A source file handed to the engine: name as the user knows it, and its text. */
export interface SourceFile {
  name: string;
  content: string;
}
