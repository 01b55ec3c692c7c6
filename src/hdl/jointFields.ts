/**
 * Joint dictionary values: the bits one comparison needs in the same word. A concatenated case subject
 * (`{instr[30:25], instr[14:12]}`) traces to separate slices of an input, and a case nested in another case's
 * item (funct7/funct3 under the OP opcode, a CSR address under SYSTEM) holds only when the outer item's value is
 * there too. Drawn as independent fields, a 19-bit encoding of three fields comes up once in millions of words.
 */
import type { CaseInfo } from '../protocol';
import { mask } from './numbers';

/** Top input bits behind bits [offset, offset+width) of a compared expression. */
export interface TracedSlice {
  input: string;
  lsb: number;
  width: number;
  offset: number;
  stages: number;
  /**
   * The local signal the compared bits are read from and how far its bits sit from the input's
   * (`input bit - local bit`): where one signal is a shifted copy of the input (a fetched word), its parts keep
   * their places.
   */
  local?: { name: string; shift: number };
}

/** One slice with the value the comparison asks of it; slices at one offset are alternatives (paths). */
export interface SliceValue extends TracedSlice {
  value: bigint;
  /** Bits of the slice that matter. */
  care: bigint;
}

/** A joint field's bits and one value, on one input. */
export interface JointWord {
  input: string;
  lsb: number;
  width: number;
  /** Bits that matter, from lsb. */
  care: bigint;
  value: bigint;
  stages: number;
}

/** The lines of one case item and its constant values. */
export interface ItemSpan {
  subject: string;
  start: number;
  end: number;
  values: { value: bigint; wildcard: bigint }[];
}

/** Alignments kept per comparison: a fetch aligner gives a few, a product of many paths is cut here. */
const MAX_ALIGNMENTS = 8;
/** Case items around a comparison that join its value: a decoder nests two or three deep. */
const MAX_OUTER = 2;
/** Labels of one outer item joined (`CSR_A, CSR_B:`). */
const MAX_OUTER_VALUES = 4;

/** The value `value` (with don't-care bits `wildcard`) of an expression `width` bits wide, slice by slice. */
export function sliceValues(slices: TracedSlice[], value: bigint, wildcard: bigint): SliceValue[] {
  const out: SliceValue[] = [];
  for (const s of slices) {
    const m = mask(s.width);
    const care = ~(wildcard >> BigInt(s.offset)) & m;
    if (care === 0n) continue;
    out.push({ ...s, value: (value >> BigInt(s.offset)) & m & care, care });
  }
  return out;
}

/** Two slices of one local signal come from it through different paths (the halves of a fetch aligner). */
function misplaced(a: SliceValue, b: SliceValue): boolean {
  return !!a.local && !!b.local && a.local.name === b.local.name && a.local.shift !== b.local.shift;
}

function overlaps(a: SliceValue, b: SliceValue): boolean {
  if (a.input !== b.input) return false;
  const lo = Math.max(a.lsb, b.lsb);
  const hi = Math.min(a.lsb + a.width, b.lsb + b.width);
  return lo < hi && ((a.care << BigInt(a.lsb)) & (b.care << BigInt(b.lsb)) & (mask(hi - lo) << BigInt(lo))) !== 0n;
}

/**
 * Ways to place a compared value in one input word: slices of the expression's distinct parts, all on one input,
 * through the same number of register stages (bits that must meet in one cycle), no two on the same bits, and the
 * parts of one local signal at one shift from the input. Each slice in turn seeds one placement, and the others
 * that fit join it, widest first.
 */
export function alignments(values: SliceValue[]): SliceValue[][] {
  const order = [...values].sort((a, b) => a.stages - b.stages || b.width - a.width);
  const out: SliceValue[][] = [];
  const seen = new Set<string>();
  for (const seed of order) {
    if (out.length >= MAX_ALIGNMENTS) break;
    const chosen = [seed];
    for (const v of order) {
      if (v === seed || v.input !== seed.input || v.stages !== seed.stages) continue;
      const fits = chosen.every(
        (c) =>
          !overlaps(c, v) && !misplaced(c, v) && (v.offset >= c.offset + c.width || c.offset >= v.offset + v.width),
      );
      if (fits) chosen.push(v);
    }
    const key = chosen
      .map((c) => `${c.lsb}/${c.offset}`)
      .sort()
      .join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(chosen);
  }
  return out;
}

/** Both placements in one word, when they share an input and stage count and leave each other's bits alone. */
export function joined(a: SliceValue[], b: SliceValue[]): SliceValue[] | undefined {
  if (!a.length || !b.length) return undefined;
  if (a[0].input !== b[0].input || a[0].stages !== b[0].stages) return undefined;
  if (a.some((x) => b.some((y) => overlaps(x, y) || misplaced(x, y)))) return undefined;
  return [...a, ...b];
}

/** The slices as one masked field of their input. */
export function jointWord(slices: SliceValue[]): JointWord {
  const lsb = Math.min(...slices.map((s) => s.lsb));
  const end = Math.max(...slices.map((s) => s.lsb + s.width));
  let care = 0n;
  let value = 0n;
  for (const s of slices) {
    care |= s.care << BigInt(s.lsb - lsb);
    value |= s.value << BigInt(s.lsb - lsb);
  }
  return { input: slices[0].input, lsb, width: end - lsb, care, value, stages: slices[0].stages };
}

/** Each case item's lines (up to the next item, or the case's end) with its constant values. */
export function itemSpans(cases: readonly CaseInfo[]): ItemSpan[] {
  const out: ItemSpan[] = [];
  for (const c of cases) {
    const starts = [...c.items.map((i) => i.line), ...(c.defaultLine !== undefined ? [c.defaultLine] : [])].sort(
      (a, b) => a - b,
    );
    for (const item of c.items) {
      const next = starts.find((l) => l > item.line);
      const values = item.values.flatMap((v) =>
        v ? [{ value: BigInt(v.value), wildcard: BigInt(v.wildcardMask ?? '0') }] : [],
      );
      if (values.length)
        out.push({
          subject: c.subject,
          start: item.line,
          end: next !== undefined ? next - 1 : c.range.endLine,
          values,
        });
    }
  }
  return out;
}

/**
 * The words a comparison at `line` needs whole: its own placements, each joined with the values of up to two
 * case items around it (innermost first) where they fit in the same word. `placeOuter` places an outer item's
 * value; a placement of one slice with nothing around it is an ordinary field and is left out.
 */
export function jointWords(
  own: SliceValue[][],
  line: number,
  subject: string,
  spans: readonly ItemSpan[],
  placeOuter: (subject: string, value: bigint, wildcard: bigint) => SliceValue[][],
): { words: JointWord[]; outer: string[] } {
  const around = spans
    .filter((s) => s.start <= line && line <= s.end && s.subject !== subject)
    .sort((a, b) => b.start - a.start)
    .slice(0, MAX_OUTER);
  let combos = own;
  const outer: string[] = [];
  for (const span of around) {
    const next: SliceValue[][] = [];
    for (const { value, wildcard } of span.values.slice(0, MAX_OUTER_VALUES))
      for (const placed of placeOuter(span.subject, value, wildcard))
        for (const c of combos) {
          const j = joined(c, placed);
          if (j && next.length < MAX_ALIGNMENTS * MAX_OUTER_VALUES) next.push(j);
        }
    if (next.length) {
      combos = next;
      outer.push(span.subject);
    }
  }
  return { words: combos.filter((c) => c.length > 1).map(jointWord), outer };
}
