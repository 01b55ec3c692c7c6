/** The shapes of an instrumentation site: where a point's flag goes in the source, as offsets. */
import type { BranchSite } from '../protocol';
import type { FunctionSite } from './functionArms';

/** The statement of an always block (after its keyword and event control), as offsets. */
export interface AlwaysBody {
  start: number;
  end: number;
  /** The block's `always` keyword. */
  keyword: number;
  /** Inside a generate for/if/case: its flags are declared beside it, one copy per elaborated block. */
  generate: boolean;
}

/**
 * Where a point's flag goes: a statement to wrap, or an if statement whose missing `else` is added; or, for an arm
 * of an `initial` block (it runs once, at time zero), a wire at the module's end that holds the arm's path
 * conditions that read only parameters (see `initialArm`); or, for an arm of a function, a bit of a copy of the
 * function at the module's end (see `functionArms`).
 */
export type ArmPlan =
  | { kind: 'arm'; file: string; start: number; end: number; always: AlwaysBody; module: string; label: string }
  | {
      kind: 'implicit_else';
      file: string;
      start: number;
      end: number;
      always: AlwaysBody;
      module: string;
      label: string;
    }
  | {
      /** A wire of the path's parameter-only conditions (an initial block's arm, an arm of an asynchronous reset branch). */
      kind: 'initial';
      file: string;
      start: number;
      end: number;
      module: string;
      label: string;
      condition: string;
      /** Why the wire at 1 is not a witness (it holds whenever the conditions do, not only when the arm runs). */
      noWitness?: string;
    }
  | {
      kind: 'function';
      file: string;
      /** The arm's statement (for an added else: the if's own arm) in the function's text. */
      start: number;
      end: number;
      implicit: boolean;
      module: string;
      label: string;
      fn: FunctionSite;
      /** Why a trace of the flag is not a witness, if so (see `FunctionSite.witness`). */
      noWitness?: string;
    };

export type ArmLookup = ArmPlan | { kind: 'none'; reason: string };

export interface Arm {
  start: number;
  end: number;
  label: string;
  implicit?: boolean;
  /** The if statement whose arm this is, and whether it is the arm of its condition false (an else). */
  owner?: { site: BranchSite; negated: boolean };
}
