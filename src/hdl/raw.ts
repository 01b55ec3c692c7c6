/**
 * What one file says, as written, before names are resolved across files: the syntax walk fills these, and
 * `resolve.ts` turns them into the protocol's ModuleInfo once every file's packages and typedefs are known.
 */
import type { BranchSite, HdlSyntaxError, PortDirection, SourceRange } from '../protocol';

export interface RawDataType {
  /** Type text as written, whitespace collapsed. */
  text: string;
  /** Built-in keyword: logic, reg, bit, int, integer, byte, real… */
  keyword?: string | undefined;
  /** Net kind (wire, tri, wand…) when declared as a net. */
  netType?: string | undefined;
  /** A typedef name, possibly package-qualified (`pkg::state_t`). */
  userType?: string | undefined;
  signing?: 'signed' | 'unsigned' | undefined;
  /** Packed dimensions as written, outermost first: `[W-1:0]`. */
  packed: string[];
  enumDef?: RawEnum | undefined;
  structDef?: RawStruct | undefined;
}

export interface RawEnum {
  base?: RawDataType;
  members: { name: string; value?: string | undefined }[];
}

export interface RawStruct {
  union: boolean;
  packed: boolean;
  signing?: 'signed' | 'unsigned';
  members: { type: RawDataType; names: string[] }[];
}

export interface RawTypedef {
  name: string;
  type: RawDataType;
}

export interface RawParam {
  name: string;
  default: string;
  local: boolean;
  /** `parameter type T = …` */
  isType: boolean;
  type?: RawDataType | undefined;
  /** Line of its declaration. */
  line?: number | undefined;
}

export interface RawPort {
  name: string;
  direction?: PortDirection | undefined;
  /** Undefined for a non-ANSI port declared with neither type nor range (`output q;`). */
  type?: RawDataType | undefined;
  /** Interface port (`bus_if.master bus`): the interface name. */
  interfaceType?: string | undefined;
  unpacked: string[];
  range: SourceRange;
}

export interface RawDecl {
  name: string;
  type: RawDataType;
  unpacked: string[];
  /** The initializer of `logic [1:0] s = S0;`, as written. */
  init?: string;
}

export interface RawAssign {
  lhs: string;
  rhs: string;
  line: number;
  /** `+=`, `<<=`, …: the right-hand side is not the new value. */
  compound?: boolean;
  /** A continuous `assign`. */
  continuous?: boolean;
  /** The case statements whose `default` arm holds this write: it runs only when that default does. */
  underDefaultOf?: RawCase[];
}

/** A statement that may write variables without being `lhs = rhs`. */
export interface RawOtherWrite extends RawExpr {
  underDefaultOf?: RawCase[];
}

export interface RawExpr {
  text: string;
  line: number;
}

export interface RawEvent {
  edge: 'posedge' | 'negedge' | null;
  signal: string;
}

export interface RawAlways {
  keyword: string;
  events: RawEvent[];
  /**
   * The `if` statements at the block's top level (not nested in another if or case), in order: reset
   * tests live there. `first` marks the one that is the block's first statement.
   */
  topIfs: { cond: string; thenAssigns: RawAssign[]; first: boolean }[];
  range: SourceRange;
}

export interface RawCaseItem {
  labels: string[];
  isDefault: boolean;
  line: number;
}

export interface RawCase {
  keyword: 'case' | 'casez' | 'casex';
  inside: boolean;
  subject: string;
  items: RawCaseItem[];
  range: SourceRange;
}

export interface RawInstance {
  module: string;
  name: string;
  connections: { port: string | null; expr: string }[];
  range: SourceRange;
}

/** Declarations a module, package or compilation unit can hold. */
export interface RawScope {
  params: RawParam[];
  typedefs: RawTypedef[];
  decls: RawDecl[];
  /** Packages imported with `import pkg::*` (or single items as `pkg::name`). */
  imports: string[];
  /** Function declarations' text, for constant functions called in widths and parameters. */
  functions?: { name: string; text: string }[];
}

export interface RawModule extends RawScope {
  name: string;
  file: string;
  range: SourceRange;
  ansi: boolean;
  /** Port names in header order (non-ANSI list, or the ANSI declarations). */
  portOrder: string[];
  ports: RawPort[];
  /** Parameters declared in a `#(…)` list: body `parameter`s are then local. */
  hasParamPortList: boolean;
  instances: RawInstance[];
  always: RawAlways[];
  cases: RawCase[];
  assigns: RawAssign[];
  /**
   * Statements that may write variables without being `lhs = rhs`: `x++`, task and system calls with output
   * arguments, `for` headers. Analysis that needs every write of a variable gives up when one mentions it.
   */
  otherWrites: RawOtherWrite[];
  /** Conditions and right-hand sides, scanned for comparison constants. */
  exprs: RawExpr[];
  sites: BranchSite[];
}

export interface RawPackage extends RawScope {
  name: string;
}

export interface RawFile {
  file: string;
  modules: RawModule[];
  packages: RawPackage[];
  /** Declarations outside any module or package. */
  unit: RawScope;
  macros: Record<string, string>;
  errors: HdlSyntaxError[];
}

export function emptyScope(): RawScope {
  return { params: [], typedefs: [], decls: [], imports: [] };
}
