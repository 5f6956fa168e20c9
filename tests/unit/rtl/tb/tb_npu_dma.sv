// Self-checking testbench of npu_dma (driven by tb_main.cpp's clock): 200
// random LOADs and STOREs (SP and ACC, 1- and 4-byte elements, up to
// 4-dimensional boxes with strides, LOAD padding offsets, u8<->i8 flips,
// unaligned DRAM addresses) against docs/isa.md §4 and §6 written out here:
//   * memory: after every transfer, SP, ACC and DRAM equal a reference that
//     copies each run (i1, i2, i3) byte by byte (^ 0x80 with the flag);
//   * padding: every box position outside the real region holds pad_value
//     sign-extended to the element, written by the DMA's padding writer
//     (`pad_we`) only inside the transfer's window;
//   * timing: the channel is held for exactly isa::dmaTiming's cycles, the
//     larger of the beats, sum over runs of (bursts the run touches) x
//     (burst / bytes per cycle), and the padding cycles, padding runs x
//     ceil(run bytes / bytes per cycle): `last_beat` in the grant cycle +
//     cycles - 1, `active` in between, every DRAM request aligned to a beat
//     and inside the granted window.
module tb_npu_dma
  import systole_isa_pkg::*;
  import npu_cfg_pkg::*;
(
    input logic clk
);
  localparam int BW = int'(DRAM_BW), BURST = int'(DRAM_BURST), NX = 200;
  localparam int DN = 8192, SN = 4096, AN = 4096;  // DRAM, SP, ACC bytes
  logic rst = 1'b1, start = 1'b0, dram_req_ready = 1'b1;
  logic [INSTR_BITS-1:0] start_inst = '0;
  logic active, last_beat, dram_req_valid, dram_req_write, wr_valid, wr_acc, rd_acc;
  logic pad_we, pad_acc;
  logic [63:0] dram_req_addr, wr_addr, rd_addr, pad_addr;
  logic [DRAM_BW*8-1:0] dram_req_wdata, dram_rsp_rdata, wr_data, rd_data, pad_data;
  logic [DRAM_BW-1:0] dram_req_wstrb;
  logic [31:0] wr_len, rd_len, pad_len;
  npu_dma dut (.*);

  logic [7:0] dram[DN], sp[SN], accb[AN];        // what the DUT does
  logic [7:0] rdram[DN], rsp[SN], raccb[AN];     // the reference

  // DRAM read data for the request on the port; store data from SRAM.
  always_comb begin
    for (int j = 0; j < BW; j++) begin
      dram_rsp_rdata[j*8 +: 8] = dram[(int'(dram_req_addr) + j) % DN];
      rd_data[j*8 +: 8] = rd_acc ? accb[(int'(rd_addr) + j) % AN] : sp[(int'(rd_addr) + j) % SN];
    end
  end

  int cyc = -1, grant = -1, beats = 0, prev_end = -1, n_x = 0, next_grant = 2, checks = 0;
  int n_load = 0, n_store = 0, n_acc = 0, n_flip = 0, n_pad = 0, n_paddom = 0, n_beats = 0;

  // A random transfer; applies its effect to the reference memories and
  // returns its channel cycles.
  task automatic make(output logic [INSTR_BITS-1:0] I, output int nbeats);
    int st, acc, elem, flip, n0, n1, n2, n3, len, s1, s2, s3, t1, t2, t3, pt, pb, pl, pr, da, sa;
    int unit, rows, cols, pad_cycles;
    logic [7:0] pv;
    I = '0;
    st = $urandom_range(0, 1);
    acc = $urandom_range(0, 3) == 0;
    elem = acc ? 4 : ($urandom_range(0, 2) == 0 ? 4 : 1);
    flip = elem == 1 && $urandom_range(0, 2) == 0;
    n0 = $urandom_range(1, 9); n1 = $urandom_range(1, 3); n2 = $urandom_range(1, 3);
    n3 = $urandom_range(1, 2);
    len = n0 * elem;
    pt = 0; pb = 0; pl = 0; pr = 0;
    if (!st && $urandom_range(0, 2) == 0) begin
      pt = $urandom_range(0, 2); pb = $urandom_range(0, 1); pl = $urandom_range(0, 2);
      pr = $urandom_range(0, 1);
    end
    unit = acc ? 4 : 1;
    // Disjoint runs on both sides (strides at least the extent below).
    s1 = len + $urandom_range(0, 9); s2 = n1 * s1 + $urandom_range(0, 9);
    s3 = n2 * s2 + $urandom_range(0, 9);
    t1 = len / unit + $urandom_range(0, 2);
    cols = pl + n1 + pr; rows = pt + n2 + pb;
    t2 = cols * t1 + $urandom_range(0, 2);
    t3 = rows * t2 + $urandom_range(0, 2);
    da = $urandom_range(0, DN - 1 - n3 * s3);
    sa = $urandom_range(0, (acc ? AN : SN) / unit - 1 - n3 * t3);
    I[7:0] = st ? 8'(OP_STORE) : 8'(OP_LOAD);
    I[LOAD_SRAM_LSB +: LOAD_SRAM_W] = acc ? LOAD_SRAM_W'(MEMORY_ACC) : LOAD_SRAM_W'(MEMORY_SP);
    I[LOAD_ELEM_BYTES_LSB +: LOAD_ELEM_BYTES_W] = LOAD_ELEM_BYTES_W'(elem);
    I[LOAD_U8_TO_I8_LSB] = flip[0];  // STORE's i8_to_u8 has the same position
    I[LOAD_SRAM_ADDR_LSB +: LOAD_SRAM_ADDR_W] = LOAD_SRAM_ADDR_W'(sa);
    I[LOAD_DRAM_ADDR_LSB +: LOAD_DRAM_ADDR_W] = LOAD_DRAM_ADDR_W'(da);
    I[LOAD_N0_LSB +: LOAD_N0_W] = LOAD_N0_W'(n0);
    I[LOAD_N1_LSB +: LOAD_N1_W] = LOAD_N1_W'(n1);
    I[LOAD_N2_LSB +: LOAD_N2_W] = LOAD_N2_W'(n2);
    I[LOAD_N3_LSB +: LOAD_N3_W] = LOAD_N3_W'(n3);
    I[LOAD_S1_LSB +: LOAD_S1_W] = LOAD_S1_W'(s1);
    I[LOAD_S2_LSB +: LOAD_S2_W] = LOAD_S2_W'(s2);
    I[LOAD_S3_LSB +: LOAD_S3_W] = LOAD_S3_W'(s3);
    I[LOAD_T1_LSB +: LOAD_T1_W] = LOAD_T1_W'(t1);
    I[LOAD_T2_LSB +: LOAD_T2_W] = LOAD_T2_W'(t2);
    I[LOAD_T3_LSB +: LOAD_T3_W] = LOAD_T3_W'(t3);
    pv = 8'($urandom());
    if (!st) begin
      I[LOAD_PAD_VALUE_LSB +: LOAD_PAD_VALUE_W] = pv;
      I[LOAD_PAD_TOP_LSB +: LOAD_PAD_TOP_W] = LOAD_PAD_TOP_W'(pt);
      I[LOAD_PAD_BOTTOM_LSB +: LOAD_PAD_BOTTOM_W] = LOAD_PAD_BOTTOM_W'(pb);
      I[LOAD_PAD_LEFT_LSB +: LOAD_PAD_LEFT_W] = LOAD_PAD_LEFT_W'(pl);
      I[LOAD_PAD_RIGHT_LSB +: LOAD_PAD_RIGHT_W] = LOAD_PAD_RIGHT_W'(pr);
    end
    nbeats = 0;
    for (int i3 = 0; i3 < n3; i3++)
      for (int i2 = 0; i2 < n2; i2++)
        for (int i1 = 0; i1 < n1; i1++) begin
          automatic int d = da + i1 * s1 + i2 * s2 + i3 * s3;
          automatic int s = (sa + i3 * t3 + (i2 + pt) * t2 + (i1 + pl) * t1) * unit;
          nbeats += ((d + len - 1) / BURST - d / BURST + 1) * (BURST / BW);
          for (int b = 0; b < len; b++)
            if (st) rdram[d + b] = (acc ? raccb[s + b] : rsp[s + b]) ^ {flip[0], 7'd0};
            else if (acc) raccb[s + b] = rdram[d + b] ^ {flip[0], 7'd0};
            else rsp[s + b] = rdram[d + b] ^ {flip[0], 7'd0};
        end
    pad_cycles = 0;
    if (!st && (pt | pb | pl | pr) != 0)
      for (int i3 = 0; i3 < n3; i3++)
        for (int y = 0; y < rows; y++)
          for (int x = 0; x < cols; x++)
            if (!(y >= pt && y < pt + n2 && x >= pl && x < pl + n1)) begin
              automatic int s = (sa + i3 * t3 + y * t2 + x * t1) * unit;
              pad_cycles += (len + BW - 1) / BW;
              for (int b = 0; b < len; b++)
                // pad_value sign-extended: byte 0 is the value, the others its sign
                if (acc) raccb[s + b] = b % 4 == 0 ? pv : {8{pv[7]}};
                else rsp[s + b] = elem == 1 || b % 4 == 0 ? pv : {8{pv[7]}};
            end
    n_paddom += int'(pad_cycles > nbeats);
    if (pad_cycles > nbeats) nbeats = pad_cycles;
    n_load += 1 - st; n_store += st; n_acc += acc; n_flip += flip;
    n_pad += int'(!st && (pt | pb | pl | pr) != 0);
  endtask

  initial
    for (int i = 0; i < DN; i++) begin
      dram[i] = 8'($urandom());
      rdram[i] = dram[i];
      if (i < SN) begin
        sp[i] = 8'($urandom());
        rsp[i] = sp[i];
        accb[i] = 8'($urandom());
        raccb[i] = accb[i];
      end
    end

  always_ff @(negedge clk) begin
    automatic int t = cyc;
    rst <= t < 0;
    start <= 1'b0;
    if (t >= next_grant && n_x < NX) begin
      automatic logic [INSTR_BITS-1:0] I;
      automatic int nb;
      make(I, nb);
      start <= 1'b1;
      start_inst <= I;
      prev_end = grant + beats;  // the cycle after the previous transfer's last beat
      grant = t;
      beats = nb;
      n_beats += nb;
      // The next grant: back to back when the channel frees (1 in 3), else later.
      next_grant = t + nb + ($urandom_range(0, 2) == 0 ? 0 : $urandom_range(2, 4));
      n_x++;
    end
  end

  always_ff @(posedge clk) begin
    cyc <= cyc + 1;
    if (cyc >= 0) begin
      automatic int rel = cyc - grant;
      automatic logic in_xfer = grant >= 0 && rel >= 0 && rel < beats;
      if (pad_we && !in_xfer) $error("cycle %0d: a padding write outside a transfer", cyc);
      if (last_beat !== (in_xfer && rel == beats - 1))
        $error("transfer %0d: last_beat %0d at beat %0d of %0d", n_x, last_beat, rel, beats);
      if (active !== (in_xfer && rel >= 1))
        $error("transfer %0d: active %0d at beat %0d of %0d", n_x, active, rel, beats);
      // The request registered in beat `rel - 1` is on the port now.
      if (dram_req_valid) begin
        if (!((rel >= 1 && rel <= beats) || cyc == prev_end) || int'(dram_req_addr) % BW != 0)
          $error("transfer %0d: DRAM request at %0d in cycle %0d of a %0d-beat window",
                 n_x, dram_req_addr, rel, beats);
        if (dram_req_write)
          for (int j = 0; j < BW; j++)
            if (dram_req_wstrb[j]) dram[(int'(dram_req_addr) + j) % DN] = dram_req_wdata[j*8 +: 8];
      end
      if (wr_valid)
        for (int j = 0; j < int'(wr_len); j++)
          if (wr_acc) accb[(int'(wr_addr) + j) % AN] = wr_data[j*8 +: 8];
          else sp[(int'(wr_addr) + j) % SN] = wr_data[j*8 +: 8];
      if (pad_we)
        for (int j = 0; j < int'(pad_len); j++)
          if (pad_acc) accb[(int'(pad_addr) + j) % AN] = pad_data[j*8 +: 8];
          else sp[(int'(pad_addr) + j) % SN] = pad_data[j*8 +: 8];
      // One cycle after the last beat's request is served, unless the next
      // transfer was granted back to back: compare (cumulative memories).
      if (grant >= 0 && rel == beats + 1) begin
        for (int i = 0; i < DN; i++)
          if (dram[i] !== rdram[i]) $error("transfer %0d: DRAM[%0d] = %0d, expected %0d", n_x, i, dram[i], rdram[i]);
        for (int i = 0; i < SN; i++) begin
          if (sp[i] !== rsp[i]) $error("transfer %0d: SP[%0d] = %0d, expected %0d", n_x, i, sp[i], rsp[i]);
          if (accb[i] !== raccb[i]) $error("transfer %0d: ACC byte %0d = %0d, expected %0d", n_x, i, accb[i], raccb[i]);
        end
        checks++;
        if (n_x == NX) begin
          if (checks < NX / 2 || n_load < 60 || n_store < 60 || n_acc < 20 || n_flip < 20 || n_pad < 15 ||
              n_paddom < 5)
            $error("coverage: %0d checked, %0d loads, %0d stores, %0d ACC, %0d flips, %0d padded, %0d padding-bound",
                   checks, n_load, n_store, n_acc, n_flip, n_pad, n_paddom);
          $display("tb_npu_dma: %0d transfers, %0d compared at their end (%0d loads, %0d stores, %0d ACC, %0d flipped, %0d padded, %0d padding-bound), %0d channel cycles, memories and beat windows checked",
                   n_x, checks, n_load, n_store, n_acc, n_flip, n_pad, n_paddom, n_beats);
          $finish;
        end
      end
    end
  end
endmodule
