// The DMA engine (docs/isa.md §4 LOAD/STORE, §6 timing). Once the DRAM
// channel is granted it walks the transfer's runs (i1, i2, i3) and, per run,
// every beat of every burst the run touches: bursts x (burst / bytes per
// cycle) beats, one per cycle, so the channel occupancy is exactly
// isa::dmaTiming's. Each beat is one request on the DRAM valid/ready port;
// load data returns in the next cycle and is written to SP/ACC, store data
// is read from SP/ACC in the beat's cycle. A LOAD's padding (no DRAM traffic)
// is written beside the beats by npu_pad_unit; the channel is held until both
// are done, max(beats, padding cycles), as isa::dmaTiming's channelCycles.
module npu_dma
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
(
    input  logic                  clk,
    input  logic                  rst,
    // grant of the DRAM channel for a LOAD or STORE
    input  logic                  start,
    input  logic [INSTR_BITS-1:0] start_inst,
    output logic                  active,     // an earlier grant still owns the channel
    output logic                  last_beat,  // ... and this is the transfer's last cycle
    // DRAM port (registered requests; read data in the cycle after the request)
    output logic                  dram_req_valid,
    input  logic                  dram_req_ready,
    output logic                  dram_req_write,
    output logic [63:0]           dram_req_addr,
    output logic [DRAM_BW*8-1:0]  dram_req_wdata,
    output logic [DRAM_BW-1:0]    dram_req_wstrb,
    input  logic [DRAM_BW*8-1:0]  dram_rsp_rdata,
    // SRAM write (load data), SRAM byte addresses (ACC: 4 * word address)
    output logic                  wr_valid,
    output logic                  wr_acc,
    output logic [63:0]           wr_addr,
    output logic [31:0]           wr_len,
    output logic [DRAM_BW*8-1:0]  wr_data,
    // SRAM read (store data), combinational
    output logic                  rd_acc,
    output logic [63:0]           rd_addr,
    output logic [31:0]           rd_len,
    input  logic [DRAM_BW*8-1:0]  rd_data,
    // SRAM write of LOAD padding (byte address, ACC: 4 * word address)
    output logic                  pad_we,
    output logic                  pad_acc,
    output logic [63:0]           pad_addr,
    output logic [31:0]           pad_len,
    output logic [DRAM_BW*8-1:0]  pad_data
);
  localparam longint BW = DRAM_BW;
  localparam longint B = DRAM_BURST;

  // The transfer being walked. The first beat goes out in the grant cycle,
  // so the registered walker state is bypassed by the grant.
  logic [INSTR_BITS-1:0] I_q;
  logic busy_q, store_q, acc_q, first_q;
  logic [63:0] i1_q, i2_q, i3_q, ba;
  wire busy = busy_q || start;
  wire [INSTR_BITS-1:0] I = start ? start_inst : I_q;
  wire store = start ? start_inst[7:0] == OP_STORE : store_q;
  wire acc = start ? start_inst[LOAD_SRAM_LSB +: LOAD_SRAM_W] == 1'(MEMORY_ACC) : acc_q;
  wire first_of_run = start || first_q;
  wire [63:0] i1 = start ? 64'd0 : i1_q;
  wire [63:0] i2 = start ? 64'd0 : i2_q;
  wire [63:0] i3 = start ? 64'd0 : i3_q;
  // LOAD and STORE share the positions of every field used here except the
  // LOAD-only padding and conversion flags.
  wire [63:0] n0 = 64'(I[LOAD_N0_LSB +: LOAD_N0_W]);
  wire [63:0] n1 = 64'(I[LOAD_N1_LSB +: LOAD_N1_W]);
  wire [63:0] n2 = 64'(I[LOAD_N2_LSB +: LOAD_N2_W]);
  wire [63:0] n3 = 64'(I[LOAD_N3_LSB +: LOAD_N3_W]);
  wire [63:0] elem = 64'(I[LOAD_ELEM_BYTES_LSB +: LOAD_ELEM_BYTES_W]);
  wire [63:0] len = n0 * elem;
  wire [63:0] pad_t = store ? 64'd0 : 64'(I[LOAD_PAD_TOP_LSB +: LOAD_PAD_TOP_W]);
  wire [63:0] pad_l = store ? 64'd0 : 64'(I[LOAD_PAD_LEFT_LSB +: LOAD_PAD_LEFT_W]);
  wire flip = store ? I[STORE_I8_TO_U8_LSB] : I[LOAD_U8_TO_I8_LSB];

  wire [63:0] run_dram = I[LOAD_DRAM_ADDR_LSB +: LOAD_DRAM_ADDR_W] +
                         i1 * 64'(I[LOAD_S1_LSB +: LOAD_S1_W]) +
                         i2 * 64'(I[LOAD_S2_LSB +: LOAD_S2_W]) +
                         i3 * 64'(I[LOAD_S3_LSB +: LOAD_S3_W]);
  wire [63:0] run_unit = 64'(I[LOAD_SRAM_ADDR_LSB +: LOAD_SRAM_ADDR_W]) +
                         i3 * 64'(I[LOAD_T3_LSB +: LOAD_T3_W]) +
                         (i2 + pad_t) * 64'(I[LOAD_T2_LSB +: LOAD_T2_W]) +
                         (i1 + pad_l) * 64'(I[LOAD_T1_LSB +: LOAD_T1_W]);
  wire [63:0] run_sram = acc ? run_unit << 2 : run_unit;
  wire [63:0] beat = first_of_run ? run_dram / B * B : ba;
  wire [63:0] run_end = run_dram + len;
  wire [63:0] bursts_end = (run_end - 1) / B * B + B;
  wire [63:0] lo = beat > run_dram ? beat : run_dram;
  wire [63:0] hi = beat + BW < run_end ? beat + BW : run_end;
  wire has = lo < hi;
  wire [63:0] nbytes = has ? hi - lo : 64'd0;
  wire [63:0] boff = lo - beat;
  wire run_done = beat + BW >= bursts_end;
  wire last_run = i1 + 1 >= n1 && i2 + 1 >= n2 && i3 + 1 >= n3;

  // The padding writer, and the end of the transfer: the later of the last
  // beat and the last padding chunk.
  logic pad_busy, pad_last, pad_active;
  npu_pad_unit u_pad (
      .clk, .rst, .start, .start_inst, .busy(pad_busy), .last(pad_last), .active(pad_active),
      .we(pad_we), .wr_acc(pad_acc), .addr(pad_addr), .len(pad_len), .data(pad_data));
  wire data_last = busy && run_done && last_run;
  assign active = busy_q || pad_active;
  assign last_beat = (busy || pad_busy) && (!busy || data_last) && (!pad_busy || pad_last);

  // Store data: read the beat's bytes, place them at their lane offset.
  assign rd_acc = acc;
  assign rd_addr = run_sram + (lo - run_dram);
  assign rd_len = 32'(nbytes);
  logic [DRAM_BW*8-1:0] store_data;
  logic [DRAM_BW-1:0] store_strb;
  always_comb begin
    store_data = '0;
    store_strb = '0;
    for (int j = 0; j < int'(DRAM_BW); j++)
      if (64'(j) >= boff && 64'(j) < boff + nbytes) begin
        store_data[j*8 +: 8] = rd_data[(j - int'(boff))*8 +: 8] ^ {flip, 7'd0};
        store_strb[j] = 1'b1;
      end
  end

  // Load response stage.
  logic rsp_valid, rsp_acc, rsp_flip;
  logic [63:0] rsp_addr, rsp_boff;
  logic [31:0] rsp_len;
  assign wr_valid = rsp_valid;
  assign wr_acc = rsp_acc;
  assign wr_addr = rsp_addr;
  assign wr_len = rsp_len;
  always_comb begin
    wr_data = '0;
    for (int j = 0; j < int'(DRAM_BW); j++)
      if (64'(j) + rsp_boff < BW)
        wr_data[j*8 +: 8] = dram_rsp_rdata[(j + int'(rsp_boff))*8 +: 8] ^ {rsp_flip, 7'd0};
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0;
      dram_req_valid <= 1'b0;
      rsp_valid <= 1'b0;
    end else begin
      dram_req_valid <= 1'b0;
      rsp_valid <= 1'b0;
      if (start) begin
        I_q <= start_inst;
        store_q <= store;
        acc_q <= acc;
      end
      if (busy) begin
        busy_q <= !(run_done && last_run);
        if (has) begin
          dram_req_valid <= 1'b1;
          dram_req_write <= store;
          dram_req_addr <= beat;
          dram_req_wdata <= store_data;
          dram_req_wstrb <= store ? store_strb : '0;
          rsp_valid <= !store;
          rsp_acc <= acc;
          rsp_flip <= flip;
          rsp_addr <= run_sram + (lo - run_dram);
          rsp_boff <= boff;
          rsp_len <= 32'(nbytes);
        end
        i1_q <= i1;
        i2_q <= i2;
        i3_q <= i3;
        if (!run_done) begin
          ba <= beat + BW;
          first_q <= 1'b0;
        end else begin
          first_q <= 1'b1;
          if (last_run) ;
          else if (i1 + 1 < n1) i1_q <= i1 + 1;
          else begin
            i1_q <= '0;
            if (i2 + 1 < n2) i2_q <= i2 + 1;
            else begin
              i2_q <= '0;
              i3_q <= i3 + 1;
            end
          end
        end
      end
    end
  end

  wire unused = dram_req_ready;
endmodule
