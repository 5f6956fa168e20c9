// Shared pieces of the binary32 units (docs/isa.md §4: IEEE-754 binary32,
// round to nearest even, denormals honoured): unpacking, leading-zero count,
// the one rounding step (normalize, round, pack, with subnormal results and
// overflow to infinity) and the exact sum of two terms used by add and fma.
//
// Synthesizable integer logic (Yosys 0.23 subset: no `return`, no casts,
// package-qualified calls). NaN results are the canonical quiet NaN
// 0x7fc00000: every fp32 value the NPU computes ends in cvtps2dq (NaN ->
// INT32_MIN) or in _mm_max/min_ps (NaN compares false), so only NaN-ness is
// architecturally visible, never the payload.
package npu_fp32_core_pkg;
  localparam logic [31:0] QNAN = 32'h7fc00000;
  // Width of the rounding step's significand input.
  localparam int RW = 56;

  function automatic logic is_nan(input logic [31:0] a);
    is_nan = (a[30:23] == 8'hff) && (a[22:0] != 23'd0);
  endfunction
  function automatic logic is_inf(input logic [31:0] a);
    is_inf = (a[30:23] == 8'hff) && (a[22:0] == 23'd0);
  endfunction
  function automatic logic is_zero(input logic [31:0] a);
    is_zero = a[30:0] == 31'd0;
  endfunction

  // A finite binary32 is sig * 2^exp with a 24-bit sig (hidden bit for
  // normals) and exp = max(E, 1) - 150.
  function automatic logic [23:0] sig_of(input logic [31:0] a);
    sig_of = {a[30:23] != 8'd0, a[22:0]};
  endfunction
  function automatic logic signed [11:0] exp_of(input logic [31:0] a);
    if (a[30:23] == 8'd0) exp_of = -12'sd149;
    else exp_of = $signed({4'd0, a[30:23]}) - 12'sd150;
  endfunction

  // Number of leading zeros of a 56-bit value (56 for zero).
  function automatic logic [5:0] lzc56(input logic [RW-1:0] m);
    logic [5:0] n, k;
    n = 6'd56;
    k = 6'd55;
    for (int i = 0; i < RW; i++) begin
      if (m[i]) n = k;
      k = k - 6'd1;
    end
    lzc56 = n;
  endfunction

  // Rounds sign * m * 2^e to binary32 (RNE). m's bit 0 may be a jammed
  // sticky bit ("something nonzero below"), which is exact as long as the
  // rounding position is at least two bits above it (callers guarantee it).
  function automatic logic [31:0] round_pack(input logic sign, input logic [RW-1:0] m,
                                             input logic signed [11:0] e);
    logic [5:0] lz;
    logic [RW-1:0] mn, mr;
    logic signed [11:0] be, sh;
    logic [5:0] shc;
    logic [22:0] q;
    logic g, rest, up;
    logic [7:0] ef;
    logic [30:0] mag;
    lz = lzc56(m);
    mn = m << lz;
    // The leading bit has weight 2^(e - lz + RW - 1); biased exponent:
    be = e - $signed({6'd0, lz}) + 12'sd55 + 12'sd127;
    if (be >= 12'sd1) sh = 12'sd0;
    else sh = 12'sd1 - be;
    if (sh > 12'sd56) shc = 6'd56;
    else shc = sh[5:0];
    mr = mn >> shc;
    q = mr[RW-2:RW-24];  // bit RW-1 is the exponent's (hidden bit)
    g = mr[RW-25];
    rest = (mr[RW-26:0] != '0) || ((mr << shc) != mn);
    up = g && (rest || q[0]);
    ef = (be >= 12'sd1) ? be[7:0] : 8'd0;
    mag = {ef, q} + {30'd0, up};
    if (m == '0) round_pack = {sign, 31'd0};
    else if (be >= 12'sd255) round_pack = {sign, 8'hff, 23'd0};
    else round_pack = {sign, mag};
  endfunction

  // Rounds the exact sum sx * mx * 2^ex + sy * my * 2^ey (mx, my nonzero,
  // at most 48 bits) to binary32. The smaller term is aligned into a 52-bit
  // window with its shifted-out bits jammed into bit 0; the larger term's
  // low 4 bits are zero, so the result has >= 24 + 2 bits above the jam
  // whenever anything is jammed (alignment by >= 5 leaves at most one bit
  // of cancellation). An exact zero sum is +0 (RNE).
  function automatic logic [31:0] add_terms(input logic sx, input logic [47:0] mx,
                                            input logic signed [11:0] ex, input logic sy,
                                            input logic [47:0] my, input logic signed [11:0] ey);
    logic [5:0] lx, ly;
    logic [47:0] nx, ny, tm;
    logic signed [11:0] fx, fy, te, d;
    logic s1, s2, swap, jam;
    logic [51:0] wx, wy, ws;
    logic [5:0] dc;
    logic [52:0] z;
    lx = lzc56({8'd0, mx}) - 6'd8;
    ly = lzc56({8'd0, my}) - 6'd8;
    nx = mx << lx;
    ny = my << ly;
    fx = ex - $signed({6'd0, lx});
    fy = ey - $signed({6'd0, ly});
    swap = (fy > fx) || ((fy == fx) && (ny > nx));
    s1 = sx;
    s2 = sy;
    if (swap) begin
      tm = nx; nx = ny; ny = tm;
      te = fx; fx = fy; fy = te;
      s1 = sy; s2 = sx;
    end
    d = fx - fy;
    if (d > 12'sd52) dc = 6'd52;
    else dc = d[5:0];
    wx = {nx, 4'd0};
    ws = {ny, 4'd0};
    wy = ws >> dc;
    jam = (wy << dc) != ws;
    wy = wy | {51'd0, jam};
    if (s1 != s2) z = {1'b0, wx} - {1'b0, wy};
    else z = {1'b0, wx} + {1'b0, wy};
    if (z == '0) add_terms = 32'd0;
    else add_terms = round_pack(s1, {3'd0, z}, fx - 12'sd4);
  endfunction
endpackage
