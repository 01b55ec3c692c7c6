// Combinational ALU with zero/negative/carry/overflow flags.
module alu #(
    parameter int WIDTH = 8
) (
    input  logic [WIDTH-1:0] a,
    input  logic [WIDTH-1:0] b,
    input  logic [2:0]       op,
    output logic [WIDTH-1:0] y,
    output logic             zero,
    output logic             negative,
    output logic             carry,
    output logic             overflow
);
    localparam logic [2:0] OP_ADD = 3'd0, OP_SUB = 3'd1, OP_AND = 3'd2, OP_OR = 3'd3,
                           OP_XOR = 3'd4, OP_SHL = 3'd5, OP_SHR = 3'd6, OP_SLT = 3'd7;

    logic [WIDTH:0] wide;

    always_comb begin
        wide     = '0;
        carry    = 1'b0;
        overflow = 1'b0;
        case (op)
            OP_ADD: begin
                wide     = {1'b0, a} + {1'b0, b};
                carry    = wide[WIDTH];
                overflow = (a[WIDTH-1] == b[WIDTH-1]) && (wide[WIDTH-1] != a[WIDTH-1]);
            end
            OP_SUB: begin
                wide     = {1'b0, a} - {1'b0, b};
                carry    = wide[WIDTH];
                overflow = (a[WIDTH-1] != b[WIDTH-1]) && (wide[WIDTH-1] != a[WIDTH-1]);
            end
            OP_AND: wide[WIDTH-1:0] = a & b;
            OP_OR:  wide[WIDTH-1:0] = a | b;
            OP_XOR: wide[WIDTH-1:0] = a ^ b;
            OP_SHL: begin
                wide  = {1'b0, a} << b[2:0];
                carry = wide[WIDTH];
            end
            OP_SHR: wide[WIDTH-1:0] = a >> b[2:0];
            OP_SLT: wide[WIDTH-1:0] = ($signed(a) < $signed(b)) ? 1 : 0;
            default: wide = '0;
        endcase
        y        = wide[WIDTH-1:0];
        zero     = (y == '0);
        negative = y[WIDTH-1];
    end
endmodule
