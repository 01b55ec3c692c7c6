/**
 * Dictionary stimulus writes the fields one site compares together: where several sites read the same bits at
 * different offsets (a fetch aligner's halves beside the decoder), a field is written only over bits no field
 * drawn before it took, so an opcode survives beside its funct3 instead of being overwritten by the next field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InputField } from '../../src/hdl';
import { Rng } from '../../src/engine/search/rng';
import { StimulusGenerator, toCycles } from '../../src/engine/search/stimulus';

const field = (lsb: number, width: number, values: bigint[], line: number): InputField => ({
  input: 'instr',
  lsb,
  width,
  values,
  source: { file: 'decoder.sv', line },
  subject: `instr[${lsb + width - 1}:${lsb}]`,
  stages: 1,
});

test('an opcode and its funct3 are written together despite fields that overlap them', () => {
  const fields = [
    field(0, 7, [0x33n], 1),
    field(12, 3, [5n], 2),
    // Sites reading the same word shifted by a half (a misaligned fetch) or a compressed decoder's fields.
    ...Array.from({ length: 12 }, (_, i) => field(2 + (i % 5), 3, [0n], 10 + i)),
    ...Array.from({ length: 6 }, (_, i) => field(10 + (i % 3), 4, [0n], 30 + i)),
  ];
  const gen = new StimulusGenerator([{ name: 'instr', width: 32 }], new Rng(7), [], false, fields);
  const words: bigint[] = [];
  while (words.length < 4_000) for (const cycle of toCycles(gen.dictionary().rows)) words.push(cycle[0]);
  const whole = words.filter((w) => (w & 0x7fn) === 0x33n && ((w >> 12n) & 7n) === 5n).length;
  // Each of the two fields is drawn before the fields overlapping it in about one value in eight or more; written
  // in a fixed order, the later overlapping fields left neither intact (under 0.1%).
  assert.ok(whole / words.length >= 0.01, `${whole} of ${words.length} words hold both the opcode and its funct3`);
  const opcode = words.filter((w) => (w & 0x7fn) === 0x33n).length;
  assert.ok(opcode / words.length >= 0.04, `${opcode} of ${words.length} words hold the opcode`);
});

test('a joint field writes an opcode, funct3 and funct7 together: an exact encoding in a good share of words', () => {
  const mulh = 0x02001033n; // OP, funct3 1, funct7 1
  const separate = [
    field(0, 7, [0x03n, 0x13n, 0x23n, 0x33n, 0x63n, 0x67n, 0x6fn, 0x73n], 1),
    field(12, 3, [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n], 2),
    field(25, 7, [0x00n, 0x01n, 0x20n], 3),
    ...Array.from({ length: 12 }, (_, i) => field(2 + (i % 5), 3, [0n], 10 + i)),
  ];
  const joint: InputField = {
    ...field(0, 32, [0x00005033n, 0x40005033n, mulh, 0x02002033n], 40),
    mask: 0xfe00707fn,
    joint: { outer: ['instr[6:0]'] },
  };
  const share = (fields: InputField[]) => {
    const gen = new StimulusGenerator([{ name: 'instr', width: 32 }], new Rng(11), [], false, fields);
    const words: bigint[] = [];
    while (words.length < 4_000) for (const cycle of toCycles(gen.dictionary().rows)) words.push(cycle[0]);
    return words.filter((w) => (w & 0xfe00707fn) === mulh).length / words.length;
  };
  // A fifth of the values start from a joint field, one of its four values each: about one word in twenty.
  assert.ok(share([...separate, joint]) >= 0.025, `${share([...separate, joint])}`);
  // The three fields drawn separately meet in under one word in a hundred.
  assert.ok(share(separate) < 0.01, `${share(separate)}`);
});
