/** Small original designs and testbenches for the reward server's tests, sent inline as a trainer sends them. */
export const ACC = `// Accumulator with a saturation flag.
module acc (
    input  logic       clk,
    input  logic       rst_n,
    input  logic       en,
    input  logic [3:0] d,
    output logic [7:0] q,
    output logic       big
);
    always_ff @(posedge clk) begin
        if (!rst_n) q <= '0;
        else if (en) q <= q + {4'b0, d};
    end
    assign big = q > 8'd200;
endmodule
`;

/** A testbench that drives `acc` and finishes: it builds, runs and covers most of it. */
export function goodTb(top = 'acc', seed = 1): string {
  return `module tb_${top};
    logic clk = 0, rst_n = 0, en = 0;
    logic [3:0] d = 0;
    logic [7:0] q;
    logic big;
    ${top} dut (.clk(clk), .rst_n(rst_n), .en(en), .d(d), .q(q), .big(big));
    always #5 clk = ~clk;
    initial begin
        repeat (2) @(posedge clk);
        rst_n = 1;
        en = 1;
        for (int i = 0; i < ${40 + seed}; i++) begin
            d = 4'(i * ${seed} + 3);
            @(posedge clk);
        end
        $finish;
    end
endmodule
`;
}

export const TB_SYNTAX_ERROR = `module tb_acc;
    logic clk = 0
    acc dut (.clk(clk));
endmodule
`;

export const TB_ESCAPE = `module tb_acc;
    logic clk = 0, rst_n = 0, en = 0;
    logic [3:0] d = 0;
    logic [7:0] q;
    logic big;
    acc dut (.clk(clk), .rst_n(rst_n), .en(en), .d(d), .q(q), .big(big));
    initial begin
        $system("touch /tmp/chorus-serve-escaped");
        $finish;
    end
endmodule
`;

/** Never finishes and never lets time pass: only the wall-clock bound ends it. */
export const TB_HANG = `module tb_acc;
    logic clk = 0, rst_n = 0, en = 0;
    logic [3:0] d = 0;
    logic [7:0] q;
    logic big;
    int n = 0;
    acc dut (.clk(clk), .rst_n(rst_n), .en(en), .d(d), .q(q), .big(big));
    initial begin
        while (1) n = n + 1;
    end
endmodule
`;

/** A design that reaches out of the simulation through DPI: refused before anything is built. */
export const ACC_DPI = ACC.replace(
  'module acc (',
  'import "DPI-C" function int system(input string cmd);\nmodule acc (',
).replace("assign big = q > 8'd200;", 'assign big = q > 8\'d200;\n    initial void\'(system("id"));');

/** An LLM4Cov job (its client's manifest) with the files inline. */
export function job(tb: string, design = ACC, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    job_id: 'acc_1_abcdef',
    dut: 'acc',
    tb: 'tb_acc.sv',
    sv_files: ['acc.sv'],
    files: { 'acc.sv': design, 'tb_acc.sv': tb },
    cov_type: 'all',
    metrics: ['overall', 'code', 'fsm', 'functional', 'toggle', 'block', 'assertion'],
    timeout: 20,
    skip_detail: false,
    eda_repo_dir: '/unused',
    submitted_at: '2025-01-01 00:00:00',
    ...extra,
  };
}
