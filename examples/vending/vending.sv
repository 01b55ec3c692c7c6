// Vending machine controller: accepts nickels, dimes and quarters; an item costs 30 cents.
module vending (
    input  logic clk,
    input  logic rst,
    input  logic nickel,
    input  logic dime,
    input  logic quarter,
    input  logic cancel,
    output logic dispense,
    output logic [5:0] change
);
    typedef enum logic [2:0] {
        IDLE   = 3'd0,
        C5     = 3'd1,
        C10    = 3'd2,
        C15    = 3'd3,
        C20    = 3'd4,
        C25    = 3'd5,
        VEND   = 3'd6,
        REFUND = 3'd7
    } state_t;

    state_t state, next;
    logic [5:0] credit, next_credit;

    always_ff @(posedge clk or posedge rst) begin
        if (rst) begin
            state  <= IDLE;
            credit <= '0;
        end else begin
            state  <= next;
            credit <= next_credit;
        end
    end

    always_comb begin
        next        = state;
        next_credit = credit;
        dispense    = 1'b0;
        change      = '0;
        case (state)
            VEND: begin
                dispense    = 1'b1;
                change      = credit - 6'd30;
                next        = IDLE;
                next_credit = '0;
            end
            REFUND: begin
                change      = credit;
                next        = IDLE;
                next_credit = '0;
            end
            IDLE, C5, C10, C15, C20, C25: begin
                if (cancel) begin
                    next = (credit == '0) ? IDLE : REFUND;
                end else if (nickel || dime || quarter) begin
                    next_credit = credit + (quarter ? 6'd25 : dime ? 6'd10 : 6'd5);
                    if (next_credit >= 6'd30) next = VEND;
                    else next = state_t'(next_credit / 6'd5);
                end
            end
            default: next = IDLE;
        endcase
    end
endmodule
