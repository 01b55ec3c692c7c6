// The input dictionary (src/hdl/dictionary.ts): constants the design compares against, placed on the top input
// bits that feed the comparison (through assigns, combinational blocks, registers and instances), plus
// handshake pairs and open-drain echoes read from port names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyzeSources, echoInputs, echoedValue, handshakePairs, inputDictionary, readFilelist } from '../../src/hdl';
import type { InputField } from '../../src/hdl';
import { corpusPath } from '../helpers/corpus';

function dictionary(text: string, top: string, opts: Parameters<typeof inputDictionary>[3] = {}): InputField[] {
  const files = [{ name: `/rtl/${top}.sv`, content: text }];
  const analysis = analyzeSources(files, { top, parameters: opts.parameters });
  return inputDictionary(analysis, top, new Map(files.map((f) => [f.name, f.content])), opts);
}

const hex = (vs: bigint[]) => vs.map((v) => `0x${v.toString(16)}`);
const field = (fs: InputField[], input: string, lsb: number, width: number, mask?: bigint) =>
  fs.find((f) => f.input === input && f.lsb === lsb && f.width === width && f.mask === mask);
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

const decoder = `
package toy_pkg;
  localparam logic [6:0] OPCODE_OP = 7'h33;
  localparam logic [6:0] OPCODE_OPIMM = 7'h13;
  localparam logic [6:0] OPCODE_SYSTEM = 7'h73;
endpackage

module toy_dec import toy_pkg::*; #(parameter int XLEN = 32) (
  input  logic            clk,
  input  logic            valid_i,
  input  logic [XLEN-1:0] instr_rdata_i,
  output logic [3:0]      op_o
);
  logic [31:0] instr_q;
  logic [31:0] instr;
  logic [6:0]  opcode;
  logic [2:0]  funct3;
  always_ff @(posedge clk) if (valid_i) instr_q <= instr_rdata_i;
  assign instr = instr_q;
  assign funct3 = instr[14:12];
  always_comb begin
    opcode = instr[6:0];
    op_o = 4'd0;
    case (opcode)
      OPCODE_OP: if (instr[31:25] == 7'b0000001) op_o = 4'd1; else op_o = 4'd2;
      OPCODE_OPIMM: if (funct3 != 3'd5) op_o = 4'd3;
      OPCODE_SYSTEM: op_o = 4'd4;
      default: op_o = 4'd0;
    endcase
  end
endmodule
`;

test('a toy decoder: case on the opcode field and a funct7 compare, through an instruction register', () => {
  const fs = dictionary(decoder, 'toy_dec');
  const opcode = field(fs, 'instr_rdata_i', 0, 7);
  assert.ok(opcode, JSON.stringify(fs.map((f) => [f.input, f.lsb, f.width])));
  assert.deepEqual(hex(opcode.values), ['0x13', '0x33', '0x73']);
  assert.equal(opcode.stages, 1);
  assert.equal(opcode.subject, 'opcode');
  assert.deepEqual(opcode.source, { file: '/rtl/toy_dec.sv', line: lineOf(decoder, 'OPCODE_OP: if') });
  assert.deepEqual(field(fs, 'instr_rdata_i', 25, 7)?.values, [1n]);
  assert.deepEqual(field(fs, 'instr_rdata_i', 12, 3)?.values, [5n]);
  // A one-bit control input is not a field: random stimulus already hits both values.
  assert.equal(
    fs.some((f) => f.input === 'valid_i'),
    false,
  );
});

test('register stages are bounded: with none followed, a registered field is not reached', () => {
  assert.deepEqual(dictionary(decoder, 'toy_dec', { maxStages: 0 }), []);
});

test('a casez gives values with the bits that matter; a concatenated subject splits into its parts', () => {
  const text = `
module toy_z (
  input  logic [31:0] instr_i,
  output logic [1:0]  k_o
);
  always @* begin
    k_o = 2'd0;
    casez (instr_i[6:0])
      7'b1?0_0011: k_o = 2'd1;
      7'b000_0?11: k_o = 2'd2;
      default: ;
    endcase
    unique case ({instr_i[31:25], instr_i[14:12]})
      {7'b000_0001, 3'b100}: k_o = 2'd3;
      {7'b010_0000, 3'b000}: k_o = 2'd1;
      default: ;
    endcase
  end
endmodule
`;
  const fs = dictionary(text, 'toy_z');
  assert.deepEqual(field(fs, 'instr_i', 0, 7, 0b1011111n)?.values, [0b1000011n]);
  assert.deepEqual(field(fs, 'instr_i', 0, 7, 0b1111011n)?.values, [0b0000011n]);
  assert.deepEqual(hex(field(fs, 'instr_i', 25, 7)?.values ?? []), ['0x1', '0x20']);
  assert.deepEqual(field(fs, 'instr_i', 12, 3)?.values, [0n, 4n]);
});

test('declared ranges that do not start at 0, ascending ranges, a field of a field, inside sets, casts', () => {
  const text = `
module toy_r #(parameter N = 12) (
  input  logic [31:2]  addr_i,
  input  logic [0:7]   cmd_i,
  input  logic [N-1:0] word_i,
  output logic         hit_o
);
  localparam logic [3:0] REG_CTRL = 4'hA;
  wire [7:0] hi_byte = word_i[N-1:N-8];
  wire [3:0] nib;
  typedef enum logic [2:0] { K_A = 3'd2, K_B = 3'd6 } kind_e;
  kind_e kind;
  assign nib = hi_byte[5:2];
  assign kind = kind_e'(addr_i[12:10]);
  assign hit_o = (addr_i[5:2] == REG_CTRL) || (cmd_i[0:3] == 4'h9) || (nib == 4'd7)
               || (word_i[3:0] inside {4'd1, [4'd12:4'd14]}) || (kind == K_B);
endmodule
`;
  const fs = dictionary(text, 'toy_r');
  // addr_i[5:2] is the port's bits 3..0: offsets count from the port's least significant bit
  assert.deepEqual(field(fs, 'addr_i', 0, 4)?.values, [0xan]);
  // [0:7]: index 0 is the most significant bit, so cmd_i[0:3] is bits 7..4
  assert.deepEqual(field(fs, 'cmd_i', 4, 4)?.values, [9n]);
  // nib = hi_byte[5:2] = word_i[11:4][5:2] = word_i[9:6]
  assert.deepEqual(field(fs, 'word_i', 6, 4)?.values, [7n]);
  assert.deepEqual(field(fs, 'word_i', 0, 4)?.values, [1n, 12n, 13n, 14n]);
  // through a cast to an enum type, compared with a member
  assert.deepEqual(field(fs, 'addr_i', 8, 3)?.values, [6n]);
  // with the parameter overridden the same slice moves
  const wide = dictionary(text, 'toy_r', { parameters: { N: '16' } });
  assert.deepEqual(field(wide, 'word_i', 10, 4)?.values, [7n]);
});

test('members of a packed struct port: the first member is the most significant', () => {
  const text = `
package bus_pkg;
  typedef enum logic [2:0] { PutFull = 3'h0, Get = 3'h4 } opcode_e;
  typedef struct packed {
    logic        valid;
    opcode_e     a_opcode;
    logic [31:0] a_address;
    logic [3:0]  a_mask;
  } req_t;
endpackage
module toy_s import bus_pkg::*; (input req_t req_i, output logic sel_o);
  assign sel_o = req_i.a_opcode == Get && req_i.a_address[7:2] == 6'h3 && req_i.a_mask != 4'hF;
endmodule
`;
  const fs = dictionary(text, 'toy_s');
  assert.deepEqual(field(fs, 'req_i', 36, 3)?.values, [4n]);
  assert.deepEqual(field(fs, 'req_i', 6, 6)?.values, [3n]);
  assert.deepEqual(field(fs, 'req_i', 0, 4)?.values, [15n]);
});

test('through the hierarchy: a child decodes what the parent registers from a top input', () => {
  const text = `
module toy_child (input logic [15:0] cmd, output logic go);
  assign go = cmd[15:12] == 4'hC;
endmodule
module toy_top (input logic clk, input logic [15:0] cmd_i, output logic go_o);
  logic [15:0] cmd_q;
  always @(posedge clk) cmd_q <= cmd_i;
  toy_child u_child (.cmd(cmd_q), .go(go_o));
endmodule
`;
  const fs = dictionary(text, 'toy_top');
  const f = field(fs, 'cmd_i', 12, 4);
  assert.deepEqual(f?.values, [0xcn]);
  assert.equal(f?.stages, 1);
});

test('handshake pairs: who drives the request and who answers', () => {
  const text = `
module toy_hs (
  input  logic       clk,
  input  logic       cmd_valid,
  output logic       cmd_ready,
  output logic       instr_req_o,
  input  logic       instr_gnt_i,
  input  logic       instr_rvalid_i,
  input  logic       wb_stb_i,
  output logic       wb_ack_o,
  input  logic       s_axis_tvalid,
  output logic       s_axis_tready,
  input  logic [7:0] data_valid_i
);
  assign cmd_ready = 1'b1;
  assign instr_req_o = 1'b0;
  assign wb_ack_o = wb_stb_i;
  assign s_axis_tready = 1'b1;
endmodule
`;
  const files = [{ name: '/rtl/toy_hs.sv', content: text }];
  const pairs = handshakePairs(analyzeSources(files, { top: 'toy_hs' }), 'toy_hs');
  const described = pairs.map(
    (p) => `${p.request}->${p.response}${p.responseValid ? `+${p.responseValid}` : ''} ${p.requester} ${p.kind}`,
  );
  assert.deepEqual(described.sort(), [
    'cmd_valid->cmd_ready environment valid/ready',
    'instr_req_o->instr_gnt_i+instr_rvalid_i design req/gnt',
    's_axis_tvalid->s_axis_tready environment valid/ready',
    'wb_stb_i->wb_ack_o environment stb/ack',
  ]);
});

test('open-drain inputs echo the output: verilog-i2c style scl_i/scl_o/scl_t, pad style, not datapaths', () => {
  const text = `
module toy_i2c (
  input  wire clk,
  input  wire scl_i,
  output wire scl_o,
  output wire scl_t,
  input  wire sda_pad_i,
  output wire sda_pad_o,
  output wire sda_padoen_o,
  input  wire gpio_i,
  output wire gpio_o,
  output wire gpio_oe,
  input  wire [7:0] data_i,
  output wire [7:0] data_o
);
  reg scl_o_reg = 1'b1;
  assign scl_o = scl_o_reg;
  assign scl_t = scl_o_reg;
  assign sda_pad_o = 1'b0;
  assign sda_padoen_o = 1'b1;
  assign gpio_o = 1'b0;
  assign gpio_oe = 1'b0;
  assign data_o = data_i;
endmodule
`;
  const files = [{ name: '/rtl/toy_i2c.sv', content: text }];
  const echoes = echoInputs(analyzeSources(files, { top: 'toy_i2c' }), 'toy_i2c');
  assert.deepEqual(echoes, [
    { input: 'scl_i', output: 'scl_o', enable: 'scl_t', enableActiveLow: true },
    { input: 'sda_pad_i', output: 'sda_pad_o', enable: 'sda_padoen_o', enableActiveLow: true },
    { input: 'gpio_i', output: 'gpio_o', enable: 'gpio_oe', enableActiveLow: false },
  ]);
  const [scl, , gpio] = echoes;
  // scl_t = 1 releases the line: the pull-up reads 1 whatever scl_o is; scl_t = 0 drives scl_o.
  assert.equal(echoedValue(scl, 1, 0n, 1n), 1n);
  assert.equal(echoedValue(scl, 1, 0n, 0n), 0n);
  assert.equal(echoedValue(scl, 1, 1n, 0n), 1n);
  assert.equal(echoedValue(gpio, 1, 0n, 1n), 0n);
  assert.equal(echoedValue(gpio, 1, 0n, 0n), 1n);
});

async function corpusDesign(id: string) {
  const root = corpusPath('real-ip-2');
  const list = await readFilelist(corpusPath('real-ip-2', 'items', `${id}.f`), { cwd: root });
  const files = list.files.map((f) => ({ name: f, content: readFileSync(f, 'utf8') }));
  const analysis = analyzeSources(files, { top: id, defines: list.defines });
  const start = performance.now();
  const fields = inputDictionary(analysis, id, new Map(files.map((f) => [f.name, f.content])), {
    defines: list.defines,
  });
  return { fields, ms: performance.now() - start };
}

test('the real cv32e40p decoder: the opcode field [6:0] with the RISC-V opcodes, funct3 [14:12], funct7 [31:25]', async () => {
  const { fields, ms } = await corpusDesign('cv32e40p_decoder');
  const opcode = field(fields, 'instr_rdata_i', 0, 7);
  assert.ok(opcode, 'no opcode field');
  // OP, OP-IMM, SYSTEM, LOAD, STORE, BRANCH, JAL, JALR, LUI, AUIPC, FENCE
  for (const v of [0x33n, 0x13n, 0x73n, 0x03n, 0x23n, 0x63n, 0x6fn, 0x67n, 0x37n, 0x17n, 0x0fn])
    assert.ok(opcode.values.includes(v), `opcode 0x${v.toString(16)} missing from ${hex(opcode.values).join(',')}`);
  assert.equal(opcode.stages, 0);
  const funct3 = field(fields, 'instr_rdata_i', 12, 3);
  assert.deepEqual(funct3?.values, [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
  const funct7 = field(fields, 'instr_rdata_i', 25, 7);
  assert.ok(funct7?.values.includes(0x20n) && funct7.values.includes(0x01n));
  // A wide safety net: it takes tens of milliseconds on an idle machine.
  assert.ok(ms < 5000, `${ms.toFixed(0)} ms`);
});

test('the real cv32e40p core: the decoder fields reach the top instruction input through the fetch stage', async () => {
  const { fields, ms } = await corpusDesign('cv32e40p_core');
  const opcode = field(fields, 'instr_rdata_i', 0, 7);
  assert.ok(opcode, 'no opcode field');
  assert.ok(opcode.values.includes(0x33n) && opcode.values.includes(0x73n));
  assert.ok(opcode.stages >= 1);
  assert.ok(ms < 10000, `${ms.toFixed(0)} ms`);
});

const nested = `
module toy_nest (
  input  logic        clk,
  input  logic        hi_half_i,
  input  logic [31:0] fetch_i,
  output logic [3:0]  op_o
);
  // A fetch aligner: the decoded word is the fetched one, or its halves swapped with the last fetch's.
  logic [15:0] last_hi;
  logic [31:0] instr;
  always_ff @(posedge clk) last_hi <= fetch_i[31:16];
  assign instr = hi_half_i ? {fetch_i[15:0], last_hi} : fetch_i;
  always_comb begin
    op_o = 4'd0;
    case (instr[6:0])
      7'h33:
        case ({instr[31:25], instr[14:12]})
          {7'h00, 3'h5}: op_o = 4'd1;
          {7'h01, 3'h1}: op_o = 4'd2;
          default: op_o = 4'd3;
        endcase
      7'h73:
        case (instr[31:20])
          12'h001: op_o = 4'd4;
          12'h342: op_o = 4'd5;
          default: ;
        endcase
      default: ;
    endcase
  end
endmodule
`;

test('joint fields: a concatenated case subject with the outer case item it sits in, in one word, halves kept apart', () => {
  const fs = dictionary(nested, 'toy_nest').filter((f) => f.joint && f.input === 'fetch_i');
  const words = (f: InputField) => f.values.map((v) => `0x${(v << BigInt(f.lsb)).toString(16)}`);
  // opcode [6:0], funct3 [14:12], funct7 [31:25] of the aligned word, with the values each item needs together
  const op = fs.find((f) => f.lsb === 0 && f.width === 32 && f.mask === 0xfe00707fn);
  assert.ok(op, JSON.stringify(fs.map((f) => [f.lsb, f.width, f.mask?.toString(16)])));
  assert.deepEqual(words(op).sort(), ['0x2001033', '0x5033']);
  assert.deepEqual(op.joint?.outer, ['instr[6:0]']);
  // SYSTEM with the immediate each item needs
  const system = fs.find((f) => f.lsb === 0 && f.width === 32 && f.mask === 0xfff0007fn);
  assert.deepEqual(words(system!).sort(), ['0x100073', '0x34200073']);
  // A comparison on its case item's own line (`OPCODE_OP: if (instr[31:25] == 7'b0000001)`) is inside that item.
  const sameLine = dictionary(decoder, 'toy_dec').find((f) => f.joint && f.mask === 0xfe00007fn);
  assert.deepEqual(sameLine?.values, [0x02000033n]);
  // Bits one comparison reads through different halves of the aligner never share a joint word. The aligned
  // opcode sits in [6:0]; swapped, funct7 and the immediate start in [15:7], where no aligned field reads.
  assert.ok(fs.length >= 3);
  for (const f of fs) {
    const care = (f.mask ?? (1n << BigInt(f.width)) - 1n) << BigInt(f.lsb);
    const aligned = (care & 0x7fn) !== 0n;
    const swapped = (care & 0x8f80n) !== 0n;
    assert.ok(!(aligned && swapped), `field at ${f.lsb}+${f.width} mask ${care.toString(16)} mixes the halves`);
  }
});
