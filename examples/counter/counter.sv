// Up/down counter with load, enable and wrap flags.
module counter #(
    parameter int WIDTH = 8
) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             en,
    input  logic [1:0]       mode,    // 00 hold, 01 up, 10 down, 11 load
    input  logic [WIDTH-1:0] load_value,
    output logic [WIDTH-1:0] count,
    output logic             overflow,
    output logic             underflow
);
    localparam logic [WIDTH-1:0] MAX = {WIDTH{1'b1}};

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            count     <= '0;
            overflow  <= 1'b0;
            underflow <= 1'b0;
        end else if (en) begin
            overflow  <= 1'b0;
            underflow <= 1'b0;
            case (mode)
                2'b01: begin
                    if (count == MAX) overflow <= 1'b1;
                    count <= count + 1'b1;
                end
                2'b10: begin
                    if (count == '0) underflow <= 1'b1;
                    count <= count - 1'b1;
                end
                2'b11: count <= load_value;
                default: count <= count;
            endcase
        end
    end
endmodule
