// Synchronous FIFO with full/empty/almost flags and an occupancy count.
module fifo #(
    parameter int WIDTH = 8,
    parameter int DEPTH = 4,
    localparam int AW = $clog2(DEPTH)
) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             push,
    input  logic             pop,
    input  logic [WIDTH-1:0] din,
    output logic [WIDTH-1:0] dout,
    output logic             full,
    output logic             empty,
    output logic             almost_full,
    output logic             overrun,
    output logic             underrun,
    output logic [AW:0]      level
);
    logic [WIDTH-1:0] mem [DEPTH];
    logic [AW-1:0] wr_ptr, rd_ptr;

    assign full        = (level == DEPTH[AW:0]);
    assign empty       = (level == '0);
    assign almost_full = (level == DEPTH[AW:0] - 1'b1);
    assign dout        = mem[rd_ptr];

    always_ff @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            wr_ptr   <= '0;
            rd_ptr   <= '0;
            level    <= '0;
            overrun  <= 1'b0;
            underrun <= 1'b0;
        end else begin
            overrun  <= push && full && !pop;
            underrun <= pop && empty;
            case ({push, pop})
                2'b10: if (!full) begin
                    mem[wr_ptr] <= din;
                    wr_ptr <= wr_ptr + 1'b1;
                    level  <= level + 1'b1;
                end
                2'b01: if (!empty) begin
                    rd_ptr <= rd_ptr + 1'b1;
                    level  <= level - 1'b1;
                end
                2'b11: begin
                    if (empty) begin
                        mem[wr_ptr] <= din;
                        wr_ptr <= wr_ptr + 1'b1;
                        level  <= level + 1'b1;
                    end else begin
                        mem[wr_ptr] <= din;
                        wr_ptr <= wr_ptr + 1'b1;
                        rd_ptr <= rd_ptr + 1'b1;
                    end
                end
                default: ;
            endcase
        end
    end
endmodule
