// UART transmitter: 8 data bits, optional even parity, one stop bit, LSB first.
module uart_tx #(
    parameter int CLKS_PER_BIT = 4
) (
    input  logic       clk,
    input  logic       rst_n,
    input  logic       start,
    input  logic       parity_en,
    input  logic [7:0] data,
    output logic       tx,
    output logic       busy,
    output logic       done
);
    typedef enum logic [2:0] { S_IDLE, S_START, S_DATA, S_PARITY, S_STOP } state_t;

    localparam int CW = $clog2(CLKS_PER_BIT);

    state_t        state;
    logic [CW-1:0] clk_count;
    logic [2:0]    bit_index;
    logic [7:0]    shift;
    logic          parity, use_parity;

    assign busy = (state != S_IDLE);

    always_ff @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state      <= S_IDLE;
            tx         <= 1'b1;
            done       <= 1'b0;
            clk_count  <= '0;
            bit_index  <= '0;
            shift      <= '0;
            parity     <= 1'b0;
            use_parity <= 1'b0;
        end else begin
            done <= 1'b0;
            case (state)
                S_IDLE: begin
                    tx <= 1'b1;
                    if (start) begin
                        shift      <= data;
                        parity     <= ^data;
                        use_parity <= parity_en;
                        clk_count  <= '0;
                        state      <= S_START;
                    end
                end
                S_START: begin
                    tx <= 1'b0;
                    if (clk_count == CW'(CLKS_PER_BIT - 1)) begin
                        clk_count <= '0;
                        bit_index <= '0;
                        state     <= S_DATA;
                    end else begin
                        clk_count <= clk_count + 1'b1;
                    end
                end
                S_DATA: begin
                    tx <= shift[bit_index];
                    if (clk_count == CW'(CLKS_PER_BIT - 1)) begin
                        clk_count <= '0;
                        if (bit_index == 3'd7) state <= use_parity ? S_PARITY : S_STOP;
                        else bit_index <= bit_index + 1'b1;
                    end else begin
                        clk_count <= clk_count + 1'b1;
                    end
                end
                S_PARITY: begin
                    tx <= parity;
                    if (clk_count == CW'(CLKS_PER_BIT - 1)) begin
                        clk_count <= '0;
                        state     <= S_STOP;
                    end else begin
                        clk_count <= clk_count + 1'b1;
                    end
                end
                S_STOP: begin
                    tx <= 1'b1;
                    if (clk_count == CW'(CLKS_PER_BIT - 1)) begin
                        clk_count <= '0;
                        done      <= 1'b1;
                        state     <= S_IDLE;
                    end else begin
                        clk_count <= clk_count + 1'b1;
                    end
                end
                default: state <= S_IDLE;
            endcase
        end
    end
endmodule
